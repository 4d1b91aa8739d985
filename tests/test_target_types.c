#define _POSIX_C_SOURCE 200809L
/* The targets' operand-type tables (target/target.h, struct
 * pm_operand_row; docs/decisions/0026-operand-type-table.md): which
 * operand types each target multiplies, into which outputs, and the
 * spellings the generated code takes from the row; what gen makes of
 * operand types (bf16 generates on sm_80 and sm_90a) and how it refuses
 * the others: "unsupported" at the declaration or statement, exit 1. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polymma.h"
#include "target/target.h"

static const char *const names[] = { "sm_70", "sm_80", "sm_90a", "host" };

/* Every row: one per operand type, its spellings those of its type,
 * 16-bit elements with the target's k and block k (or 8-bit ones, K-major:
 * sm_90a's f8 and i8 rows with k 32, sm_80's i8 with a block k of 64, the
 * host rendering's with its k), its accumulators among its outputs. */
static void test_rows_well_formed(void **state)
{
	(void) state;
	for (int i = 0; i < 4; ++i) {
		const struct pm_target *t = pm_target_find(names[i]);

		assert_non_null(t);
		assert_true(t->noperands >= 1);
		for (int r = 0; r < t->noperands; ++r) {
			const struct pm_operand_row *o = &t->operands[r];

			assert_ptr_equal(pm_target_operand(t, o->in), o);
			assert_non_null(o->elem);
			assert_ptr_equal(o->elem, pm_elem_storage(o->in));
			assert_int_equal(o->elem->type, o->in);
			assert_int_equal(o->acc, pm_type_accum(o->in));
			/* the accumulator type among the outputs */
			assert_true(o->outs >> o->acc & 1u);
			if (o->elem->bytes == 2) {
				assert_ptr_equal(o->elem, pm_elem_of(o->in));
				assert_int_equal(pm_operand_k(t, o), t->ik);
				assert_false(o->k_major);
				assert_int_equal(o->bk, 0);
				assert_string_equal(o->ptx, pm_type_name(o->in));
				continue;
			}
			/* "f8e4m3": "e4m3", "i8": "s8"; sm_80: i8 only; the
			 * rows of the k tile as many bytes as the 16-bit
			 * default's (docs/decisions/0032, 0035) */
			assert_int_equal(o->elem->bytes, 1);
			assert_null(pm_elem_of(o->in));
			assert_true(o->k_major);
			if (!t->emits_cuda) {
				/* the host rendering's, one element deep
				 * (tests/test_kmajor.c) */
				assert_int_equal(pm_operand_k(t, o), t->ik);
			} else {
				assert_int_equal(o->bk * o->elem->bytes,
					t->bk * 2);
				if (!strcmp(t->name, "sm_80"))
					assert_int_equal(o->in, PM_I8);
				else
					assert_string_equal(t->name, "sm_90a");
				assert_int_equal(pm_operand_k(t, o), 32);
				assert_non_null(o->instr);
			}
			if (o->in == PM_I8)
				assert_string_equal(o->ptx, "s8");
			else
				assert_string_equal(o->ptx, pm_type_name(o->in) + 2);
			for (int q = 0; q < r; ++q)
				assert_int_not_equal(t->operands[q].in, o->in);
		}
	}
}

/* What each target multiplies (pm_target_supports). */
static void test_supports(void **state)
{
	const struct pm_target *s70 = pm_target_find("sm_70");
	const struct pm_target *s80 = pm_target_find("sm_80");
	const struct pm_target *s90 = pm_target_find("sm_90a");
	const struct pm_target *both[] = { s80, s90 };

	(void) state;
	for (int i = 0; i < 2; ++i) {
		const struct pm_target *t = both[i];

		assert_true(pm_target_supports(t, PM_F16, PM_F16));
		assert_true(pm_target_supports(t, PM_F16, PM_F32));
		assert_true(pm_target_supports(t, PM_BF16, PM_BF16));
		assert_true(pm_target_supports(t, PM_BF16, PM_F32));
		/* the store converts the f32 accumulators to any 16-bit
		 * float: bf16 -> f16 and f16 -> bf16 too */
		assert_true(pm_target_supports(t, PM_BF16, PM_F16));
		assert_true(pm_target_supports(t, PM_F16, PM_BF16));
		assert_false(pm_target_supports(t, PM_BF16, PM_I8));
		assert_false(pm_target_supports(t, PM_BF16, PM_I32));
		assert_false(pm_target_supports(t, PM_F32, PM_F32));
		assert_false(pm_target_supports(t, PM_I32, PM_I32));
		assert_null(pm_target_operand(t, PM_F32));
	}
	/* i8: sm_80 and sm_90a, into i32 or through an epilogue a
	 * float (schedule_tree/kernel.c); not sm_70 */
	for (int i = 0; i < 2; ++i) {
		const struct pm_target *t = both[i];

		assert_true(pm_target_supports(t, PM_I8, PM_I32));
		assert_true(pm_target_supports(t, PM_I8, PM_F32));
		assert_true(pm_target_supports(t, PM_I8, PM_F16));
		assert_true(pm_target_supports(t, PM_I8, PM_BF16));
		assert_false(pm_target_supports(t, PM_I8, PM_I8));
		assert_int_equal(pm_target_operand(t, PM_I8)->acc, PM_I32);
		assert_int_equal(pm_operand_k(t, pm_target_operand(t, PM_I8)),
			32);
		assert_true(pm_target_operand(t, PM_I8)->k_major);
	}
	assert_null(pm_target_operand(s70, PM_I8));
	assert_false(pm_target_supports(s70, PM_I8, PM_I32));
	/* the 8-bit floats: sm_90a only, into the float outputs */
	for (int e = PM_F8E4M3; e <= PM_F8E5M2; ++e) {
		assert_null(pm_target_operand(s70, (enum pm_type) e));
		assert_null(pm_target_operand(s80, (enum pm_type) e));
		assert_true(pm_target_supports(s90, (enum pm_type) e, PM_F16));
		assert_true(pm_target_supports(s90, (enum pm_type) e, PM_BF16));
		assert_true(pm_target_supports(s90, (enum pm_type) e, PM_F32));
		assert_false(pm_target_supports(s90, (enum pm_type) e,
			(enum pm_type) e));
		assert_false(pm_target_supports(s90, (enum pm_type) e, PM_I32));
	}
	assert_true(pm_target_supports(s70, PM_F16, PM_F16));
	assert_true(pm_target_supports(s70, PM_F16, PM_F32));
	assert_false(pm_target_supports(s70, PM_BF16, PM_BF16));
	assert_false(pm_target_supports(s70, PM_BF16, PM_F32));
	assert_null(pm_target_operand(s70, PM_BF16));
	assert_int_equal(s70->noperands, 1);
}

/* The spellings of f16 and bf16; no row for the other types. */
static void test_elems(void **state)
{
	const struct pm_elem *h = pm_elem_of(PM_F16), *b = pm_elem_of(PM_BF16);

	(void) state;
	assert_non_null(h);
	assert_non_null(b);
	assert_null(pm_elem_of(PM_F32));
	assert_null(pm_elem_of(PM_I8));
	assert_null(pm_elem_of(PM_I32));
	assert_string_equal(h->ctype, "__half");
	assert_string_equal(h->pair, "__half2");
	assert_string_equal(h->to_f32, "__half2float");
	assert_string_equal(h->from_f32, "__float2half_rn");
	assert_string_equal(h->pair_from_f32, "__float2half2_rn");
	assert_string_equal(h->tma, "CU_TENSOR_MAP_DATA_TYPE_FLOAT16");
	assert_string_equal(b->ctype, "__nv_bfloat16");
	assert_string_equal(b->pair, "__nv_bfloat162");
	assert_string_equal(b->to_f32, "__bfloat162float");
	assert_string_equal(b->from_f32, "__float2bfloat16_rn");
	assert_string_equal(b->pair_from_f32, "__float2bfloat162_rn");
	assert_string_equal(b->bits, "__bfloat16_as_ushort");
	assert_string_equal(b->tma, "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16");
	/* exact constants: 11 and 8 significant bits */
	assert_int_equal(h->mant, 11);
	assert_int_equal(b->mant, 8);
	assert_int_equal(b->emax, 127);
	/* the 8-bit floats: storage only (no pointwise spellings) */
	assert_null(pm_elem_of(PM_F8E4M3));
	assert_ptr_equal(pm_elem_storage(PM_F16), h);
	assert_string_equal(pm_elem_storage(PM_F8E4M3)->ctype,
		"__nv_fp8_e4m3");
	assert_string_equal(pm_elem_storage(PM_F8E5M2)->ctype,
		"__nv_fp8_e5m2");
	assert_int_equal(pm_elem_storage(PM_F8E5M2)->bytes, 1);
	assert_null(pm_elem_of(PM_I8));
	assert_string_equal(pm_elem_storage(PM_I8)->ctype, "int8_t");
	assert_null(pm_elem_storage(PM_I32));
}

/* The rows' PTX tokens, in the targets' instructions. */
static void test_ptx(void **state)
{
	const struct pm_target *s80 = pm_target_find("sm_80");
	const struct pm_target *s90 = pm_target_find("sm_90a");
	char buf[128];

	(void) state;
	assert_string_equal(pm_target_operand(s80, PM_BF16)->ptx, "bf16");
	assert_string_equal(pm_target_operand(s90, PM_BF16)->ptx, "bf16");
	assert_string_equal(pm_target_operand(s80, PM_F16)->ptx, "f16");
	snprintf(buf, sizeof(buf), s80->instr, "bf16", "bf16");
	assert_string_equal(buf,
		"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32");
	snprintf(buf, sizeof(buf), s90->instr, "bf16", "bf16");
	assert_string_equal(buf,
		"wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16");
	snprintf(buf, sizeof(buf), pm_target_operand(s90, PM_F8E5M2)->instr,
		"e5m2", "e5m2");
	assert_string_equal(buf,
		"wgmma.mma_async.sync.aligned.m64nNk32.f32.e5m2.e5m2");
	snprintf(buf, sizeof(buf), pm_target_operand(s80, PM_I8)->instr,
		"s8", "s8");
	assert_string_equal(buf,
		"mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32");
	assert_string_equal(pm_target_operand(s80, PM_I8)->ptx, "s8");
}

/* The lists the refusals print. */
static void test_lists(void **state)
{
	char buf[64];

	(void) state;
	pm_target_operand_list(pm_target_find("sm_80"), buf, sizeof(buf));
	assert_string_equal(buf, "f16, bf16 or i8");
	pm_target_operand_list(pm_target_find("sm_70"), buf, sizeof(buf));
	assert_string_equal(buf, "f16");
	pm_operand_out_list(pm_target_operand(pm_target_find("sm_90a"),
		PM_BF16), buf, sizeof(buf));
	assert_string_equal(buf, "f16, bf16 or f32");
	pm_target_operand_list(pm_target_find("sm_90a"), buf, sizeof(buf));
	assert_string_equal(buf, "f16, bf16, f8e4m3, f8e5m2 or i8");
}

/* polymma_generate of text for target with the options opt (key, value
 * pairs, NULL-terminated; may be NULL): its status, the diagnostics in
 * *diag and, where src, the source in *src (the caller's). */
static int generate_with(const char *target, const char *const *opt,
	const char *text, char **diag, char **src)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	int rc;

	assert_non_null(ctx);
	assert_non_null(o);
	assert_int_equal(polymma_options_set(o, "target", target, NULL), 0);
	for (int i = 0; opt && opt[i]; i += 2)
		assert_int_equal(polymma_options_set(o, opt[i], opt[i + 1],
			NULL), 0);
	rc = polymma_generate(ctx, text, "t.tc", o, &r);
	*diag = strdup(polymma_diagnostics(ctx));
	if (rc == POLYMMA_OK)
		assert_non_null(strstr(polymma_result_source(r), "#define PM_AB_T"));
	if (src)
		*src = rc == POLYMMA_OK ? strdup(polymma_result_source(r)) : NULL;
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	return rc;
}

static int generate(const char *target, const char *text, char **diag)
{
	return generate_with(target, NULL, text, diag, NULL);
}

/* gen for target with options opt refuses text (exit 1): its diagnostic
 * is exactly want's first line (then, for a spec error, the source line
 * and caret). */
static void refused_with(const char *target, const char *const *opt,
	const char *text, const char *want)
{
	char *diag;
	int rc = generate_with(target, opt, text, &diag, NULL);
	size_t n = strcspn(diag, "\n");

	if (rc != POLYMMA_ERR_SPEC || strlen(want) != n ||
	    strncmp(diag, want, n))
		fprintf(stderr, "rc %d, want\n%s\ngot\n%s", rc, want, diag);
	assert_int_equal(rc, POLYMMA_ERR_SPEC);
	assert_int_equal(strlen(want), n);
	assert_int_equal(strncmp(diag, want, n), 0);
	free(diag);
}

static void refused(const char *target, const char *text, const char *want)
{
	refused_with(target, NULL, text, want);
}

static void generates(const char *target, const char *text)
{
	char *diag;
	int rc = generate(target, text, &diag);

	if (rc != POLYMMA_OK)
		fprintf(stderr, "%s", diag);
	assert_int_equal(rc, POLYMMA_OK);
	free(diag);
}

#define GEMM_NT(ta, tb, tc) "def g(" ta "(M, K) A, " tb "(N, K) B) -> (" tc \
	"(M, N) C) {\n  C(i, j) +=! A(i, k) * B(j, k)\n}\n"

#define GEMM(ta, tb, tc) "def g(" ta "(M, K) A, " tb "(K, N) B) -> (" tc \
	"(M, N) C) {\n  C(i, j) +=! A(i, k) * B(k, j)\n}\n"

static void test_gen_bf16(void **state)
{
	(void) state;
	generates("sm_80", GEMM("bf16", "bf16", "bf16"));
	generates("sm_90a", GEMM("bf16", "bf16", "bf16"));
	generates("sm_80", GEMM("bf16", "bf16", "f32"));
	generates("sm_90a", GEMM("bf16", "bf16", "f16"));
	generates("sm_80", GEMM("f16", "f16", "bf16"));
	/* epilogue inputs of either 16-bit type or f32 */
	generates("sm_90a", "def g(bf16(M, K) A, bf16(K, N) B, f16(N) b, "
		"f32(M) s) -> (bf16(M, N) C) {\n  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) = relu(C(i, j) + b(j)) * s(i)\n}\n");
}

/* Mixed operand types (docs/decisions/0047): an i8 operand beside an f16
 * or bf16 one, widened to its type, on every target that multiplies
 * that type; the other pairs refused at the contraction. */
static void test_gen_mixed(void **state)
{
	static const char *const tg[] = { "sm_70", "sm_80", "sm_90a" };
	static const char w8_zp[] = "def g(f16(M, K) A, i8(K, N) Bq, f16(N) z, "
		"f16(N) s) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * ((Bq(k, j) - z(j)) * s(j))\n}\n";

	(void) state;
	for (int t = 0; t < 3; ++t) {
		generates(tg[t], GEMM("f16", "i8", "f16"));
		generates(tg[t], GEMM("i8", "f16", "f16"));
		generates(tg[t], GEMM_NT("f16", "i8", "f16"));
		generates(tg[t], w8_zp);
	}
	for (int t = 1; t < 3; ++t) {
		generates(tg[t], GEMM("bf16", "i8", "bf16"));
		generates(tg[t], GEMM_NT("bf16", "i8", "f32"));
	}
	refused("sm_70", GEMM("bf16", "i8", "f16"), "t.tc:1:18: error: "
		"unsupported: target sm_70 multiplies f16 operands; 'A' is bf16");
	refused("sm_90a", GEMM_NT("f16", "f8e4m3", "f16"), "t.tc:2:3: error: "
		"unsupported: the operands have different types (f16 'A' x "
		"f8e4m3 'B'); an operand of another type than its partner's is "
		"widened on target sm_90a only from i8 into f16 "
		"(docs/decisions/0047)");
	refused("sm_80", GEMM("f16", "f32", "f32"), "t.tc:2:3: error: "
		"unsupported: the operands have different types (f16 'A' x f32 "
		"'B'); an operand of another type than its partner's is widened "
		"on target sm_80 only from i8 into f16 (docs/decisions/0047)");
	/* the MMA's type decides the output: f32 accumulators, not i32 */
	refused("sm_80", GEMM("f16", "i8", "i32"), "t.tc:1:46: error: "
		"unsupported: target sm_80 multiplies f16 operands into f16, "
		"bf16 or f32 outputs; 'C' is i32");
	/* a prologue on the widened operand computes in fp32 and rounds to
	 * the MMA's type; --pro-regs on cannot take the widened A */
	generates("sm_90a", "def g(i8(M, K) A, f16(K, N) B, f16(M) s) -> "
		"(f16(M, N) C) {\n  C(i, j) +=! relu(A(i, k) - s(i)) * B(k, j)\n"
		"}\n");
}

static void test_gen_refused(void **state)
{
	(void) state;
	refused("sm_70", GEMM("bf16", "bf16", "bf16"), "t.tc:1:18: error: "
		"unsupported: target sm_70 multiplies f16 operands; 'A' is bf16");
	refused("sm_70", GEMM("bf16", "bf16", "f32"), "t.tc:1:18: error: "
		"unsupported: target sm_70 multiplies f16 operands; 'A' is bf16");
	refused("sm_80", GEMM("f16", "bf16", "f32"), "t.tc:2:3: error: "
		"unsupported: the operands have different types (f16 'A' x "
		"bf16 'B'); an operand of another type than its partner's is "
		"widened on target sm_80 only from i8 into f16 "
		"(docs/decisions/0047)");
	refused("sm_90a", GEMM("bf16", "f16", "bf16"), "t.tc:2:3: error: "
		"unsupported: the operands have different types (bf16 'A' x "
		"f16 'B'); an operand of another type than its partner's is "
		"widened on target sm_90a only from i8 into bf16 "
		"(docs/decisions/0047)");
	refused("sm_90a", GEMM("f32", "f32", "f32"), "t.tc:1:17: error: "
		"unsupported: target sm_90a multiplies f16, bf16, f8e4m3, "
		"f8e5m2 or i8 operands; 'A' is f32");
	refused("sm_80", GEMM("i32", "i32", "i32"), "t.tc:1:17: error: "
		"unsupported: target sm_80 multiplies f16, bf16 or i8 operands; "
		"'A' is i32");
	refused("sm_80", GEMM("bf16", "bf16", "i32"), "t.tc:1:49: error: "
		"unsupported: target sm_80 multiplies bf16 operands into f16, "
		"bf16 or f32 outputs; 'C' is i32");
	/* two contractions of different types */
	refused("sm_90a", "def g(f16(M, K) A, f16(K, N) B, bf16(M, K) E, "
		"bf16(K, N) F) -> (f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n  D(i, j) +=! E(i, k) * F(k, j)\n"
		"  O(i, j) = C(i, j) + D(i, j)\n}\n", "t.tc:3:3: error: "
		"unsupported: the contractions multiply different operand types "
		"(f16 and bf16); one kernel multiplies one type");
	/* an epilogue input pointwise code cannot load */
	refused("sm_80", "def g(bf16(M, K) A, bf16(K, N) B, i8(N) b) -> "
		"(bf16(M, N) C) {\n  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) = C(i, j) + b(j)\n}\n", "t.tc:3:23: error: "
		"unsupported: epilogue input 'b' is i8; epilogue inputs are "
		"f16, bf16 or f32");
}

/* A, B K-major: "nt" */
/* The 8-bit operands on sm_90a (docs/decisions/0029): K-major, into the
 * float outputs, scaled by an epilogue (i8: dequantized). */
static void test_gen_f8(void **state)
{
	(void) state;
	/* a whole sm_90a variant set each (seconds): the other specs are in
	 * tests/test_variants.c and tests/test_nvcc.c */
	generates("sm_90a", GEMM_NT("f8e4m3", "f8e4m3", "f16"));
	generates("sm_90a", "def g(f8e5m2(M, K) A, f8e5m2(N, K) B, f32 sa, "
		"f32 sb) -> (f32(M, N) C) {\n  X(i, j) +=! A(i, k) * B(j, k)\n"
		"  C(i, j) = X(i, j) * sa * sb\n}\n");
	generates("sm_90a", "def g(i8(M, K) A, i8(N, K) B, f32(M) sa, f32 s) "
		"-> (bf16(M, N) C) {\n  X(i, j) +=! A(i, k) * B(j, k)\n"
		"  C(i, j) = X(i, j) * sa(i) * s\n}\n");
	/* MN-major: the kernels read K-major copies (docs/decisions/0033;
	 * tests/test_kmajor.c): B(k, j), A(k, i), both */
	generates("sm_90a", GEMM("f8e4m3", "f8e4m3", "f16"));
	generates("sm_90a", "def g(f8e5m2(K, M) A, f8e5m2(N, K) B) -> "
		"(f32(M, N) C) {\n  C(i, j) +=! A(k, i) * B(j, k)\n}\n");
	generates("sm_90a", "def g(i8(K, M) A, i8(K, N) B) -> "
		"(i32(M, N) C) {\n  C(i, j) +=! A(k, i) * B(k, j)\n}\n");
}

/* Every 8-bit combination a target cannot do: at file:line:col, with
 * `unsupported:`. */
static void test_gen_f8_refused(void **state)
{
	(void) state;
	refused("sm_80", GEMM_NT("f8e4m3", "f8e4m3", "f16"), "t.tc:1:20: "
		"error: unsupported: target sm_80 multiplies f16, bf16 or i8 "
		"operands; 'A' is f8e4m3");
	refused("sm_70", GEMM_NT("f8e5m2", "f8e5m2", "f32"), "t.tc:1:20: "
		"error: unsupported: target sm_70 multiplies f16 operands; "
		"'A' is f8e5m2");
	refused("sm_70", GEMM_NT("i8", "i8", "i32"), "t.tc:1:16: error: "
		"unsupported: target sm_70 multiplies f16 operands; 'A' is i8");
	refused("sm_90a", GEMM_NT("i8", "i8", "f32"), "t.tc:1:45: error: "
		"unsupported: 'C' is f32 without an epilogue; i8 operands' i32 "
		"accumulators are stored as i32 (convert in an epilogue: D(i, j) "
		"= C(i, j))");
	refused("sm_90a", "def g(i8(M, K) A, i8(N, K) B) -> (i32(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * B(j, k)\n  C(i, j) = C(i, j) * 2\n}\n",
		"t.tc:1:45: error: unsupported: 'C' is i32 after an epilogue; an "
		"epilogue on i8 operands' i32 accumulators computes in f32: its "
		"output is f32, f16 or bf16");
	refused("sm_90a", GEMM_NT("i8", "i8", "i8"), "t.tc:1:44: error: "
		"unsupported: target sm_90a multiplies i8 operands into f16, "
		"bf16, f32 or i32 outputs; 'C' is i8");
	/* read both MN-major and K-major: no K-major copy serves both
	 * (docs/decisions/0033) */
	refused("sm_90a", "def g(f8e4m3(K, K) A, f8e4m3(N, K) B, "
		"f8e4m3(N, K) E) -> (f32(K, N) C) {\n"
		"  X(i, j) +=! A(k, i) * B(j, k)\n"
		"  Y(i, j) +=! A(i, k) * E(j, k)\n  C(i, j) = X(i, j) + Y(i, j)\n"
		"}\n", "t.tc:2:15: error: unsupported: target sm_90a reads "
		"f8e4m3 operands K-major only: 'A' is read MN-major here and "
		"K-major elsewhere (the launcher makes a K-major copy of an "
		"operand read MN-major throughout)");
	refused("sm_90a", GEMM_NT("f8e4m3", "f8e5m2", "f16"), "t.tc:2:3: "
		"error: unsupported: the operands have different types (f8e4m3 "
		"'A' x f8e5m2 'B'); target sm_90a widens neither to the other's "
		"type (docs/decisions/0047)");
	refused("sm_90a", GEMM_NT("f8e4m3", "f8e4m3", "f8e4m3"), "t.tc:1:56: "
		"error: unsupported: target sm_90a multiplies f8e4m3 operands "
		"into f16, bf16 or f32 outputs; 'C' is f8e4m3");
	refused("sm_90a", "def g(f8e4m3(M, K) A, f8e4m3(N, K) B) -> "
		"(f16(M, N) C) {\n  C(i, j) +=! relu(A(i, k)) * B(j, k)\n}\n",
		"t.tc:2:15: error: unsupported: a prologue on f8e4m3 operands "
		"(pointwise code reads 16-bit floats; the tensor cores alone "
		"read f8e4m3)");
	refused("sm_90a", "def g(f8e4m3(M, K) A, f8e4m3(N, K) B, f8e4m3(N) b) "
		"-> (f16(M, N) C) {\n  C(i, j) +=! A(i, k) * B(j, k)\n"
		"  C(i, j) = C(i, j) + b(j)\n}\n", "t.tc:3:23: error: "
		"unsupported: epilogue input 'b' is f8e4m3; epilogue inputs are "
		"f16, bf16 or f32");
}

/* i8 on sm_80 (docs/decisions/0032-sm80-i8.md): m16n8k32, K-major,
 * block k 64 and the macro k 32 by default, no split-K; into i32, or
 * dequantized by an epilogue into a float; the kernels are the fragment
 * pipeline's (pm_sm80_ldf over 16-element chunks). */
static void test_gen_i8_sm80(void **state)
{
	static const char *const mma[] = { "mma", "64x64x32", NULL };
	char *diag, *src;

	(void) state;
	assert_int_equal(generate_with("sm_80", NULL, GEMM_NT("i8", "i8",
		"i32"), &diag, &src), POLYMMA_OK);
	free(diag);
	assert_non_null(strstr(src, "(mma.sync.aligned.m16n8k32.row.col.s32."
		"s8.s8.s32)"));
	assert_non_null(strstr(src, " * block    128x128x64\n"));
	assert_non_null(strstr(src, " * mma      32x32x32\n"));
	assert_non_null(strstr(src, "split-k 1\n"));
	assert_non_null(strstr(src, "#define PM_ACC_PTX \"s32\""));
	assert_non_null(strstr(src, "pm_sm80_ldf<64, 64, 1, 64, 1, 0, 64, 1>"));
	assert_non_null(strstr(src, "pm_smem_off<64, 1, 0, 16>"));
	assert_non_null(strstr(src, "_small             64x64x64"));
	assert_non_null(strstr(src, "_split             not built: the "
		"kernel does not split k"));
	free(src);
	/* the dequantizing epilogue into bf16 */
	generates("sm_80", "def g(i8(M, K) A, i8(N, K) B, f32(M) sa, f32 s) "
		"-> (bf16(M, N) C) {\n  X(i, j) +=! A(i, k) * B(j, k)\n"
		"  C(i, j) = X(i, j) * sa(i) * s\n}\n");
	/* a macro k of 32 the user chose; 64-byte rows padded */
	assert_int_equal(generate_with("sm_80", mma, GEMM_NT("i8", "i8",
		"i32"), &diag, &src), POLYMMA_OK);
	free(diag);
	assert_non_null(strstr(src, "pm_sm80_mma_frag<64, 64>"));
	free(src);
	{
		static const char *const pad[] = { "smem", "pad", NULL };

		assert_int_equal(generate_with("sm_80", pad, GEMM_NT("i8",
			"i8", "i32"), &diag, &src), POLYMMA_OK);
		free(diag);
		/* one 16-byte chunk of padding: a pitch of 80 */
		assert_non_null(strstr(src, "pm_sm80_ldf<64, 64, 1, 80, 0, 0, "
			"80, 0>"));
		free(src);
	}
}

/* What sm_80 refuses of i8 (at file:line:col where the spec is at
 * fault); sm_70 has no i8. */
static void test_gen_i8_sm80_refused(void **state)
{
	static const char *const split[] = { "split-k", "2", NULL };
	static const char *const mma16[] = { "mma", "32x32x16", NULL };
	static const char *const bk32[] = { "block", "128x128x32", NULL };

	(void) state;
	/* MN-major i8 operands are read from K-major copies on sm_80 too
	 * (docs/decisions/0033) */
	generates("sm_80", GEMM("i8", "i8", "i32"));
	generates("sm_80", "def g(i8(K, M) A, i8(N, K) B) -> (i32(M, N) C) {\n"
		"  C(i, j) +=! A(k, i) * B(j, k)\n}\n");
	refused("sm_80", GEMM_NT("i8", "i8", "f16"), "t.tc:1:45: error: "
		"unsupported: 'C' is f16 without an epilogue; i8 operands' i32 "
		"accumulators are stored as i32 (convert in an epilogue: D(i, j) "
		"= C(i, j))");
	refused("sm_80", GEMM_NT("i8", "i8", "i8"), "t.tc:1:44: error: "
		"unsupported: target sm_80 multiplies i8 operands into f16, "
		"bf16, f32 or i32 outputs; 'C' is i8");
	refused("sm_80", "def g(i8(M, K) A, i8(N, K) B) -> (f32(M, N) C) {\n"
		"  C(i, j) +=! relu(A(i, k)) * B(j, k)\n}\n", "t.tc:2:15: error: "
		"unsupported: a prologue on i8 operands (pointwise code reads "
		"16-bit floats; the tensor cores alone read i8)");
	refused_with("sm_80", split, GEMM_NT("i8", "i8", "i32"), "polymma: "
		"error: --split-k 2: i8 operands accumulate in i32, which is not "
		"split (the split-K sums are f32)");
	refused_with("sm_80", mma16, GEMM_NT("i8", "i8", "i32"), "polymma: "
		"error: --mma 32x32x16: target sm_80 multiplies i8 operands 32 "
		"deep per instruction; the macro k must be a multiple of 32");
	refused_with("sm_80", bk32, GEMM_NT("i8", "i8", "i32"), "polymma: "
		"error: --smem swizzle needs tile rows of 64, 128, 256 or 512 "
		"elements; 'A' has 32 (use --smem pad)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_well_formed),
		cmocka_unit_test(test_supports),
		cmocka_unit_test(test_elems),
		cmocka_unit_test(test_ptx),
		cmocka_unit_test(test_lists),
		cmocka_unit_test(test_gen_bf16),
		cmocka_unit_test(test_gen_refused),
		cmocka_unit_test(test_gen_mixed),
		cmocka_unit_test(test_gen_f8),
		cmocka_unit_test(test_gen_f8_refused),
		cmocka_unit_test(test_gen_i8_sm80),
		cmocka_unit_test(test_gen_i8_sm80_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

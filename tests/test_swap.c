/* Swapped rows (variant/swap.h, docs/decisions/0057-swapped-skinny-row.md):
 *  - the spec the kernels see: the outputs' dimensions and accesses
 *    swapped, pm_tensor.tposed, each statement's variables 0 and 1
 *    exchanged; what is refused;
 *  - the kernel: the MMA's rows over N (its A operand the user's B), the
 *    schedule legal after every pass (sm_90a and the host);
 *  - host renderings of swapped kernels (the output stored transposed
 *    through pm_print_stride) against the language's reference at ragged
 *    sizes: GEMM in two layouts, an epilogue with a bias and a residual,
 *    two contractions, split in chunks of k; and the harness is live (the
 *    unswapped kernel given the swapped call fails);
 *  - the sm_90a files: the row built where its B tile is K-major, refused
 *    with its reason elsewhere, its store strided. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/pipeline.h"
#include "polymma.h"
#include "poly/strbuf.h"
#include "target/target.h"
#include "tests/host_render_util.h"
#include "variant/swap.h"

#define GEMM_BIAS \
	"def g(f16(M, K) A, f16(K, N) B, f16(N) bias, f16(M, N) R) -> " \
	"(f32(M, N) C) {\n" \
	"  C(i, j) +=! A(i, k) * B(k, j)\n" \
	"  C(i, j) = relu(C(i, j) + bias(j)) + R(i, j)\n}\n"

/* ---- The spec the kernels see ---- */

static void test_swap_spec(void **state)
{
	struct pm_spec *s = pm_hr_parse(GEMM_BIAS), *k;
	struct pm_diags d;
	const struct pm_expr *e;

	(void) state;
	pm_diags_init(&d, "t", NULL);
	assert_int_equal(pm_swap_spec(s, &k, &d), 0);
	assert_non_null(k);
	/* C (N, M), transposed; the inputs as declared */
	assert_int_equal(k->tensors[4].tposed, 1);
	assert_int_equal(k->tensors[4].dims[0].sym, s->tensors[4].dims[1].sym);
	assert_int_equal(k->tensors[4].dims[1].sym, s->tensors[4].dims[0].sym);
	for (int t = 0; t < 4; ++t) {
		assert_int_equal(k->tensors[t].tposed, 0);
		assert_memory_equal(k->tensors[t].dims, s->tensors[t].dims,
			sizeof(s->tensors[t].dims));
	}
	assert_int_equal(pm_tensor_contig(&k->tensors[4]), 0);
	assert_int_equal(pm_tensor_contig(&k->tensors[0]), 1);
	/* C(j, i) +=! A(i, k) * B(k, j): variables 0 j, 1 i, 2 k */
	assert_string_equal(k->stmts[0].vars[0], "j");
	assert_string_equal(k->stmts[0].vars[1], "i");
	e = k->stmts[0].rhs;
	assert_int_equal(e->args[0]->idx[0], 1);
	assert_int_equal(e->args[0]->idx[1], 2);
	assert_int_equal(e->args[1]->idx[0], 2);
	assert_int_equal(e->args[1]->idx[1], 0);
	/* relu(C(j, i) + bias(j)) + R(i, j) */
	e = k->stmts[1].rhs;
	assert_int_equal(e->args[0]->args[0]->args[0]->idx[0], 0);
	assert_int_equal(e->args[0]->args[0]->args[0]->idx[1], 1);
	assert_int_equal(e->args[0]->args[0]->args[1]->idx[0], 0);
	assert_int_equal(e->args[1]->idx[0], 1);
	assert_int_equal(e->args[1]->idx[1], 0);
	pm_spec_free(k);
	pm_spec_free(s);
	pm_diags_clear(&d);
}

/* The swapped row's configuration on target tg. */
static void swap_config(struct pm_config *cfg, const char *tg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->target = pm_target_find(tg);
	cfg->split_k = 1;
	cfg->swap = 1;
	cfg->smem = 2;
	if (!strcmp(tg, "sm_90a"))
		cfg->bm = 128, cfg->bn = 16, cfg->wm = 64, cfg->wn = 16;
	else
		cfg->bm = 64, cfg->bn = 16, cfg->bk = 32, cfg->wm = 32,
		cfg->wn = 16;
}

/* Batched and reducing specs have no swapped row (the file's row says
 * why: tests/golden/variants.txt). */
static void test_swap_refused(void **state)
{
	static const char *const texts[] = {
		"def b(f16(Bt, M, K) A, f16(K, N) B) -> (f16(Bt, M, N) C) {\n"
		"  C(b, i, j) +=! A(b, i, k) * B(k, j)\n}\n",
		"def r(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C, f32(M) S) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n  S(i) +=! C(i, j)\n}\n",
	};

	(void) state;
	for (int i = 0; i < 2; ++i) {
		struct pm_spec *s = pm_hr_parse(texts[i]);
		isl_ctx *ctx = isl_ctx_alloc();
		struct pm_config cfg;
		struct pm_diags d;

		pm_diags_init(&d, "t", NULL);
		swap_config(&cfg, "sm_90a");
		assert_null(pm_pipeline_until(ctx, s, &cfg, "promote", &d));
		assert_true(d.nerrors > 0);
		pm_diags_clear(&d);
		isl_ctx_free(ctx);
		pm_spec_free(s);
	}
}

/* Every pass before promotion keeps the schedule legal, promotion
 * builds; the MMA's A operand (its rows) is
 * the user's B, its B the user's A, the output the transposed C. */
static void test_swap_kernel(void **state)
{
	static const char *const passes[] = { "tile_block", "strip_k",
		"tile_warp", "contract", "promote" };
	static const char *const targets[] = { "sm_90a", "host" };

	(void) state;
	for (int t = 0; t < 2; ++t)
		for (int p = 0; p < 5; ++p) {
			struct pm_spec *s = pm_hr_parse(GEMM_BIAS);
			isl_ctx *ctx = isl_ctx_alloc();
			struct pm_config cfg;
			struct pm_diags d;
			struct pm_kernel *k;

			pm_diags_init(&d, "t", NULL);
			swap_config(&cfg, targets[t]);
			if (t)
				cfg.target = pm_target_host();
			k = pm_pipeline_until(ctx, s, &cfg, passes[p], &d);
			if (!k)
				fail_msg("%s %s: %s", targets[t], passes[p],
					pm_diags_text(&d));
			/* legality before promotion (its copies are
			 * extension nodes: tree.h) */
			if (p < 4 && pm_check_legal(k) != 1)
				fail_msg("%s: illegal after %s", targets[t],
					passes[p]);
			assert_int_equal(k->con[0].a, 1);
			assert_int_equal(k->con[0].b, 0);
			assert_int_equal(k->scop->spec->tensors[k->con[0].out].tposed,
				1);
			pm_pipeline_kernel_free(k);
			pm_diags_clear(&d);
			isl_ctx_free(ctx);
			pm_spec_free(s);
		}
}

/* i8 weights in a swapped persistent kernel (docs/decisions/0062): the
 * weights are the MMA's A, landed by TMA as stored (one byte an element,
 * rows swizzled in place, no raw tile and no PRO pass) and widened in the
 * registers with their prologue along the rows (a zero point); not so in
 * a kernel that is not persistent, nor with a prologue along k, which
 * stay in shared memory. */
/* One case of test_swap_conv_regs: in a persistent kernel, regs: widened
 * in the registers (0: no persistent kernel), pro: with a prologue, pitch
 * of its tile's rows (bytes). */
struct conv_case {
	const char *text;
	int regs, pro, pitch;
};

static void conv_regs_case(const struct conv_case *cc, int ws)
{
	struct pm_spec *s = pm_hr_parse(cc->text);
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_config cfg;
	struct pm_diags d;
	struct pm_kernel *k;
	const struct pm_buffer *b;
	int regs = ws && cc->regs;

	pm_diags_init(&d, "t", NULL);
	swap_config(&cfg, "sm_90a");
	cfg.stages = 10;
	cfg.tma = -1;
	if (ws)
		cfg.persistent = 2, cfg.split_k = 0;
	k = pm_pipeline_until(ctx, s, &cfg, "promote", &d);
	/* a prologue in shared memory has no TMA copies: no persistent
	 * kernel */
	if (ws && !cc->regs) {
		assert_null(k);
		goto next;
	}
	if (!k)
		fail_msg("%s %d: %s", cc->text, ws, pm_diags_text(&d));
	b = &k->bufs[k->con[0].buf_a];
	assert_int_equal(b->tensor, 1);
	assert_true(b->conv);
	assert_int_equal(b->conv_regs, regs);
	assert_int_equal(b->tma, ws);
	assert_int_equal(pm_buffer_eb(k, k->con[0].buf_a), regs ? 1 : 2);
	if (regs) {
		/* 64 k x 128 N bytes or 128 N x 64 k */
		assert_int_equal(b->raw_elems, 0);
		assert_null(b->pro_id);
		assert_int_equal(!!b->pro, cc->pro);
		assert_int_equal(b->swz, 1);
		assert_int_equal(b->stage_elems, 64 * 128);
		assert_int_equal(b->pitch, cc->pitch);
		assert_true(pm_kernel_conv_regs(k));
	} else {
		assert_true(b->raw_elems > 0);
		assert_non_null(b->pro_id);
	}
	pm_pipeline_kernel_free(k);
next:
	pm_diags_clear(&d);
	isl_ctx_free(ctx);
	pm_spec_free(s);
}

static void test_swap_conv_regs(void **state)
{
	static const struct conv_case cases[] = {
		{ "def w(f16(M, K) A, i8(K, N) Bq, f16(N) s) -> (f16(M, N) C) {\n"
		  "  C(i, j) +=! A(i, k) * (Bq(k, j) * s(j))\n}\n", 1, 0, 128 },
		{ "def w(f16(M, K) A, i8(N, K) Bq) -> (f16(M, N) C) {\n"
		  "  C(i, j) +=! A(i, k) * Bq(j, k)\n}\n", 1, 0, 64 },
		{ "def w(f16(M, K) A, i8(K, N) Bq, f16(N) z) -> (f16(M, N) C) {\n"
		  "  C(i, j) +=! A(i, k) * (Bq(k, j) - z(j))\n}\n", 1, 1, 128 },
		/* a prologue without vectors but a scalar */
		{ "def w(f16(M, K) A, i8(K, N) Bq, f16 al) -> (f32(M, N) C) {\n"
		  "  C(i, j) +=! A(i, k) * (relu(Bq(k, j)) * al)\n}\n", 1, 1,
		  128 },
		/* along k: in shared memory */
		{ "def w(f16(M, K) A, i8(K, N) Bq, f16(K) g) -> (f16(M, N) C) {\n"
		  "  C(i, j) +=! A(i, k) * (Bq(k, j) - g(k))\n}\n", 0, 1, 0 },
		/* more row values than PM_CONV_READS */
		{ "def w(f16(M, K) A, i8(K, N) Bq, f16(N) a, f16(N) b, f16(N) c, "
		  "f16(N) e, f16(N) f) -> (f16(M, N) C) {\n"
		  "  C(i, j) +=! A(i, k) * (relu((Bq(k, j) - a(j)) * b(j) - c(j)) "
		  "* e(j) - f(j))\n}\n", 0, 1, 0 },
	};

	(void) state;
	assert_int_equal(PM_CONV_READS, 4);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); ++i)
		for (int ws = 0; ws < 2; ++ws)
			conv_regs_case(&cases[i], ws);
}

/* The sm_90a file of a per-token scale (any M: schedule_tree/sizes.c
 * row_vector) and a residual: the launcher asks no M % 8 and leaves its
 * rows to the plan; the swapped rows, whose columns are the tokens, load
 * sa's pairs element by element (pm_ld2f_n), the second inside M in
 * ragged tiles, never as a pair (past an odd M, or misaligned), and read
 * R there at the token clamped to M (a pair's second past an odd M
 * computes what is never stored; memcheck found the read past R). */
static void test_swap_row_vector(void **state)
{
	static const char text[] =
		"def r(f16(M, K) A, f16(K, N) B, f32(M) sa, f16(M) sh, "
		"f16(M, N) R) -> (f16(M, N) C) {\n"
		"  T(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) = T(i, j) * sa(i) + sh(i) + R(i, j)\n}\n";
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	const char *src;

	(void) state;
	assert_int_equal(polymma_options_set(o, "target", "sm_90a", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_generate(ctx, text, "r.tc", o, &r),
		POLYMMA_OK);
	src = polymma_result_source(r);
	assert_non_null(strstr(src, "_persist_swap"));
	assert_null(strstr(src, "M % 8"));
	for (int v = 0; v < 2; ++v) {
		char el[64], pair[32];

		snprintf(el, sizeof(el), "pm_ld2f_n(&%s[(int64_t) pm_j0], "
			"pm_j0 + 1 < M, ", v ? "sh" : "sa");
		snprintf(pair, sizeof(pair), "pm_ld2f(&%s[", v ? "sh" : "sa");
		assert_non_null(strstr(src, el));
		assert_null(strstr(src, pair));
	}
	/* R, read transposed element by element: in a ragged tile at the
	 * last token where a pair's second is past M */
	assert_non_null(strstr(src, "const int64_t pm_jc = (int) pm_j < M ? "
		"pm_j : M - 1;"));
	assert_non_null(strstr(src, "R[(int64_t) pm_jc * (int64_t) N + "
		"(int64_t) pm_ic]"));
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

/* ---- Host renderings ---- */

/* (Outputs f32: the sums of the drivers' small integers are exact; the
 * host renders f16 as float and does not round its stores.) */

static const struct pm_hr_cfg hcfgs[] = {
	{ 64, 16, 16, 32, 16, 16, 16, 8, 2, 1, 1, 0, 0, 0 },
	{ 32, 16, 64, 32, 16, 16, 16, 16, 3, 2, 1, 0, 0, 0 },
	/* TMA copies: the host renders a box as the whole tile */
	{ 64, 16, 32, 32, 16, 16, 16, 8, 2, 2, 0, 1, 0, 0 },
};
#define NHCFGS ((int) (sizeof(hcfgs) / sizeof(hcfgs[0])))

/* Render text's swapped kernel (swap 0: the plain one) on the host with
 * c, split in S chunks of K, and run it at mnk against the reference;
 * args: the kernel's arguments (the sizes in the entry points' order,
 * every row's: emit/frame.c, pm_emit_size_order); quiet: a failure
 * expected. */
static int render(const char *text, const struct pm_hr_cfg *c, int swap,
	long S, const char *args, const int64_t *mnk, int quiet)
{
	struct pm_spec *s = pm_hr_parse(text);
	int64_t sizes[8];
	struct pm_config cfg;
	struct pm_strbuf head, tail;
	char path[] = "/tmp/pm_swapXXXXXX", what[160], *src;
	int rc;

	assert_true(s->nsyms <= 3);
	for (int i = 0; i < s->nsyms; ++i)
		sizes[i] = mnk[strchr("MNK", s->syms[i].name[0]) - "MNK"];
	pm_hr_config(&cfg, c);
	cfg.split_k = S ? 0 : 1;
	cfg.swap = swap;
	src = pm_hr_generate(s, &cfg);
	assert_non_null(src);
	pm_hr_tmpfile(path);
	pm_hr_data_file(s, sizes, path);
	pm_strbuf_init(&head);
	pm_strbuf_init(&tail);
	pm_hr_split_call_rc(&head, S, s->name, args, swap ? "N" : "M",
		swap ? "M" : "N", "K", NULL, c->bm, c->bn, c->bk, 1);
	pm_hr_spec_driver(&tail, s, NULL, sizes);
	snprintf(what, sizeof(what), "%s swap %d split %ld, block %dx%dx%d, "
		"sizes %ldx%ldx%ld", s->name, swap, S, c->bm, c->bn, c->bk,
		(long) mnk[0], (long) mnk[1], (long) mnk[2]);
	rc = pm_hr_build_and_run(head.s, src, tail.s, path, quiet, 1, what);
	unlink(path);
	pm_strbuf_free(&head);
	pm_strbuf_free(&tail);
	free(src);
	pm_spec_free(s);
	return rc;
}

static const char *const gemms[] = {
	"def g(f16(M, K) A, f16(K, N) B) -> (f32(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * B(k, j)\n}\n",
	"def g(f16(M, K) A, f16(N, K) B) -> (f32(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * B(j, k)\n}\n",
};

/* GEMM in both layouts of B, every configuration, M from 1 (decode) to
 * past one tile column, N ragged, split in 2 and 3 chunks. */
static void test_host_gemm(void **state)
{
	static const int64_t sz[][3] = {
		{ 1, 72, 64 }, { 7, 200, 96 }, { 16, 64, 32 }, { 21, 136, 160 },
	};

	(void) state;
	for (int l = 0; l < 2; ++l)
		for (int c = 0; c < NHCFGS; ++c)
			for (int i = 0; i < 4; ++i)
				for (long S = 0; S <= 3; S += S ? 1 : 2)
					if (render(gemms[l], &hcfgs[c], 1, S,
							"A, B, C, M, N, K", sz[i], 0))
						fail_msg("layout %d config %d size "
							"%d split %ld", l, c, i, S);
}

/* An epilogue (bias by column, a residual read transposed), two
 * contractions summed, vectors along the rows. */
static void test_host_fused(void **state)
{
	static const int64_t sz[3] = { 9, 136, 96 };

	(void) state;
	for (int c = 0; c < NHCFGS; ++c) {
		assert_int_equal(render(GEMM_BIAS, &hcfgs[c], 1, 0,
			"A, B, bias, R, C, M, N, K", sz, 0), 0);
		assert_int_equal(render(
			"def a(f16(M, K) A, f16(K, N) B, f16(M, K) D, "
			"f16(K, N) E) -> (f32(M, N) C) {\n"
			"  T(i, j) +=! A(i, k) * B(k, j)\n"
			"  U(i, j) +=! D(i, k) * E(k, j)\n"
			"  C(i, j) = T(i, j) + U(i, j)\n}\n", &hcfgs[c], 1, 0,
			"A, B, D, E, C, M, N, K", sz, 0), 0);
		/* vectors along the tokens (M = 9: any M,
		 * schedule_tree/sizes.c row_vector) on the columns */
		assert_int_equal(render(
			"def r(f16(M, K) A, f16(K, N) B, f32(M) sa, f16(M) sh) "
			"-> (f16(M, N) C) {\n"
			"  T(i, j) +=! A(i, k) * B(k, j)\n"
			"  C(i, j) = T(i, j) * sa(i) + sh(i)\n}\n", &hcfgs[c],
			1, 0, "A, B, sa, sh, C, M, N, K", sz, 0), 0);
	}
}

/* The harness is live: the swapped kernel given M and N exchanged fails
 * where it and the plain kernel, rightly called, pass. */
static void test_host_checker(void **state)
{
	static const int64_t sz[3] = { 16, 64, 32 };

	(void) state;
	assert_int_equal(render(gemms[0], &hcfgs[0], 1, 0, "A, B, C, M, N, K",
		sz, 0), 0);
	assert_int_not_equal(render(gemms[0], &hcfgs[0], 1, 0,
		"A, B, C, N, M, K", sz, 1), 0);
	assert_int_equal(render(gemms[0], &hcfgs[0], 0, 0, "A, B, C, M, N, K",
		sz, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_swap_spec),
		cmocka_unit_test(test_swap_refused),
		cmocka_unit_test(test_swap_kernel),
		cmocka_unit_test(test_swap_conv_regs),
		cmocka_unit_test(test_swap_row_vector),
		cmocka_unit_test(test_host_gemm),
		cmocka_unit_test(test_host_fused),
		cmocka_unit_test(test_host_checker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

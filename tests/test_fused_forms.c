/* The fused forms of docs/decisions/0039-dequant-prologues-and-contractions.md
 * through the library, on every target: prologues that read other tensors
 * (broadcast vectors and scalars) and kernels of three or four
 * contractions generate; what is not supported is refused with its
 * message at its place (exit 1, class unsupported), never a file nvcc
 * would reject. Also the structure the forms need: the broadcast read at
 * the copied element's indices in the shared-memory prologue (never
 * through the MMA's registers, so no TMA for that contraction on sm_90a),
 * one accumulator per contraction, the rows whose accumulators do not fit
 * left out with the reason. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polymma.h"

static const char *const targets[] = { "sm_70", "sm_80", "sm_90a" };

/* polymma_generate on text for target with option key=val (key NULL:
 * none): its status, the diagnostics in *diag and the source in *src
 * (NULL on failure; both owned by the caller). */
static int generate(const char *text, const char *target, const char *key,
	const char *val, char **diag, char **src)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	int rc;

	assert_non_null(ctx);
	assert_non_null(o);
	assert_int_equal(polymma_options_set(o, "target", target, NULL), 0);
	if (key)
		assert_int_equal(polymma_options_set(o, key, val, NULL), 0);
	rc = polymma_generate(ctx, text, "t.tc", o, &r);
	*diag = strdup(polymma_diagnostics(ctx));
	*src = rc == POLYMMA_OK ? strdup(polymma_result_source(r)) : NULL;
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	return rc;
}

/* text generates for every target; the sm_90a source in *src90 if not
 * NULL (the caller frees it). */
static void gen_ok(const char *text, char **src90)
{
	for (int t = 0; t < 3; ++t) {
		char *diag, *src;
		int rc = generate(text, targets[t], NULL, NULL, &diag, &src);

		if (rc)
			fprintf(stderr, "%s: %s", targets[t], diag);
		assert_int_equal(rc, POLYMMA_OK);
		if (src90 && t == 2)
			*src90 = src;
		else
			free(src);
		free(diag);
	}
}

/* text is refused on target (key=val) with a diagnostic that starts with
 * prefix and contains msg. */
static void gen_err(const char *text, const char *target, const char *key,
	const char *val, const char *prefix, const char *msg)
{
	char *diag, *src;
	int rc = generate(text, target, key, val, &diag, &src);

	if (rc != POLYMMA_ERR_SPEC || strncmp(diag, prefix, strlen(prefix)) ||
	    !strstr(diag, msg))
		fprintf(stderr, "rc %d, want %s...%s\ngot:\n%s", rc, prefix, msg,
			diag);
	assert_int_equal(rc, POLYMMA_ERR_SPEC);
	assert_null(src);
	assert_int_equal(strncmp(diag, prefix, strlen(prefix)), 0);
	assert_non_null(strstr(diag, msg));
	free(diag);
}

static const char dequant_b[] =
	"def g(f16(M, K) A, f16(K, N) B, f16(N) s) -> (f16(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * (B(k, j) * s(j))\n}\n";
static const char scale_a_k[] =
	"def g(f16(M, K) A, f32(K) sa, f16(K, N) B) -> (f16(M, N) C) {\n"
	"  C(i, j) +=! (A(i, k) * sa(k)) * B(k, j)\n}\n";

/* Prologues reading vectors and scalars, on either operand, in any
 * layout, generate everywhere. Factors constant along k move to the
 * epilogue where the operand's plain read remains
 * (docs/decisions/0044-hoisted-scale-factors.md): dequant_b's s(j) is
 * read there, its B copied by TMA on sm_90a with the persistent
 * rows; what stays a prologue is read in shared memory at the element's
 * column, A's prologue not applied through the MMA's registers and that
 * contraction not copied by TMA. */
static void test_prologue_reads(void **state)
{
	char *src = NULL;

	(void) state;
	gen_ok(dequant_b, &src);
	assert_null(strstr(src, "pm_f(s[(int64_t) (pm_g1 + pm_e)])"));
	assert_non_null(strstr(src, "s[(int64_t) pm_j0]"));
	assert_non_null(strstr(src, "pm_tm1"));
	assert_non_null(strstr(src, "pm_kernel_g_persist("));
	free(src);
	gen_ok(scale_a_k, &src);
	/* A(i, k): k is A's column; sa(k) varies along k: it stays */
	assert_non_null(strstr(src, "pm_f(sa[(int64_t) (pm_g1 + pm_e)])"));
	assert_null(strstr(src, "pm_pro0"));
	free(src);
	gen_ok("def g(f16(K, M) A, f16(M) r, f16(N, K) Bq, f16(N) z, f32(N) s, "
		"bf16 g) -> (f16(M, N) C) {\n"
		"  T(i, j) +=! (A(k, i) * r(i)) * ((Bq(j, k) - z(j)) * s(j) * g)\n"
		"  C(i, j) = relu(T(i, j))\n}\n", &src);
	/* Bq (N, K): j its row: its prologue stays whole (z(j) must), s(j)
	 * and the scalar g with it; A's r(i) moves to the epilogue */
	assert_non_null(strstr(src, "pm_f(z[(int64_t) pm_g0])"));
	assert_non_null(strstr(src, "pm_f(g[0])"));
	assert_null(strstr(src, "pm_f(r[(int64_t) (pm_g1 + pm_e)])"));
	assert_non_null(strstr(src, "(pm_v * pm_f(r[(int64_t) pm_i]))"));
	free(src);
	/* a factor of A indexed by B's j moves too (it was refused) */
	gen_ok("def g(f16(M, K) A, f16(K, N) B, f16(N) s) -> (f16(M, N) C) "
		"{\n  C(i, j) +=! (A(i, k) * s(j)) * B(k, j)\n}\n", &src);
	assert_non_null(strstr(src, "s[(int64_t) pm_j0]"));
	free(src);
}

/* What a prologue cannot read, and mixed operand types. */
static void test_prologue_refused(void **state)
{
	(void) state;
	for (int t = 0; t < 3; ++t) {
		gen_err("def g(f16(M, K) A, f16(K, N) B, i8(N) q) -> "
			"(f16(M, N) C) {\n  C(i, j) +=! A(i, k) * (B(k, j) * "
			"q(j))\n}\n", targets[t], NULL, NULL,
			"t.tc:2:36: error: unsupported: ", "the prologue of 'B' "
			"reads 'q', which is not f16, bf16 or f32");
		gen_err("def g(f16(M, K) A, f16(K, N) B, f16(N) s) -> "
			"(f16(M, N) C) {\n  C(i, j) +=! (A(i, k) * s(j) - 1) * "
			"B(k, j)\n}\n", targets[t], NULL, NULL,
			"t.tc:2:26: error: unsupported: ", "reads 's', which is "
			"indexed by a variable its operand does not have");
		/* a 2-D tensor beside the operand: no operand read */
		gen_err("def g(f16(M, K) A, f16(K, N) B, f16(K, N) S) -> "
			"(f16(M, N) C) {\n  C(i, j) +=! A(i, k) * (B(k, j) * "
			"S(k, j))\n}\n", targets[t], NULL, NULL,
			"t.tc:2:23: error: unsupported: ", "the right-hand side "
			"is not a product of two operands");
	}
	/* an i8 weight dequantized into f16 operands: widened to f16
	 * (mixed types, docs/decisions/0047) on every target; a pair no row
	 * widens is refused; a widened A is not given to the registers; the
	 * rows widening in shared memory copy it by cp.async, the persistent
	 * rows read the launcher's f16 copy by TMA (docs/decisions/0059) */
	{
		char *src;

		gen_ok("def g(f16(M, K) A, i8(N, K) Bq, f16(N) s) -> "
			"(f16(M, N) C) {\n  C(i, j) +=! A(i, k) * (Bq(j, k) * "
			"s(j))\n}\n", &src);
		assert_non_null(strstr(src, "int8_t *Bq_raw = "));
		assert_non_null(strstr(src, "pm_cp_async8"));
		assert_non_null(strstr(src, "pm_pre_g_Bq(const __half"));
		assert_non_null(strstr(src, "Bq = pm_y;"));
		free(src);
	}
	gen_err("def g(f16(M, K) A, bf16(N, K) Bq, f16(N) s) -> (f16(M, N) C) "
		"{\n  C(i, j) +=! A(i, k) * (Bq(j, k) * s(j))\n}\n", "sm_90a",
		NULL, NULL, "t.tc:2:3: error: unsupported: ", "the operands have "
		"different types (f16 'A' x bf16 'Bq'); an operand of another "
		"type than its partner's is widened on target sm_90a only from "
		"i8 into f16");
	gen_err("def g(i8(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! relu(A(i, k)) * B(k, j)\n}\n", "sm_90a",
		"pro-regs", "on", "polymma: error: ", "--pro-regs on: not "
		"possible here (the operand is widened to the MMA's type in "
		"shared memory");
	gen_err("def g(f16(M, K) A, i8(K, N) Bq) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * Bq(k, j)\n}\n", "sm_90a", "tma", "on",
		"polymma: error: ", "--tma on");
	/* a prologue reading a vector is applied in shared memory */
	gen_err(scale_a_k, "sm_90a", "pro-regs", "on", "polymma: error: ",
		"--pro-regs on: not possible here (the prologue reads other "
		"tensors");
	gen_err("def g(f16(M, K) A, f16(K, N) B, f16(N) z) -> (f16(M, N) C) "
		"{\n  C(i, j) +=! A(i, k) * (B(k, j) - z(j))\n}\n", "sm_90a",
		"tma", "on", "polymma: error: ", "--tma on");
}

static const char gemm3[] =
	"def g(f16(M, K) A, f16(K, N) B, f16(M, L) E, f16(N, L) F,\n"
	"      f16(M, P) G, f16(P, N) H, f16(N) bias) -> (f16(M, N) O) {\n"
	"  C(i, j) +=! A(i, k) * B(k, j)\n"
	"  D(i, j) +=! E(i, l) * F(j, l)\n"
	"  X(i, j) +=! G(i, p) * H(p, j)\n"
	"  O(i, j) = C(i, j) + D(i, j) + X(i, j) * 0.5 + bias(j)\n}\n";

/* Three and four contractions generate everywhere: three accumulators,
 * each contraction's own k extent in the launcher, the large persistent
 * rows left out with the reason. */
static void test_contractions(void **state)
{
	char *src = NULL;

	(void) state;
	gen_ok(gemm3, &src);
	assert_non_null(strstr(src, "float pm_acc2["));
	assert_null(strstr(src, "float pm_acc3["));
	assert_non_null(strstr(src, "int64_t M, int64_t N, int64_t K, "
		"int64_t L, int64_t P, cudaStream_t stream"));
	assert_non_null(strstr(src, "_persist_wide      not built: 3 "
		"accumulators of 64x256: 384 registers a thread, more than "
		"128"));
	free(src);
	gen_ok("def g(f16(M, K) A, f16(K, N) B, f16(K, M) E, f16(K, N) F,\n"
		"      f16(M, K) G, f16(N, K) H, f16(K, M) U, f16(N, K) V,\n"
		"      f16(N) s) -> (f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  D(i, j) +=! E(k, i) * F(k, j)\n"
		"  X(i, j) +=! G(i, k) * (H(j, k) * s(j))\n"
		"  Y(i, j) +=! U(k, i) * V(j, k)\n"
		"  O(i, j) = C(i, j) * D(i, j) + X(i, j) - Y(i, j)\n}\n", &src);
	assert_non_null(strstr(src, "float pm_acc3["));
	free(src);
}

/* What kernels of several contractions refuse. */
static void test_contractions_refused(void **state)
{
	(void) state;
	/* not combined */
	gen_err("def g(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F, "
		"f16(M, K) G, f16(K, N) H) -> (f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  D(i, j) +=! E(i, k) * F(k, j)\n"
		"  O(i, j) +=! G(i, k) * H(k, j)\n}\n", "sm_80", NULL, NULL,
		"t.tc:4:3: error: unsupported: ", "the contractions must be "
		"combined by a pointwise statement");
	/* two of three read one tensor: no shared copy there */
	gen_err("def g(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F, "
		"f16(K, N) H) -> (f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  D(i, j) +=! E(i, k) * F(k, j)\n"
		"  X(i, j) +=! A(i, k) * H(k, j)\n"
		"  O(i, j) = C(i, j) + D(i, j) + X(i, j)\n}\n", "sm_90a", NULL,
		NULL, "t.tc:4:15: error: unsupported: ", "two contractions read "
		"'A'; a shared operand is one copy in kernels of two "
		"contractions only");
	/* a result before the last is an output */
	gen_err("def g(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F, "
		"f16(M, K) G, f16(K, N) H) -> (f16(M, N) D, f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  D(i, j) +=! E(i, k) * F(k, j)\n"
		"  X(i, j) +=! G(i, k) * H(k, j)\n"
		"  O(i, j) = C(i, j) + D(i, j) + X(i, j)\n}\n", "sm_80", NULL,
		NULL, "t.tc:3:3: error: unsupported: ", "a contraction's result "
		"before the last is an output");
	/* a user warp tile the accumulators do not fit: the limit named */
	gen_err(gemm3, "sm_80", "warp", "64x64", "t.tc:3:3: error: "
		"unsupported: ", "3 contractions: warp 64x64: 3 accumulators of "
		"64x64: 384 registers a thread, more than 128");
	/* five */
	gen_err("def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) Y) {\n"
		"  T0(i, j) +=! A(i, k) * B(k, j)\n  T1(i, j) +=! A(i, k) * "
		"B(k, j)\n  T2(i, j) +=! A(i, k) * B(k, j)\n  T3(i, j) +=! "
		"A(i, k) * B(k, j)\n  T4(i, j) +=! A(i, k) * B(k, j)\n"
		"  Y(i, j) = T0(i, j)\n}\n", "sm_80", NULL, NULL,
		"t.tc:6:3: error: unsupported: ", "more than 4 contractions in "
		"one kernel");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prologue_reads),
		cmocka_unit_test(test_prologue_refused),
		cmocka_unit_test(test_contractions),
		cmocka_unit_test(test_contractions_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

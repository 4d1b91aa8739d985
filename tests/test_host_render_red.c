/* Epilogue reductions (docs/decisions/0037-epilogue-reductions.md): the
 * host rendering of S(i) +=! D(i, j) * D(i, j) (four layouts), R(i)
 * max=! D(i, j), S(j) +=! C(i, j) and S max=! abs(D(i, j)) (a scalar),
 * compiled with AddressSanitizer and checked against naive fp64 loops
 * (the reference's semantics, frontend/eval.c) at M of 1, 7, 127 and 129, N of 8 to 136 (a multiple
 * of 8: D's rows are 16-byte units) and K = 1000, in
 * several block, warp and macro tiles (the staged store, register
 * staging, TMA boxes): the full output and the reduced one, a second call
 * bit-identical, the workspace's counters back at 0. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "api/pipeline.h"
#include "target/target.h"
#include "polymma.h"
#include "poly/strbuf.h"
#include "tests/util.h"
#include "tests/host_render_util.h"

static const struct pm_hr_cfg cfgs[] = {
	{ 64, 64, 16, 32, 32, 8, 8, 4, 1, 0, 0, 0, 0, 0 },
	{ 32, 64, 8, 16, 32, 16, 16, 8, 2, 1, 0, 0, 0, 0 },
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 0, 1, 0, 0 },
	/* the fragment pipeline and the staged store (the sm_80 default) */
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 1, 0, 0, 0 },
};
#define NCFGS ((int) (sizeof(cfgs) / sizeof(cfgs[0])))

/* Spec text rendered for the host with configuration c (the staged
 * store with the fragment pipeline): the source (caller frees) or NULL
 * with the diagnostics printed. */
static char *render(const char *text, const struct pm_hr_cfg *c)
{
	struct pm_config cfg;

	pm_hr_config(&cfg, c);
	cfg.staged_store = c->frag;
	cfg.reg_stage = pm_hr_reg_stage(c);
	return pm_hr_generate_text(text, &cfg);
}

/* The driver: KIND 0 S(i) = sum_j D(i, j)^2 with D = C + bias(j); 1 R(i)
 * = max_j D(i, j) with D = C * s; 2 S(j) = sum_i C(i, j); 3 S = max
 * |D(i, j)| with D = C * s. A_KM / B_NK:
 * the layouts. Two calls; the second must repeat the first bit for bit. */
static const char red_driver[] =
	"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	"#include <string.h>\n"
	"int main(int argc, char **argv)\n{\n"
	"\tlong M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);\n"
	"\tlong nr = KIND == 2 ? N : KIND == 3 ? 1 : M, bad = 0;\n"
	"\tfloat *A = malloc(sizeof(float) * M * K), *B = malloc(sizeof(float) * K * N);\n"
	"\tfloat *v = malloc(sizeof(float) * N), s = 0.75f;\n"
	"\tfloat *D = malloc(sizeof(float) * M * N), *S = malloc(sizeof(float) * nr);\n"
	"\tfloat *S1 = malloc(sizeof(float) * nr);\n"
	"\tdouble *rs = calloc(nr, sizeof(double));\n"
	"\tfloat *ws = calloc((M + 64) * (N + 64), sizeof(float));\n"
	"\tunsigned *cnt = calloc(M + N + 64, sizeof(unsigned));\n"
	"\t(void) s; (void) v;\n"
	"\tfor (long i = 0; i < M * K; ++i) A[i] = (float) ((i * 7 + 3) % 11 - 5) / 4;\n"
	"\tfor (long i = 0; i < K * N; ++i) B[i] = (float) ((i * 5 + 1) % 13 - 6) / 4;\n"
	"\tfor (long i = 0; i < N; ++i) v[i] = (float) (i % 7 - 3);\n"
	"\tfor (int run = 0; run < 2; ++run) {\n"
	"\t\tfor (long i = 0; i < M * N; ++i) D[i] = NAN;\n"
	"\t\tfor (long i = 0; i < nr; ++i) S[i] = NAN;\n"
	"\t\tCALL;\n"
	"\t\tfor (long i = 0; i < M + N + 64; ++i)\n"
	"\t\t\tif (cnt[i]) { fprintf(stderr, \"counter %ld left at %u\\n\", i, cnt[i]); return 1; }\n"
	"\t\tfor (long i = 0; i < (M + 64) * (N + 64); ++i)\n"
	"\t\t\tif (ws[i] != 0) { fprintf(stderr, \"workspace %ld left at %g\\n\", i, ws[i]); return 1; }\n"
	"\t\tif (run && memcmp(S, S1, sizeof(float) * nr)) { fprintf(stderr, \"second call differs\\n\"); return 1; }\n"
	"\t\tmemcpy(S1, S, sizeof(float) * nr);\n"
	"\t}\n"
	"\tfor (long i = 0; i < nr; ++i) rs[i] = KIND == 1 || KIND == 3 ? -INFINITY : 0;\n"
	"\tfor (long i = 0; i < M; ++i)\n\t\tfor (long j = 0; j < N; ++j) {\n"
	"\t\t\tdouble c = 0, d;\n"
	"\t\t\tfor (long k = 0; k < K; ++k)\n"
	"\t\t\t\tc += (double) (A_KM ? A[k * M + i] : A[i * K + k]) * (B_NK ? B[j * K + k] : B[k * N + j]);\n"
	"\t\t\td = KIND == 0 ? c + v[j] : KIND == 1 || KIND == 3 ? c * s : c;\n"
	"\t\t\tif (!(fabs(D[i * N + j] - d) <= 1e-5 * (1 + fabs(d))) && bad++ < 5)\n"
	"\t\t\t\tfprintf(stderr, \"D[%ld][%ld] = %g, expected %g\\n\", i, j, D[i * N + j], d);\n"
	"\t\t\tif (KIND == 0) rs[i] += d * d;\n"
	"\t\t\telse if (KIND == 1) rs[i] = fmax(rs[i], d);\n"
	"\t\t\telse if (KIND == 3) rs[0] = fmax(rs[0], fabs(d));\n"
	"\t\t\telse rs[j] += d;\n"
	"\t\t}\n"
	"\tfor (long i = 0; i < nr; ++i)\n"
	"\t\tif (!(fabs(S[i] - rs[i]) <= 1e-5 * (1 + fabs(rs[i]))) && bad++ < 10)\n"
	"\t\t\tfprintf(stderr, \"S[%ld] = %.9g, expected %.9g\\n\", i, S[i], rs[i]);\n"
	"\tprintf(\"%ld wrong\\n\", bad);\n\treturn bad != 0;\n}\n";

static const char *const sizes[] = {
	"1 8 1000", "7 8 1000", "127 136 1000", "129 120 1000", "1 136 1000",
	"129 8 1000", "127 56 40",
};
/* A read (k, i): M is its contiguous dimension, a multiple of 8 */
static const char *const sizes_t[] = {
	"8 8 1000", "120 136 1000", "136 120 1000", "8 136 1000", "136 8 1000",
	"56 56 40",
};
#define NSIZES ((int) (sizeof(sizes) / sizeof(sizes[0])))
#define NSIZES_T ((int) (sizeof(sizes_t) / sizeof(sizes_t[0])))

/* kind 0: the row sum of squares in layout l; 1: the row max; 2: the
 * column sum; with edit, the check's negative control (the generated
 * reduction's combine turned into something else). */
static int run_red(int kind, const char *l, const struct pm_hr_cfg *c,
	const char *edit, int quiet)
{
	char text[640], what[96];
	const char *ra = l[0] == 't' ? "A(k, i)" : "A(i, k)";
	const char *rb = l[1] == 't' ? "B(j, k)" : "B(k, j)";
	static const char *const epi[] = {
		"  D(i, j) = C(i, j) + v(j)\n  S(i) +=! D(i, j) * D(i, j)\n",
		"  D(i, j) = C(i, j) * s\n  S(i) max=! D(i, j)\n",
		"  S(j) +=! D(i, j)\n",
		"  D(i, j) = C(i, j) * s\n  S max=! abs(D(i, j))\n",
	};
	static const char *const call[] = {
		"r(A, B, v, D, S, M, N, K, ws, cnt)",
		"r(A, B, &s, D, S, M, N, K, ws, cnt)",
		"r(A, B, D, S, M, N, K, ws, cnt)",
		"r(A, B, &s, D, S, M, N, K, ws, cnt)",
	};
	struct pm_strbuf head;
	char *src;
	int rc;

	snprintf(text, sizeof(text), "def r(%s, %s%s) -> (f16(M, N) D, "
		"f32%s S) {\n  %s(i, j) +=! %s * %s\n%s}\n",
		l[0] == 't' ? "f16(K, M) A" : "f16(M, K) A",
		l[1] == 't' ? "f16(N, K) B" : "f16(K, N) B",
		kind == 0 ? ", f16(N) v" : kind & 1 ? ", f32 s" : "",
		kind == 2 ? "(N)" : kind == 3 ? "" : "(M)", kind == 2 ? "D" : "C",
		ra, rb, epi[kind]);
	src = render(text, c);
	assert_non_null(src);
	if (edit) {
		char *p = strstr(src, "pm_a = pm_a + (pm_red_s");

		if (!p)
			p = strstr(src, "pm_a = fmaxf(pm_a, pm_red_s");
		assert_non_null(p);
		memcpy(p, edit, strlen(edit));
	}
	pm_strbuf_init(&head);
	pm_strbuf_printf(&head, "#define A_KM %d\n#define B_NK %d\n"
		"#define KIND %d\n#define CALL %s\n", l[0] == 't', l[1] == 't',
		kind, call[kind]);
	snprintf(what, sizeof(what), "reduction %d, layout %s, block %dx%d",
		kind, l, c->bm, c->bn);
	rc = pm_hr_build_and_run_n(head.s, src, red_driver, l[0] == 't' ?
		sizes_t : sizes, l[0] == 't' ? NSIZES_T : NSIZES, quiet, 1, what);
	pm_strbuf_free(&head);
	free(src);
	return rc;
}

static void test_row_sum(void **state)
{
	static const char *const layouts[] = { "nn", "nt", "tn", "tt" };

	(void) state;
	for (int l = 0; l < 4; ++l)
		for (int c = 0; c < NCFGS; ++c)
			if (run_red(0, layouts[l], &cfgs[c], NULL, 0))
				fail_msg("row sum, layout %s, config %d",
					layouts[l], c);
}

static void test_row_max(void **state)
{
	(void) state;
	for (int c = 0; c < NCFGS; ++c)
		if (run_red(1, "nn", &cfgs[c], NULL, 0))
			fail_msg("row max, config %d", c);
}

/* a scalar: the largest magnitude of a stored result */
static void test_scalar_max(void **state)
{
	(void) state;
	for (int c = 0; c < NCFGS; ++c)
		if (run_red(3, "tn", &cfgs[c], NULL, 0))
			fail_msg("scalar max, config %d", c);
}

static void test_col_sum(void **state)
{
	(void) state;
	for (int c = 0; c < NCFGS; ++c)
		if (run_red(2, "nt", &cfgs[c], NULL, 0))
			fail_msg("column sum, config %d", c);
}

/* The check catches a wrong combine: the block's groups skipped but the
 * first (a sum over one group of columns only) fails. */
static void test_checker_catches(void **state)
{
	(void) state;
	assert_int_not_equal(run_red(0, "nn", &cfgs[0],
		"pm_a = pm_a * (pm_red_s", 1), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_catches),
		cmocka_unit_test(test_row_sum),
		cmocka_unit_test(test_row_max),
		cmocka_unit_test(test_col_sum),
		cmocka_unit_test(test_scalar_max),
	};

	if (getenv("PM_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PM_TEST_FILTER"));
	if (system("cc --version >/dev/null 2>&1")) {
		printf("no C compiler: host-render tests skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

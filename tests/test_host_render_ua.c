/* The _unaligned row (docs/decisions/0046-narrow-copies.md): the host
 * rendering of kernels with copies and stores narrower than 16 bytes,
 * compiled with AddressSanitizer (every tensor malloc'ed at its exact
 * size: any access past a row's last tensor element fails the run) and
 * checked exactly against a naive reference (integer-valued inputs, sums
 * exact in float): every layout with M, N and K from {1, 7, 127, 129, 777,
 * 1000}, none of them whole 16-byte units, the tensors at pointers offset
 * by 1 to 3 elements from their allocation (the elements in front must
 * stay untouched), outputs poisoned with NaN, each configuration of the
 * copies (one stage, register staging, cp.async stages, the fragment
 * pipeline with the staged store); an epilogue reading a bias and a
 * residual in pairs; and negative controls: copies that do not zero-fill
 * past a row, stores of whole units past a row, fail. */
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
	/* one stage, k tile 16 */
	{ 64, 64, 16, 32, 32, 8, 8, 4, 1, 0, 0, 0, 0, 0 },
	/* register staging, k tile 8 */
	{ 32, 64, 8, 16, 32, 16, 16, 8, 2, 1, 0, 0, 0, 0 },
	/* cp.async in 3 stages, swizzled */
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 0, 0, 0, 0 },
	/* the fragment pipeline and the staged store (the sm_80 default) */
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 1, 0, 0, 0 },
};
#define NCFGS ((int) (sizeof(cfgs) / sizeof(cfgs[0])))

/* One contraction in layouts A_KM, B_NK; argv: M N K OFF, the tensors
 * at OFF elements past their allocations' starts (those in front keep
 * their sentinel). */
static const char driver[] =
	"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	"static float *pm_alloc(long n, long off, float fill)\n{\n"
	"\tfloat *p = malloc(sizeof(float) * (n + off));\n"
	"\tfor (long i = 0; i < n + off; ++i) p[i] = i < off ? 12345.0f : fill;\n"
	"\treturn p + off;\n}\n"
	"int main(int argc, char **argv)\n{\n"
	"\tlong M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);\n"
	"\tlong off = atol(argv[4]), bad = 0;\n"
	"\tfloat *A = pm_alloc(M * K, off, 0), *B = pm_alloc(K * N, off, 0);\n"
	"\tfloat *C = pm_alloc(M * N, off, NAN), *s = pm_alloc(K, off, 0);\n"
	"\tfor (long i = 0; i < M * K; ++i) A[i] = (float) ((i * 7 + 3) % 11 - 5);\n"
	"\tfor (long i = 0; i < K * N; ++i) B[i] = (float) ((i * 5 + 1) % 13 - 6);\n"
	"\tfor (long i = 0; i < K; ++i) s[i] = (float) (i % 3 - 1);\n"
	"\t(void) s;\n"
	"\tCALL;\n"
	"\tfor (long i = 0; i < off; ++i)\n"
	"\t\tif (C[i - off] != 12345.0f && bad++ < 5)\n"
	"\t\t\tfprintf(stderr, \"C[%ld] written\\n\", i - off);\n"
	"\tfor (long i = 0; i < M; ++i)\n\t\tfor (long j = 0; j < N; ++j) {\n"
	"\t\t\tdouble acc = 0;\n"
	"\t\t\tfor (long k = 0; k < K; ++k)\n"
	"\t\t\t\tacc += (double) PRO_A(A_KM ? A[k * M + i] : A[i * K + k]) *\n"
	"\t\t\t\t\tPRO_B(B_NK ? B[j * K + k] : B[k * N + j]);\n"
	"\t\t\tif (!(C[i * N + j] == acc) && bad++ < 5)\n"
	"\t\t\t\tfprintf(stderr, \"C[%ld][%ld] = %g, expected %g\\n\",\n"
	"\t\t\t\t\ti, j, C[i * N + j], acc);\n"
	"\t\t}\n"
	"\tprintf(\"%ld wrong\\n\", bad);\n"
	"\tfree(A - off);\n\tfree(B - off);\n\tfree(C - off);\n\tfree(s - off);\n"
	"\treturn bad != 0;\n}\n";

/* A GEMM with a bias and a residual read in pairs by the epilogue:
 * C = relu(A B + bias(j)) + R(i, j); argv: M N K OFF. */
static const char epi_driver[] =
	"\n#include <math.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	"static float *pm_alloc(long n, long off, float fill)\n{\n"
	"\tfloat *p = malloc(sizeof(float) * (n + off));\n"
	"\tfor (long i = 0; i < n + off; ++i) p[i] = i < off ? 12345.0f : fill;\n"
	"\treturn p + off;\n}\n"
	"int main(int argc, char **argv)\n{\n"
	"\tlong M = atol(argv[1]), N = atol(argv[2]), K = atol(argv[3]);\n"
	"\tlong off = atol(argv[4]), bad = 0;\n"
	"\tfloat *A = pm_alloc(M * K, off, 0), *B = pm_alloc(K * N, off, 0);\n"
	"\tfloat *bias = pm_alloc(N, off, 0), *R = pm_alloc(M * N, off, 0);\n"
	"\tfloat *C = pm_alloc(M * N, off, NAN);\n"
	"\tfor (long i = 0; i < M * K; ++i) A[i] = (float) ((i * 7 + 3) % 11 - 5);\n"
	"\tfor (long i = 0; i < K * N; ++i) B[i] = (float) ((i * 5 + 1) % 13 - 6);\n"
	"\tfor (long i = 0; i < N; ++i) bias[i] = (float) (i % 7 - 3);\n"
	"\tfor (long i = 0; i < M * N; ++i) R[i] = (float) (i % 9 - 4);\n"
	"\tCALL;\n"
	"\tfor (long i = 0; i < M; ++i)\n\t\tfor (long j = 0; j < N; ++j) {\n"
	"\t\t\tdouble s = 0;\n"
	"\t\t\tfor (long k = 0; k < K; ++k) s += (double) A[i * K + k] * B[k * N + j];\n"
	"\t\t\ts = (s + bias[j] > 0 ? s + bias[j] : 0) + R[i * N + j];\n"
	"\t\t\tif (!(C[i * N + j] == s) && bad++ < 5)\n"
	"\t\t\t\tfprintf(stderr, \"C[%ld][%ld] = %g, expected %g\\n\", i, j, C[i * N + j], s);\n"
	"\t\t}\n"
	"\tprintf(\"%ld wrong\\n\", bad);\n\treturn bad != 0;\n}\n";

/* The negative controls' helpers: copies that leave the elements past a
 * row at 1 (not zeros), and stores of whole units past a row. */
static const char broken[] =
	"#include <stdint.h>\n"
	"static inline void pm_host_copy_w(int n, float *dst, const float *row,\n"
	"\tint64_t c, int64_t lim)\n{\n\tfor (int i = 0; i < n; ++i)\n"
	"\t\tdst[i] = c + i < lim ? row[c + i] : 1.0f;\n}\n"
	"static inline void pm_host_s2g_w(int n, float *row, int64_t c,\n"
	"\tint64_t lim, const float *src)\n{\n\t(void) lim;\n"
	"\tfor (int i = 0; i < n; ++i)\n\t\trow[c + i] = src[i];\n}\n"
	"static inline void pm_host_zero_noop(int n, float *dst, int64_t from)\n"
	"{\n\t(void) n;\n\t(void) dst;\n\t(void) from;\n}\n";

/* Spec text rendered for the host with configuration c, as the
 * _unaligned row (narrow copies); the source (caller frees) or NULL with
 * the diagnostics printed. */
static char *render(const char *text, const struct pm_hr_cfg *c)
{
	struct pm_config cfg;

	pm_hr_config(&cfg, c);
	cfg.staged_store = c->frag;
	cfg.reg_stage = pm_hr_reg_stage(c);
	cfg.narrow_copies = 1;
	return pm_hr_generate_text(text, &cfg);
}

/* Replace every call "from" in src by "to" (of the same length; not
 * the helper's definition, "void from"). */
static void edit_calls(char *src, const char *from, const char *to)
{
	for (char *p = strstr(src, from); p; p = strstr(p + 1, from))
		if (p - src < 5 || strncmp(p - 5, "void ", 5))
			memcpy(p, to, strlen(to));
}

/* The operands' prologues of run_gemm: none, x + 1 on both (not 0 at 0:
 * past k their zeros must stay zeros), A times a vector s(k) (a broadcast
 * read at each element's k). */
enum pro { PRO_NONE, PRO_PLUS1, PRO_SCALE };

/* C = A * B in layout l ("nn" .. "tt"), prologues p, with configuration
 * c on each of sizes[0..n) ("M N K OFF"); broken: the negative controls'
 * helpers in place of the copies (1) or of the staged stores (2). */
static int run_pro(const char *l, enum pro p, const struct pm_hr_cfg *c,
	const char *const *sizes, int n, int quiet, int broken_calls)
{
	char text[512], what[128], ea[64], eb[64];
	const char *ra = l[0] == 't' ? "A(k, i)" : "A(i, k)";
	const char *rb = l[1] == 't' ? "B(j, k)" : "B(k, j)";
	struct pm_strbuf head;
	char *src;
	int rc;

	snprintf(ea, sizeof(ea), p == PRO_PLUS1 ? "(%s + 1)" : p ==
		PRO_SCALE ? "(%s * s(k))" : "%s", ra);
	snprintf(eb, sizeof(eb), p == PRO_PLUS1 ? "(%s + 1)" : "%s", rb);
	snprintf(text, sizeof(text), "def g(%s, %s%s) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! %s * %s\n}\n", l[0] == 't' ? "f16(K, M) A" :
		"f16(M, K) A", l[1] == 't' ? "f16(N, K) B" : "f16(K, N) B",
		p == PRO_SCALE ? ", f16(K) s" : "", ea, eb);
	src = render(text, c);
	assert_non_null(src);
	/* the narrow copies are there, not the 16-byte ones */
	assert_non_null(strstr(src, "pm_host_copy_n("));
	assert_null(strstr(src, "pm_host_copy_z(8, "));
	if (broken_calls == 1)
		edit_calls(src, "pm_host_copy_n(", "pm_host_copy_w(");
	if (broken_calls == 2)
		edit_calls(src, "pm_host_s2g_n(", "pm_host_s2g_w(");
	if (broken_calls == 3)
		edit_calls(src, "pm_host_zero_tail(", "pm_host_zero_noop(");
	pm_strbuf_init(&head);
	pm_strbuf_printf(&head, "#define A_KM %d\n#define B_NK %d\n%s",
		l[0] == 't', l[1] == 't', broken);
	pm_strbuf_add(&head, p == PRO_PLUS1 ? "#define PRO_A(x) ((x) + 1)\n"
		"#define PRO_B(x) ((x) + 1)\n" : p == PRO_SCALE ?
		"#define PRO_A(x) ((x) * s[k])\n#define PRO_B(x) (x)\n" :
		"#define PRO_A(x) (x)\n#define PRO_B(x) (x)\n");
	pm_hr_split_call(&head, 0, "g", p == PRO_SCALE ? "A, B, s, C, M, N, K" :
		"A, B, C, M, N, K", "K", NULL, c->bm, c->bn, c->bk, 1);
	snprintf(what, sizeof(what), "unaligned %s pro %d bk %d stages %d", l,
		(int) p, c->bk, c->stages);
	rc = pm_hr_build_and_run_n(head.s, src, driver, sizes, n, quiet, 1,
		what);
	pm_strbuf_free(&head);
	free(src);
	return rc;
}

static int run_gemm(const char *l, const struct pm_hr_cfg *c,
	const char *const *sizes, int n, int quiet, int broken_calls)
{
	return run_pro(l, PRO_NONE, c, sizes, n, quiet, broken_calls);
}

/* M, N, K from {1, 7, 127, 129, 777, 1000} (none a multiple of 8 but
 * 1000), the tensors 0 to 3 elements past their allocations' starts;
 * two aligned sizes. */
static const char *const sizes[] = {
	"1 1 1 1", "7 7 7 3", "127 129 7 2", "129 127 1000 1",
	"7 1000 129 0", "1000 7 127 3", "129 777 1 1", "777 7 129 2",
	"1 129 777 3", "127 1 1000 1", "1000 1000 7 0", "7 129 127 2",
	/* aligned: the row forced on what the others run */
	"64 64 64 0", "128 64 96 0",
};
#define NSIZES ((int) (sizeof(sizes) / sizeof(sizes[0])))

/* Every layout and configuration at every size. */
static void test_gemm_unaligned(void **state)
{
	(void) state;
	for (int l = 0; l < 4; ++l)
		for (int c = 0; c < NCFGS; ++c)
			if (run_gemm(pm_test_layouts[l], &cfgs[c], sizes, NSIZES,
					0, 0))
				fail_msg("gemm %s config %d", pm_test_layouts[l], c);
}

/* Prologues on the copied units: x + 1 on both operands (the zeros past
 * k of a unit across k made f(0) by the prologue: zeros again, or the
 * products past k would add 1), in shared memory, overlapped with the
 * MMAs, A's through the MMA's registers; A times s(k), read at each
 * element's k (a unit across K: each element's own). */
static void test_prologues(void **state)
{
	static const char *const s[] = { "7 7 7 1", "129 127 129 3",
		"127 7 1000 2", "1 129 127 0", "64 64 7 1" };

	(void) state;
	for (int l = 0; l < 4; ++l)
		for (int i = 0; i < 3; i += 2)
			for (int v = 0; v < 3; ++v) {
				struct pm_hr_cfg c = cfgs[i];

				c.frag = 0;
				c.pro_overlap = v == 1 && c.stages >= 2;
				c.pro_regs = v == 2;
				if (run_pro(pm_test_layouts[l], PRO_PLUS1, &c, s, 5, 0,
						0))
					fail_msg("prologues %s config %d variant %d",
						pm_test_layouts[l], i, v);
				if (v == 0 && run_pro(pm_test_layouts[l], PRO_SCALE,
						&c, s, 5, 0, 0))
					fail_msg("scale %s config %d",
						pm_test_layouts[l], i);
			}
}

/* One large case: M = N = K = 777 (the issue's), pointers offset. */
static void test_gemm_777(void **state)
{
	static const char *const s[] = { "777 777 777 1" };

	(void) state;
	if (run_gemm("nt", &cfgs[3], s, 1, 0, 0))
		fail_msg("gemm 777");
}

/* The check is live: copies that do not zero-fill past a row (K = 7, A's
 * and B's rows of 7 elements) fail, and so do stores of whole units past
 * the output's rows of 7 (ASan or the neighbours' values) and prologues
 * whose f(0) past k is not zeroed again; the same files unedited pass. */
static void test_checker_catches(void **state)
{
	static const char *const k7[] = { "64 64 7 0" };
	static const char *const n7[] = { "64 7 64 0" };

	(void) state;
	assert_int_not_equal(run_gemm("nt", &cfgs[2], k7, 1, 1, 1), 0);
	assert_int_equal(run_gemm("nt", &cfgs[2], k7, 1, 0, 0), 0);
	assert_int_not_equal(run_gemm("nn", &cfgs[3], n7, 1, 1, 2), 0);
	assert_int_equal(run_gemm("nn", &cfgs[3], n7, 1, 0, 0), 0);
	/* prologues (x + 1) that leave f(0) past k in units across k */
	assert_int_not_equal(run_pro("nt", PRO_PLUS1, &cfgs[0], k7, 1, 1, 3),
		0);
	assert_int_equal(run_pro("nt", PRO_PLUS1, &cfgs[0], k7, 1, 0, 0), 0);
}

/* An epilogue reading a bias and a residual in pairs (N odd: the last
 * pair has one element), direct and staged stores. */
static void test_epilogue(void **state)
{
	static const char *const s[] = { "7 7 7 1", "129 127 129 3",
		"127 1 1000 2", "1 777 7 1" };

	(void) state;
	for (int i = 0; i < NCFGS; ++i) {
		const struct pm_hr_cfg *c = &cfgs[i];
		struct pm_strbuf head;
		char *src = render("def f(f16(M, K) A, f16(K, N) B, f16(N) bias, "
			"f16(M, N) R) -> (f16(M, N) C) {\n"
			"  C(i, j) +=! A(i, k) * B(k, j)\n"
			"  C(i, j) = relu(C(i, j) + bias(j)) + R(i, j)\n}\n", c);

		assert_non_null(src);
		pm_strbuf_init(&head);
		pm_hr_split_call(&head, 0, "f", "A, B, bias, R, C, M, N, K",
			"K", NULL, c->bm, c->bn, c->bk, 1);
		if (pm_hr_build_and_run_n(head.s, src, epi_driver, s, 4, 0, 1,
				"unaligned epilogue"))
			fail_msg("epilogue config %d", i);
		pm_strbuf_free(&head);
		free(src);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_catches),
		cmocka_unit_test(test_gemm_unaligned),
		cmocka_unit_test(test_epilogue),
		cmocka_unit_test(test_prologues),
		cmocka_unit_test(test_gemm_777),
	};

	/* PM_TEST_FILTER=test_epilogue: run only the matching tests */
	if (getenv("PM_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PM_TEST_FILTER"));
	if (system("cc --version >/dev/null 2>&1")) {
		printf("no C compiler: host-render tests skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

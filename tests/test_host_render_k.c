/* Ragged k (docs/decisions/0030-ragged-k.md): the host rendering of
 * kernels whose k extents are not multiples of the k tile, compiled with
 * AddressSanitizer and checked against a naive reference
 * (tests/host_render_drivers.h): the last k tile partial, its elements
 * past K zero-filled by the copies (threads' copies, register staging,
 * TMA boxes), prologues left off them; every layout with K from 1 to
 * 1000 (whole 16-byte rows where K is a contiguous dimension), M odd
 * where it may be, split in chunks of k, fixed K (-D), an epilogue, two
 * contractions of different K and L, a shared operand. */
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
#include "tests/host_render_drivers.h"
#include "tests/host_render_util.h"

/* A host configuration: block, warp and macro tiles, stages, shared
 * layout (0 plain, 1 pad, 2 swizzle), the fragment pipeline, TMA copies,
 * A's prologue through the MMA (pro_regs), prologues overlapped with the
 * MMAs. Two stages without the fragment pipeline: register staging. */
static const struct pm_hr_cfg cfgs[] = {
	/* one stage, k tile 16 */
	{ 64, 64, 16, 32, 32, 8, 8, 4, 1, 0, 0, 0, 0, 0 },
	/* register staging, k tile 8 */
	{ 32, 64, 8, 16, 32, 16, 16, 8, 2, 1, 0, 0, 0, 0 },
	/* cp.async in 3 stages, swizzled */
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 0, 0, 0, 0 },
	/* the fragment pipeline (the sm_80 default) */
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 1, 0, 0, 0 },
	/* TMA boxes */
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 0, 1, 0, 0 },
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 0, 1, 0, 0 },
};
#define NCFGS ((int) (sizeof(cfgs) / sizeof(cfgs[0])))

/* Generate spec text for the host with configuration c, split-K (split:
 * chunks, 0 none) and K fixed to fixed_k (0: a runtime size); the source
 * (caller frees) or NULL with the diagnostics printed. */
static char *render(const char *text, const struct pm_hr_cfg *c,
	long split, long fixed_k)
{
	struct pm_config cfg;

	pm_hr_config(&cfg, c);
	cfg.split_k = split ? 0 : 1;
	cfg.staged_store = c->frag;
	cfg.reg_stage = pm_hr_reg_stage(c);
	if (fixed_k) {
		strcpy(cfg.defines[0].name, "K");
		cfg.defines[0].value = fixed_k;
		cfg.ndefines = 1;
	}
	return pm_hr_generate_text(text, &cfg);
}

/* One contraction C = PRO_A(A) * PRO_B(B) in layout l ("nn" .. "tt")
 * checked on "M N K" for each of sizes[0..n). */
static int run_gemm(const char *l, const char *pro_a, const char *pro_b,
	const struct pm_hr_cfg *c, long split, long fixed_k,
	const char *const *sizes, int n, int quiet, const char *edit)
{
	char text[512], what[128];
	const char *ra = l[0] == 't' ? "A(k, i)" : "A(i, k)";
	const char *rb = l[1] == 't' ? "B(j, k)" : "B(k, j)";
	char ea[32], eb[32];
	struct pm_strbuf head, tail;
	char *src;
	int rc;

	/* "x": the plain read, else the read + 1 */
	snprintf(ea, sizeof(ea), strcmp(pro_a, "x") ? "(%s + 1)" : "%s", ra);
	snprintf(eb, sizeof(eb), strcmp(pro_b, "x") ? "(%s + 1)" : "%s", rb);
	snprintf(text, sizeof(text), "def g(%s, %s) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! %s * %s\n}\n", l[0] == 't' ? "f16(K, M) A" :
		"f16(M, K) A", l[1] == 't' ? "f16(N, K) B" : "f16(K, N) B",
		ea, eb);
	src = render(text, c, split, fixed_k);
	assert_non_null(src);
	if (edit) {
		/* the negative control: the calls "pm_host_copy_z(8, " ->
		 * edit (not the helper's definition) */
		for (char *p = strstr(src, "pm_host_copy_z(8, "); p;
		     p = strstr(p + 1, "pm_host_copy_z(8, "))
			memcpy(p, edit, strlen(edit));
	}
	pm_strbuf_init(&head);
	pm_strbuf_init(&tail);
	pm_strbuf_printf(&head, "#define A_KM %d\n#define B_NK %d\n"
		"#define PRO_A(x) ((float) pm_pro_a(x))\n"
		"#define PRO_B(x) ((float) pm_pro_b(x))\n"
		"static void pm_host_copy_y(int n, float *d, const float *s, "
		"int in) { (void) in; for (int i = 0; i < n; ++i) d[i] = s[i]; }\n",
		l[0] == 't', l[1] == 't');
	pm_hr_split_call(&head, split, "g", fixed_k ? "A, B, C, M, N" :
		"A, B, C, M, N, K", "K", NULL, c->bm, c->bn, c->bk, 1);
	pm_strbuf_printf(&tail, "static float pm_pro_a(float x) { return %s; }\n"
		"static float pm_pro_b(float x) { return %s; }\n",
		strcmp(pro_a, "x") ? "x + 1" : "x",
		strcmp(pro_b, "x") ? "x + 1" : "x");
	pm_strbuf_add(&tail, driver);
	snprintf(what, sizeof(what), "%s bk %d split %ld tma %d fixed K %ld",
		l, c->bk, split, c->tma, fixed_k);
	rc = pm_hr_build_and_run_n(head.s, src, tail.s, sizes, n, quiet, 1,
		what);
	pm_strbuf_free(&head);
	pm_strbuf_free(&tail);
	free(src);
	return rc;
}

/* Sizes per layout: K a multiple of 8 where it is a contiguous dimension
 * (nn: A's rows; nt: both; tt: B's), anything in tn (A K x M, B K x N:
 * M and N are the contiguous ones); M odd where it is not contiguous (nn,
 * nt), else a multiple of 8 (tn, tt: A is K x M). */
static const char *const sizes_nn[] = {
	"67 40 8", "67 40 24", "67 40 120", "67 40 136", "67 40 776",
	"67 40 1000", "1 8 8", "129 72 40",
};
static const char *const sizes_tt[] = {
	"72 40 8", "72 40 24", "72 40 120", "72 40 136", "72 40 776",
	"72 40 1000", "8 8 8", "136 72 40",
};
static const char *const sizes_tn[] = {
	"72 40 1", "72 40 7", "72 40 8", "72 40 24", "72 40 127",
	"72 40 129", "72 40 776", "72 40 1000", "8 8 3",
};
#define NNN ((int) (sizeof(sizes_nn) / sizeof(sizes_nn[0])))
#define NTT ((int) (sizeof(sizes_tt) / sizeof(sizes_tt[0])))
#define NTN ((int) (sizeof(sizes_tn) / sizeof(sizes_tn[0])))

/* The sizes of layout L and their number. */
static const char *const *sizes_of(const char *L, int *n)
{
	if (!strcmp(L, "tn")) {
		*n = NTN;
		return sizes_tn;
	}
	*n = L[0] == 't' ? NTT : NNN;
	return L[0] == 't' ? sizes_tt : sizes_nn;
}

/* Every layout and configuration, unsplit and in 3 chunks of k. */
static void test_gemm_ragged_k(void **state)
{
	(void) state;
	for (int l = 0; l < 4; ++l)
		for (int c = 0; c < NCFGS; ++c)
			for (long split = 0; split <= 3; split += 3) {
				const char *L = pm_test_layouts[l];
				int n;
				const char *const *sz = sizes_of(L, &n);

				if (run_gemm(L, "x", "x", &cfgs[c], split, 0, sz, n,
						0, NULL))
					fail_msg("gemm %s config %d split %ld", L, c,
						split);
			}
}

/* Prologues that are not 0 at 0 on both operands ((A + 1) * (B + 1)):
 * the zeros past k must stay zeros (the prologue left off them) for the
 * products to be 0; in shared memory, overlapped with the MMAs, and A's
 * through the MMA's registers (B's in shared memory), split too. */
static void test_prologues(void **state)
{
	static const int pc[] = { 0, 1, 2, 3 };

	(void) state;
	for (int l = 0; l < 4; ++l)
		for (int i = 0; i < 4; ++i)
			for (int v = 0; v < 3; ++v) {
				struct pm_hr_cfg c = cfgs[pc[i]];
				const char *L = pm_test_layouts[l];
				int n;
				const char *const *sz = sizes_of(L, &n);

				c.frag = 0;
				c.pro_overlap = v == 1 && c.stages >= 2;
				c.pro_regs = v == 2;
				if (run_gemm(L, "x + 1", "x + 1", &c, v ? 2 : 0, 0,
						sz, 4, 0, NULL))
					fail_msg("prologues %s config %d variant %d",
						L, pc[i], v);
			}
}

/* K fixed with -D to a value that is not a multiple of the k tile: the
 * domain runs to the padded value; unsplit and split. */
static void test_fixed_k(void **state)
{
	static const char *const nn[] = { "128 64 1000" };
	static const char *const tn[] = { "64 64 127" };

	(void) state;
	for (int c = 0; c < NCFGS; ++c)
		for (long split = 0; split <= 2; split += 2) {
			if (run_gemm("nn", "x", "x", &cfgs[c], split, 1000, nn, 1,
					0, NULL))
				fail_msg("fixed K nn config %d split %ld", c, split);
			/* a prologue (in shared memory: not with TMA) */
			if (run_gemm("tn", cfgs[c].tma ? "x" : "x + 1", "x",
					&cfgs[c], split, 127, tn, 1, 0, NULL))
				fail_msg("fixed K tn config %d split %ld", c, split);
		}
}

/* The check is live: copies past k that read the last unit inside
 * instead of zeros (pm_host_copy_z made pm_host_copy_y) fail. */
static void test_checker_catches_no_zeros(void **state)
{
	static const char *const s[] = { "67 40 40" };

	(void) state;
	assert_int_not_equal(run_gemm("nn", "x", "x", &cfgs[2], 0, 0, s, 1, 1,
		"pm_host_copy_y("), 0);
	assert_int_equal(run_gemm("nn", "x", "x", &cfgs[2], 0, 0, s, 1, 0,
		NULL), 0);
}

/* A fused epilogue (bias, ReLU) and two contractions (K and L ragged
 * apart, idiom 4), split and not, with the threads' copies and TMA. */
static void test_fused(void **state)
{
	static const char *const epi[] = { "67 40 8", "67 40 40",
		"67 40 1000" };
	/* E is L x M: M a multiple of 8 there */
	static const char *const add[] = { "64 40 8 24", "72 40 40 776",
		"72 40 1000 136", "8 40 136 8" };
	static const int fc[] = { 2, 3, 4 };

	(void) state;
	for (int i = 0; i < 3; ++i)
		for (long split = 0; split <= 2; split += 2) {
			const struct pm_hr_cfg *c = &cfgs[fc[i]];
			struct pm_strbuf head;
			char *src;

			src = render("def f(f16(M, K) A, f16(K, N) B, f16(N) bias) "
				"-> (f16(M, N) C) {\n"
				"  C(i, j) +=! A(i, k) * B(k, j)\n"
				"  C(i, j) = relu(C(i, j) + bias(j))\n}\n", c, split, 0);
			assert_non_null(src);
			pm_strbuf_init(&head);
			pm_hr_split_call(&head, split, "f", "A, B, bias, C, M, N, K",
				"K", NULL, c->bm, c->bn, c->bk, 1);
			pm_strbuf_add(&head, "#define EPI (v + bias[j] > 0 ? v + "
				"bias[j] : 0)\n");
			if (pm_hr_build_and_run_n(head.s, src, epi_driver, epi, 3, 0,
					1, "epilogue"))
				fail_msg("epilogue config %d split %ld", fc[i], split);
			pm_strbuf_free(&head);
			free(src);
			/* add_gemm_2k's form: E is L x M, F N x L */
			src = render("def add2(f16(M, K) A, f16(K, N) B, f16(L, M) E, "
				"f16(N, L) F) -> (f16(M, N) O) {\n"
				"  C(i, j) +=! A(i, k) * B(k, j)\n"
				"  D(i, j) +=! E(l, i) * F(j, l)\n"
				"  O(i, j) = relu(C(i, j) + D(i, j) / 2)\n}\n", c, split,
				0);
			assert_non_null(src);
			pm_strbuf_init(&head);
			pm_strbuf_add(&head, "#define SHARED 0\n");
			pm_hr_split_call(&head, split, "add2",
				"A, B, E, F, O, M, N, K, L", "K", "L", c->bm, c->bn,
				c->bk, 2);
			if (pm_hr_build_and_run_n(head.s, src, add_driver, add, 4,
					0, 1, "two contractions"))
				fail_msg("two contractions config %d split %ld",
					fc[i], split);
			pm_strbuf_free(&head);
			free(src);
		}
}

/* A shared operand (SwiGLU: one k loop, X copied once for both
 * contractions) and a shared B with the second A in another layout. */
static void test_shared_operand(void **state)
{
	static const char *const texts[2] = {
		PM_HR_SWIGLU_X, PM_HR_SWIGLU_W,
	};
	static const char *const sizes[] = { "72 40 8", "72 40 40",
		"72 40 776", "8 8 1000" };
	static const int sc[] = { 1, 2, 3, 5 };

	(void) state;
	for (int v = 0; v < 2; ++v)
		for (int i = 0; i < 4; ++i)
			for (long split = 0; split <= 3; split += 3) {
				const struct pm_hr_cfg *c = &cfgs[sc[i]];
				struct pm_strbuf head;
				char *src = render(texts[v], c, split, 0);

				assert_non_null(src);
				pm_strbuf_init(&head);
				pm_strbuf_printf(&head, "#define SHARED_B %d\n"
					"#define PRO_R(x) (x)\n", v);
				pm_hr_split_call(&head, split, "sw",
					"P, Q, R, O, M, N, K", "K", "K", c->bm, c->bn,
					c->bk, 2);
				if (pm_hr_build_and_run_n(head.s, src, shared_driver,
						sizes, 4, 0, 1, "shared operand"))
					fail_msg("shared %d config %d split %ld", v,
						sc[i], split);
				pm_strbuf_free(&head);
				free(src);
			}
}

/* A prologue that is not finite at 0 (1 / A) cannot multiply a zero past
 * k: such a file keeps K a multiple of the k tile (the launcher's check,
 * no padded k), and -D K that is not one is refused; 8-bit operands ask
 * K for rows of 16 elements. */
static void test_refusals(void **state)
{
	static const char inv[] = "def g(f16(M, K) A, f16(K, N) B) -> "
		"(f16(M, N) C) {\n  C(i, j) +=! (1 / A(i, k)) * B(k, j)\n}\n";
	static const char plain[] = "def g(f16(M, K) A, f16(K, N) B) -> "
		"(f16(M, N) C) {\n  C(i, j) +=! A(i, k) * B(k, j)\n}\n";
	char *src;

	(void) state;
	src = render(inv, &cfgs[3], 0, 0);
	assert_non_null(src);
	assert_null(strstr(src, "pm_tK"));
	assert_null(strstr(src, "pm_host_copy_z(8"));
	free(src);
	assert_null(render(inv, &cfgs[3], 0, 1000));
	/* whole 16-byte rows of A (K is its contiguous dimension) */
	assert_null(render(plain, &cfgs[3], 0, 1004));
	src = render(plain, &cfgs[3], 0, 1000);
	assert_non_null(src);
	/* the domain runs to 1024, the copies zero-fill past 1000 */
	assert_non_null(strstr(src, "< 1000);"));
	assert_null(strstr(src, "pm_tK"));
	free(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_catches_no_zeros),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_gemm_ragged_k),
		cmocka_unit_test(test_prologues),
		cmocka_unit_test(test_fixed_k),
		cmocka_unit_test(test_fused),
		cmocka_unit_test(test_shared_operand),
	};

	/* PM_TEST_FILTER=test_fused*: run only the matching tests */
	if (getenv("PM_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PM_TEST_FILTER"));
	if (system("cc --version >/dev/null 2>&1")) {
		printf("no C compiler: host-render tests skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

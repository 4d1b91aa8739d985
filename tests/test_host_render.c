/* The sequential host rendering of the final schedule (copies, macro-MMA
 * statements, stores, every thread and warp a loop) compiled with the C
 * compiler and checked exactly against a naive matmul: catches tiling,
 * contraction, promotion-offset and boundary bugs without a GPU. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <unistd.h>

#include "api/pipeline.h"
#include "target/target.h"
#include "polymma.h"
#include "poly/strbuf.h"
#include "tests/util.h"
#include "tests/host_render_drivers.h"
#include "tests/host_render_util.h"

/* Ragged sizes: the rendering is built with AddressSanitizer (the inputs
 * and outputs are malloc'ed at their exact sizes, so any access past a
 * size fails the run). */
static int g_asan;
/* The kernel is called with M + 8 (its buffers hold M rows). */
static int g_overrun;

static int build_and_run(const char *head, const char *source,
	const char *tail, const char *args, int quiet, const char *what)
{
	return pm_hr_build_and_run(head, source, tail, args, quiet, g_asan,
		what);
}

/* Split-K: the host rendering is called once per chunk z of S (0: no
 * split), as blocks of the GPU would run, with the workspace the
 * launcher would give (counters must be back to zero at the end). */
static long g_split;
/* Prologues overlapped with the MMAs (--pro-overlap on): tile kt + 1's
 * transformed after tile kt's MMAs are issued. */
static int g_pro_overlap;
/* A's prologue applied to the MMA's operand (--pro-regs on). */
static int g_pro_regs;
/* TMA copies (--tma on): one COPY instance per tile, the whole box. */
static int g_tma;

/* pm_hr_split_call in g_split chunks */
static void split_call(struct pm_strbuf *b, const char *name,
	const char *args, const char *ext0, const char *ext1, int bm, int bn,
	int bk, int nacc)
{
	pm_hr_split_call(b, g_split, name, args, ext0, ext1, bm, bn, bk, nacc);
}

struct cfg {
	int bm, bn, bk, wm, wn, mm, mn, mk;
	int stages, smem;	/* 0: plain 1: pad 2: swizzle */
	int frag;		/* the fragment pipeline (promote/fragments.c) */
};

/* Generate the host rendering of gemm_<layout> (fixed sizes when m > 0),
 * build it and run it on m x n x k; returns the exit status. */
static int render_text(const char *text, const char *layout,
	const char *check_as, const struct cfg *c, int fixed, long m, long n,
	long k, const char *pro_a, const char *pro_b);

static int render_as(const char *layout, const char *check_as,
	const struct cfg *c, int fixed, long m, long n, long k)
{
	return render_text(NULL, layout, check_as, c, fixed, m, n, k, "x", "x");
}

static int render_text(const char *text, const char *layout,
	const char *check_as, const struct cfg *c, int fixed, long m, long n,
	long k, const char *pro_a, const char *pro_b)
{
	struct pm_spec *spec;
	struct pm_config cfg;
	char *owned = NULL, *src;
	int rc;

	if (!text) {
		char path[64];

		snprintf(path, sizeof(path), "examples/gemm_%s.tc", layout);
		text = owned = pm_test_read(path);
		assert_non_null(text);
	}
	spec = pm_hr_parse(text);
	memset(&cfg, 0, sizeof(cfg));
	cfg.target = pm_target_host();
	cfg.split_k = g_split ? 0 : 1;
	cfg.stages = c->stages ? c->stages : 1;
	cfg.smem = c->smem;
	cfg.frag_pipe = c->frag;
	cfg.staged_store = c->frag;	/* the sm_80 defaults go together */
	/* 2 stages without the fragment pipeline: register-staged copies
	 * (the sm_70 default) where the spec allows them */
	cfg.reg_stage = c->stages == 2 && !c->frag && !g_pro_overlap ? -1 : 0;
	cfg.pro_overlap = g_pro_overlap;
	cfg.pro_regs = g_pro_regs;
	if (g_pro_regs)
		cfg.frag_pipe = 0;
	cfg.tma = g_tma;
	if (g_tma)	/* the threads copy in those two */
		cfg.frag_pipe = cfg.reg_stage = 0;
	cfg.bm = c->bm, cfg.bn = c->bn, cfg.bk = c->bk;
	cfg.wm = c->wm, cfg.wn = c->wn;
	cfg.mm = c->mm, cfg.mn = c->mn, cfg.mk = c->mk;
	if (fixed) {
		const char *names[3] = { "M", "N", "K" };
		long v[3] = { m, n, k };
		for (int i = 0; i < 3; ++i) {
			strcpy(cfg.defines[i].name, names[i]);
			cfg.defines[i].value = v[i];
		}
		cfg.ndefines = 3;
	}
	/* once per spec and configuration (the sizes, the checks differ) */
	src = pm_hr_generate_text(text, &cfg);
	assert_non_null(src);
	{
		struct pm_strbuf head, tail;
		char args[96], what[96];

		pm_strbuf_init(&head);
		pm_strbuf_init(&tail);
		pm_strbuf_printf(&head, "#define A_KM %d\n#define B_NK %d\n"
			"#define PRO_A(x) ((float) pm_pro_a(x))\n"
			"#define PRO_B(x) ((float) pm_pro_b(x))\n",
			check_as[0] == 't', check_as[1] == 't');
		split_call(&head, spec->name, fixed ? "A, B, C" : g_overrun ?
			"A, B, C, M + 8, N, K" : "A, B, C, M, N, K", "K", NULL,
			c->bm, c->bn, c->bk, 1);
		pm_strbuf_printf(&tail, "static float pm_pro_a(float x) { return "
			"%s; }\nstatic float pm_pro_b(float x) { return %s; }\n",
			pro_a, pro_b);
		pm_strbuf_add(&tail, driver);
		snprintf(args, sizeof(args), "%ld %ld %ld", m, n, k);
		snprintf(what, sizeof(what), "%s %s %ldx%ldx%ld", layout,
			fixed ? "fixed" : "runtime", m, n, k);
		rc = build_and_run(head.s, src, tail.s, args,
			strcmp(layout, check_as) != 0, what);
		pm_strbuf_free(&head);
		pm_strbuf_free(&tail);
	}
	free(src);
	free(owned);
	pm_spec_free(spec);
	return rc;
}

static int render_and_run(const char *layout, const struct cfg *c, int fixed,
	long m, long n, long k)
{
	return render_as(layout, layout, c, fixed, m, n, k);
}

static const struct cfg cfgs[] = {
	{ 64, 64, 16, 32, 32, 8, 8, 4, 1, 0, 0 },
	{ 32, 64, 8, 16, 32, 16, 16, 8, 2, 1, 0 },
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 0 },
	{ 64, 64, 32, 64, 32, 32, 32, 16, 4, 2, 0 },
	{ 128, 64, 32, 64, 32, 32, 32, 16, 2, 1, 0 },
	/* fragment pipeline: 2 or 4 k-steps per tile, 2 to 4 stages */
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 1 },
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 1 },
	{ 128, 64, 32, 64, 32, 32, 32, 16, 2, 1, 1 },
	{ 32, 64, 16, 16, 32, 16, 16, 8, 4, 0, 1 },
};
#define NCFGS ((int) (sizeof(cfgs) / sizeof(cfgs[0])))
/* the configurations the prologue and two-contraction tests use */
static const int some_cfgs[] = { 0, 1, 2, 3, 5, 6, 8 };
#define NSOME ((int) (sizeof(some_cfgs) / sizeof(some_cfgs[0])))

static void test_runtime_sizes(void **state)
{
	(void) state;
	for (int l = 0; l < 4; ++l)
		for (int c = 0; c < NCFGS; ++c) {
			const struct cfg *g = &cfgs[c];
			/* one block, and several blocks with a longer k */
			assert_int_equal(render_and_run(pm_test_layouts[l], g,
				0, g->bm, g->bn, g->bk), 0);
			assert_int_equal(render_and_run(pm_test_layouts[l], g,
				0, 3 * g->bm, 2 * g->bn, 5 * g->bk), 0);
		}
}

/* The 2-stage configurations without the fragment pipeline render
 * register-staged copies (so test_runtime_sizes checks them). */
static void test_register_staging_rendered(void **state)
{
	struct pm_spec *spec = pm_test_spec("nn");
	struct pm_config cfg;
	struct pm_output out = { 0 };
	struct pm_diags d;

	(void) state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.target = pm_target_host();
	cfg.split_k = 1;
	cfg.stages = cfgs[1].stages;
	cfg.smem = cfgs[1].smem;
	cfg.reg_stage = -1;
	cfg.bm = cfgs[1].bm, cfg.bn = cfgs[1].bn, cfg.bk = cfgs[1].bk;
	cfg.wm = cfgs[1].wm, cfg.wn = cfgs[1].wn;
	cfg.mm = cfgs[1].mm, cfg.mn = cfgs[1].mn, cfg.mk = cfgs[1].mk;
	pm_diags_init(&d, "t", NULL);
	assert_int_equal(pm_pipeline_generate(spec, &cfg, &out, &d), 0);
	pm_diags_clear(&d);
	assert_non_null(strstr(out.source, "static float pm_rs0[128][1][8];"));
	/* zeros past a ragged K (decisions/0030) */
	assert_non_null(strstr(out.source, "pm_host_copy_z(8, pm_rs0["));
	assert_non_null(strstr(out.source, "], pm_rs1["));
	pm_output_clear(&out);
	pm_spec_free(spec);
}

static void test_fixed_sizes(void **state)
{
	(void) state;
	for (int l = 0; l < 4; ++l)
		assert_int_equal(render_and_run(pm_test_layouts[l], &cfgs[1], 1,
			64, 128, 24), 0);
}

/* The check itself must notice a wrong result: the nt kernel checked as
 * if B were K x N fails. */
static void test_checker_catches_errors(void **state)
{
	(void) state;
	assert_int_not_equal(render_as("nt", "nn", &cfgs[0], 0, 64, 64, 16),
		0);
}

/* Prologues: pointwise functions of an operand, applied in shared memory
 * once per block k tile, in every layout and pipeline depth. */
static void test_prologues(void **state)
{
	static const char *const decl[4][2] = {
		{ "f16(M, K) A, f16(K, N) B", "A(i, k)|B(k, j)" },
		{ "f16(M, K) A, f16(N, K) B", "A(i, k)|B(j, k)" },
		{ "f16(K, M) A, f16(K, N) B", "A(k, i)|B(k, j)" },
		{ "f16(K, M) A, f16(N, K) B", "A(k, i)|B(j, k)" },
	};

	(void) state;
	for (int l = 0; l < 4; ++l)
		for (int i = 0; i < NSOME; ++i) {
			int c = some_cfgs[i];
			char text[512], ra[16], rb[16];

			sscanf(decl[l][1], "%15[^|]|%15[^\n]", ra, rb);
			snprintf(text, sizeof(text), "def p(%s) -> (f16(M, N) C) "
				"{\n  C(i, j) +=! relu(%s) * (%s * 2 - 1)\n}\n",
				decl[l][0], ra, rb);
			assert_int_equal(render_text(text, pm_test_layouts[l],
				pm_test_layouts[l], &cfgs[c], 0, 2 * cfgs[c].bm,
				cfgs[c].bn, 3 * cfgs[c].bk, "x > 0 ? x : 0",
				"x * 2 - 1"), 0);
		}
}

/* relu(A) * (B * 2 - 1) in layout l (bit 1: A is K x M, bit 0: B is
 * N x K). */
static void relu_spec(char *text, size_t len, int l)
{
	snprintf(text, len, "def p(%s, %s) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! relu(%s) * (%s * 2 - 1)\n}\n",
		l & 2 ? "f16(K, M) A" : "f16(M, K) A",
		l & 1 ? "f16(N, K) B" : "f16(K, N) B",
		l & 2 ? "A(k, i)" : "A(i, k)", l & 1 ? "B(j, k)" : "B(k, j)");
}

/* Overlapped prologues (promote.c, pipeline_late): PRO(0) before the
 * loop, PRO(kt + 1) after MMA(kt), every layout, 2 to 4 stages, with and
 * without split-K. */
static void test_pro_overlap(void **state)
{
	static const int oc[] = { 1, 2, 3 };	/* stages 2, 3, 4 */

	(void) state;
	g_pro_overlap = 1;
	for (g_split = 0; g_split <= 2; g_split += 2)
		for (int l = 0; l < 4; ++l)
			for (int i = 0; i < 3; ++i) {
				const struct cfg *c = &cfgs[oc[i]];
				struct cfg c2 = *c;
				char text[512];

				c2.frag = 0;
				relu_spec(text, sizeof(text), l);
				if (render_text(text, pm_test_layouts[l],
						pm_test_layouts[l], &c2, 0, 2 * c2.bm,
						c2.bn, 5 * c2.bk, "x > 0 ? x : 0",
						"x * 2 - 1"))
					fail_msg("pro-overlap %s config %d split %ld",
						pm_test_layouts[l], oc[i], g_split);
			}
	g_split = 0;
	g_pro_overlap = 0;
}

/* A's prologue through the MMA (pm_host_mma_tile_ra), B's in shared
 * memory, with and without the overlapped B prologue, every layout. */
static void test_pro_regs(void **state)
{
	(void) state;
	g_pro_regs = 1;
	for (g_pro_overlap = 0; g_pro_overlap <= 1; ++g_pro_overlap)
		for (int l = 0; l < 4; ++l)
			for (int i = 0; i < NSOME; ++i) {
				struct cfg c2 = cfgs[some_cfgs[i]];
				char text[512];

				c2.frag = 0;
				if (g_pro_overlap && c2.stages < 2)
					continue;
				relu_spec(text, sizeof(text), l);
				if (render_text(text, pm_test_layouts[l],
						pm_test_layouts[l], &c2, 0, 2 * c2.bm,
						c2.bn, 3 * c2.bk, "x > 0 ? x : 0",
						"x * 2 - 1"))
					fail_msg("pro-regs %s config %d overlap %d",
						pm_test_layouts[l], some_cfgs[i],
						g_pro_overlap);
			}
	g_pro_overlap = 0;
	g_pro_regs = 0;
}

static int epi_run(const char *text, const char *name, const char *args,
	const char *epi, long m, long n, long k)
{
	struct pm_config cfg;
	char *src;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.target = pm_target_host();
	cfg.split_k = g_split ? 0 : 1;
	cfg.stages = 2;
	cfg.smem = 2;
	cfg.frag_pipe = 1;	/* as the sm_80 defaults */
	cfg.staged_store = 1;
	cfg.bm = 64, cfg.bn = 64, cfg.bk = 32, cfg.wm = 32, cfg.wn = 32;
	cfg.mm = 16, cfg.mn = 16, cfg.mk = 8;
	src = pm_hr_generate_text(text, &cfg);
	assert_non_null(src);
	{
		struct pm_strbuf head;
		char argv[96];

		pm_strbuf_init(&head);
		split_call(&head, name, args, "K", NULL, cfg.bm, cfg.bn, cfg.bk,
			1);
		pm_strbuf_printf(&head, "#define EPI (%s)\n", epi);
		snprintf(argv, sizeof(argv), "%ld %ld %ld", m, n, k);
		rc = build_and_run(head.s, src, epi_driver, argv, 0, epi);
		pm_strbuf_free(&head);
	}
	free(src);
	return rc;
}

static void test_epilogues(void **state)
{
	(void) state;
	/* bias per column, ReLU, in place */
	assert_int_equal(epi_run(
		"def f(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) = relu(C(i, j) + bias(j))\n}\n",
		"f", "A, B, bias, C, M, N, K", "v + bias[j] > 0 ? v + bias[j] : 0",
		128, 192, 64), 0);
	/* a temporary chain: row scale, residual, clamp, into another output */
	assert_int_equal(epi_run(
		"def g(f16(M, K) A, f16(K, N) B, f16(M) s, f16(M, N) R) -> "
		"(f16(M, N) O) {\n"
		"  T(i, j) +=! A(i, k) * B(k, j)\n"
		"  U(i, j) = T(i, j) * s(i) + R(i, j)\n"
		"  O(i, j) = max(U(i, j), -2.5) - 1\n}\n",
		"g", "A, B, s, R, C, M, N, K",
		"fmaxf(v * s[i] + R[i * N + j], -2.5f) - 1", 64, 128, 96), 0);
	/* a scalar (rank 0) input: the driver's bias[0] */
	assert_int_equal(epi_run(
		"def q(f16(M, K) A, f16(K, N) B, f16(M) s, f32 t) -> "
		"(f16(M, N) C) {\n"
		"  T(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) = T(i, j) * s(i) * t\n}\n",
		"q", "A, B, s, bias, C, M, N, K", "v * s[i] * bias[0]", 64, 128,
		64), 0);
	/* every function of the language, on the accumulator */
	assert_int_equal(epi_run(
		"def h(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) = sigmoid(C(i, j)) + tanh(C(i, j)) + gelu(C(i, j)) + "
		"gelu_erf(C(i, j)) + silu(C(i, j)) / 4 + exp(-abs(C(i, j))) + "
		"min(C(i, j), 0.5)\n}\n",
		"h", "A, B, C, M, N, K",
		"1 / (1 + expf(-v)) + tanhf(v) + 0.5f * v * (1 + tanhf(0.7978845608f * "
		"(v + 0.044715f * v * v * v))) + 0.5f * v * (1 + erff(v * "
		"0.7071067812f)) + v / (1 + expf(-v)) / 4 + expf(-fabsf(v)) + "
		"fminf(v, 0.5f)", 64, 64, 32), 0);
}

/* Two contractions combined by an epilogue; with X = D + C first, the
 * second accumulates onto the first's registers (acc_shared). */
static void test_two_contractions(void **state)
{
	const char *texts[2] = {
		"def add2(f16(M, K) A, f16(K, N) B, f16(L, M) E, f16(N, L) F) -> "
		"(f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  D(i, j) +=! E(l, i) * F(j, l)\n"
		"  O(i, j) = relu(C(i, j) + D(i, j) / 2)\n}\n",
		"def add2(f16(M, K) A, f16(K, N) B, f16(L, M) E, f16(N, L) F) -> "
		"(f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  D(i, j) +=! E(l, i) * F(j, l)\n"
		"  X(i, j) = D(i, j) + C(i, j)\n"
		"  O(i, j) = relu(X(i, j) / 2)\n}\n",
	};
	char args[96], *src;

	(void) state;
	for (int i = 0; i < 2 * NSOME; ++i) {
		int c = some_cfgs[i % NSOME], shared = i >= NSOME;
		const char *text = texts[shared];
		struct pm_config cfg;

		if (g_tma && cfgs[c].stages < 2)
			continue;	/* TMA needs 2 stages */

		memset(&cfg, 0, sizeof(cfg));
		cfg.target = pm_target_host();
		cfg.split_k = g_split ? 0 : 1;
		cfg.stages = cfgs[c].stages;
		cfg.smem = cfgs[c].smem;
		cfg.frag_pipe = cfgs[c].frag;
		cfg.staged_store = cfgs[c].frag;
		cfg.reg_stage = cfgs[c].stages == 2 && !cfgs[c].frag ? -1 : 0;
		cfg.tma = g_tma;
		if (g_tma)
			cfg.frag_pipe = cfg.reg_stage = 0;
		cfg.bm = cfgs[c].bm, cfg.bn = cfgs[c].bn, cfg.bk = cfgs[c].bk;
		cfg.wm = cfgs[c].wm, cfg.wn = cfgs[c].wn;
		cfg.mm = cfgs[c].mm, cfg.mn = cfgs[c].mn, cfg.mk = cfgs[c].mk;
		src = pm_hr_generate_text(text, &cfg);
		assert_non_null(src);
		/* test_ragged: M, N past whole tiles */
		snprintf(args, sizeof(args), "%d %d %d %d", 2 * cfgs[c].bm +
			(g_asan ? 8 : 0), cfgs[c].bn + (g_asan ? 8 : 0),
			3 * cfgs[c].bk, 2 * cfgs[c].bk);
		/* one register tile: no second accumulator */
		assert_int_equal(strstr(src, "pm_acc1") == NULL, shared);
		{
			struct pm_strbuf head;

			pm_strbuf_init(&head);
			pm_strbuf_printf(&head, "#define SHARED %d\n", shared);
			split_call(&head, "add2", "A, B, E, F, O, M, N, K, L",
				"K", "L", cfg.bm, cfg.bn, cfg.bk, shared ? 1 : 2);
			if (build_and_run(head.s, src, add_driver, args, 0,
					"two contractions"))
				fail_msg("two contractions%s, config %d, split %ld",
					shared ? " (shared accumulator)" : "", c,
					g_split);
			pm_strbuf_free(&head);
		}
		free(src);
	}
}

/* Two contractions sharing an operand (scop->join: one k loop, one copy
 * of the shared tile per k step): X (A of both; the second's B with a
 * prologue) or W (B of both, the second's A in another layout). */
static void test_shared_operand(void **state)
{
	static const char *const texts[3] = {
		PM_HR_SWIGLU_X, PM_HR_SWIGLU_W,
		"def sw(f16(M, K) X, f16(K, N) W, f16(K, N) V) -> "
		"(f16(M, N) O) {\n"
		"  G(i, j) +=! X(i, k) * W(k, j)\n"
		"  U(i, j) +=! X(i, k) * relu(V(k, j))\n"
		"  O(i, j) = silu(G(i, j)) * U(i, j)\n}\n",
	};
	char args[96], *src;

	(void) state;
	for (int i = 0; i < 3 * NSOME; ++i) {
		int c = some_cfgs[i % NSOME], v = i / NSOME, sb = v == 1;
		struct pm_config cfg;
		struct pm_strbuf head;

		/* TMA needs 2 stages and no prologue in shared memory */
		if (g_tma && (cfgs[c].stages < 2 || v == 2))
			continue;
		memset(&cfg, 0, sizeof(cfg));
		cfg.target = pm_target_host();
		cfg.split_k = g_split ? 0 : 1;
		cfg.stages = cfgs[c].stages;
		cfg.smem = cfgs[c].smem;
		cfg.frag_pipe = cfgs[c].frag ? -1 : 0;
		cfg.staged_store = cfgs[c].frag;
		cfg.reg_stage = cfgs[c].stages == 2 && !cfgs[c].frag ? -1 : 0;
		cfg.tma = g_tma;
		if (g_tma)
			cfg.frag_pipe = cfg.reg_stage = 0;
		cfg.bm = cfgs[c].bm, cfg.bn = cfgs[c].bn, cfg.bk = cfgs[c].bk;
		cfg.wm = cfgs[c].wm, cfg.wn = cfgs[c].wn;
		cfg.mm = cfgs[c].mm, cfg.mn = cfgs[c].mn, cfg.mk = cfgs[c].mk;
		src = pm_hr_generate_text(texts[v], &cfg);
		assert_non_null(src);
		/* both accumulators, one copy of the shared tile */
		assert_non_null(strstr(src, "pm_acc1"));
		assert_null(strstr(strstr(src, sb ? "W_shared" :
			"X_shared") + 1, sb ? "*W_shared" : "*X_shared"));
		snprintf(args, sizeof(args), "%d %d %d", 2 * cfgs[c].bm +
			(g_asan ? 8 : 0), cfgs[c].bn + (g_asan ? 8 : 0),
			5 * cfgs[c].bk);
		pm_strbuf_init(&head);
		pm_strbuf_printf(&head, "#define SHARED_B %d\n#define PRO_R(x) "
			"%s\n", sb, v == 2 ? "((x) > 0 ? (x) : 0)" : "(x)");
		split_call(&head, "sw", "P, Q, R, O, M, N, K", "K", "K", cfg.bm,
			cfg.bn, cfg.bk, 2);
		if (build_and_run(head.s, src, shared_driver, args, 0,
				"shared operand"))
			fail_msg("shared %s, config %d, split %ld, tma %d",
				v == 1 ? "W" : v ? "X, prologue" : "X", c,
				g_split, g_tma);
		pm_strbuf_free(&head);
		free(src);
	}
}

/* Split-K: every configuration and layout in 2 and 3 chunks of k (5 k
 * tiles: the last chunk shorter), fixed sizes, prologues, epilogues and
 * both forms of two contractions in 2 chunks. */
static void test_split_k(void **state)
{
	(void) state;
	for (g_split = 2; g_split <= 3; ++g_split)
		for (int l = 0; l < 4; ++l)
			for (int c = 0; c < NCFGS; ++c) {
				const struct cfg *g = &cfgs[c];
				if (render_and_run(pm_test_layouts[l], g, 0,
						3 * g->bm, 2 * g->bn, 5 * g->bk))
					fail_msg("split %ld, %s, config %d",
						g_split, pm_test_layouts[l], c);
			}
	g_split = 2;
	for (int l = 0; l < 4; ++l)
		assert_int_equal(render_and_run(pm_test_layouts[l], &cfgs[1], 1,
			64, 128, 24), 0);
	test_prologues(state);
	test_epilogues(state);
	test_two_contractions(state);
	test_shared_operand(state);
	g_split = 0;
}

/* The staged store's rows of 6 16-byte units on 8 of 64 threads, lanes 6
 * and 7 idle (promote/store.c; the sm_90a 128x192 block's rows of 24 on 32
 * lanes): every layout, whole and ragged tiles, split in 3 chunks. TMA
 * copies (the threads' copies cannot cover rows of 6 units). */
static void test_staged_rows(void **state)
{
	static const struct cfg g = { 64, 48, 32, 32, 48, 16, 16, 8, 2, 1, 1 };

	(void) state;
	g_tma = 1;
	for (int l = 0; l < 4; ++l) {
		if (render_and_run(pm_test_layouts[l], &g, 0, 2 * g.bm, 3 * g.bn,
				3 * g.bk))
			fail_msg("rows %s", pm_test_layouts[l]);
		if (render_and_run(pm_test_layouts[l], &g, 0, 2 * g.bm - 8,
				3 * g.bn + 8, 3 * g.bk))
			fail_msg("rows ragged %s", pm_test_layouts[l]);
		g_split = 3;
		if (render_and_run(pm_test_layouts[l], &g, 0, g.bm, 2 * g.bn,
				6 * g.bk))
			fail_msg("rows split %s", pm_test_layouts[l]);
		g_split = 0;
	}
	g_tma = 0;
}

/* TMA copies (promote/tma.c; the host renders a box as the whole tile):
 * every layout and configuration with 2 stages or more, 5 k tiles (the
 * stages wrap), split in 3 chunks, A's prologue on the MMA's registers,
 * both forms of two contractions. */
static void test_tma(void **state)
{
	(void) state;
	g_tma = 1;
	for (int l = 0; l < 4; ++l)
		for (int c = 0; c < NCFGS; ++c) {
			const struct cfg *g = &cfgs[c];

			if (g->stages < 2)
				continue;
			if (render_and_run(pm_test_layouts[l], g, 0, 2 * g->bm,
					g->bn, 5 * g->bk))
				fail_msg("tma %s config %d", pm_test_layouts[l], c);
			g_split = 3;
			if (render_and_run(pm_test_layouts[l], g, 0, g->bm,
					2 * g->bn, 5 * g->bk))
				fail_msg("tma split %s config %d",
					pm_test_layouts[l], c);
			g_split = 0;
		}
	g_pro_regs = 1;
	for (int l = 0; l < 4; ++l) {
		char text[512];

		snprintf(text, sizeof(text), "def p(%s, %s) -> (f16(M, N) C) {\n"
			"  C(i, j) +=! relu(%s) * %s\n}\n",
			l & 2 ? "f16(K, M) A" : "f16(M, K) A",
			l & 1 ? "f16(N, K) B" : "f16(K, N) B",
			l & 2 ? "A(k, i)" : "A(i, k)", l & 1 ? "B(j, k)" :
			"B(k, j)");
		if (render_text(text, pm_test_layouts[l], pm_test_layouts[l],
				&cfgs[2], 0, 128, 64, 160, "x > 0 ? x : 0", "x"))
			fail_msg("tma pro-regs %s", pm_test_layouts[l]);
	}
	g_pro_regs = 0;
	test_two_contractions(state);
	test_shared_operand(state);
	g_tma = 0;
}

/* The split driver's check is live: the nt kernel in 2 chunks, checked
 * as if B were K x N, fails. */
static void test_split_checker_catches_errors(void **state)
{
	(void) state;
	g_split = 2;
	assert_int_not_equal(render_as("nt", "nn", &cfgs[0], 0, 64, 64, 80),
		0);
	g_split = 0;
}

/* Sizes that are not multiples of the block tile (M, N; schedule_tree/
 * tree.h pm_kernel_sym_ragged): every configuration and layout with a
 * partial last tile row and column, and smaller than one tile; split-K,
 * TMA copies, A's prologue through the registers, the epilogues' inputs
 * and two contractions too; built with AddressSanitizer. */
static void test_ragged(void **state)
{
	(void) state;
	g_asan = 1;
	for (int l = 0; l < 4; ++l)
		for (int c = 0; c < NCFGS; ++c) {
			const struct cfg *g = &cfgs[c];

			if (render_and_run(pm_test_layouts[l], g, 0, 2 * g->bm + 8,
					g->bn + 8, 3 * g->bk))
				fail_msg("ragged %s config %d", pm_test_layouts[l],
					c);
			if (render_and_run(pm_test_layouts[l], g, 0, g->bm - 8,
					2 * g->bn - 24, 2 * g->bk))
				fail_msg("ragged (small) %s config %d",
					pm_test_layouts[l], c);
			g_split = 3;
			if (render_and_run(pm_test_layouts[l], g, 0, g->bm + 16,
					2 * g->bn - 8, 5 * g->bk))
				fail_msg("ragged split %s config %d",
					pm_test_layouts[l], c);
			g_split = 0;
			if (g->stages < 2)
				continue;
			g_tma = 1;
			if (render_and_run(pm_test_layouts[l], g, 0, 2 * g->bm - 8,
					g->bn + 16, 5 * g->bk))
				fail_msg("ragged tma %s config %d",
					pm_test_layouts[l], c);
			g_tma = 0;
		}
	g_pro_regs = 1;
	for (int l = 0; l < 4; ++l) {
		char text[512];
		struct cfg c2 = cfgs[2];

		c2.frag = 0;
		relu_spec(text, sizeof(text), l);
		if (render_text(text, pm_test_layouts[l], pm_test_layouts[l],
				&c2, 0, 2 * c2.bm + 8, c2.bn - 8, 3 * c2.bk,
				"x > 0 ? x : 0", "x * 2 - 1"))
			fail_msg("ragged pro-regs %s", pm_test_layouts[l]);
	}
	g_pro_regs = 0;
	assert_int_equal(epi_run(
		"def g(f16(M, K) A, f16(K, N) B, f16(M) s, f16(M, N) R, "
		"f16(N) bias) -> (f16(M, N) O) {\n"
		"  T(i, j) +=! A(i, k) * B(k, j)\n"
		"  U(i, j) = T(i, j) * s(i) + R(i, j) + bias(j)\n"
		"  O(i, j) = max(U(i, j), -2.5) - 1\n}\n",
		"g", "A, B, s, R, bias, C, M, N, K",
		"fmaxf(v * s[i] + R[i * N + j] + bias[j], -2.5f) - 1", 72, 136,
		96), 0);
	g_split = 2;
	assert_int_equal(epi_run(
		"def f(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) = relu(C(i, j) + bias(j))\n}\n",
		"f", "A, B, bias, C, M, N, K", "v + bias[j] > 0 ? v + bias[j] : 0",
		136, 40, 64), 0);
	g_split = 0;
	/* both forms of two contractions (the second's own extent L) */
	test_two_contractions(state);
	test_shared_operand(state);
	g_asan = 0;
}

/* The ragged test's harness is live: a kernel told M is 8 rows more than
 * its buffers hold writes past C, which AddressSanitizer stops. */
static void test_ragged_checker_catches_errors(void **state)
{
	(void) state;
	g_asan = 1;
	g_overrun = 1;
	/* "nn " checks as nn, quietly */
	assert_int_not_equal(render_as("nn", "nn ", &cfgs[0], 0, 64, 64, 16),
		0);
	g_overrun = 0;
	g_asan = 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtime_sizes),
		cmocka_unit_test(test_fixed_sizes),
		cmocka_unit_test(test_register_staging_rendered),
		cmocka_unit_test(test_checker_catches_errors),
		cmocka_unit_test(test_epilogues),
		cmocka_unit_test(test_prologues),
		cmocka_unit_test(test_two_contractions),
		cmocka_unit_test(test_shared_operand),
		cmocka_unit_test(test_split_k),
		cmocka_unit_test(test_pro_overlap),
		cmocka_unit_test(test_pro_regs),
		cmocka_unit_test(test_tma),
		cmocka_unit_test(test_staged_rows),
		cmocka_unit_test(test_split_checker_catches_errors),
		cmocka_unit_test(test_ragged),
		cmocka_unit_test(test_ragged_checker_catches_errors),
	};

	/* PM_TEST_FILTER=test_ragged*: run only the matching tests */
	if (getenv("PM_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PM_TEST_FILTER"));
	if (system("cc --version >/dev/null 2>&1")) {
		printf("no C compiler: host-render tests skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

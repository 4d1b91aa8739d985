/* K-major copies of 8-bit operands declared MN-major
 * (docs/decisions/0033-kmajor-copies.md):
 *  - the spec the kernels see (variant/kcopy.c): which operands are
 *    copied, their dims and reads reversed;
 *  - host renderings (the host target reads 8-bit operands K-major as
 *    sm_90a does) of f8e4m3, f8e5m2 and i8 specs in every layout, the
 *    copies made by the host's pm_host_kcopy, against the language's
 *    reference (frontend/eval.c) at ragged sizes, with split-K, TMA
 *    copies, rows padded past K (k tiles of 8), two contractions and a
 *    shared copied operand, built with AddressSanitizer;
 *  - the copy kernel's two phases (runtime/device/kcopy.cuh) run on the
 *    host for every thread of every tile, at odd sizes, aligned or not,
 *    with AddressSanitizer;
 *  - the sm_90a files: the copy kernel, the copies before the kernels,
 *    NAME_ws and NAME_workspace_size (also where k is not split), a
 *    persistent file of one kernel, the metadata's user dims. */
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
#include "frontend/eval.h"
#include "polymma.h"
#include "poly/strbuf.h"
#include "target/target.h"
#include "tests/host_render_util.h"
#include "variant/kcopy.h"

/* "def g(TY(..) A, TY(..) B) -> (OUT(M, N) C)" in layout l ("nn" ...:
 * A (M, K) or t (K, M); B (K, N) or t (N, K)). */
static void gemm_text(char *buf, size_t n, const char *l, const char *ty,
	const char *out)
{
	int ta = l[0] == 't', tb = l[1] == 't';

	snprintf(buf, n, "def g(%s(%s) A, %s(%s) B) -> (%s(M, N) C) {\n"
		"  C(i, j) +=! A(%s) * B(%s)\n}\n", ty, ta ? "K, M" : "M, K", ty,
		tb ? "N, K" : "K, N", out, ta ? "k, i" : "i, k",
		tb ? "j, k" : "k, j");
}

/* ---- The spec the kernels see ---- */

static void test_kcopy_spec(void **state)
{
	const struct pm_target *tg = pm_target_find("sm_90a");
	static const char *const layouts[4] = { "nn", "nt", "tn", "tt" };
	char text[256];

	(void) state;
	for (int l = 0; l < 4; ++l) {
		struct pm_spec *s, *k;
		int ca = layouts[l][0] == 't', cb = layouts[l][1] == 'n';

		gemm_text(text, sizeof(text), layouts[l], "f8e4m3", "f16");
		s = pm_hr_parse(text);
		assert_int_equal(pm_kcopy_spec(s, tg, &k), 0);
		assert_int_equal(k != NULL, ca || cb);
		if (k) {
			const struct pm_expr *e = k->stmts[0].rhs;

			/* A (M, K) read A(i, k), B (N, K) read B(j, k) */
			assert_int_equal(k->tensors[0].kcopy, ca);
			assert_int_equal(k->tensors[1].kcopy, cb);
			assert_int_equal(k->tensors[0].dims[1].sym,
				s->tensors[0].dims[!ca].sym);
			assert_int_equal(k->tensors[1].dims[1].sym,
				s->tensors[1].dims[!cb].sym);
			assert_int_equal(e->args[0]->idx[0], 0);
			assert_int_equal(e->args[0]->idx[1], 2);
			assert_int_equal(e->args[1]->idx[0], 1);
			assert_int_equal(e->args[1]->idx[1], 2);
			/* the user's spec is untouched */
			assert_int_equal(s->tensors[0].kcopy, 0);
			assert_int_equal(s->stmts[0].rhs->args[0]->idx[0],
				ca ? 2 : 0);
			pm_spec_free(k);
		}
		pm_spec_free(s);
	}
	/* 16-bit operands and targets without the K-major rule: none */
	gemm_text(text, sizeof(text), "tn", "f16", "f16");
	{
		struct pm_spec *s = pm_hr_parse(text), *k = (struct pm_spec *) 1;

		assert_int_equal(pm_kcopy_spec(s, tg, &k), 0);
		assert_null(k);
		pm_spec_free(s);
	}
	gemm_text(text, sizeof(text), "tn", "i8", "i32");
	{
		struct pm_spec *s = pm_hr_parse(text), *k = (struct pm_spec *) 1;

		assert_int_equal(pm_kcopy_spec(s, pm_target_find("sm_70"), &k),
			0);
		assert_null(k);
		pm_spec_free(s);
	}
	/* read MN-major and K-major: no copy (kernel.c refuses it) */
	{
		struct pm_spec *s = pm_hr_parse("def g(f8e4m3(K, K) A, f8e4m3(N, K) B, "
			"f8e4m3(N, K) E) -> (f32(K, N) C) {\n"
			"  X(i, j) +=! A(k, i) * B(j, k)\n"
			"  Y(i, j) +=! A(i, k) * E(j, k)\n"
			"  C(i, j) = X(i, j) + Y(i, j)\n}\n"), *k;

		assert_int_equal(pm_kcopy_spec(s, tg, &k), 0);
		assert_null(k);
		pm_spec_free(s);
	}
}

/* ---- Host renderings against the reference ---- */

static const struct pm_hr_cfg hcfgs[] = {
	{ 64, 64, 16, 32, 32, 8, 8, 4, 1, 0, 0, 0, 0, 0 },
	/* k tiles of 8: the copies' rows padded past K (K = 40: 48) */
	{ 32, 64, 8, 16, 32, 16, 16, 8, 2, 1, 0, 0, 0, 0 },
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 1, 0, 0, 0 },
	/* TMA copies: the box's row pitch the copy's */
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 0, 1, 0, 0 },
};
#define NHCFGS ((int) (sizeof(hcfgs) / sizeof(hcfgs[0])))

/* Render text on the host with c (split in S chunks of K / ext1, nacc
 * accumulators), run it at mnkl (the values of M, N, K and L) with the
 * copies, against the reference; args: the kernel call's arguments. */
static int render(const char *text, const struct pm_hr_cfg *c, long S,
	const char *args, const char *ext1, int nacc, const int64_t *mnkl)
{
	struct pm_spec *s = pm_hr_parse(text), *k = NULL;
	int64_t sizes[8];
	struct pm_config cfg;
	struct pm_strbuf head, tail;
	char path[] = "/tmp/pm_kmajorXXXXXX", what[128], *src;
	int rc;

	/* the spec's symbols in its order */
	assert_true(s->nsyms <= 4);
	for (int i = 0; i < s->nsyms; ++i)
		sizes[i] = mnkl[strchr("MNKL", s->syms[i].name[0]) - "MNKL"];
	pm_hr_config(&cfg, c);
	cfg.split_k = S ? 0 : 1;
	src = pm_hr_generate(s, &cfg);
	assert_non_null(src);
	assert_int_equal(pm_kcopy_spec(s, cfg.target, &k), 0);
	assert_non_null(k);
	pm_hr_tmpfile(path);
	pm_hr_data_file(s, sizes, path);
	pm_strbuf_init(&head);
	pm_strbuf_init(&tail);
	pm_hr_split_call(&head, S, s->name, args, "K", ext1, c->bm, c->bn,
		c->bk, nacc);
	pm_hr_spec_driver(&tail, s, k, sizes);
	snprintf(what, sizeof(what), "%s split %ld, block %dx%dx%d, tma %d",
		s->name, S, c->bm, c->bn, c->bk, c->tma);
	rc = pm_hr_build_and_run(head.s, src, tail.s, path, 0, 1, what);
	unlink(path);
	pm_strbuf_free(&head);
	pm_strbuf_free(&tail);
	free(src);
	pm_spec_free(k);
	pm_spec_free(s);
	return rc;
}

/* f8e4m3, f8e5m2 (into f32) and i8 (into i32) in the layouts that copy
 * an operand (nn: B, tn: both, tt: A), every configuration, ragged M
 * and N; f8 split in 2 and 3 chunks too (i8 is not split). */
static void test_host_layouts(void **state)
{
	static const char *const types[3][2] = {
		{ "f8e4m3", "f32" }, { "f8e5m2", "f32" }, { "i8", "i32" },
	};
	static const char *const layouts[3] = { "nn", "tn", "tt" };
	char text[256];

	(void) state;
	for (int ty = 0; ty < 3; ++ty)
		for (int l = 0; l < 3; ++l)
			for (int c = 0; c < NHCFGS; ++c) {
				const struct pm_hr_cfg *g = &hcfgs[c];
				/* M, N, K: a partial tile row and column */
				int64_t sz[3] = { 2 * g->bm + 3, g->bn + 8,
					5 * g->bk };

				gemm_text(text, sizeof(text), layouts[l],
					types[ty][0], types[ty][1]);
				if (render(text, g, 0, "A, B, C, M, N, K", NULL, 1,
						sz))
					fail_msg("%s %s config %d", types[ty][0],
						layouts[l], c);
				for (long S = 2; ty < 2 && S <= 3; ++S)
					if (render(text, g, S, "A, B, C, M, N, K",
							NULL, 1, sz))
						fail_msg("%s %s config %d split %ld",
							types[ty][0], layouts[l], c, S);
			}
}

/* Smaller than one tile, and the copy's rows shorter than 16. */
static void test_host_small(void **state)
{
	char text[256];
	int64_t sz[3] = { 5, 8, 8 };

	(void) state;
	gemm_text(text, sizeof(text), "tn", "i8", "i32");
	assert_int_equal(render(text, &hcfgs[1], 0, "A, B, C, M, N, K", NULL,
		1, sz), 0);
	gemm_text(text, sizeof(text), "tt", "f8e4m3", "f32");
	sz[0] = 1, sz[1] = 16, sz[2] = 24;
	assert_int_equal(render(text, &hcfgs[1], 2, "A, B, C, M, N, K", NULL,
		1, sz), 0);
}

/* The harness is live: a wrong copy (its pitch one element short) and a
 * kernel given the user's MN-major tensor both fail. */
static void test_host_checker(void **state)
{
	char text[256];
	int64_t sz[3] = { 64, 64, 32 };
	struct pm_spec *s;
	struct pm_config cfg;
	struct pm_strbuf head, tail;
	char path[] = "/tmp/pm_kmajorXXXXXX", *src;

	(void) state;
	gemm_text(text, sizeof(text), "nn", "f8e4m3", "f32");
	s = pm_hr_parse(text);
	pm_hr_config(&cfg, &hcfgs[0]);
	src = pm_hr_generate(s, &cfg);
	assert_non_null(src);
	pm_hr_tmpfile(path);
	pm_hr_data_file(s, sz, path);
	for (int bad = 0; bad < 2; ++bad) {
		pm_strbuf_init(&head);
		pm_strbuf_init(&tail);
		pm_strbuf_add(&head, "#define CALL g(A, B, C, M, N, K)\n");
		if (bad) {
			/* the copy transposed with one row short */
			struct pm_spec *k;

			assert_int_equal(pm_kcopy_spec(s, cfg.target, &k), 0);
			pm_strbuf_add(&tail, "#define pm_host_kcopy(x, y, r, c) "
				"pm_host_kcopy(x, y, (r) - 1, c)\n");
			pm_hr_spec_driver(&tail, s, k, sz);
			pm_spec_free(k);
		} else {
			/* no copy: the kernel reads B (K, N) as (N, K) */
			pm_hr_spec_driver(&tail, s, NULL, sz);
		}
		assert_int_not_equal(pm_hr_build_and_run(head.s, src, tail.s,
			path, 1, 0, "checker"), 0);
		pm_strbuf_free(&head);
		pm_strbuf_free(&tail);
	}
	unlink(path);
	free(src);
	pm_spec_free(s);
}

/* Two contractions (copies of A, B and E; F K-major), split in 2 too; a
 * shared operand copied once for both (scop->join). */
static void test_host_two(void **state)
{
	static const char add2[] =
		"def add2(f8e4m3(K, M) A, f8e4m3(K, N) B, f8e4m3(L, M) E, "
		"f8e4m3(N, L) F) -> (f32(M, N) O) {\n"
		"  C(i, j) +=! A(k, i) * B(k, j)\n"
		"  D(i, j) +=! E(l, i) * F(j, l)\n"
		"  O(i, j) = C(i, j) + D(i, j)\n}\n";
	static const char sw[] =
		"def sw(i8(K, M) X, i8(K, N) W, i8(N, K) V) -> (f32(M, N) O) {\n"
		"  G(i, j) +=! X(k, i) * W(k, j)\n"
		"  U(i, j) +=! X(k, i) * V(j, k)\n"
		"  O(i, j) = G(i, j) * U(i, j)\n}\n";
	/* M, N, K, L; M, N, K */
	int64_t s4[4] = { 67, 72, 96, 64 }, s3[3] = { 67, 72, 96 };

	(void) state;
	for (int c = 0; c < NHCFGS; ++c) {
		if (render(add2, &hcfgs[c], 0, "A, B, E, F, O, M, N, K, L", "L",
				1, s4))
			fail_msg("add2 config %d", c);
		if (render(add2, &hcfgs[c], 2, "A, B, E, F, O, M, N, K, L", "L",
				1, s4))
			fail_msg("add2 config %d split", c);
		if (render(sw, &hcfgs[c], 0, "X, W, V, O, M, N, K", NULL, 2, s3))
			fail_msg("shared config %d", c);
	}
}

/* ---- The copy kernel's phases on the host ---- */

static const char kcopy_driver[] =
	"#include <stdio.h>\n#include <stdlib.h>\n"
	"static int run(long R, long C, int off)\n{\n"
	"\tuint8_t *xb = malloc(R * C + off), *x = xb + off, *y;\n"
	"\tconst long P = pm_kc_pitch(R), tc = (C + PM_KC_COLS - 1) / PM_KC_COLS;\n"
	"\tconst long n = (R + PM_KC_ROWS - 1) / PM_KC_ROWS * tc;\n"
	"\tuint32_t s[PM_KC_ROWS * PM_KC_COLS / 4];\n\tlong bad = 0;\n"
	"\tif (P % 16 || P < R || P >= R + 16 || pm_kc_bytes(R, C) < (size_t) (C * P))\n"
	"\t\treturn 1;\n"
	"\ty = malloc(C * P);\n"
	"\tfor (long i = 0; i < R * C; ++i)\n\t\tx[i] = (uint8_t) (i * 37 + 11);\n"
	"\tmemset(y, 0xab, C * P);\n"
	"\tfor (long b = 0; b < n; ++b) {\n"
	"\t\tconst long r0 = b / tc * PM_KC_ROWS, c0 = b % tc * PM_KC_COLS;\n"
	"\t\tconst int vec = C % 16 == 0 && (uintptr_t) x % 16 == 0;\n"
	"\t\tmemset(s, 0xcd, sizeof(s));\n"
	"\t\tfor (int t = 0; t < PM_KC_THREADS; ++t)\n"
	"\t\t\tpm_kc_load(x, R, C, r0, c0, vec, s, t);\n"
	"\t\tfor (int t = 0; t < PM_KC_THREADS; ++t)\n"
	"\t\t\tpm_kc_store(s, y, C, P, r0, c0, t);\n\t}\n"
	"\tfor (long c = 0; c < C; ++c)\n\t\tfor (long r = 0; r < P; ++r)\n"
	"\t\t\tif (y[c * P + r] != (r < R ? x[r * C + c] : 0) && bad++ < 3)\n"
	"\t\t\t\tfprintf(stderr, \"R %ld C %ld off %d: y[%ld][%ld] = %d\\n\",\n"
	"\t\t\t\t\tR, C, off, c, r, y[c * P + r]);\n"
	"\tfree(xb);\n\tfree(y);\n\treturn bad != 0;\n}\n"
	"int main(void)\n{\n"
	"\tstatic const long rs[] = { 1, 15, 16, 17, 64, 65, 100, 129 };\n"
	"\tstatic const long cs[] = { 1, 7, 16, 33, 255, 256, 257, 300 };\n"
	"\tint bad = 0;\n"
	"\tfor (int i = 0; i < 8; ++i)\n\t\tfor (int j = 0; j < 8; ++j)\n"
	"\t\t\tfor (int off = 0; off <= 16; off += 1 + 14 * (off == 1))\n"
	"\t\t\t\tbad |= run(rs[i], cs[j], off);\n"
	"\treturn bad;\n}\n";

static void test_copy_kernel(void **state)
{
	char head[1200], cwd[1024];

	(void) state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(head, sizeof(head), "#include \"%s/runtime/device/kcopy.cuh\"\n",
		cwd);
	assert_int_equal(pm_hr_build_and_run(head, "", kcopy_driver, "", 0,
		1, "copy kernel"), 0);
	/* the check is live: the rows of Y written 16 columns off fail */
	snprintf(head, sizeof(head), "#include \"%s/runtime/device/kcopy.cuh\"\n"
		"#define pm_kc_store(s, y, C, P, r0, c0, t) pm_kc_store(s, y, C, P, "
		"(r0) ^ 16, c0, t)\n", cwd);
	assert_int_not_equal(pm_hr_build_and_run(head, "", kcopy_driver, "",
		1, 1, "copy kernel (wrong)"), 0);
}

/* ---- The sm_90a files ---- */

struct gen {
	char *source, *header, *meta;
};

static void gen_sm90a(const char *text, const char *opt, const char *val,
	struct gen *g)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	int rc;

	assert_int_equal(polymma_options_set(o, "target", "sm_90a", NULL), 0);
	if (opt)
		assert_int_equal(polymma_options_set(o, opt, val, NULL), 0);
	rc = polymma_generate(ctx, text, "t.tc", o, &r);
	if (rc)
		fprintf(stderr, "%s", polymma_diagnostics(ctx));
	assert_int_equal(rc, POLYMMA_OK);
	g->source = strdup(polymma_result_source(r));
	g->header = strdup(polymma_result_header(r));
	g->meta = strdup(polymma_result_meta(r));
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

static void gen_free(struct gen *g)
{
	free(g->source);
	free(g->header);
	free(g->meta);
}

/* The first kernel launch in f: "<<<", or "pm_launch_pdl(" on sm_90a
 * (docs/decisions/0068-pdl.md); NULL where none. */
static const char *first_launch(const char *f)
{
	const char *a = strstr(f, "<<<"), *b = strstr(f, "pm_launch_pdl(");

	return !a ? b : !b ? a : a < b ? a : b;
}

/* The text of the first function whose head contains what (up to the
 * next line "}"), in src: a copy. */
static char *function(const char *src, const char *what)
{
	const char *a = strstr(src, what), *e;
	char *r;

	assert_non_null(a);
	e = strstr(a, "\n}\n");
	assert_non_null(e);
	r = strndup(a, (size_t) (e - a));
	assert_non_null(r);
	return r;
}

static void test_sm90a_files(void **state)
{
	char text[256], *f;
	struct gen g;

	(void) state;
	/* nn f8 (splits k): B copied after the split's part */
	gemm_text(text, sizeof(text), "nn", "f8e4m3", "f16");
	gen_sm90a(text, NULL, NULL, &g);
	assert_non_null(strstr(g.source, "pm_kc_kernel("));
	f = function(g.source, "static cudaError_t pm_launch_g(");
	assert_non_null(strstr(f, "pm_kc_run_g(&B, M, N, K, (char *) workspace "
		"+ pm_rt_copy_offset(c), stream)"));
	/* the copies before any kernel; B's maps with the padded pitch */
	assert_true(strstr(f, "pm_kc_run_g(") < first_launch(f));
	assert_non_null(strstr(f, "pm_tma_map_2d(&pm_tm1, B, N, K, "
		"pm_kc_pitch(K), "));
	assert_non_null(strstr(f, "pm_tma_map_2d(&pm_tm0, A, M, K, K, "));
	/* the plan's pitches (docs/decisions/0053): A's K bytes, B's copy's
	 * rows of K rounded up to 16 */
	assert_non_null(strstr(g.source, "p.mis |= pm_rt_pitch_mis((int64_t) "
		"(K), 1) << 0;\n\tp.mis |= pm_rt_pitch_mis(((int64_t) (K) + 15) "
		"/ 16 * 16, 1) << 1;"));
	free(f);
	f = function(g.source, "static cudaError_t pm_kc_run_g(");
	assert_non_null(strstr(f, "pm_kcopy(*B, pm_at, K, N, stream)"));
	assert_null(strstr(f, "*A"));
	free(f);
	/* the kernels stride B's rows by the padded pitch */
	assert_non_null(strstr(g.source, "* (((int64_t) K + 15) / 16 * 16)"));
	f = function(g.source, "size_t g_workspace_size(");
	assert_non_null(strstr(f, "return pm_rt_copy_offset(&c) + "
		"pm_kc_bytes_g(M, N, K);"));
	free(f);
	f = function(g.source, "cudaError_t g_ws(");
	assert_non_null(strstr(f, "pm_plan_g(M, N, K, &c, 1)"));
	assert_non_null(strstr(f, "return cudaErrorInvalidValue;\n\tif "
		"((uintptr_t) workspace % 16)"));
	free(f);
	f = function(g.source, "cudaError_t g(const void *A");
	assert_non_null(strstr(f, "pm_ws_get_g(&ws, pm_n, stream)"));
	assert_non_null(strstr(f, "cudaMemsetAsync(ws, 0, c.cnt_bytes, "
		"stream)"));
	free(f);
	assert_non_null(strstr(g.header, "g_ws("));
	assert_non_null(strstr(g.header, "g_workspace_size("));
	/* the user's dims */
	assert_non_null(strstr(g.meta, "\"name\": \"B\", \"type\": \"f8e4m3\", "
		"\"output\": false, \"dims\": [\"K\", \"N\"]"));
	gen_free(&g);
	/* tn i8 (not split): both copied, NAME_workspace_size all the same,
	 * the copies at the workspace's start */
	gemm_text(text, sizeof(text), "tn", "i8", "i32");
	gen_sm90a(text, NULL, NULL, &g);
	assert_null(strstr(g.source, "pm_kernel_g_split("));
	assert_non_null(strstr(g.source, "pm_kc_run_g(&A, &B, M, N, K, "
		"(char *) workspace, stream)"));
	f = function(g.source, "size_t g_workspace_size(");
	assert_non_null(strstr(f, "return pm_kc_bytes_g(M, N, K);"));
	free(f);
	f = function(g.source, "static size_t pm_kc_bytes_g(");
	assert_non_null(strstr(f, "pm_kc_bytes(K, M) + pm_kc_bytes(K, N)"));
	free(f);
	/* M is A's row count in the copy: no alignment asked of it */
	f = function(g.source, "cudaError_t g(const void *A");
	assert_non_null(strstr(f, "if (M < 1 || M > 0x7fffff00)\n"));
	assert_null(strstr(f, "c.cnt_bytes"));
	free(f);
	assert_non_null(strstr(g.header, "g_workspace_size("));
	gen_free(&g);
	/* one persistent kernel: its launch writes the copies first */
	gemm_text(text, sizeof(text), "tt", "f8e5m2", "bf16");
	gen_sm90a(text, "persistent", "on", &g);
	f = function(g.source, "static cudaError_t pm_launch_g(");
	assert_non_null(strstr(f, "pm_kc_run_g(&A, M, N, K, (char *) "
		"workspace, stream)"));
	assert_true(strstr(f, "pm_kc_run_g(") < first_launch(f));
	free(f);
	assert_non_null(strstr(g.source, "cudaError_t g_ws("));
	gen_free(&g);
	/* K-major: no copy, no workspace where k is not split */
	gemm_text(text, sizeof(text), "nt", "i8", "i32");
	gen_sm90a(text, NULL, NULL, &g);
	assert_null(strstr(g.source, "pm_kc"));
	assert_null(strstr(g.header, "_ws("));
	gen_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kcopy_spec),
		cmocka_unit_test(test_copy_kernel),
		cmocka_unit_test(test_host_checker),
		cmocka_unit_test(test_host_small),
		cmocka_unit_test(test_host_layouts),
		cmocka_unit_test(test_host_two),
		cmocka_unit_test(test_sm90a_files),
	};

	/* PM_TEST_FILTER=test_host*: run only the matching tests */
	if (getenv("PM_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PM_TEST_FILTER"));
	if (system("cc --version >/dev/null 2>&1")) {
		printf("no C compiler: K-major copy tests skipped\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Batched contractions (docs/LANGUAGE.md "Batched contractions",
 * docs/decisions/0036-batched-grid-z.md):
 *  - the spec the kernels see (variant/batch.c): batch dims and indices
 *    dropped, per-batch and shared tensors told apart;
 *  - refusals with their class and location;
 *  - isl: the batched domains' dependences never cross batches (the
 *    batch may run on blockIdx.z), and the kernel's schedule is legal
 *    after every pass;
 *  - host renderings of tests/specs/bmm_*.tc, called once per batch as
 *    blockIdx.z would run them, against the language's reference
 *    (frontend/eval.c) at batch 1 and 3 and sizes 1, 7, 127, 129, built
 *    with AddressSanitizer;
 *  - the sm_90a file: 3-D tensor maps of batched operands, 2-D of shared
 *    ones, gridDim.z the batch, the launcher's order of sizes. */
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

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/union_map.h>

#include "api/pipeline.h"
#include "frontend/eval.h"
#include "poly/poly.h"
#include "poly/strbuf.h"
#include "schedule_tree/tree.h"
#include "target/target.h"
#include "tests/host_render_util.h"
#include "tests/util.h"
#include "variant/batch.h"

/* ---- The spec the kernels see ---- */

static void test_batch_view(void **state)
{
	struct pm_spec *s = pm_hr_parse_file("tests/specs/bmm_bias.tc"), *k;
	struct pm_diags d;
	const struct pm_expr *e;

	(void) state;
	pm_diags_init(&d, "t", NULL);
	assert_int_equal(pm_batch_spec(s, &k, &d), 0);
	pm_diags_clear(&d);
	assert_non_null(k);
	assert_int_equal(k->nbatch, 1);
	assert_int_equal(k->bdims[0].sym, s->tensors[0].dims[0].sym);
	/* A B bias s R C X: per batch all but s */
	for (int t = 0; t < k->ntensors; ++t) {
		int shared = !strcmp(k->tensors[t].name, "s");

		assert_int_equal(k->tensors[t].batch, !shared);
		assert_int_equal(k->tensors[t].rank, s->tensors[t].rank -
			!shared);
	}
	/* X(i, j) +=! A(i, k) * B(j, k): variables renumbered i 0, j 1, k 2 */
	assert_int_equal(k->stmts[0].nlhs, 2);
	assert_int_equal(k->stmts[0].nvars, 3);
	assert_string_equal(k->stmts[0].vars[0], "i");
	e = k->stmts[0].rhs;
	assert_int_equal(e->args[0]->nidx, 2);
	assert_int_equal(e->args[0]->idx[0], 0);
	assert_int_equal(e->args[0]->idx[1], 2);
	assert_int_equal(e->args[1]->idx[0], 1);
	assert_int_equal(e->args[1]->idx[1], 2);
	/* the user's spec is untouched */
	assert_int_equal(s->tensors[0].rank, 3);
	assert_int_equal(s->stmts[0].rhs->args[0]->idx[0], 0);
	assert_int_equal(s->nbatch, 0);
	pm_spec_free(k);
	pm_spec_free(s);
	/* no batch indices: no view */
	s = pm_test_spec("nn");
	k = (struct pm_spec *) 1;
	pm_diags_init(&d, "t", NULL);
	assert_int_equal(pm_batch_spec(s, &k, &d), 0);
	assert_null(k);
	pm_diags_clear(&d);
	pm_spec_free(s);
}

/* ---- Refusals ---- */

static void test_refusals(void **state)
{
	static const struct {
		const char *text, *target, *msg, *loc;
		int split;
	} cases[] = {
		/* a batch index that does not lead */
		{ "def f(f16(M, Bt, K) A, f16(Bt, K, N) B) -> (f16(Bt, M, N) C) {\n"
		  "  C(b, i, j) +=! A(i, b, k) * B(b, k, j)\n}\n", "sm_80",
		  "the batch index 'b' (a leading index of the output) is not "
		  "index 1 of 'A'", "t.tc:2:18: error: unsupported: ", 1 },
		/* some of two batch indices */
		{ "def f(f16(P, Q, M, K) A, f16(Q, K, N) B) -> (f16(P, Q, M, N) C) {\n"
		  "  C(p, q, i, j) +=! A(p, q, i, k) * B(q, k, j)\n}\n", "sm_80",
		  "'B' has some of the batch indices", "t.tc:2:37: error: "
		  "unsupported: ", 1 },
		/* a tensor read per batch and shared */
		{ "def f(f16(S, S, S) A, f16(S, S, S) B, f16(S, S, S) R) -> "
		  "(f16(S, S, S) C) {\n"
		  "  X(b, i, j) +=! A(b, i, k) * B(b, k, j)\n"
		  "  C(b, i, j) = X(b, i, j) + R(b, i, j) + R(i, j, b)\n}\n",
		  "sm_80", "the batch index 'b' (a leading index of the output) "
		  "is not index 1 of 'R'", "t.tc:3:42: error: "
		  "unsupported: ", 1 },
		/* a batched 8-bit operand that needs a K-major copy */
		{ "def f(f8e4m3(Bt, M, K) A, f8e4m3(Bt, K, N) B) -> "
		  "(f16(Bt, M, N) C) {\n"
		  "  C(b, i, j) +=! A(b, i, k) * B(b, k, j)\n}\n", "sm_90a",
		  "'B' is batched and MN-major", "t.tc:1:44: error: unsupported: ",
		  1 },
		/* the split is blockIdx.z's, which holds the batch */
		{ "def f(f16(Bt, M, K) A, f16(Bt, K, N) B) -> (f16(Bt, M, N) C) {\n"
		  "  C(b, i, j) +=! A(b, i, k) * B(b, k, j)\n}\n", "sm_80",
		  "--split-k 2: a batched spec runs its batch in blockIdx.z",
		  "error: ", 2 },
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct pm_spec *s = pm_hr_parse(cases[i].text);
		struct pm_config cfg;
		struct pm_output out = { 0 };
		struct pm_diags d;

		memset(&cfg, 0, sizeof(cfg));
		cfg.target = pm_target_find(cases[i].target);
		cfg.split_k = cases[i].split;
		cfg.tma = -1;
		pm_diags_init(&d, "t.tc", cases[i].text);
		assert_int_not_equal(pm_pipeline_generate(s, &cfg, &out, &d), 0);
		if (!strstr(pm_diags_text(&d), cases[i].msg) ||
		    !strstr(pm_diags_text(&d), cases[i].loc))
			fail_msg("case %zu: %s", i, pm_diags_text(&d));
		assert_null(strstr(pm_diags_text(&d), "internal"));
		pm_diags_clear(&d);
		pm_output_clear(&out);
		pm_spec_free(s);
	}
}

/* ---- isl ---- */

/* Every dependence of the user's batched domains stays in its batch
 * (dimension 0 of every statement equal on both sides): mapping the
 * batch to blockIdx.z is legal; the kernel (one batch) is legal after
 * every pass on every target. */
static void test_legal(void **state)
{
	static const char *const specs[] = { "tests/specs/bmm_nn.tc",
		"tests/specs/bmm_bcast_b.tc", "tests/specs/bmm_bias.tc",
		"tests/specs/bmm_dequant.tc", "tests/specs/bmm_scale.tc" };
	static const char *const passes[] = { "tile_block", "strip_k",
		"tile_warp", "contract" };
	static const char *const targets[] = { "sm_70", "sm_80", "sm_90a" };

	(void) state;
	for (size_t f = 0; f < sizeof(specs) / sizeof(specs[0]); ++f) {
		struct pm_spec *s = pm_hr_parse_file(specs[f]);
		isl_ctx *ctx = isl_ctx_alloc();
		struct pm_config cfg;
		struct pm_diags d;
		struct pm_scop *scop;
		isl_union_map *deps;
		isl_bool ok = isl_bool_true;

		memset(&cfg, 0, sizeof(cfg));
		cfg.target = pm_target_find("sm_80");
		cfg.split_k = 1;
		pm_diags_init(&d, "t", NULL);
		scop = pm_scop_build(ctx, s, &cfg, &d);
		assert_non_null(scop);
		deps = pm_scop_deps(scop);
		assert_false(isl_union_map_is_empty(deps));
		for (int m = 0; m < isl_union_map_n_map(deps) && ok; ++m) {
			isl_map_list *l = isl_union_map_get_map_list(deps);
			isl_map *x = isl_map_list_get_at(l, m);
			isl_map *same = isl_map_equate(isl_map_copy(x),
				isl_dim_in, 0, isl_dim_out, 0);

			ok = isl_map_is_subset(x, same);
			isl_map_free(same);
			isl_map_free(x);
			isl_map_list_free(l);
		}
		assert_true(ok == isl_bool_true);
		isl_union_map_free(deps);
		pm_scop_free(scop);
		for (int t = 0; t < 3; ++t)
			for (int p = 0; p < 4; ++p) {
				struct pm_kernel *k;

				memset(&cfg, 0, sizeof(cfg));
				cfg.target = pm_target_find(targets[t]);
				cfg.split_k = cfg.stages = 1;
				cfg.tma = -1;
				k = pm_pipeline_until(ctx, s, &cfg, passes[p], &d);
				if (!k)
					fail_msg("%s %s: %s", specs[f], targets[t],
						pm_diags_text(&d));
				assert_int_equal(k->scop->spec->nbatch, 1);
				if (pm_check_legal(k) != 1)
					fail_msg("%s %s: illegal after %s", specs[f],
						targets[t], passes[p]);
				pm_pipeline_kernel_free(k);
			}
		pm_diags_clear(&d);
		isl_ctx_free(ctx);
		pm_spec_free(s);
	}
}

/* ---- Host renderings against the reference ---- */

static const struct pm_hr_cfg hcfgs[] = {
	{ 64, 64, 16, 32, 32, 8, 8, 4, 1, 0, 0, 0, 0, 0 },
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 1, 0, 0, 0 },
	/* TMA copies: the host renders a box as the whole tile */
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 0, 1, 0, 0 },
};
#define NHCFGS ((int) (sizeof(hcfgs) / sizeof(hcfgs[0])))

/* The driver: the sizes (spec order), every input and the reference's
 * outputs read from the data file (argv[1]), CALL (every batch), every
 * output element compared within f16's rounding of the reference. */
static void driver(struct pm_strbuf *b, const struct pm_spec *s)
{
	pm_strbuf_add(b, PM_HR_DRIVER_RD
		"int main(int argc, char **argv)\n{\n"
		"\tFILE *f = fopen(argv[1], \"rb\");\n\tlong bad = 0, sz[8];\n"
		"\tif (!f || fread(sz, sizeof(long), 8, f) != 8)\n\t\treturn 3;\n");
	for (int i = 0; i < s->nsyms; ++i)
		pm_strbuf_printf(b, "\tconst long %s = sz[%d];\n",
			s->syms[i].name, i);
	for (int r = 0; r < 2; ++r)
		for (int t = 0; t < s->ntensors; ++t) {
			const struct pm_tensor *x = &s->tensors[t];

			if (x->role != (r ? PM_OUTPUT : PM_INPUT))
				continue;
			if (!r) {
				pm_strbuf_printf(b, "\tfloat *%s = rd(f, ", x->name);
				pm_hr_elems_text(s, t, b);
				pm_strbuf_add(b, ");\n");
				continue;
			}
			pm_strbuf_printf(b, "\tfloat *%s_want = rd(f, ", x->name);
			pm_hr_elems_text(s, t, b);
			pm_strbuf_printf(b, "), *%s = malloc(sizeof(float) * ",
				x->name);
			pm_hr_elems_text(s, t, b);
			pm_strbuf_printf(b, ");\n\tfor (long i = 0; i < ");
			pm_hr_elems_text(s, t, b);
			pm_strbuf_printf(b, "; ++i)\n\t\t%s[i] = NAN;\n", x->name);
		}
	pm_strbuf_add(b, "\tCALL;\n");
	for (int t = 0; t < s->ntensors; ++t) {
		const char *x = s->tensors[t].name;

		if (s->tensors[t].role != PM_OUTPUT)
			continue;
		pm_strbuf_add(b, "\tfor (long i = 0; i < ");
		pm_hr_elems_text(s, t, b);
		pm_strbuf_printf(b, "; ++i)\n"
			"\t\tif (!(fabsf(%s[i] - %s_want[i]) <= 1e-3f * (1 + "
			"fabsf(%s_want[i]))) && bad++ < 5)\n"
			"\t\t\tfprintf(stderr, \"%s[%%ld] = %%g, expected %%g\\n\", "
			"i, %s[i], %s_want[i]);\n", x, x, x, x, x, x);
	}
	pm_strbuf_add(b, "\tprintf(\"%ld wrong\\n\", bad);\n"
		"\treturn bad != 0;\n}\n");
}

/* Input element i of tensor t (pm_hr_value); outputs 0. */
static double value(const struct pm_spec *s, int t, int64_t i,
	const void *arg)
{
	(void) arg;
	return s->tensors[t].role == PM_INPUT ? pm_hr_value(t, i) : 0;
}

/* The sizes (8 longs), the inputs and the reference's outputs of s at
 * sizes into path. */
static void data_file(const struct pm_spec *s, const int64_t *sizes,
	const char *path)
{
	long sz[8] = { 0 };
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_true(s->nsyms <= 8);
	for (int i = 0; i < s->nsyms; ++i)
		sz[i] = (long) sizes[i];
	assert_int_equal(fwrite(sz, sizeof(long), 8, f), 8);
	pm_hr_write_data(f, s, sizes, value, NULL);
	fclose(f);
}

/* Batch, M, N, K of the runs: batch 1 and 3, sizes 1, 7, 127, 129 (a
 * tensor's contiguous dimension, whole 16-byte rows as the launcher
 * checks, rounded up to a multiple of 8: render's `units`). */
static const int64_t runs[][4] = {
	{ 1, 1, 1, 1 }, { 3, 7, 7, 7 }, { 3, 127, 129, 7 },
	{ 1, 129, 127, 129 }, { 3, 7, 129, 127 }, { 3, 129, 1, 129 },
};
#define NRUNS ((int) (sizeof(runs) / sizeof(runs[0])))

/* Render spec file path on the host with c, run it at every size of
 * runs[] (args: the kernel's arguments but pm_bz) against the
 * reference; the rendering is called once per batch pm_z. */
static int render(const char *path, const struct pm_hr_cfg *c,
	const char *args, const char *units, int smem_pro)
{
	struct pm_spec *s = pm_hr_parse_file(path);
	struct pm_config cfg;
	struct pm_strbuf head, tail;
	char files[NRUNS][32], *src;
	const char *argv[NRUNS];
	int rc;

	pm_hr_config(&cfg, c);
	/* TMA copies where no prologue is applied in shared memory */
	cfg.tma = c->tma && !smem_pro;
	src = pm_hr_generate(s, &cfg);
	assert_non_null(src);
	assert_non_null(strstr(src, "long pm_bz)"));
	assert_int_equal(!!strstr(src, "pm_host_tma(&"), cfg.tma);
	for (int r = 0; r < NRUNS; ++r) {
		int64_t sizes[4];

		/* the spec's symbols: Bt, M, K, N in declaration order */
		for (int i = 0; i < s->nsyms; ++i) {
			char n = s->syms[i].name[0];

			sizes[i] = runs[r][strchr("BMNK", n) - "BMNK"];
			if (strchr(units, n))
				sizes[i] = (sizes[i] + 7) / 8 * 8;
		}
		snprintf(files[r], sizeof(files[r]), "/tmp/pm_batchXXXXXX");
		pm_hr_tmpfile(files[r]);
		data_file(s, sizes, files[r]);
		argv[r] = files[r];
	}
	pm_strbuf_init(&head);
	pm_strbuf_init(&tail);
	pm_strbuf_printf(&head, "#define CALL for (long pm_z = 0; pm_z < Bt; "
		"++pm_z) %s(%s, pm_z)\n", s->name, args);
	driver(&tail, s);
	rc = pm_hr_build_and_run_n(head.s, src, tail.s, argv, NRUNS, 0, 1,
		path);
	for (int r = 0; r < NRUNS; ++r)
		unlink(files[r]);
	pm_strbuf_free(&head);
	pm_strbuf_free(&tail);
	free(src);
	pm_spec_free(s);
	return rc;
}

static void test_host(void **state)
{
	static const struct {
		const char *path, *args, *units;
		int smem_pro;	/* a prologue in shared memory: no TMA */
	} specs[] = {
		{ "tests/specs/bmm_nn.tc", "A, B, C, Bt, M, N, K", "NK", 0 },
		/* A (Bt, K, M): K any size, M whole rows */
		{ "tests/specs/bmm_bcast_b.tc", "A, B, C, Bt, M, N, K", "MN", 0 },
		{ "tests/specs/bmm_bias.tc", "A, B, bias, s, R, C, Bt, M, N, K",
		  "NK", 0 },
		/* a prologue reading s(b, j) per batch and z(j) shared */
		{ "tests/specs/bmm_dequant.tc", "A, B, s, z, C, Bt, M, N, K",
		  "NK", 1 },
		/* s(b, j) moved to the epilogue (0044): TMA copies */
		{ "tests/specs/bmm_scale.tc", "A, B, s, C, Bt, M, N, K", "NK",
		  0 },
	};

	(void) state;
	if (system("cc --version >/dev/null 2>&1")) {
		printf("no C compiler: host renderings skipped\n");
		return;
	}
	for (size_t f = 0; f < sizeof(specs) / sizeof(specs[0]); ++f)
		for (int c = 0; c < NHCFGS; ++c)
			assert_int_equal(render(specs[f].path, &hcfgs[c],
				specs[f].args, specs[f].units,
				specs[f].smem_pro), 0);
}

/* A broken batch offset must fail: C's slice moved one batch too far
 * back (every batch writes batch 0). */
static void test_host_can_fail(void **state)
{
	struct pm_spec *s = pm_hr_parse_file("tests/specs/bmm_nn.tc");
	int64_t sizes[4] = { 3, 7, 7, 7 };
	struct pm_strbuf tail;
	char path[] = "/tmp/pm_batchXXXXXX";
	const char *argv[1] = { path };

	(void) state;
	if (system("cc --version >/dev/null 2>&1")) {
		pm_spec_free(s);
		return;
	}
	pm_hr_tmpfile(path);
	data_file(s, sizes, path);
	pm_strbuf_init(&tail);
	driver(&tail, s);
	/* a "kernel" that computes batch 0 only */
	assert_int_not_equal(pm_hr_build_and_run_n(
		"#define CALL bmm_nn(A, B, C, Bt, M, N, K, 0)\n",
		"static void bmm_nn(const float *A, const float *B, float *C, "
		"long Bt, long M, long N, long K, long pm_bz)\n{\n"
		"\t(void) Bt;\n\tA += pm_bz * M * K; B += pm_bz * K * N; "
		"C += pm_bz * M * N;\n\tfor (long i = 0; i < M; ++i)\n"
		"\t\tfor (long j = 0; j < N; ++j) {\n\t\t\tfloat v = 0;\n"
		"\t\t\tfor (long k = 0; k < K; ++k)\n\t\t\t\tv += A[i * K + k] * "
		"B[k * N + j];\n\t\t\tC[i * N + j] = v;\n\t\t}\n}\n",
		tail.s, argv, 1, 1, 0, "broken"), 0);
	unlink(path);
	pm_strbuf_free(&tail);
	pm_spec_free(s);
}

/* ---- The sm_90a file ---- */

static int count(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		++n;
	return n;
}

static void test_sm90a_file(void **state)
{
	struct pm_spec *s = pm_hr_parse_file("tests/specs/bmm_bcast_b.tc");
	struct pm_config cfg;
	struct pm_output out = { 0 };
	struct pm_diags d;

	(void) state;
	memset(&cfg, 0, sizeof(cfg));
	cfg.target = pm_target_find("sm_90a");
	cfg.tma = -1;
	cfg.persistent = -1;
	cfg.small_variant = -1;
	cfg.smem = -1;
	pm_diags_init(&d, "t", NULL);
	if (pm_pipeline_generate(s, &cfg, &out, &d))
		fail_msg("%s", pm_diags_text(&d));
	pm_diags_clear(&d);
	/* A per batch: a 3-D map, coordinate z the batch; B shared: 2-D */
	assert_non_null(strstr(out.source, "pm_tma_map_3d(&pm_tm0, A, K, M, M, "
		"(int64_t) (Bt), (int64_t) (K) * (M), "));
	assert_non_null(strstr(out.source, "pm_tma_map_2d(&pm_tm1, B, K, N, N, "));
	assert_true(count(out.source, "&pm_tm0, &pm_bar") ==
		count(out.source, "pm_tma_load_3d(&A_shared"));
	assert_int_equal(count(out.source, "pm_tma_load_3d(&B_shared"), 0);
	assert_non_null(strstr(out.source, ", (int) pm_bz); "));
	/* the slices: A and C per batch, B not moved */
	assert_non_null(strstr(out.source, "\tA += pm_bz * (int64_t) (K) * (M);\n"));
	assert_non_null(strstr(out.source, "\tC += pm_bz * (int64_t) (M) * (N);\n"));
	assert_null(strstr(out.source, "\tB += pm_bz"));
	assert_non_null(strstr(out.source, ", 1, (unsigned) (int64_t) (Bt));"));
	assert_non_null(strstr(out.source, "if ((int64_t) (Bt) > 65535)"));
	assert_non_null(strstr(out.source, "p.batch = (int64_t) (Bt);"));
	/* the batch first in the launcher's sizes */
	assert_non_null(strstr(out.source, "cudaError_t bmm_bcast_b(const void "
		"*A, const void *B, void *C, int64_t Bt, int64_t M, int64_t N, "
		"int64_t K, cudaStream_t stream)"));
	/* the metadata: the user's dims (python/ binds tensors by them) */
	assert_non_null(out.meta);
	assert_non_null(strstr(out.meta, "{\"name\": \"A\", \"type\": \"f16\", "
		"\"output\": false, \"dims\": [\"Bt\", \"K\", \"M\"]}"));
	assert_non_null(strstr(out.meta, "\"dims\": [\"K\", \"N\"]}"));
	assert_non_null(strstr(out.meta, "\"sizes\": [\"Bt\", \"M\", \"N\", "
		"\"K\"]"));
	/* the unsplit persistent rows loop over units (batch, tile) (decision
	 * 0042), gridDim.z 1; no split kernel */
	{
		static const char *const rows[] = { "_persist(", "_persist_wide(",
			"_persist_tall(", "_persist_mid(", "_persist_sq(",
			"_persist_narrow(" };
		char name[96];

		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); ++i) {
			snprintf(name, sizeof(name), "pm_kernel_bmm_bcast_b%s",
				rows[i]);
			assert_non_null(strstr(out.source, name));
		}
	}
	assert_non_null(strstr(out.source, "\tfor (unsigned pm_u = blockIdx.x; "
		"pm_u < pm_tx * pm_ty * pm_nb; pm_u += gridDim.x, "));
	assert_non_null(strstr(out.source, "\t\tA += (pm_bz - pm_bzp) * "
		"(int64_t) (K) * (M);\n"));
	assert_null(strstr(out.source, "B += (pm_bz - pm_bzp)"));
	assert_null(strstr(out.source, "_persist_split("));
	assert_null(strstr(out.source, "pm_kernel_bmm_bcast_b_split"));
	pm_output_clear(&out);
	pm_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_batch_view),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_legal),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_host_can_fail),
		cmocka_unit_test(test_sm90a_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

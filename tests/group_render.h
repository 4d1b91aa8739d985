/* tests/test_group.c's host renderings and the sm_90a file (included
 * once, after its helpers). */
#ifndef PM_TEST_GROUP_RENDER_H
#define PM_TEST_GROUP_RENDER_H

static const struct pm_hr_cfg hcfgs[] = {
	{ 64, 64, 16, 32, 32, 8, 8, 4, 1, 0, 0, 0, 0, 0 },
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 1, 0, 0, 0 },
	/* TMA copies: the host renders a box as the whole tile */
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 0, 1, 0, 0 },
};
#define NHCFGS ((int) (sizeof(hcfgs) / sizeof(hcfgs[0])))

/* One run: E groups of sizes g[], T rows (-1: their sum plus extra), N,
 * K (whole 16-byte rows: multiples of 8, as the launcher checks). */
struct grun {
	int E, g[3], extra, T, N, K;
};

static const struct grun gruns[] = {
	{ 1, { 7 }, 0, -1, 8, 8 },
	{ 3, { 0, 1, 7 }, 3, -1, 16, 24 },
	{ 3, { 127, 0, 129 }, 1, -1, 136, 8 },
	{ 1, { 0 }, 5, -1, 8, 8 },		/* no row written */
	{ 3, { 129, 1, 127 }, 0, -1, 24, 136 },
	{ 3, { 1, 129, 0 }, 2, -1, 72, 40 },
	/* offs 5 15 past T 12: the second group clamped to rows 5 .. 11 */
	{ 2, { 5, 10 }, 0, 12, 8, 16 },
};
#define NGRUNS ((int) (sizeof(gruns) / sizeof(gruns[0])))

/* The driver: the sizes, the inputs and the reference's outputs from the
 * data file (argv[1]), the outputs poisoned with NaN, CALL (every
 * group), every output element compared: NaN where the reference keeps
 * the poison (a row of no group), else within f16's rounding. */
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
			const char *x = s->tensors[t].name;

			if (s->tensors[t].role != (r ? PM_OUTPUT : PM_INPUT))
				continue;
			pm_strbuf_printf(b, "\tfloat *%s%s = rd(f, ", x,
				r ? "_want" : "");
			pm_hr_elems_text(s, t, b);
			pm_strbuf_add(b, ");\n");
			if (!r)
				continue;
			pm_strbuf_printf(b, "\tfloat *%s = malloc(sizeof(float) * ",
				x);
			pm_hr_elems_text(s, t, b);
			pm_strbuf_add(b, ");\n\tfor (long i = 0; i < ");
			pm_hr_elems_text(s, t, b);
			pm_strbuf_printf(b, "; ++i)\n\t\t%s[i] = NAN;\n", x);
		}
	pm_strbuf_add(b, "\tCALL;\n");
	for (int t = 0; t < s->ntensors; ++t) {
		const char *x = s->tensors[t].name;

		if (s->tensors[t].role != PM_OUTPUT)
			continue;
		pm_strbuf_add(b, "\tfor (long i = 0; i < ");
		pm_hr_elems_text(s, t, b);
		pm_strbuf_printf(b, "; ++i)\n"
			"\t\tif ((isnan(%s_want[i]) ? !isnan(%s[i]) : "
			"!(fabsf(%s[i] - %s_want[i]) <= 2e-3f * (1 + "
			"fabsf(%s_want[i])))) && bad++ < 5)\n"
			"\t\t\tfprintf(stderr, \"%s[%%ld] = %%g, expected %%g\\n\", "
			"i, %s[i], %s_want[i]);\n", x, x, x, x, x, x, x, x);
	}
	pm_strbuf_add(b, "\tprintf(\"%ld wrong\\n\", bad);\n"
		"\treturn bad != 0;\n}\n");
}

/* Element i of tensor t at run g: outputs NaN, offs the cumulative
 * ends of the groups, other inputs small integers / 4 (exact in f16). */
static double value(const struct pm_spec *s, int t, int64_t i,
	const void *arg)
{
	const struct grun *g = arg;
	int64_t end = 0;

	if (s->tensors[t].role == PM_OUTPUT)
		return NAN;
	if (t != s->group_offs)
		return pm_hr_value(t, i) / 4;
	for (int64_t e = 0; e <= i; ++e)
		end += g->g[e];
	return (double) end;
}

/* The sizes (8 longs), the inputs (offs: the run's cumulative ends) and
 * the reference's outputs (from NaN) of s at run g into path. */
static void data_file(const struct pm_spec *s, const struct grun *g,
	const char *path)
{
	long sz[8] = { 0 };
	int64_t sizes[8] = { 0 }, rows = g->extra;
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_true(s->nsyms <= 8);
	for (int e = 0; e < g->E; ++e)
		rows += g->g[e];
	for (int i = 0; i < s->nsyms; ++i) {
		char n = s->syms[i].name[0];

		sizes[i] = n == 'E' ? g->E : n == 'N' ? g->N : n == 'K' ? g->K :
			g->T >= 0 ? g->T : rows;
		sz[i] = (long) sizes[i];
	}
	assert_int_equal(fwrite(sz, sizeof(long), 8, f), 8);
	pm_hr_write_data(f, s, sizes, value, g);
	fclose(f);
}

/* The data files of every run of gruns[] (names into files[]). */
static void data_files(const struct pm_spec *s, char files[][32],
	const char **argv)
{
	for (int r = 0; r < NGRUNS; ++r) {
		snprintf(files[r], sizeof(files[r]), "/tmp/pm_groupXXXXXX");
		pm_hr_tmpfile(files[r]);
		data_file(s, &gruns[r], files[r]);
		argv[r] = files[r];
	}
}

/* Render spec file path on the host with c, run it at every run of
 * gruns[] (args: the kernel's arguments but pm_bz) against the
 * reference; the rendering is called once per group pm_z. */
static int render(const char *path, const struct pm_hr_cfg *c,
	const char *args)
{
	struct pm_spec *s = parse_file(path);
	struct pm_config cfg;
	struct pm_strbuf head, tail;
	char files[NGRUNS][32], *src;
	const char *argv[NGRUNS];
	int rc;

	pm_hr_config(&cfg, c);
	src = pm_hr_generate(s, &cfg);
	assert_non_null(src);
	assert_non_null(strstr(src, "long pm_rows, "));
	assert_non_null(strstr(src, "long pm_bz)"));
	assert_int_equal(!!strstr(src, "pm_host_tma(&"), cfg.tma);
	data_files(s, files, argv);
	pm_strbuf_init(&head);
	pm_strbuf_init(&tail);
	pm_strbuf_printf(&head, "#define CALL for (long pm_z = 0; pm_z < E; "
		"++pm_z) %s(%s, pm_z)\n", s->name, args);
	driver(&tail, s);
	rc = pm_hr_build_and_run_n(head.s, src, tail.s, argv, NGRUNS, 0, 1,
		path);
	for (int r = 0; r < NGRUNS; ++r)
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
		const char *path, *args;
	} specs[] = {
		{ "tests/specs/moe_up.tc", "X, W, bias, offs, Y, E, T, N, K" },
		{ "tests/specs/moe_scale.tc",
		  "X, W, scale, s, R, offs, Y, E, T, N, K" },
		/* two grouped contractions sharing X (one k loop) */
		{ "tests/specs/moe_swiglu.tc", "X, Wg, Wu, offs, Y, E, T, N, K" },
	};

	(void) state;
	if (system("cc --version >/dev/null 2>&1")) {
		printf("no C compiler: host renderings skipped\n");
		return;
	}
	for (size_t f = 0; f < sizeof(specs) / sizeof(specs[0]); ++f)
		for (int c = 0; c < NHCFGS; ++c)
			assert_int_equal(render(specs[f].path, &hcfgs[c],
				specs[f].args), 0);
}

/* The driver must catch what the kernels must not do: a "kernel" that
 * runs each group over every row (group 0's rows computed with the
 * last group's W, rows of no group written) fails every run but E 1
 * with no row past the group. */
static void test_host_can_fail(void **state)
{
	static const char fake[] =
		"static void moe_up(const float *X, const float *W, const float "
		"*bias, const float *offs, float *Y, long E, long T, long N, "
		"long K, long pm_bz)\n{\n\t(void) E; (void) offs;\n"
		"\tW += pm_bz * K * N; bias += pm_bz * N;\n"
		"\tfor (long i = 0; i < T; ++i)\n\t\tfor (long j = 0; j < N; "
		"++j) {\n\t\t\tfloat v = 0;\n\t\t\tfor (long k = 0; k < K; ++k)\n"
		"\t\t\t\tv += X[i * K + k] * W[k * N + j];\n"
		"\t\t\tv += bias[j];\n\t\t\tY[i * N + j] = v / (1 + expf(-v));\n"
		"\t\t}\n}\n";
	struct pm_spec *s = parse_file("tests/specs/moe_up.tc");
	struct pm_strbuf tail;
	char files[NGRUNS][32];
	const char *argv[NGRUNS];

	(void) state;
	if (system("cc --version >/dev/null 2>&1")) {
		pm_spec_free(s);
		return;
	}
	data_files(s, files, argv);
	pm_strbuf_init(&tail);
	driver(&tail, s);
	/* run 0 (one group of every row): right */
	assert_int_equal(pm_hr_build_and_run_n("#include <math.h>\n#define CALL "
		"for (long z = 0; z < E; ++z) moe_up(X, W, bias, offs, Y, E, T, "
		"N, K, z)\n", fake, tail.s, argv, 1, 1, 0, "fake"), 0);
	for (int r = 1; r < NGRUNS; ++r)
		assert_int_not_equal(pm_hr_build_and_run_n("#include <math.h>\n"
			"#define CALL for (long z = 0; z < E; ++z) moe_up(X, W, "
			"bias, offs, Y, E, T, N, K, z)\n", fake, tail.s, argv + r,
			1, 1, 0, "fake"), 0);
	for (int r = 0; r < NGRUNS; ++r)
		unlink(files[r]);
	pm_strbuf_free(&tail);
	pm_spec_free(s);
}

/* ---- The units (group, tile) of the CUDA kernels ---- */

/* The harness of the kernels' unit search (emit/group.c), compiled as C:
 * every block of the launch's grid ((ceil(T / 128) + E) x ceil(N / 128)
 * for sm_80's 128x128 tiles) runs the search; every tile of every group
 * must be found by exactly one block, with the group's first row and row
 * count, and no block may find a tile past its group's. */
static const char unit_head[] =
	"#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
	"static struct { unsigned x; } blockIdx;\n"
	"static int64_t r_bz, r_lo;\nstatic long r_T;\nstatic unsigned r_gu;\n"
	"static void unit(const int32_t *offs, int E, int pm_rows, int N)\n{\n"
	"\tr_bz = -1;\n";
static const char unit_tail[] =
	"\tr_bz = pm_bz, r_lo = pm_glo, r_T = T, r_gu = pm_gu;\n}\n"
	"static int check(int E, const int32_t *offs, int rows, int N)\n{\n"
	"\tunsigned tx = (N + 127) / 128, grid = ((rows + 127) / 128 + E) * tx;\n"
	"\tint bad = 0;\n\tint64_t lo = 0;\n"
	"\tint *seen = calloc((size_t) E * grid, sizeof(int));\n"
	"\tfor (unsigned b = 0; b < grid; ++b) {\n"
	"\t\tblockIdx.x = b;\n\t\tunit(offs, E, rows, N);\n"
	"\t\tif (r_bz < 0)\n\t\t\tcontinue;\n"
	"\t\tif (r_bz >= E || r_gu >= grid) { bad++; continue; }\n"
	"\t\tseen[r_bz * grid + r_gu]++;\n\t}\n"
	"\tfor (int e = 0; e < E; ++e) {\n"
	"\t\tint64_t c = offs[e] < 0 ? 0 : offs[e] > rows ? rows : offs[e];\n"
	"\t\tint64_t hi = c < lo ? lo : c, n = (hi - lo + 127) / 128 * tx;\n"
	"\t\tfor (unsigned t = 0; t < grid; ++t)\n"
	"\t\t\tif (seen[e * grid + t] != (t < n)) {\n"
	"\t\t\t\tfprintf(stderr, \"group %d tile %u: %d blocks\\n\", e, t, "
	"seen[e * grid + t]);\n\t\t\t\tbad++;\n\t\t\t}\n"
	"\t\tfor (unsigned b = 0; b < grid; ++b) {\n"
	"\t\t\tblockIdx.x = b;\n\t\t\tunit(offs, E, rows, N);\n"
	"\t\t\tif (r_bz == e && (r_lo != lo || r_T != hi - lo))\n\t\t\t\tbad++;\n"
	"\t\t}\n\t\tlo = c;\n\t}\n\tfree(seen);\n\treturn bad;\n}\n"
	"int main(void)\n{\n"
	"\tstatic const int32_t a[] = { 0, 1, 8 }, b[] = { 127, 127, 256 },\n"
	"\t\tc[] = { 129, 130, 130, 257, 1000 }, d[] = { 600, 1500 },\n"
	"\t\tz[] = { 0, 0, 0 }, one[] = { 1 };\n"
	"\tint32_t big[64], end = 0;\n\tlong bad = 0;\n"
	"\tfor (int e = 0; e < 64; ++e)\n"
	"\t\tbig[e] = end += (int32_t[]) { 0, 1, 7, 127, 129, 64, 255, 33 }[e % 8];\n"
	"\tbad += check(3, a, 12, 136);\n\tbad += check(3, b, 300, 264);\n"
	"\tbad += check(5, c, 1100, 8);\n\tbad += check(2, d, 1000, 3000);\n"
	"\tbad += check(3, z, 5, 8);\n\tbad += check(1, one, 1, 8);\n"
	"\tbad += check(64, big, 5000, 512);\n"
	"\tprintf(\"%ld wrong\\n\", bad);\n\treturn bad != 0;\n}\n";

/* The unit search of the sm_80 file's main kernel: the lines from its
 * comment to the tile in the group (pm_gu), into b. */
static void unit_snippet(const char *src, struct pm_strbuf *b)
{
	const char *p = strstr(src, "\t/* the block's unit (group, tile)");
	const char *end = p ? strstr(p, "blockIdx.x % pm_gtx;\n") : NULL;

	assert_non_null(end);
	end += strlen("blockIdx.x % pm_gtx;\n");
	pm_strbuf_printf(b, "%.*s", (int) (end - p), p);
}

static void test_units(void **state)
{
	struct pm_spec *s = parse_file("tests/specs/moe_up.tc");
	struct pm_config cfg;
	struct pm_output out = { 0 };
	struct pm_strbuf snip, broken;
	struct pm_diags d;
	const char *none = "";
	char *at;

	(void) state;
	if (system("cc --version >/dev/null 2>&1")) {
		pm_spec_free(s);
		return;
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.target = pm_target_find("sm_80");
	cfg.tma = -1;
	cfg.persistent = -1;
	cfg.small_variant = -1;
	cfg.smem = -1;
	pm_diags_init(&d, "t", NULL);
	if (pm_pipeline_generate(s, &cfg, &out, &d))
		fail_msg("%s", pm_diags_text(&d));
	pm_diags_clear(&d);
	/* the main kernel's tiles are 128x128 (the harness's) */
	assert_non_null(strstr(out.source, "pm_gtx = ((unsigned) N + 127u) / "
		"128u;\n"));
	pm_strbuf_init(&snip);
	pm_strbuf_init(&broken);
	unit_snippet(out.source, &snip);
	assert_int_equal(pm_hr_build_and_run_n(unit_head, snip.s, unit_tail,
		&none, 1, 0, 1, "units"), 0);
	/* the harness catches a search that does not count the groups'
	 * tiles down (every block in group 0) */
	pm_strbuf_add(&broken, snip.s);
	at = strstr(broken.s, "pm_gu -= pm_n;");
	assert_non_null(at);
	memcpy(at, "pm_gu -= 0;   ", strlen("pm_gu -= pm_n;"));
	assert_int_not_equal(pm_hr_build_and_run_n(unit_head, broken.s,
		unit_tail, &none, 1, 1, 0, "units (broken)"), 0);
	pm_strbuf_free(&snip);
	pm_strbuf_free(&broken);
	pm_output_clear(&out);
	pm_spec_free(s);
}

/* ---- The sm_90a file ---- */

static void test_sm90a_file(void **state)
{
	struct pm_spec *s = parse_file("tests/specs/moe_up.tc");
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
	/* the unsplit persistent rows (0051), no split rows (0045) */
	assert_non_null(strstr(out.source, "pm_kernel_moe_up_persist_mid("));
	assert_null(strstr(out.source, "pm_kernel_moe_up_persist_wide"));
	assert_null(strstr(out.source, "pm_kernel_moe_up_split"));
	assert_null(strstr(out.source, "pm_kernel_moe_up_persist_split"));
	assert_non_null(strstr(out.source, " *   _persist_split     not built: "
		"batched: k is not split"));
	/* ... walking the groups' tile rows per unit, the pointers moved
	 * from the last unit's group and rows; no TMA store (a box clipped
	 * at T would write into the next group's rows) */
	assert_non_null(strstr(out.source, "\tfor (unsigned pm_u = blockIdx.x; "
		"pm_u < pm_nu; pm_u += gridDim.x, "));
	assert_non_null(strstr(out.source, "\t\tif (pm_sg >= (int64_t) (E))\n"
		"\t\t\tbreak;\n\t\tconst int64_t pm_bz = pm_sg, pm_glo = "
		"pm_sl;\n\t\tT = (int) (pm_sh - pm_sl);\n\t\tW += (pm_bz - "
		"pm_bzp) * (int64_t) (K) * (N);\n"));
	assert_non_null(strstr(out.source, "\t\tX += (pm_glo - pm_glop) * "));
	assert_null(strstr(out.source, "CUtensorMap pm_tm2"));
	assert_non_null(strstr(out.source, "pm_kernel_moe_up_small_tma("));
	/* the kernel: every group's rows as pm_rows, the unit's group, the
	 * group's count as T, the raster on the tile in the group, W's
	 * slice, the rows' pointers moved */
	assert_non_null(strstr(out.source, "const int32_t *__restrict__ offs, "
		"__half *__restrict__ Y, int E, int pm_rows, int N, int K"));
	assert_non_null(strstr(out.source, "\tif (pm_bz < 0)\n\t\treturn;\n"
		"\tconst int T = (int) (pm_ghi - pm_glo);\n"
		"\tpm_gu = pm_gu * pm_gtx + blockIdx.x % pm_gtx;\n"
		"\tW += pm_bz * (int64_t) (K) * (N);\n"
		"\tbias += pm_bz * (int64_t) (N);\n"
		"\tX += pm_glo * (int64_t) 1 * (K);\n"
		"\tY += pm_glo * (int64_t) 1 * (N);\n"));
	assert_non_null(strstr(out.source, "\tconst unsigned pm_t = pm_gu, "));
	assert_null(strstr(out.source, "= blockIdx.z;"));
	assert_null(strstr(out.source, "offs += "));
	/* TMA: X's 2-D map of every row, its coordinate the group's first
	 * row on; W's 3-D map, z the group */
	assert_non_null(strstr(out.source, "pm_tma_map_2d(&pm_tm0, X, T, K, K, "));
	assert_non_null(strstr(out.source, "pm_tma_map_3d(&pm_tm1, W, K, N, N, "
		"(int64_t) (E), (int64_t) (K) * (N), "));
	assert_non_null(strstr(out.source, "(128 * c0) + (int) pm_glo); }"));
	assert_non_null(strstr(out.source, ", (int) pm_bz); "));
	/* the launch: the units' bound in x; the launcher's sizes */
	assert_non_null(strstr(out.source, "dim3 grid((unsigned) ((((int64_t) "
		"(T) + 127) / 128 + (int64_t) (E)) * (((int64_t) (N) + 127) / "
		"128)), 1);"));
	assert_non_null(strstr(out.source, "cudaError_t moe_up(const void *X, "
		"const void *W, const void *bias, const void *offs, void *Y, "
		"int64_t E, int64_t T, int64_t N, int64_t K, cudaStream_t "
		"stream)"));
	pm_output_clear(&out);
	pm_spec_free(s);
}

#endif

/* runtime/plan.c, the launch plan over a variant table, on the host.
 *
 * The four examples' sm_90a variant tables (hand-written from the files
 * `polymma gen examples/NAME.tc --target sm_90a` writes; to be replaced by
 * the rows the library produces) on the H100 model of tests/plan_probe.cu
 * (132 SMs; blocks per SM from threads and dynamic shared memory; half the
 * SMs' worth of clusters), at every size of tests/golden/plan_sizes.txt:
 * the rules' flags printed as plan_probe prints pm_plan_NAME's must equal
 * tests/golden/plan_NAME_sm90a.txt byte for byte, and the row chosen must
 * be the one the generated launcher runs on those flags. Also the sm_80
 * and fixed-split shapes of the plan, the override POLYMMA_VARIANT and
 * the workspace fallback.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/plan.h"
#include "tests/plan_util.h"

#define h100 pm_test_h100

#define TW PM_RT_TWIN
#define PR PM_RT_PRO_REGS
#define SW PM_RT_SWAP
#define LA PM_RT_LAST

/* The cluster row's receive area (emit/plan.c's plan_cluster, printed in
 * pm_plan_NAME: "1 * (c - 1) * 64 * ((8 + c - 1) / c) * 128 <= 131072"):
 * 1 accumulator x 64 registers x 32 lanes x 4 bytes per warp, 8 consumer
 * warps, 131072 bytes of stages. */
#define CL_ROW 8, 8192, 131072

/* gemm_nn and gemm_bias_relu (identical geometry): threads from
 * __launch_bounds__, smem from the launches' <<<grid, threads, smem>>> and
 * pm_device's occupancy calls, tiles from the grids and TMA boxes; wide
 * and tall have no _x twin (exact: the plan checks their tile divides). */
static const struct pm_rt_variant gemm_rows[] = {
	{ "", PM_RT_BASE, 128, 128, 64, 256, 98352, TW, 0, 0, 0 },
	{ "_split", PM_RT_SPLIT, 128, 128, 64, 256, 98352, TW, 0, 0, 0 },
	{ "_small", PM_RT_SMALL, 64, 64, 64, 128, 65536, TW, 0, 0, 0 },
	{ "_small_tma", PM_RT_SMALL_TMA, 64, 64, 64, 128, 65600, TW, 0, 0, 0 },
	{ "_medium", PM_RT_MEDIUM, 64, 128, 64, 128, 73776, TW, 0, 0, 0 },
	{ "_persist", PM_RT_PERSIST, 128, 128, 64, 288, 165952, TW, 0, 0, 0 },
	{ "_persist_wide", PM_RT_PERSIST_WIDE, 128, 256, 64, 288, 215088, TW,
		0, 0, 0 },
	{ "_persist_tall", PM_RT_PERSIST_TALL, 256, 128, 64, 288, 217136, TW,
		0, 0, 0 },
	{ "_persist_mid", PM_RT_PERSIST_MID, 128, 192, 64, 288, 215104, TW,
		0, 0, 0 },
	{ "_persist_sq", PM_RT_PERSIST_SQ, 192, 192, 64, 416, 224304, TW,
		0, 0, 0 },
	{ "_persist_narrow", PM_RT_PERSIST_NARROW, 64, 192, 64, 160, 222304,
		TW, 0, 0, 0 },
	{ "_persist_split", PM_RT_PERSIST_SPLIT, 128, 128, 64, 288, 165952, TW,
		8, 0, 0 },
	{ "_persist_split_cl", PM_RT_PERSIST_SPLIT_CL, 128, 128, 64, 288,
		165968, TW, CL_ROW },
	{ "_persist_skinny", PM_RT_PERSIST_SKINNY, 64, 128, 64, 160, 214144,
		TW, 4, 0, 0 },
	{ "_persist_swap", PM_RT_PERSIST_SWAP, 128, 16, 64, 288, 116840,
		TW | SW | LA, 8, 0, 0 },
	{ "_persist_swap32", PM_RT_PERSIST_SWAP32, 64, 32, 64, 160, 152776,
		TW | SW | LA, 4, 0, 0 },
	{ "_persist_swap64", PM_RT_PERSIST_SWAP64, 64, 64, 64, 160, 140416,
		TW | SW, 4, 0, 0 },
	{ "_unaligned", PM_RT_UNALIGNED, 128, 128, 64, 256, 98304, TW, 0, 0,
		0 },
};

/* add_gemm: the base, split, medium and small_tma kernels' smem differ. */
static const struct pm_rt_variant add_rows[] = {
	{ "", PM_RT_BASE, 128, 128, 64, 256, 98400, TW, 0, 0, 0 },
	{ "_split", PM_RT_SPLIT, 128, 128, 64, 256, 98400, TW, 0, 0, 0 },
	{ "_small", PM_RT_SMALL, 64, 64, 64, 128, 65536, TW, 0, 0, 0 },
	{ "_small_tma", PM_RT_SMALL_TMA, 64, 64, 64, 128, 65664, TW, 0, 0, 0 },
	{ "_medium", PM_RT_MEDIUM, 64, 128, 64, 128, 73824, TW, 0, 0, 0 },
	{ "_persist", PM_RT_PERSIST, 128, 128, 64, 288, 165952, TW, 0, 0, 0 },
	{ "_persist_wide", PM_RT_PERSIST_WIDE, 128, 256, 64, 288, 215088, TW,
		0, 0, 0 },
	{ "_persist_tall", PM_RT_PERSIST_TALL, 256, 128, 64, 288, 217136, TW,
		0, 0, 0 },
	{ "_persist_mid", PM_RT_PERSIST_MID, 128, 192, 64, 288, 215104, TW,
		0, 0, 0 },
	{ "_persist_sq", PM_RT_PERSIST_SQ, 192, 192, 64, 416, 224304, TW,
		0, 0, 0 },
	{ "_persist_narrow", PM_RT_PERSIST_NARROW, 64, 192, 64, 160, 222304,
		TW, 0, 0, 0 },
	{ "_persist_split", PM_RT_PERSIST_SPLIT, 128, 128, 64, 288, 165952, TW,
		8, 0, 0 },
	{ "_persist_split_cl", PM_RT_PERSIST_SPLIT_CL, 128, 128, 64, 288,
		165968, TW, CL_ROW },
	{ "_persist_skinny", PM_RT_PERSIST_SKINNY, 64, 128, 64, 160, 214144,
		TW, 4, 0, 0 },
	{ "_persist_swap", PM_RT_PERSIST_SWAP, 128, 16, 64, 288, 116840,
		TW | SW | LA, 8, 0, 0 },
	{ "_persist_swap32", PM_RT_PERSIST_SWAP32, 64, 32, 64, 160, 152776,
		TW | SW | LA, 4, 0, 0 },
	{ "_persist_swap64", PM_RT_PERSIST_SWAP64, 64, 64, 64, 160, 140416,
		TW | SW, 4, 0, 0 },
	{ "_unaligned", PM_RT_UNALIGNED, 128, 128, 64, 256, 98304, TW, 0, 0,
		0 },
};

/* relu_gemm: the persistent kernels' prologue through the MMA's
 * registers (a producer warpgroup: 384 threads, sq 512); no narrow and no
 * cluster kernel. */
static const struct pm_rt_variant relu_rows[] = {
	{ "", PM_RT_BASE, 128, 128, 64, 256, 98352, TW, 0, 0, 0 },
	{ "_split", PM_RT_SPLIT, 128, 128, 64, 256, 98352, TW, 0, 0, 0 },
	{ "_small", PM_RT_SMALL, 64, 64, 64, 128, 65536, TW, 0, 0, 0 },
	{ "_small_tma", PM_RT_SMALL_TMA, 64, 64, 64, 128, 65600, TW, 0, 0, 0 },
	{ "_medium", PM_RT_MEDIUM, 64, 128, 64, 128, 73776, TW, 0, 0, 0 },
	{ "_persist", PM_RT_PERSIST, 128, 128, 64, 384, 165952, TW | PR,
		0, 0, 0 },
	{ "_persist_wide", PM_RT_PERSIST_WIDE, 128, 256, 64, 384, 215088,
		TW | PR, 0, 0, 0 },
	{ "_persist_tall", PM_RT_PERSIST_TALL, 256, 128, 64, 384, 217136,
		TW | PR, 0, 0, 0 },
	{ "_persist_mid", PM_RT_PERSIST_MID, 128, 192, 64, 384, 215104,
		TW | PR, 0, 0, 0 },
	{ "_persist_sq", PM_RT_PERSIST_SQ, 192, 192, 64, 512, 224304, TW | PR,
		0, 0, 0 },
	{ "_persist_split", PM_RT_PERSIST_SPLIT, 128, 128, 64, 384, 165952,
		TW | PR, 8, 0, 0 },
	{ "_persist_skinny", PM_RT_PERSIST_SKINNY, 64, 128, 64, 256, 214144,
		TW | PR, 4, 0, 0 },
	{ "_unaligned", PM_RT_UNALIGNED, 128, 128, 64, 256, 98304, TW | PR, 0,
		0, 0 },
};

/* sm_90a's cost tables (emit/target.c: ra_cost, sq_cost). */
#define SM90_RA { 500, 950, 1090, 1000, 1060 }
#define SM90_SQ { 1100, 1060, 1090, 1000, 1090 }
#define SM90_BIG { 1090, 1000, 1130, 1090 }

static const struct pm_rt_spec gemm_spec = { 1, 1, 1, 0, SM90_RA, SM90_SQ,
	SM90_BIG };
static const struct pm_rt_spec add_spec = { 2, 2, 1, 0, SM90_RA, SM90_SQ,
	SM90_BIG };

#define NROWS(a) ((int) (sizeof(a) / sizeof((a)[0])))

/* The role today's launcher runs on the flags w (small, medium, persist
 * 1-7, the split, the base). */
static int launched_role(const struct pm_rt_rules *w)
{
	static const int role[12] = { -1, PM_RT_PERSIST, PM_RT_PERSIST_WIDE,
		PM_RT_PERSIST_SPLIT, PM_RT_PERSIST_TALL, PM_RT_PERSIST_MID,
		PM_RT_PERSIST_SQ, PM_RT_PERSIST_NARROW, PM_RT_PERSIST_SKINNY,
		PM_RT_PERSIST_SWAP, PM_RT_PERSIST_SWAP32, PM_RT_PERSIST_SWAP64 };

	if (w->small)
		return PM_RT_SMALL;
	if (w->medium)
		return PM_RT_MEDIUM;
	if (w->persist == 3 && w->cl)
		return PM_RT_PERSIST_SPLIT_CL;
	if (w->persist)
		return role[w->persist];
	return w->s > 1 ? PM_RT_SPLIT : PM_RT_BASE;
}

#define plan pm_test_plan

/* Every size of plan_sizes.txt: the flags equal the golden's line, the
 * row is what the launcher runs on them. */
static void check_golden(const char *name)
{
	struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec spec;
	const struct pm_rt_spec *f = &spec;
	int nv = pm_test_rows(name, "sm_90a", NULL, v, &spec);
	char path[128], size[64], *sizes, *golden, *out;
	size_t len = 0, cap = 1 << 16;
	int pos = 0, used;

	sizes = pm_test_read("tests/golden/plan_sizes.txt");
	snprintf(path, sizeof(path), "tests/golden/plan_%s_sm90a.txt", name);
	golden = pm_test_read(path);
	out = malloc(cap);
	assert_non_null(sizes);
	assert_non_null(golden);
	assert_non_null(out);
	out[0] = '\0';
	while (sscanf(sizes + pos, "%63s%n", size, &used) == 1) {
		long long m, n, k;
		int rc;
		struct pm_rt_choice c;

		pos += used;
		assert_int_equal(sscanf(size, "%lldx%lldx%lld", &m, &n, &k), 3);
		c = plan(f, v, nv, m, n, k, NULL, &rc);
		assert_int_equal(rc, PM_RT_OK);
		len += snprintf(out + len, cap - len, "%s s=%d persist=%d "
			"tdp=%lld small=%d medium=%d cl=%d\n", size, c.why.s,
			c.why.persist, (long long) c.why.tdp, c.why.small,
			c.why.medium, c.why.cl);
		assert_true(len < cap);
		if (launched_role(&c.why) == PM_RT_SMALL)
			assert_true(v[c.v].role == PM_RT_SMALL ||
				v[c.v].role == PM_RT_SMALL_TMA);
		else
			assert_int_equal(v[c.v].role, launched_role(&c.why));
	}
	if (strcmp(out, golden)) {
		fprintf(stderr, "%s: plans differ from %s; got:\n%s", name, path,
			out);
		fail();
	}
	free(out);
	free(golden);
	free(sizes);
}

/* The hand-written rows and specs of the unit tests below are the ones
 * the library makes of the examples (every field, matched by role). */
static void check_rows(const char *name, const struct pm_rt_variant *h,
	int nh, const struct pm_rt_spec *hf)
{
	struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	int nv = pm_test_rows(name, "sm_90a", NULL, v, &f);

	assert_int_equal(nv, nh);
	assert_memory_equal(&f, hf, sizeof(f));
	for (int i = 0; i < nh; ++i) {
		int j = 0;

		while (j < nv && v[j].role != h[i].role)
			++j;
		assert_true(j < nv);
		assert_string_equal(v[j].suffix, h[i].suffix);
		assert_int_equal(v[j].bm, h[i].bm);
		assert_int_equal(v[j].bn, h[i].bn);
		assert_int_equal(v[j].bk, h[i].bk);
		assert_int_equal(v[j].threads, h[i].threads);
		assert_int_equal(v[j].smem, h[i].smem);
		/* the base and split rows' prologue flag: the plan reads it
		 * on the persistent rows only */
		assert_int_equal(v[j].flags & ~(h[i].role < PM_RT_PERSIST ?
			PM_RT_PRO_REGS : 0u), h[i].flags);
		assert_int_equal(v[j].cwarps, h[i].cwarps);
		assert_int_equal(v[j].cl_warp_bytes, h[i].cl_warp_bytes);
		assert_int_equal(v[j].cl_room, h[i].cl_room);
	}
}

static void test_library_rows(void **state)
{
	(void) state;
	check_rows("gemm_nn", gemm_rows, NROWS(gemm_rows), &gemm_spec);
	check_rows("gemm_bias_relu", gemm_rows, NROWS(gemm_rows), &gemm_spec);
	check_rows("add_gemm", add_rows, NROWS(add_rows), &add_spec);
	check_rows("relu_gemm", relu_rows, NROWS(relu_rows), &gemm_spec);
}

static void test_gemm_nn(void **state)
{
	(void) state;
	check_golden("gemm_nn");
}

static void test_gemm_bias_relu(void **state)
{
	(void) state;
	check_golden("gemm_bias_relu");
}

static void test_add_gemm(void **state)
{
	(void) state;
	check_golden("add_gemm");
}

/* Decode with two contractions (docs/decisions/0063): the swapped rows
 * where the file has them and they take the grid (SwiGLU's 16-token row
 * at 6 stages fits, Add's rows), else, without a skinny row, _small_tma;
 * one contraction and 65 tokens keep their rows. */
static void test_two_contractions_decode(void **state)
{
	static const struct {
		const char *name;
		long long m, n, k;
		const char *row;
		int s;
	} cases[] = {
		{ "../tests/specs/swiglu", 1, 11008, 4096, "_persist_swap", 1 },
		{ "../tests/specs/swiglu", 16, 4096, 4096, "_persist_swap", 4 },
		{ "../tests/specs/swiglu", 8, 28672, 4096, "_persist_swap", 1 },
		{ "../tests/specs/swiglu", 64, 4096, 11008, "_persist_swap64",
			2 },
		{ "../tests/specs/swiglu", 32, 11008, 4096, "_small_tma", 1 },
		{ "../tests/specs/swiglu", 64, 28672, 4096, "_small_tma", 1 },
		{ "../tests/specs/swiglu", 65, 11008, 4096, "_persist", 1 },
		{ "add_gemm", 16, 11008, 4096, "_persist_swap", 1 },
		{ "add_gemm", 32, 4096, 4096, "_persist_swap32", 2 },
		{ "add_gemm", 32, 11008, 4096, "_persist_narrow", 1 },
		{ "gemm_nn", 32, 11008, 4096, "_persist_narrow", 1 },
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct pm_rt_choice c;
		const char *row = pm_test_plan_suffix(cases[i].name, "sm_90a",
			NULL, cases[i].m, cases[i].n, cases[i].k, &c);

		if (strcmp(row, cases[i].row) || c.s != cases[i].s)
			fail_msg("%s %lldx%lldx%lld: %s s=%d, expected %s s=%d",
				cases[i].name, cases[i].m, cases[i].n,
				cases[i].k, row, c.s, cases[i].row, cases[i].s);
	}
	/* grouped (3 experts, 60 tokens): the grouped rules' small row, not
	 * the decode rule's (their persistent rows hidden, the skinny one
	 * too) */
	{
		struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		struct pm_rt_problem p;
		struct pm_rt_choice c;
		int nv = pm_test_rows("../tests/specs/moe_swiglu", "sm_90a",
			NULL, v, &f), rc;

		memset(&p, 0, sizeof(p));
		p.m = 60, p.n = 3000, p.grouped = 3;
		for (int r = 0; r < PM_RT_MAX_K; ++r)
			p.k[r] = 512;
		c = pm_test_plan_p(&f, v, nv, &p, NULL, &rc);
		assert_int_equal(rc, PM_RT_OK);
		assert_string_equal(v[c.v].suffix, "_small");
	}
}

static void test_relu_gemm(void **state)
{
	(void) state;
	check_golden("relu_gemm");
}

/* What a choice launches: row role, chunks, tdp, cluster, twin, grid. */
static void assert_choice(const struct pm_rt_choice *c,
	const struct pm_rt_variant *v, int role, int s, long long tdp, int cl,
	int exact, long long grid)
{
	assert_int_equal(v[c->v].role, role);
	assert_int_equal(c->s, s);
	assert_int_equal(c->tdp, tdp);
	assert_int_equal(c->cl, cl);
	assert_int_equal(c->exact, exact);
	assert_int_equal(c->grid, grid);
}

/* The launch geometry and workspace of a few golden plans. */
static void test_choices(void **state)
{
	const int nv = NROWS(gemm_rows);
	struct pm_rt_choice c;
	int rc;

	(void) state;
	/* 1x1 tile of 64 k tiles: the 64-column swapped row, in 4 chunks
	 * (its consumer warps) through the workspace of its own 64x64 tile
	 * (exact) */
	c = plan(&gemm_spec, gemm_rows, nv, 64, 64, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SWAP64, 4, 0, 0, 1, 4);
	assert_int_equal(c.ws_bytes, PM_RT_CNT_BYTES + 4 * 64 * 64 * 4);
	/* ... of 15 k tiles: the small row (1 block, under 3/2 per SM) */
	c = plan(&gemm_spec, gemm_rows, nv, 64, 64, 960, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_SMALL, 1, 0, 0, 1, 1);
	assert_int_equal(c.ws_bytes, 0);
	/* decode 16x4096x4096: the swapped row's 32 tiles of 128 of N by 16
	 * of M (exact: its twin) x 4 chunks of 16 k tiles
	 * (docs/decisions/0057) */
	c = plan(&gemm_spec, gemm_rows, nv, 16, 4096, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SWAP, 4, 0, 0, 1, 128);
	assert_int_equal(c.ws_bytes, PM_RT_CNT_BYTES + 32 * 4 * 128 * 16 * 4);
	assert_int_equal(c.kc[0], 16 * 64);
	/* 17 rows: past the 16-column swapped row, the 32-column one's 64
	 * tiles of 64 of N x 2 chunks of 32 k tiles (its 4 consumer warps
	 * would leave chunks unresident) */
	c = plan(&gemm_spec, gemm_rows, nv, 17, 4096, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SWAP32, 2, 0, 0, 0, 128);
	assert_int_equal(c.ws_bytes, PM_RT_CNT_BYTES + 64 * 2 * 64 * 32 * 4);
	/* 64 rows: the 64-column one, exact */
	c = plan(&gemm_spec, gemm_rows, nv, 64, 4096, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SWAP64, 2, 0, 0, 1, 128);
	/* 32x11008x4096: its 172 tiles would not all be resident: not the
	 * 32-column row */
	c = plan(&gemm_spec, gemm_rows, nv, 32, 11008, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_int_not_equal(gemm_rows[c.v].role, PM_RT_PERSIST_SWAP32);
	/* 65 rows: the skinny row's 2 x 32 tiles */
	c = plan(&gemm_spec, gemm_rows, nv, 65, 4096, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_int_not_equal(gemm_rows[c.v].role, PM_RT_PERSIST_SWAP64);
	/* 1x14336x4096: 112 swapped tiles, unsplit (2 chunks would not be
	 * resident), ragged in M */
	c = plan(&gemm_spec, gemm_rows, nv, 1, 14336, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SWAP, 1, 0, 0, 0, 112);
	/* 61x17160x1024: 135 skinny tiles, 132 whole, the tail's 3 in 4
	 * chunks of 4 k tiles */
	c = plan(&gemm_spec, gemm_rows, nv, 61, 17160, 1024, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SKINNY, 4, 132, 0, 0, 132);
	assert_int_equal(c.ws_bytes, PM_RT_CNT_BYTES + 3 * 4 * 64 * 128 * 4);
	/* a small grid, 2048x128x2432 (16 tiles, 38 k tiles): 32 skinny
	 * tiles x 4 chunks (docs/decisions/0050) */
	c = plan(&gemm_spec, gemm_rows, nv, 2048, 128, 2432, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SKINNY, 4, 0, 0, 1, 128);
	/* ... not with 31 k tiles, nor for 1.7 row tiles per 64 rows */
	c = plan(&gemm_spec, gemm_rows, nv, 2048, 128, 1984, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_true(gemm_rows[c.v].role != PM_RT_PERSIST_SKINNY);
	c = plan(&gemm_spec, gemm_rows, nv, 1000, 128, 2432, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_true(gemm_rows[c.v].role == PM_RT_PERSIST_SKINNY);
	c = plan(&gemm_spec, gemm_rows, nv, 80, 2048, 2432, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_true(gemm_rows[c.v].role != PM_RT_PERSIST_SKINNY);
	/* 65 rows: not skinny */
	c = plan(&gemm_spec, gemm_rows, nv, 65, 4096, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_true(gemm_rows[c.v].role != PM_RT_PERSIST_SKINNY);
	/* Add(GEMM, GEMM) 640x256x2176 (golden: s=4 cl=4): 10 tiles in
	 * clusters of 4 chunks of 9 k tiles, no workspace */
	c = plan(&add_spec, add_rows, NROWS(add_rows), 640, 256, 2176, NULL,
		&rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, add_rows, PM_RT_PERSIST_SPLIT_CL, 4, 0, 4, 1, 40);
	assert_int_equal(c.ws_bytes, 0);
	assert_int_equal(c.kc[0], 9 * 64);
	assert_int_equal(c.kc[1], 9 * 64);
	/* ragged 4095x4096: _persist_wide's guarded kernel, its waves as
	 * full as at 4096 (docs/decisions/0065-ragged-wide-tall.md) */
	c = plan(&gemm_spec, gemm_rows, nv, 4095, 4096, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_int_equal(gemm_rows[c.v].role, PM_RT_PERSIST_WIDE);
	assert_int_equal(c.exact, 0);

}

/* Batched problems (docs/decisions/0042): the persistent rows' units are
 * every batch's tiles; where the fill rule takes the wide row, the mid
 * rule leaves it (measured on an H200 with bench/tools/bmm_time.cu); a
 * ragged size keeps the plan of an unbatched one of as many tiles. */
static void test_batched(void **state)
{
	static const struct pm_rt_variant bmm_rows[] = {
		{ "", PM_RT_BASE, 128, 128, 64, 256, 98352, TW, 0, 0, 0 },
		{ "_small", PM_RT_SMALL, 64, 64, 64, 128, 65536, TW, 0, 0, 0 },
		{ "_persist", PM_RT_PERSIST, 128, 128, 64, 288, 165952, TW, 0,
			0, 0 },
		{ "_persist_wide", PM_RT_PERSIST_WIDE, 128, 256, 64, 288,
			215088, TW, 0, 0, 0 },
		{ "_persist_tall", PM_RT_PERSIST_TALL, 256, 128, 64, 288,
			217136, TW, 0, 0, 0 },
		{ "_persist_mid", PM_RT_PERSIST_MID, 128, 192, 64, 288, 215104,
			TW, 0, 0, 0 },
		{ "_persist_sq", PM_RT_PERSIST_SQ, 192, 192, 64, 416, 224304,
			TW, 0, 0, 0 },
		{ "_persist_narrow", PM_RT_PERSIST_NARROW, 64, 192, 64, 160,
			222304, TW, 0, 0, 0 },
		{ "_small_tma", PM_RT_SMALL_TMA, 64, 64, 64, 128, 65600, TW, 0,
			0, 0 },
	};
	static const struct { int64_t b, m, n, k; int role; } cases[] = {
		{ 64, 512, 512, 512, PM_RT_PERSIST_WIDE },
		{ 16, 2048, 2048, 128, PM_RT_PERSIST_WIDE },
		{ 32, 1024, 1024, 1024, PM_RT_PERSIST_WIDE },
	};
	const int nv = NROWS(bmm_rows);
	struct pm_rt_device d = pm_test_h100(bmm_rows, nv);

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct pm_rt_problem p;
		struct pm_rt_choice c;

		memset(&p, 0, sizeof(p));
		p.m = cases[i].m, p.n = cases[i].n, p.batch = cases[i].b;
		for (int r = 0; r < PM_RT_MAX_K; ++r)
			p.k[r] = cases[i].k;
		assert_int_equal(pm_rt_plan(&gemm_spec, bmm_rows, nv, &d, &p,
			NULL, &c), PM_RT_OK);
		assert_int_equal(bmm_rows[c.v].role, cases[i].role);
		assert_int_equal(c.s, 1);
		/* one block per SM over every batch's 128x256 tiles */
		assert_int_equal(c.grid, 132);
	}
}

/* A k that is not a multiple of the k tile (docs/decisions/0030): its
 * partial last tile counts, the chunks are whole tiles of the padded
 * extent and none is empty; a multiple plans as before. */
static void test_ragged_k(void **state)
{
	static const int64_t ks[] = { 1, 8, 1000, 2100, 4104, 8200 };
	struct pm_rt_choice c, c2;
	int rc;

	(void) state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); ++i)
		for (int r = 0; r < 2; ++r) {
			const int64_t t = (ks[i] + 63) / 64 * 64;

			c = r ? plan(&add_spec, add_rows, NROWS(add_rows), 640,
				256, ks[i], NULL, &rc) : plan(&gemm_spec, gemm_rows,
				NROWS(gemm_rows), 256, 384, ks[i], NULL, &rc);
			assert_int_equal(rc, PM_RT_OK);
			assert_int_equal(c.kc[0] % 64, 0);
			assert_true(c.kc[0] * c.s >= t);
			assert_true(c.kc[0] * (c.s - 1) < ks[i]);
			/* the padded extent plans as the ragged one (the
			 * same row where A's rows are whole 32-byte sectors
			 * both times: docs/decisions/0053) */
			c2 = r ? plan(&add_spec, add_rows, NROWS(add_rows), 640,
				256, t, NULL, &rc) : plan(&gemm_spec, gemm_rows,
				NROWS(gemm_rows), 256, 384, t, NULL, &rc);
			if (!pm_rt_pitch_mis(ks[i], 2))
				assert_int_equal(c2.v, c.v);
			assert_int_equal(c2.s, c.s);
			assert_int_equal(c2.kc[0], c.kc[0]);
		}
	/* 8200 = 128 tiles and 8 elements: 129 tiles, not 128 */
	c = plan(&gemm_spec, gemm_rows, NROWS(gemm_rows), 256, 384, 8200, NULL,
		&rc);
	c2 = plan(&gemm_spec, gemm_rows, NROWS(gemm_rows), 256, 384, 8256,
		NULL, &rc);
	assert_int_equal(c.kc[0], c2.kc[0]);
}

/* The tail split: the last wave's tiles in chunks over a workspace; where
 * it is missing, _persist unsplit (the launcher's fallback). */
static void test_tail_no_workspace(void **state)
{
	const int nv = NROWS(gemm_rows);
	struct pm_rt_device d = h100(gemm_rows, nv);
	struct pm_rt_problem p;
	struct pm_rt_choice c;
	int rc;

	(void) state;
	/* 1664x2816x2432 (golden: s=6 persist=3 tdp=264): 286 tiles, the
	 * 22 of the last wave in 6 chunks */
	c = plan(&gemm_spec, gemm_rows, nv, 1664, 2816, 2432, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SPLIT, 6, 264, 0, 1, 132);
	assert_int_equal(c.ws_bytes, 4096 + (size_t) 22 * 6 * 65536);
	assert_int_equal(c.kc[0], 7 * 64);
	memset(&p, 0, sizeof(p));
	p.m = 1664, p.n = 2816, p.k[0] = 2432;
	assert_int_equal(pm_rt_no_workspace(gemm_rows, nv, &d, &p, &gemm_spec,
		&c), PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST, 1, 0, 0, 1, 132);
	assert_int_equal(c.ws_bytes, 0);
	assert_int_equal(c.kc[0], 2432);
}

/* The K-major copies' place in the workspace (docs/decisions/0033):
 * after the split's slots, 256-aligned, never over the counters. */
static void test_copy_offset(void **state)
{
	const int nv = NROWS(gemm_rows);
	struct pm_rt_choice c;
	int rc;

	(void) state;
	memset(&c, 0, sizeof(c));
	assert_int_equal(pm_rt_copy_offset(&c), PM_RT_CNT_BYTES);
	c.ws_bytes = PM_RT_CNT_BYTES + 1;
	assert_int_equal(pm_rt_copy_offset(&c), PM_RT_CNT_BYTES + 256);
	c.ws_bytes = 3 * 4096;
	assert_int_equal(pm_rt_copy_offset(&c), 3 * 4096);
	/* the tail split's: 4096 + 22 x 6 slots of 64 KiB */
	c = plan(&gemm_spec, gemm_rows, nv, 1664, 2816, 2432, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_int_equal(pm_rt_copy_offset(&c), c.ws_bytes);
	assert_true(pm_rt_copy_offset(&c) >= c.cnt_bytes);
}

/* The rule among the big persistent rows (docs/decisions/0066): the one
 * of least rounds x area / rate where the rules before chose one of
 * them; the mid row where the fill rule had wide on LLM shapes, sq where
 * its 192x192 tiles run fewer rounds, wide where mid's fill is poor; off
 * without rates (sm_80), with a register prologue, batched. */
static void test_big(void **state)
{
	const int nv = NROWS(gemm_rows);
	struct pm_rt_spec off = gemm_spec;
	struct pm_rt_choice c;
	int rc;

	(void) state;
	memset(&off.big, 0, sizeof(off.big));
	c = plan(&gemm_spec, gemm_rows, nv, 8192, 14336, 4096, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_MID, 1, 0, 0, 0, 132);
	c = plan(&off, gemm_rows, nv, 8192, 14336, 4096, NULL, &rc);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_WIDE, 1, 0, 0, 1, 132);
	/* 16 x 43 wide tiles (6 rounds) against 11 x 58 sq ones (5) */
	c = plan(&gemm_spec, gemm_rows, nv, 2048, 11008, 4096, NULL, &rc);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SQ, 1, 0, 0, 0, 132);
	c = plan(&off, gemm_rows, nv, 2048, 11008, 4096, NULL, &rc);
	assert_int_equal(gemm_rows[c.v].role, PM_RT_PERSIST_WIDE);
	/* 4096^2: 4 rounds of wide tiles against 6 of mid ones */
	c = plan(&gemm_spec, gemm_rows, nv, 4096, 4096, 4096, NULL, &rc);
	assert_int_equal(gemm_rows[c.v].role, PM_RT_PERSIST_WIDE);
	/* the register prologue's own model: its choice stays */
	c = plan(&gemm_spec, relu_rows, NROWS(relu_rows), 8192, 14336, 4096,
		NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_int_not_equal(relu_rows[c.v].role, PM_RT_PERSIST_MID);
}

/* The override: a legal row, an exact row at a size its tile does not
 * divide, a split count, unknown suffixes and bad syntax. */
static void test_force(void **state)
{
	const int nv = NROWS(gemm_rows);
	struct pm_rt_force fo;
	struct pm_rt_choice c;
	int rc;

	(void) state;
	c = plan(&gemm_spec, gemm_rows, nv, 4096, 4096, 4096, "_persist_wide",
		&rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_WIDE, 1, 0, 0, 1, 132);
	assert_int_equal(c.v_nows, -1);
	c = plan(&gemm_spec, gemm_rows, nv, 4000, 4096, 4096, "_persist_wide",
		&rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_WIDE, 1, 0, 0, 0, 132);
	/* an exact row (an epilogue chain's wide one, 0018) */
	{
		struct pm_rt_variant ex[NROWS(gemm_rows)];

		memcpy(ex, gemm_rows, sizeof(ex));
		for (int i = 0; i < nv; ++i)
			if (ex[i].role == PM_RT_PERSIST_WIDE)
				ex[i].flags = PM_RT_EXACT;
		c = plan(&gemm_spec, ex, nv, 4000, 4096, 4096,
			"_persist_wide", &rc);
		assert_int_equal(rc, PM_RT_EILLEGAL);
	}
	/* twins: _persist_mid where 192 divides N */
	c = plan(&gemm_spec, gemm_rows, nv, 1024, 1536, 512, "_persist_mid",
		&rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_MID, 1, 0, 0, 1, 64);
	/* a tile's chunks need not be resident together where the last to
	 * arrive sums them (PM_RT_LAST, docs/decisions/0058): 86 tiles x 4
	 * chunks on 132 SMs; not on the 64-column row, whose chunks wait */
	c = plan(&gemm_spec, gemm_rows, nv, 1, 11008, 4096, "_persist_swap,s=4",
		&rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SWAP, 4, 0, 0, 0, 132);
	assert_int_equal(c.ws_bytes, PM_RT_CNT_BYTES + 86 * 4 * 128 * 16 * 4);
	c = plan(&gemm_spec, gemm_rows, nv, 64, 11008, 4096,
		"_persist_swap64,s=2", &rc);
	assert_int_equal(rc, PM_RT_EILLEGAL);
	c = plan(&gemm_spec, gemm_rows, nv, 100, 100, 512, "_base", &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_BASE, 1, 0, 0, 0, 1);
	/* k of 10 tiles: 4 chunks of 3, 3, 3, 1; 6 would leave 5 */
	c = plan(&gemm_spec, gemm_rows, nv, 1024, 1024, 640, "_split,s=4", &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_SPLIT, 4, 0, 0, 1, 64);
	assert_int_equal(c.kc[0], 192);
	assert_int_equal(c.ws_bytes, 4096 + (size_t) 64 * 4 * 65536);
	c = plan(&gemm_spec, gemm_rows, nv, 1024, 1024, 640, "_split,s=6", &rc);
	assert_int_equal(rc, PM_RT_EILLEGAL);
	c = plan(&gemm_spec, gemm_rows, nv, 1024, 1024, 640, "_split", &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_true(c.s >= 2);
	/* the split persistent kernel: at most 8 chunks (its consumer warps) */
	c = plan(&gemm_spec, gemm_rows, nv, 512, 512, 4096,
		"_persist_split,s=8", &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SPLIT, 8, 0, 0, 1, 128);
	c = plan(&gemm_spec, gemm_rows, nv, 512, 512, 4096,
		"_persist_split,s=16", &rc);
	assert_int_equal(rc, PM_RT_EILLEGAL);
	/* ... and every chunk resident at once (the chunks of a tile wait
	 * for each other): 192 tiles on 132 blocks cannot split; 64 tiles
	 * split in 2 chunks, not 3 (a GPU run hung there before) */
	c = plan(&gemm_spec, gemm_rows, nv, 1000, 3000, 512, "_persist_split",
		&rc);
	assert_int_equal(rc, PM_RT_EILLEGAL);
	c = plan(&gemm_spec, gemm_rows, nv, 1024, 1024, 4096,
		"_persist_split,s=3", &rc);
	assert_int_equal(rc, PM_RT_EILLEGAL);
	c = plan(&gemm_spec, gemm_rows, nv, 1024, 1024, 4096,
		"_persist_split", &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_int_equal(c.s, 2);
	/* clusters: 16 tiles, 132 / c / 2 clusters at once: at most 4 */
	c = plan(&gemm_spec, gemm_rows, nv, 512, 512, 4096,
		"_persist_split_cl", &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SPLIT_CL, 4, 0, 4, 1, 64);
	assert_int_equal(c.ws_bytes, 0);
	c = plan(&gemm_spec, gemm_rows, nv, 512, 512, 4096,
		"_persist_split_cl,s=8", &rc);
	assert_int_equal(rc, PM_RT_EILLEGAL);
	c = plan(&gemm_spec, gemm_rows, nv, 512, 512, 4096, "_persist,s=2",
		&rc);
	assert_int_equal(rc, PM_RT_EILLEGAL);
	/* a row the file does not have, an unknown suffix, bad syntax */
	c = plan(&gemm_spec, relu_rows, NROWS(relu_rows), 512, 512, 4096,
		"_persist_narrow", &rc);
	assert_int_equal(rc, PM_RT_EUNKNOWN);
	assert_int_equal(pm_rt_parse_force("_bogus", gemm_rows, nv, &fo),
		PM_RT_EUNKNOWN);
	assert_int_equal(pm_rt_parse_force("_persist_", gemm_rows, nv, &fo),
		PM_RT_EUNKNOWN);
	assert_int_equal(pm_rt_parse_force("_split,x=2", gemm_rows, nv, &fo),
		PM_RT_ESYNTAX);
	assert_int_equal(pm_rt_parse_force("_split,s=", gemm_rows, nv, &fo),
		PM_RT_ESYNTAX);
	assert_int_equal(pm_rt_parse_force("_split,s=0", gemm_rows, nv, &fo),
		PM_RT_ESYNTAX);
	assert_int_equal(pm_rt_parse_force("_split,s=2x", gemm_rows, nv, &fo),
		PM_RT_ESYNTAX);
	assert_int_equal(fo.v, -1);
	assert_int_equal(pm_rt_parse_force("_split,s=12", gemm_rows, nv, &fo),
		PM_RT_OK);
	assert_int_equal(fo.v, 1);
	assert_int_equal(fo.s, 12);
	assert_int_equal(pm_rt_parse_force("", gemm_rows, nv, &fo), PM_RT_OK);
	assert_int_equal(fo.v, -1);
	assert_int_equal(pm_rt_parse_force(NULL, gemm_rows, nv, &fo), PM_RT_OK);
	assert_int_equal(fo.v, -1);
}

/* sm_80's plan (gemm_nn --target sm_80: base, split, small; kt of 32):
 * the workspace split from 4/5 of the SMs, the small row below. */

static void test_sm80(void **state)
{
	/* 128x128x32 blocks, 2 per SM on the model */
	static const struct pm_rt_variant rows[] = {
		{ "", PM_RT_BASE, 128, 128, 32, 256, 98304, TW, 0, 0, 0 },
		{ "_split", PM_RT_SPLIT, 128, 128, 32, 256, 98304, TW, 0, 0, 0 },
		{ "_small", PM_RT_SMALL, 64, 64, 32, 128, 32768, TW, 0, 0, 0 },
	};
	static const struct pm_rt_spec f = { 1, 1, 1, 0, { 0, 0, 0, 0, 0 },
		{ 0, 0, 0, 0, 0 }, { 0, 0, 0, 0 } };
	struct pm_rt_device d = h100(rows, 3);
	struct pm_rt_problem p;
	struct pm_rt_choice c;

	(void) state;
	memset(&p, 0, sizeof(p));
	d.sms = 108;
	/* 96 tiles >= 4/5 of 108: s = min(216 / 96, 128 / 4) = 2 */
	p.m = 1024, p.n = 1536, p.k[0] = 4096;
	assert_int_equal(pm_rt_plan(&f, rows, 3, &d, &p, NULL, &c), PM_RT_OK);
	assert_choice(&c, rows, PM_RT_SPLIT, 2, 0, 0, 1, 96);
	/* no workspace: unsplit, and 96 < 108 tiles: the small row */
	assert_int_equal(c.v_nows, 2);
	/* 64 tiles: the small row, unsplit */
	p.n = 1024;
	assert_int_equal(pm_rt_plan(&f, rows, 3, &d, &p, NULL, &c), PM_RT_OK);
	assert_choice(&c, rows, PM_RT_SMALL, 1, 0, 0, 1, 256);
	/* --split-k 3: always 3 */
	{
		struct pm_rt_spec f3 = f;

		f3.split_k = 3;
		assert_int_equal(pm_rt_plan(&f3, rows, 3, &d, &p, NULL, &c),
			PM_RT_OK);
		assert_choice(&c, rows, PM_RT_SPLIT, 3, 0, 0, 1, 64);
	}
	/* --split-k 1 (no split row): the small row where T < SMs only */
	assert_int_equal(pm_rt_plan(&f, rows, 1, &d, &p, NULL, &c), PM_RT_OK);
	assert_choice(&c, rows, PM_RT_BASE, 1, 0, 0, 1, 64);
	/* --small-variant off: the split below 4/5 of the SMs too */
	p.n = 512;
	assert_int_equal(pm_rt_plan(&f, rows, 2, &d, &p, NULL, &c), PM_RT_OK);
	assert_choice(&c, rows, PM_RT_SPLIT, 6, 0, 0, 1, 32);
}

/* Bad inputs: no base row, two rows of one role, no k. */
static void test_invalid(void **state)
{
	struct pm_rt_variant rows[2];
	struct pm_rt_device d;
	struct pm_rt_problem p;
	struct pm_rt_choice c;

	(void) state;
	memcpy(rows, gemm_rows, sizeof(rows));
	d = h100(rows, 2);
	memset(&p, 0, sizeof(p));
	p.m = p.n = 256, p.k[0] = 256;
	assert_int_equal(pm_rt_plan(&gemm_spec, rows, 2, &d, &p, NULL, &c),
		PM_RT_OK);
	rows[1].role = PM_RT_BASE;
	assert_int_equal(pm_rt_plan(&gemm_spec, rows, 2, &d, &p, NULL, &c),
		PM_RT_EINVAL);
	assert_int_equal(pm_rt_plan(&gemm_spec, rows + 1, 0, &d, &p, NULL, &c),
		PM_RT_EINVAL);
	rows[1].role = PM_RT_SPLIT;
	p.k[0] = 0;
	assert_int_equal(pm_rt_plan(&gemm_spec, rows, 2, &d, &p, NULL, &c),
		PM_RT_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_library_rows),
		cmocka_unit_test(test_gemm_nn),
		cmocka_unit_test(test_gemm_bias_relu),
		cmocka_unit_test(test_add_gemm),
		cmocka_unit_test(test_relu_gemm),
		cmocka_unit_test(test_choices),
		cmocka_unit_test(test_batched),
		cmocka_unit_test(test_ragged_k),
		cmocka_unit_test(test_tail_no_workspace),
		cmocka_unit_test(test_copy_offset),
		cmocka_unit_test(test_two_contractions_decode),
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_force),
		cmocka_unit_test(test_sm80),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

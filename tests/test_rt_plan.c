/* runtime/plan.c, the launch plan over a variant table, on the host.
 *
 * The four examples' sm_90a variant tables (tests/rt_plan_tables.h,
 * hand-written from the files `polymma gen examples/NAME.tc --target
 * sm_90a` writes, checked against the rows the library produces) on the
 * H100 model of tests/plan_probe.cu
 * (132 SMs; blocks per SM from threads and dynamic shared memory; half the
 * SMs' worth of clusters), at every size of tests/golden/plan_sizes.txt:
 * the rules' flags printed as plan_probe prints pm_plan_NAME's must equal
 * tests/golden/plan_NAME_sm90a.txt byte for byte, and the row chosen must
 * be the one the generated launcher runs on those flags. Also the
 * fixed-split shapes of the plan and the workspace fallback; the rule
 * among the big rows, the override POLYMMA_VARIANT, sm_80's plan and bad
 * inputs are test_rt_plan_rules.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/rt_plan_tables.h"

/* The role today's launcher runs on the flags w (small, medium, persist
 * 1-12, the split, the base). */
static int launched_role(const struct pm_rt_rules *w)
{
	static const int role[13] = { -1, PM_RT_PERSIST, PM_RT_PERSIST_WIDE,
		PM_RT_PERSIST_SPLIT, PM_RT_PERSIST_TALL, PM_RT_PERSIST_MID,
		PM_RT_PERSIST_SQ, PM_RT_PERSIST_NARROW, PM_RT_PERSIST_SKINNY,
		PM_RT_PERSIST_SWAP, PM_RT_PERSIST_SWAP32, PM_RT_PERSIST_SWAP64,
		PM_RT_PERSIST_SLIM };

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

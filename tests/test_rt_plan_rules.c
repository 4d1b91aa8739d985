/* runtime/plan.c on the hand-written sm_90a tables (tests/
 * rt_plan_tables.h) and an sm_80 one: the rule among the big persistent
 * rows (docs/decisions/0066), the slim row's (0067), the override
 * POLYMMA_VARIANT, sm_80's plan, and bad inputs. The golden plans are test_rt_plan.c's.
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

/* The slim row's rule (docs/decisions/0067): in place of the small row
 * or two chunks where its 64x128 grid is one wave and a third of the SMs
 * or more (44 of 132), from 12 k tiles of work, two chunks only up to 64;
 * not past one wave, three chunks, misaligned rows, M <= 64, batched. */
static void test_slim(void **state)
{
	static const struct {
		int64_t m, n, k;
		int role, s;
	} cases[] = {
		{ 1024, 1024, 1024, PM_RT_PERSIST_SLIM, 1 },	/* _small_tma */
		{ 1024, 1024, 4096, PM_RT_PERSIST_SLIM, 1 },	/* 64 k tiles */
		{ 1024, 1024, 4160, PM_RT_PERSIST_SPLIT, 2 },	/* 65 */
		{ 2816, 128, 1536, PM_RT_PERSIST_SLIM, 1 },	/* 44 tiles */
		{ 2752, 128, 1536, PM_RT_SMALL, 1 },		/* 43 */
		{ 1920, 384, 512, PM_RT_SMALL, 1 },		/* 8 k tiles */
		{ 896, 768, 3200, PM_RT_PERSIST_SPLIT, 3 },
		{ 640, 1792, 256, PM_RT_SMALL_TMA, 1 },		/* 140 tiles */
		{ 1000, 1000, 1000, PM_RT_PERSIST, 1 },		/* the pitch rule */
		{ 64, 4096, 1024, PM_RT_SMALL, 1 },		/* M <= 64 */
	};
	const int nv = NROWS(gemm_rows);
	struct pm_rt_problem p;
	struct pm_rt_choice c;
	int rc;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		c = plan(&gemm_spec, gemm_rows, nv, cases[i].m, cases[i].n,
			cases[i].k, NULL, &rc);
		assert_int_equal(rc, PM_RT_OK);
		assert_int_equal(gemm_rows[c.v].role, cases[i].role);
		assert_int_equal(c.s, cases[i].s);
	}
	c = plan(&gemm_spec, gemm_rows, nv, 1024, 1024, 1024, NULL, &rc);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SLIM, 1, 0, 0, 1, 128);
	assert_int_equal(c.ws_bytes, 0);
	/* 2 batches of 512x1024: 128 of its tiles, but batched */
	memset(&p, 0, sizeof(p));
	p.m = 512, p.n = 1024, p.k[0] = 1024, p.batch = 2;
	c = pm_test_plan_p(&gemm_spec, gemm_rows, nv, &p, NULL, &rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_int_not_equal(gemm_rows[c.v].role, PM_RT_PERSIST_SLIM);
	p.batch = 1;
	c = pm_test_plan_p(&gemm_spec, gemm_rows, nv, &p, NULL, &rc);
	assert_int_equal(gemm_rows[c.v].role, PM_RT_PERSIST_SLIM);
	/* two contractions: 2 x 56 k tiles keep their two chunks */
	c = plan(&add_spec, add_rows, NROWS(add_rows), 3072, 256, 3584, NULL,
		&rc);
	assert_int_equal(add_rows[c.v].role, PM_RT_PERSIST_SPLIT);
	assert_int_equal(c.s, 2);
	/* forced where the rule would not take it (two rounds): it runs */
	c = plan(&gemm_spec, gemm_rows, nv, 640, 1792, 256, "_persist_slim",
		&rc);
	assert_int_equal(rc, PM_RT_OK);
	assert_choice(&c, gemm_rows, PM_RT_PERSIST_SLIM, 1, 0, 0, 1, 132);
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
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_slim),
		cmocka_unit_test(test_force),
		cmocka_unit_test(test_sm80),
		cmocka_unit_test(test_invalid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

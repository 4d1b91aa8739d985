/* The hand-written sm_90a variant tables and specs of the plan's unit
 * tests (test_rt_plan.c, test_rt_plan_rules.c): the rows `polymma gen
 * examples/NAME.tc --target sm_90a` writes (test_rt_plan's
 * test_library_rows checks them against the library's), and what a
 * choice launches. Static, included once per test program. */
#ifndef PM_TEST_RT_PLAN_TABLES_H
#define PM_TEST_RT_PLAN_TABLES_H

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

/* The rows from _persist on, alike in gemm_nn, gemm_bias_relu and
 * add_gemm. */
#define SM90_PERSIST_ROWS \
	{ "_persist", PM_RT_PERSIST, 128, 128, 64, 288, 165952, TW, 0, 0, 0 }, \
	{ "_persist_wide", PM_RT_PERSIST_WIDE, 128, 256, 64, 288, 215088, TW, \
		0, 0, 0 }, \
	{ "_persist_tall", PM_RT_PERSIST_TALL, 256, 128, 64, 288, 217136, TW, \
		0, 0, 0 }, \
	{ "_persist_mid", PM_RT_PERSIST_MID, 128, 192, 64, 288, 215104, TW, \
		0, 0, 0 }, \
	{ "_persist_sq", PM_RT_PERSIST_SQ, 192, 192, 64, 416, 224304, TW, \
		0, 0, 0 }, \
	{ "_persist_narrow", PM_RT_PERSIST_NARROW, 64, 192, 64, 160, 222304, \
		TW, 0, 0, 0 }, \
	{ "_persist_slim", PM_RT_PERSIST_SLIM, 64, 128, 64, 160, 214144, \
		TW, 0, 0, 0 }, \
	{ "_persist_split", PM_RT_PERSIST_SPLIT, 128, 128, 64, 288, 165952, TW, \
		8, 0, 0 }, \
	{ "_persist_split_cl", PM_RT_PERSIST_SPLIT_CL, 128, 128, 64, 288, \
		165968, TW, CL_ROW }, \
	{ "_persist_skinny", PM_RT_PERSIST_SKINNY, 64, 128, 64, 160, 214144, \
		TW, 4, 0, 0 }, \
	{ "_persist_swap", PM_RT_PERSIST_SWAP, 128, 16, 64, 288, 116840, \
		TW | SW | LA, 8, 0, 0 }, \
	{ "_persist_swap32", PM_RT_PERSIST_SWAP32, 64, 32, 64, 160, 152776, \
		TW | SW | LA, 4, 0, 0 }, \
	{ "_persist_swap64", PM_RT_PERSIST_SWAP64, 64, 64, 64, 160, 140416, \
		TW | SW, 4, 0, 0 }, \
	{ "_unaligned", PM_RT_UNALIGNED, 128, 128, 64, 256, 98304, TW, 0, 0, \
		0 },

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
	SM90_PERSIST_ROWS
};

/* add_gemm: the base, split, medium and small_tma kernels' smem differ. */
static const struct pm_rt_variant add_rows[] = {
	{ "", PM_RT_BASE, 128, 128, 64, 256, 98400, TW, 0, 0, 0 },
	{ "_split", PM_RT_SPLIT, 128, 128, 64, 256, 98400, TW, 0, 0, 0 },
	{ "_small", PM_RT_SMALL, 64, 64, 64, 128, 65536, TW, 0, 0, 0 },
	{ "_small_tma", PM_RT_SMALL_TMA, 64, 64, 64, 128, 65664, TW, 0, 0, 0 },
	{ "_medium", PM_RT_MEDIUM, 64, 128, 64, 128, 73824, TW, 0, 0, 0 },
	SM90_PERSIST_ROWS
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

#define plan pm_test_plan

/* What a choice launches: row role, chunks, tdp, cluster, twin, grid. */
static inline void assert_choice(const struct pm_rt_choice *c,
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

#endif

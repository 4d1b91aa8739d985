/* MMA targets as data.
 *
 * A target names its tensor-core instruction and the warp-level macro-MMAs
 * that can be built from it (shape, accumulator registers per thread, the
 * helper templates that implement them), its default tiles and the helper
 * source that generated kernels inline. Passes ask the target; they never
 * branch on its name.
 *
 *   macro-MMA MM x MN x MK :  acc[MM x MN] += A[MM x MK] * B[MK x MN]
 *   executed by one MMA unit (a warp, 32 threads; on sm_90a a warpgroup,
 *   128 threads); acc is distributed over the unit's threads,
 *   MM*MN/unit fp32 registers per thread.  The "warp" tile of the options
 *   and passes is the tile of one MMA unit.
 */
#ifndef PM_TARGET_H
#define PM_TARGET_H

#include "frontend/frontend.h"

struct pm_macro {
	int m, n, k;
};

/* A block tile bm x bn, its unit (warp or warpgroup) tiles wm x wn, its
 * shared-memory stages. */
struct pm_block_shape {
	int bm, bn, wm, wn, stages;
};

/* The launch plan's cost model for kernels with a prologue through the
 * MMA's registers, on grids of more than one tile per SM (emit/plan.c):
 * each variant's time ~ waves x (its blocks per SM x block area) / rate,
 * a partial last wave counted partial + (1000 - partial) x its fill per
 * mille; the rates per mille of the big kernel's (two 128x128 blocks per
 * SM) for the medium, wide, tall and mid blocks, measured (docs/PERF.md,
 * session 15); partial = 0: no model (the fill rules) */
struct pm_ra_cost {
	int partial, medium, wide, tall, mid;
};

/* The launch plan's rule for the sq blocks (192x192, one per SM), any
 * kernel, grids of more than one wave (emit/plan.c): modelled time =
 * rounds of blocks x blocks per SM x block area / rate, the rates per
 * mille of the 128x128 kernels' for the mid, wide, tall and sq blocks;
 * sq runs where the best of the others' is at least gain per mille of
 * its own (measured: GEMM 13-32 % faster where the model says 13-37 %,
 * within 1 % or slower elsewhere; docs/PERF.md, session 16); gain = 0:
 * no rule */
struct pm_sq_cost {
	int gain, mid, wide, tall, sq;
};

struct pm_target {
	const char *name;		/* "sm_80" */
	const char *nvcc_arch;		/* what to pass to nvcc -arch */
	const char *instr;		/* PTX instruction, for comments */
	int im, in, ik;			/* the instruction's own shape */
	const char *mma_fn;		/* helper template prefix: pm_sm80 */
	int nmacros;
	const struct pm_macro *macros;	/* legal macro shapes */
	int default_macro;		/* index into macros */
	int bm, bn, bk, wm, wn;		/* default tiles */
	int stages, smem;		/* default pipeline depth, layout */
	const char *const *helpers;	/* embedded helper sources, in order */
	int nhelpers;
	int emits_cuda;			/* 0 for the host rendering target */
	/* Has warp-level fragment loads (<mma_fn>_ldf / _mma_frag): the
	 * fragment pipeline across k-steps and k tiles (promote/) */
	int frag_pipe;
	/* Has asynchronous global -> shared copies (cp.async) */
	int async_copy;
	/* Threads of one MMA unit (32: a warp; 128: a warpgroup) and the
	 * helper giving a thread's index inside it (the acc_coord argument) */
	int unit;
	const char *unit_thread;
	/* The tensor cores read shared memory through descriptors (wgmma):
	 * operand tiles in the canonical swizzled layouts (SWZ 1 for rows of
	 * at most 64 elements, SWZ 2 blocks of 64 columns otherwise), stages
	 * 1024-byte aligned, the tiles' row counts passed to <mma_fn>_mma_tile,
	 * and a proxy fence before every barrier that publishes shared data */
	int desc_smem;
	/* Asynchronous MMAs (<mma_fn>_mma_tile returns while they run):
	 * "<drain><N>((float *) acc);" waits for them and must come before any
	 * read of the N accumulators and before every barrier; NULL when the
	 * MMA is synchronous */
	const char *mma_drain;
	/* printed by the k loop's WAIT instead of the drain: wait for all but
	 * the last group of MMAs, whose operand stage stays untouched */
	const char *mma_wait_prev;
	/* The small-tile variant for grids smaller than the GPU (api/):
	 * block sbm x sbn (k as the big kernel's), unit tile swm x swn,
	 * sstages stages; sbm = 0: none */
	int sbm, sbn, swm, swn, sstages;
	/* The medium variant for one partial wave (api/, emit/launch.c):
	 * block mbm x mbn, unit tile mwm x mwn, the big kernel's k and
	 * stages; mbm = 0: none */
	int mbm, mbn, mwm, mwn;
	/* <mma_fn>_mma_tile_ra: the macro-MMA reading A through registers, a
	 * functor applied to them on the way (a prologue on A, promote/) */
	int mma_ra;
	/* TMA copies (cp.async.bulk.tensor + mbarriers, promote/tma.c):
	 * 0 none, 1 possible with --tma on, 2 the default */
	int tma;
	/* Persistent warp-specialized kernels (promote/tma.c, api/): their
	 * stages (pstages; 0: none); the wide variant's blocks for grids of
	 * several waves whose N they divide, the tall variant's for those
	 * whose M they divide, the mid variant's (128x192) for those whose
	 * waves its grid fills better (bm = 0: none) */
	int pstages;
	struct pm_block_shape wide, tall, mid;
	struct pm_ra_cost ra_cost;
	/* the sq variant's blocks (192x192: three consumer warps of 64x192),
	 * for grids of several waves that they run in fewer rounds (bm = 0:
	 * none), and the plan's rule for them */
	struct pm_block_shape sq;
	struct pm_sq_cost sq_cost;
	/* the narrow variant's blocks (64x192: one consumer warpgroup with
	 * one k tile of MMAs in flight) for grids that the big kernel's
	 * persistent twin runs in one wave and they do too (bm = 0: none) */
	struct pm_block_shape narrow;
};

/* Known targets, by name; NULL when unknown. */
const struct pm_target *pm_target_find(const char *name);
const struct pm_target *pm_target_default(void);
/* The sequential host-C rendering of a kernel (tests). */
const struct pm_target *pm_target_host(void);
/* Is m x n x k a legal macro shape for t? */
int pm_target_has_macro(const struct pm_target *t, int m, int n, int k);
/* Can t multiply inputs of type `in` into outputs of type `out`? */
int pm_target_supports(const struct pm_target *t, enum pm_type in,
	enum pm_type out);
/* Comma-separated list of the legal macro shapes, for messages. */
void pm_target_macro_list(const struct pm_target *t, char *buf, int len);

#endif

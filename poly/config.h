/* The generation request: target, tile sizes and size specializations.
 * Filled by the library front door (api/) from polymma_options; read by
 * every stage. Sizes are in elements: block BM x BN x BK, warp WM x WN
 * (the warp's k extent is BK), macro-MMA MM x MN x MK.
 */
#ifndef PM_CONFIG_H
#define PM_CONFIG_H

#include <stdio.h>

struct pm_target;

#define PM_MAX_DEFINES 16

struct pm_define {
	char name[64];
	long value;
};

struct pm_config {
	const struct pm_target *target;
	int bm, bn, bk;		/* block tile; 0 = target default */
	int auto_block;		/* the block tile was chosen by default */
	int small_variant;	/* also a small-tile kernel: -1 auto, 0 off */
	int wm, wn;		/* warp tile; 0 = target default */
	int auto_warp;		/* the warp tile was chosen by default */
	int mm, mn, mk;		/* macro-MMA; 0 = target default */
	int unit;		/* threads per MMA unit ("warp"); 0 = 32 */
	int split_k;		/* 1 = none */
	/* the operands accumulate in i32: never split (set by the pass
	 * table; docs/decisions/0029-8-bit-operands.md) */
	int int_acc;
	/* the spec has leading batch indices: blockIdx.z runs the batch, so
	 * nothing splits k and no persistent row is built (set by the pass
	 * table; docs/decisions/0036-batched-grid-z.md) */
	int batched;
	/* the spec is grouped (`group e by offs`; batched is set too): the
	 * group in blockIdx.z, no persistent row (set by the pass table;
	 * docs/decisions/0045-grouped-contractions.md) */
	int grouped;
	/* the spec has an epilogue reduction: never split (set by the pass
	 * table; docs/decisions/0037-epilogue-reductions.md) */
	int epi_red;
	/* the operands swapped (a row's, PM_VF_SWAP): the kernels see the
	 * outputs transposed, the MMA's rows over N (variant/swap.h,
	 * docs/decisions/0057-swapped-skinny-row.md) */
	int swap;
	/* the split persistent kernel's last chunk to arrive sums (a row's,
	 * PM_VF_LAST; promote/decide.c decide_last,
	 * docs/decisions/0058-last-arriver-split.md) */
	int last_arrive;
	/* a row with launcher-applied prologues (variant/pre.h): the
	 * operand tensors (spec indices) whose prologue the launcher applies
	 * into a copy the kernels read plainly, npre of them (the main
	 * kernel's operands with a prologue in shared memory;
	 * docs/decisions/0059-launcher-applied-prologues.md) */
	int npre;
	int pre[8];
	/* copies and stores narrower than 16 bytes, guarded element by
	 * element: rows that are not whole 16-byte units and unaligned
	 * pointers (the _unaligned row; no TMA, not split;
	 * docs/decisions/0046-narrow-copies.md) */
	int narrow_copies;
	/* the epilogue's cost per element: its input reads and functions
	 * (variant/build.c, epilogue_cost; docs/decisions/0019, 0034) */
	int epi_cost;
	int stages;		/* shared-memory stages; 0 = target default */
	int smem;		/* 0 plain, 1 pad, 2 swizzle; -1 = default */
	/* fragment pipeline across k-steps and k tiles (promote/):
	 * -1 = where possible (default), 0 = off, 1 = required */
	int frag_pipe;
	/* the output tile through shared memory, stored in 16-byte units
	 * (promote/store.c): -1 = where possible (default), 0 = off, 1 = on */
	int staged_store;
	/* sm_90a's warp-specialized kernels: the staged tile leaves by TMA
	 * stores that overlap the next tile's main loop (promote/store.c,
	 * docs/decisions/0048-tma-stores.md): -1 = where possible, 0 = off */
	int tma_store;
	/* register-staged prefetch on targets without asynchronous copies
	 * (the paper's sm_70 pipeline): -1 = where possible, 0 = off, 1 = on */
	int reg_stage;
	/* asynchronous MMAs (sm_90a wgmma): keep one k tile of MMAs in flight
	 * across the barrier, the copies S - 2 tiles ahead (1), or wait for
	 * them right after they are issued (0); -1 = target default (0) */
	int mma_inflight;
	/* prologues overlapped with the MMAs (targets with asynchronous MMAs,
	 * promote/): each thread transforms its units of tile kt + 1 while
	 * tile kt's MMAs run. -1 = where possible, 0 = off, 1 = required */
	int pro_overlap;
	/* a prologue on A applied to the MMA's register operand (targets
	 * with <mma_fn>_mma_tile_ra): no shared-memory pass for it.
	 * -1 = where possible, 0 = off, 1 = required */
	int pro_regs;
	/* the k tiles copied by the Tensor Memory Accelerator (targets with
	 * TMA): one thread issues a tile's boxes, mbarriers order the stages.
	 * -1 = where possible (default on targets where it is the default),
	 * 0 = off (cp.async), 1 = required */
	int tma;
	/* persistent warp-specialized kernels (sm_90a with TMA copies): a
	 * producer warp issues the copies, the block loops over output tiles.
	 * -1 = a variant launched on grids of more than one wave (default),
	 * 0 = off, 1 = the kernel itself (no split-K, no variants),
	 * 2 = the kernel itself, split-K kept (api/'s split variant) */
	int persistent;
	/* clusters of the persistent kernels (sm_90a, not split): 2 = pairs
	 * of blocks on vertically adjacent output tiles, each copying half of
	 * the B operand's k tile into both by TMA multicast (half the L2
	 * reads of B; emit/); 1 = none; -1 = auto: none (2 measured 6 %
	 * slower, docs/decisions/0017-multicast-off-by-default.md) */
	int cluster;
	/* programmatic dependent launch (targets with it, sm_90a): every
	 * kernel waits for the previous grid of its stream before it
	 * touches memory, launched so that it may start before that grid's
	 * end (docs/decisions/0068-pdl.md): -1 = where the target has it
	 * (default), 0 = off, 1 = required */
	int pdl;
	int ndefines;
	struct pm_define defines[PM_MAX_DEFINES];
	/* --dump-schedule: dump_all, or dump_pass names one pass */
	int dump_all;
	char dump_pass[64];
	FILE *dump;
};

/* Derived numbers. */
static inline int pm_config_warps(const struct pm_config *c)
{
	return (c->bm / c->wm) * (c->bn / c->wn);
}

/* Threads of one MMA unit (a warp, or an sm_90a warpgroup). */
static inline int pm_config_unit(const struct pm_config *c)
{
	return c->unit ? c->unit : 32;
}

static inline int pm_config_threads(const struct pm_config *c)
{
	return pm_config_unit(c) * pm_config_warps(c);
}

#endif

/* runtime/plan.h — the launch plan of a generated file, as plain C over a
 * table of the file's kernel variants.
 *
 * Contract. Given the file's variant table (one row per kernel; an exact
 * "_x" twin is a flag of its row, not a row), the file's fixed spec (split-K
 * mode, contractions, the target's cost tables), the device (SMs, each
 * row's blocks per SM, how many clusters of s blocks fit at once) and the
 * problem (M, N, the k extents), pm_rt_plan picks the one row to launch and
 * how: k chunks s, the split tail's whole tiles (tdp), the cluster size,
 * the _x twin, the grid, the k elements per chunk and the workspace bytes,
 * plus the row to launch unsplit where the workspace is missing. It only
 * reads its arguments: no isl, no CUDA, no allocation, no global state;
 * C11 and C++ (nvcc) alike, <stdint.h> and <stddef.h> only.
 *
 * The decisions are those of emit/plan.c's printed pm_plan_NAME and the
 * launcher's precedence after it (docs/decisions/ has the measurements);
 * tests/test_rt_plan.c checks them against tests/golden/plan_*_sm90a.txt.
 *
 * Use. The library compiles runtime/plan.c (external functions, PM_RT_API
 * empty), which includes its rules, runtime/plan_rules.h. A generated file
 * embeds this header's text, then plan_rules.h's and plan.c's, once per
 * translation unit after "#define PM_RT_API static inline" (the guards
 * PM_RT_PLAN_H and PM_RT_PLAN_RULES_H make plan.c's #includes no-ops
 * there).
 */
#ifndef PM_RT_PLAN_H
#define PM_RT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifndef PM_RT_API
#define PM_RT_API
#endif

#define PM_RT_MAX_VARIANTS 32	/* rows of a table */
#define PM_RT_MAX_K 8		/* k extents (contractions) of a problem */

/* What a row is to the plan: the rule that may pick it. At most one row
 * per role. */
enum pm_rt_role {
	PM_RT_BASE,		/* "": the big kernel (128x128, 2 per SM); required */
	PM_RT_SPLIT,		/* "_split": the base's tiles, k over gridDim.z, workspace */
	PM_RT_SMALL,		/* "_small": 64x64 blocks, fewer tiles than SMs */
	PM_RT_SMALL_TMA,	/* "_small_tma": the same with TMA, 3/2 blocks per SM or more */
	PM_RT_MEDIUM,		/* "_medium": 64x128, one partial wave */
	PM_RT_PERSIST,		/* "_persist": 128x128, one per SM, loops over tiles */
	PM_RT_PERSIST_WIDE,	/* "_persist_wide": 128x256 */
	PM_RT_PERSIST_TALL,	/* "_persist_tall": 256x128 */
	PM_RT_PERSIST_MID,	/* "_persist_mid": 128x192 */
	PM_RT_PERSIST_SQ,	/* "_persist_sq": 192x192 */
	PM_RT_PERSIST_NARROW,	/* "_persist_narrow": 64x192, MMAs in flight */
	PM_RT_PERSIST_SLIM,	/* "_persist_slim": 64x128, MMAs in flight */
	PM_RT_PERSIST_SPLIT,	/* "_persist_split": split-K units, workspace */
	PM_RT_PERSIST_SPLIT_CL,	/* "_persist_split_cl": a tile's chunks in a cluster */
	PM_RT_PERSIST_SKINNY,	/* "_persist_skinny": 64-row split units, M <= 64 */
	PM_RT_PERSIST_SWAP,	/* "_persist_swap": the operands swapped, N on the
				 * MMA's rows: split units of 128 of N by 16 of M */
	PM_RT_PERSIST_SWAP32,	/* "_persist_swap32": 64 of N by 32 of M */
	PM_RT_PERSIST_SWAP64,	/* "_persist_swap64": 64 of N by 64 of M */
	PM_RT_UNALIGNED,	/* "_unaligned": copies narrower than 16 bytes,
				 * only where the problem needs them */
	PM_RT_NROLES
};

/* Row flags. */
#define PM_RT_EXACT	1u	/* no ragged guards: only where bm | M and bn | N */
#define PM_RT_TWIN	2u	/* has an exact "_x" twin, launched where bm | M, bn | N */
#define PM_RT_PRO_REGS	4u	/* a prologue through the MMA's registers */
#define PM_RT_SWAP	8u	/* the operands swapped: bm runs over N, bn over M
				 * (docs/decisions/0057-swapped-skinny-row.md) */
#define PM_RT_LAST	16u	/* split persistent: the last chunk of a tile to
				 * arrive sums them, no chunk waits for another
				 * (docs/decisions/0058-last-arriver-split.md) */
#define PM_RT_PRE	32u	/* reads operands the launcher copies into the
				 * workspace with their prologue applied, per
				 * launch (pm_rt_problem.pre_bytes; docs/decisions/
				 * 0059-launcher-applied-prologues.md) */
#define PM_RT_CONV_REGS	64u	/* widens an operand stored in another type
				 * in the MMA's registers: half the bytes of a
				 * 16-bit row's k tile (docs/decisions/
				 * 0062-swapped-rows-widen-in-registers.md) */

/* Rows reading the launcher's copies (PM_RT_PRE) pay a pass over the
 * copied operand per launch: the rules see them where its elements are
 * reused over this many rows of the output or more (problem.pre_reuse:
 * M for a copy of B; docs/decisions/0059-launcher-applied-prologues.md;
 * 256 until decision 0061 measured them ahead past 128 rows). */
#define PM_RT_PRE_MIN_REUSE 129
/* ... and at decode, copies reused over few rows where the small row's T
 * tiles leave SMs idle: up to 64 rows where T <= SMs / 4, 48 where T <
 * SMs / 2, 16 where T < SMs (their split row: w8 and w8zp at 1-48 x 4096
 * x 4096 1.08-1.47x faster than the small row, at 64 rows w8zp's 13 %
 * slower; docs/decisions/0061). */
#define PM_RT_PRE_DECODE 64

/* One kernel of a generated file. */
struct pm_rt_variant {
	const char *suffix;	/* "_persist_wide"; "" for the base */
	int role;		/* enum pm_rt_role */
	int bm, bn, bk;		/* block tile */
	int threads;		/* block size (__launch_bounds__) */
	long smem;		/* dynamic shared memory bytes of the launch */
	unsigned flags;		/* PM_RT_EXACT, PM_RT_TWIN, PM_RT_PRO_REGS */
	int cwarps;		/* split persistent rows: consumer warps, the most
				 * chunks of a tile (pm_config_threads / 32) */
	long cl_warp_bytes;	/* _split_cl: one warp's strip of one peer's
				 * partials (accumulators x regs x 32 x 4) */
	long cl_room;		/* _split_cl: the stages' bytes that receive them */
};

/* The target's cost models, per mille (target/target.h's pm_ra_cost and
 * pm_sq_cost, copied; 0 turns a model or a term off). */
struct pm_rt_ra_cost {
	int partial, medium, wide, tall, mid;
};

struct pm_rt_sq_cost {
	int gain, mid, wide, tall, sq;
};

/* The big persistent rows' rates per mille of the 128x128 kernel's in
 * the rule among them (plan_big.h; 0: not a candidate). */
struct pm_rt_big_cost {
	int wide, tall, mid, sq;
};

/* A file's fixed facts. */
struct pm_rt_spec {
	int nk;		/* k extents (problem.k entries), 1..PM_RT_MAX_K */
	int ncon;	/* contractions (a cluster unit counts once per each) */
	int nacc;	/* accumulator tiles per output tile (1 when shared) */
	int split_k;	/* 0: --split-k auto, 1: never, N > 1: always N */
	struct pm_rt_ra_cost ra;
	struct pm_rt_sq_cost sq;
	struct pm_rt_big_cost big;
};

/* The device: SMs, blocks per SM of each row (the occupancy API with the
 * row's threads and smem; <= 0: the row cannot run), and how many clusters
 * of s blocks of the _split_cl row it holds at once (NULL: none). */
struct pm_rt_device {
	int sms;
	int occ[PM_RT_MAX_VARIANTS];
	int (*clusters)(void *ctx, int s);
	void *ctx;
};

/* A problem: output M x N, each contraction's k extent (elements). */
struct pm_rt_problem {
	int64_t m, n;
	int64_t k[PM_RT_MAX_K];
	/* a batched file's batches (gridDim.z; its tiles count this many
	 * times, its grid is one batch's); 0 or 1: one
	 * (docs/decisions/0036-batched-grid-z.md) */
	int64_t batch;
	/* rows that are not whole 16-byte units or a pointer not 16-byte
	 * aligned: only the _unaligned row runs it
	 * (docs/decisions/0046-narrow-copies.md) */
	int unaligned;
	/* the first contraction's operands whose rows are not whole 32-byte
	 * sectors (row pitch x element bytes): bit 0 A, bit 1 B
	 * (docs/decisions/0053-misaligned-pitch.md) */
	int mis;
	/* a grouped file's groups, E (0: not grouped): the rules see its
	 * persistent rows only in their grouped rule
	 * (docs/decisions/0051-grouped-persistent-units.md, 0055) */
	int grouped;
	/* the launcher's copies that PM_RT_PRE rows read: their bytes (each
	 * 256-aligned), and the least extent a copy's elements are reused
	 * over (M for a copy of B, N for one of A); the rules see those rows
	 * only where it is PM_RT_PRE_MIN_REUSE or more (plan.c) */
	size_t pre_bytes;
	int64_t pre_reuse;
};

/* The flags of today's rules before the launcher's precedence (small,
 * medium, persist, split, base): what pm_plan_NAME's struct held, persist
 * in its numbering (1 persist, 2 wide, 3 split, 4 tall, 5 mid, 6 sq,
 * 7 narrow, 8 skinny, 9-11 the swapped rows, 12 slim). For tests and
 * logs only: launch from pm_rt_choice. */
struct pm_rt_rules {
	int s, persist, small, medium, cl;
	int64_t tdp;
};

/* What to launch. */
struct pm_rt_choice {
	int v;		/* the row */
	int exact;	/* launch its _x twin */
	int s;		/* k chunks (1: unsplit); _split: gridDim.z */
	int cl;		/* cluster size of _split_cl (= s), else 0 */
	int64_t tdp;	/* split persistent: the first tdp tiles run whole */
	int64_t grid;	/* gridDim.x */
	int64_t kc[PM_RT_MAX_K];	/* k elements per chunk */
	size_t cnt_bytes;	/* workspace: counters in front of the slots */
	size_t ws_bytes;	/* workspace needed (0: none) */
	size_t pre_off;	/* PM_RT_PRE: where the copies start in the
			 * workspace (past the split's part, 256-aligned) */
	int v_nows;	/* the row to launch unsplit (pm_rt_no_workspace)
			 * where ws_bytes cannot be had; -1: fail instead */
	struct pm_rt_rules why;
};

/* POLYMMA_VARIANT=<suffix>[,s=N]: a forced row and split count. */
struct pm_rt_force {
	int v;		/* -1: none */
	int s;		/* 0: the plan picks */
};

/* Return codes. */
#define PM_RT_OK 0
#define PM_RT_EINVAL (-1)	/* bad table, spec, device or problem */
#define PM_RT_EUNKNOWN (-2)	/* override: no row has that suffix */
#define PM_RT_ESYNTAX (-3)	/* override: not "<suffix>[,s=N]" */
#define PM_RT_EILLEGAL (-4)	/* override: that row cannot run this problem */

/* Parses str (getenv("POLYMMA_VARIANT"); NULL or "": no override) into
 * *out against the table; "_base" names the base row. */
PM_RT_API int pm_rt_parse_force(const char *str,
	const struct pm_rt_variant *v, int nv, struct pm_rt_force *out);

/* The launch of problem p: the rules, or the forced row where force is
 * non-NULL with force->v >= 0 (PM_RT_EILLEGAL where that row or its s
 * cannot run p; its v_nows is -1). */
PM_RT_API int pm_rt_plan(const struct pm_rt_spec *f,
	const struct pm_rt_variant *v, int nv, const struct pm_rt_device *d,
	const struct pm_rt_problem *p, const struct pm_rt_force *force,
	struct pm_rt_choice *out);

/* c turned into its unsplit fallback (c->v_nows): for a split choice whose
 * workspace the caller cannot provide. PM_RT_EILLEGAL where v_nows < 0. */
PM_RT_API int pm_rt_no_workspace(const struct pm_rt_variant *v, int nv,
	const struct pm_rt_device *d, const struct pm_rt_problem *p,
	const struct pm_rt_spec *f, struct pm_rt_choice *c);

/* 1 where rows of pitch elements of bytes each are not whole 32-byte
 * sectors (problem.mis; docs/decisions/0053-misaligned-pitch.md). */
PM_RT_API int pm_rt_pitch_mis(int64_t pitch, int bytes);

/* The workspace's counters: a fixed area in front of the slots, so that
 * one workspace serves launches of any size; a plan splits at most
 * PM_RT_CNT_BYTES / 4 tiles. */
#define PM_RT_CNT_BYTES 4096

/* Where the launcher's K-major copies of operands start in the workspace
 * of choice c (docs/decisions/0033-kmajor-copies.md): past the split's
 * slots and never over its counters (zero between launches of any
 * size), 256-aligned. */
static inline __attribute__((unused)) size_t pm_rt_copy_offset(
	const struct pm_rt_choice *c)
{
	const size_t o = c->ws_bytes > PM_RT_CNT_BYTES ? c->ws_bytes :
		PM_RT_CNT_BYTES;

	return (o + 255) / 256 * 256;
}

#endif

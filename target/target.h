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
#include "runtime/plan.h"

struct pm_macro {
	int m, n, k;
};

/* A block tile bm x bn, its unit (warp or warpgroup) tiles wm x wn, its
 * shared-memory stages (0 in a variant row: the base kernel's). */
struct pm_block_shape {
	int bm, bn, wm, wn, stages;
};

/* The kernel variants a generated file may hold: enum pm_rt_role
 * (runtime/plan.h), one index space for the kernel, its launcher and the
 * launch plan (the role is the plan's rule that may pick it). */
#define pm_variant_role pm_rt_role

/* What a variant row asks of the file and how its configuration derives
 * from the user's (variant/variant.c applies them, in this order). */
enum pm_variant_flag {
	/* built only with the default block tile and --small-variant not off */
	PM_VF_AUTO_BLOCK = 1 << 0,
	PM_VF_SMALL_ON = 1 << 1,
	/* built only where the main kernel splits k and its unsplit twin
	 * was built (the variant is chosen by the split-K launch plan) */
	PM_VF_SPLIT_PLAN = 1 << 2,
	/* persistent warp-specialized (--persistent auto, TMA, the target's
	 * pstages), built only where the _persist row was; not with
	 * --mma-inflight on unless PM_VF_INFLIGHT */
	PM_VF_PERSIST = 1 << 3,
	/* split-K inside the persistent kernel (--split-k auto) */
	PM_VF_PSPLIT = 1 << 4,
	/* the split persistent kernel in clusters (not --cluster 1, not with
	 * a prologue through the MMA's registers), or without them */
	PM_VF_CLUSTER = 1 << 5,
	PM_VF_NO_CLUSTER = 1 << 6,
	/* one macro-MMA per unit tile where the target has it */
	PM_VF_ONE_MACRO = 1 << 7,
	/* one k tile of MMAs kept in flight */
	PM_VF_INFLIGHT = 1 << 8,
	/* launched only where its tile divides M and N: no ragged guards;
	 * _IF_CHAIN: so with an epilogue of several statements or one
	 * loading many registers a pair (docs/decisions/0018, 0034) */
	PM_VF_EXACT = 1 << 9,
	PM_VF_EXACT_IF_CHAIN = 1 << 10,
	/* blocks in row-major order (all resident at once) */
	PM_VF_ROW_RASTER = 1 << 11,
	/* cp.async copies unless --tma on (latency-bound grids) */
	PM_VF_NO_AUTO_TMA = 1 << 12,
	/* TMA copies where the user left --tma auto and TMA is the
	 * target's default; dropped when the kernel got none */
	PM_VF_TMA = 1 << 13,
	/* its unsplit configuration (split_k 1) */
	PM_VF_UNSPLIT = 1 << 14,
	/* the shape's stages are a minimum, not a setting */
	PM_VF_MIN_STAGES = 1 << 15,
	/* copies and stores narrower than 16 bytes, cp.async or register
	 * copies (no TMA), not persistent, no clusters
	 * (docs/decisions/0046-narrow-copies.md) */
	PM_VF_NARROW = 1 << 16,
	/* not for grouped specs: the walk over the groups' tile rows adds
	 * registers past this row's (docs/decisions/0051) */
	PM_VF_NO_GROUPED = 1 << 17,
	/* the operands swapped: the kernels compute the outputs' transposes,
	 * N on the MMA's rows (variant/swap.h; docs/decisions/0057) */
	PM_VF_SWAP = 1 << 18,
	/* split persistent: the last chunk of a tile to arrive sums the
	 * tile's chunks, none waits for another (no residency;
	 * docs/decisions/0058-last-arriver-split.md) */
	PM_VF_LAST = 1 << 19,
	/* with PM_VF_EXACT_IF_CHAIN: exact also with an epilogue reduction
	 * (its guarded 128x256 and 256x128 kernels spilled;
	 * docs/decisions/0065-ragged-wide-tall.md) */
	PM_VF_EXACT_IF_RED = 1 << 20,
};

/* One row of a target's variant table. */
struct pm_variant_desc {
	enum pm_variant_role role;
	const char *suffix;		/* "_persist_wide" */
	const char *why;		/* one line, for the file's comment */
	struct pm_block_shape shape;	/* bm = 0: the base kernel's tiles */
	unsigned flags;			/* enum pm_variant_flag */
	/* built from the row `from`'s configuration (PM_RT_NROLES: the
	 * user's); that row must have been built */
	enum pm_variant_role from;
	/* the launch plan's cost models (runtime/plan.c): the rate of its
	 * blocks per mille of the 128x128 kernel's, measured (0: not in a
	 * model) */
	int rate;
};

/* The CUDA spellings of an element type: what the generated pointwise
 * code, stores and helpers write for it (one row per type: pm_elem_of for
 * the 16-bit floats pointwise code reads and writes, pm_elem_storage also
 * for the 8-bit operand types, which only the MMA reads). */
struct pm_elem {
	enum pm_type type;
	int bytes;			/* element size */
	const char *ctype;		/* "__half", "__nv_bfloat16" */
	const char *pair;		/* "__half2": two elements, 32 bits */
	const char *to_f32;		/* "__half2float" */
	const char *from_f32;		/* "__float2half_rn" */
	const char *pair_from_f32;	/* "__float2half2_rn": x to both */
	const char *bits;		/* "__half_as_ushort" */
	const char *tma;		/* "CU_TENSOR_MAP_DATA_TYPE_FLOAT16" */
	const char *header;		/* its CUDA header: "cuda_fp16.h" */
	/* exactly representable constants: significant bits, the normal
	 * exponents (x = m * 2^e, 1 <= m < 2) */
	int mant, emin, emax;
};

/* One row of a target's operand-type table: what a contraction of two
 * `in` operands is on this target (docs/decisions/0026). */
struct pm_operand_row {
	enum pm_type in;
	const char *ptx;		/* the MMA's A/B type token: "bf16" */
	enum pm_type acc;		/* the accumulator type */
	unsigned outs;			/* allowed output types, 1u << PM_F16 | ... */
	const struct pm_elem *elem;	/* the operands' spellings */
	/* k of one instruction (0: the target's ik): 32 for 8-bit operands
	 * on sm_90a, whose shared tiles then hold twice the elements per
	 * 16-byte chunk (elem->bytes) */
	int k;
	/* the tensor cores read these operands only K-major (A(i, k) and
	 * B(j, k) with k contiguous: wgmma's 8-bit operands, and sm_80's
	 * i8, which ldmatrix cannot transpose) */
	int k_major;
	/* the default block k in elements (0: the target's bk): 128 for
	 * 8-bit operands on sm_90a, rows of 128 bytes as the 16-bit types'
	 * 64 (docs/decisions/0035-8-bit-k-tile.md); 64 for sm_80's i8, rows
	 * of 64 bytes as its 16-bit ones (docs/decisions/0032-sm80-i8.md) */
	int bk;
	/* the instruction for comments (NULL: the target's instr) */
	const char *instr;
	/* the stored types a converting copy widens exactly into this row's
	 * type, for an operand of another type than its partner's (1u <<
	 * PM_I8: f16 activations x i8 weights; the copies land the stored
	 * bytes, a pass in shared memory converts them;
	 * docs/decisions/0047-mixed-operand-types.md) */
	unsigned widen;
};

struct pm_target {
	const char *name;		/* "sm_80" */
	const char *nvcc_arch;		/* what to pass to nvcc -arch */
	/* PTX instruction, for comments: a format whose two %s are the
	 * operand row's ptx token */
	const char *instr;
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
	/* <mma_fn>_mma_tile_ra: the macro-MMA reading A through registers, a
	 * functor applied to them on the way (a prologue on A, promote/) */
	int mma_ra;
	/* TMA copies (cp.async.bulk.tensor + mbarriers, promote/tma.c):
	 * 0 none, 1 possible with --tma on, 2 the default */
	int tma;
	/* Persistent warp-specialized kernels (promote/tma.c, variant/):
	 * their stages (0: none) */
	int pstages;
	/* Programmatic dependent launch (--pdl): each kernel waits for the
	 * stream's previous grid (griddepcontrol.wait) before it touches
	 * memory, and the launchers launch it with the programmatic stream
	 * serialization attribute (docs/decisions/0068-pdl.md); 0: none */
	int pdl;
	/* The launch plan's cost models (runtime/plan.c): with a prologue
	 * through the MMA's registers, a partial last wave costs
	 * ra_partial + (1000 - ra_partial) x its fill per mille (0: no
	 * model); the sq blocks run where the best other variant's modelled
	 * time is at least sq_gain per mille of theirs (0: no rule); the
	 * rates are the rows' (docs/decisions) */
	int ra_partial, sq_gain;
	/* the mid row's rate per mille in the rule among the big persistent
	 * rows (runtime/plan_big.h; the others': their rows' rate); 0: no
	 * such rule (docs/decisions/0066-big-rows-rounds.md) */
	int big_mid_rate;
	/* The most dynamic shared memory a block of the target's GPUs may
	 * use (bytes, opted in): a kernel that needs more is not built
	 * (variant/) */
	long smem_max;
	/* The kernel variants a file may hold, in file order; row 0 is
	 * PM_RT_BASE (the user's configuration). */
	int nvariants;
	const struct pm_variant_desc *variants;
	/* The operand types its MMA multiplies, one row each */
	int noperands;
	const struct pm_operand_row *operands;
};

/* The row of role r in t's variant table, or NULL. */
const struct pm_variant_desc *pm_target_variant(const struct pm_target *t,
	enum pm_variant_role r);

/* Known targets, by name; NULL when unknown. */
const struct pm_target *pm_target_find(const char *name);
const struct pm_target *pm_target_default(void);
/* The sequential host-C rendering of a kernel (tests). */
const struct pm_target *pm_target_host(void);
/* Is m x n x k a legal macro shape for t? */
int pm_target_has_macro(const struct pm_target *t, int m, int n, int k);
/* The row of t's operand table for operands of type in, or NULL. */
const struct pm_operand_row *pm_target_operand(const struct pm_target *t,
	enum pm_type in);
/* The row of t's operand table that multiplies operands of types ta and
 * tb: one type's row, or (mixed types) the row of one of them whose
 * widen holds the other's type; *conv (or NULL) gets 0, or 1 where ta is
 * converted, 2 where tb is (docs/decisions/0047); NULL when none. */
const struct pm_operand_row *pm_target_pair(const struct pm_target *t,
	enum pm_type ta, enum pm_type tb, int *conv);
/* The spellings of element type ty (f16, bf16), or NULL. */
const struct pm_elem *pm_elem_of(enum pm_type ty);
/* ... or of any operand type (the 8-bit floats too), or NULL. */
const struct pm_elem *pm_elem_storage(enum pm_type ty);
/* The k of one instruction of row r on t. */
int pm_operand_k(const struct pm_target *t, const struct pm_operand_row *r);
/* "f16 or bf16": t's operand types, for messages. */
void pm_target_operand_list(const struct pm_target *t, char *buf, int len);
/* "f16 or f32": the outputs of row r, for messages. */
void pm_operand_out_list(const struct pm_operand_row *r, char *buf, int len);
/* Can t multiply inputs of type `in` into outputs of type `out`? */
int pm_target_supports(const struct pm_target *t, enum pm_type in,
	enum pm_type out);
/* Comma-separated list of the legal macro shapes, for messages. */
void pm_target_macro_list(const struct pm_target *t, char *buf, int len);

#endif

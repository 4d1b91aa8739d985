/* schedule_tree — the tiling pipeline on the isl schedule tree.
 *
 * State: struct pm_kernel holds the scop, the current schedule and what the
 * passes learned. Each pass takes the kernel's schedule tree and replaces
 * it; tests re-check legality (pm_check_legal) after every pass.
 *
 * For C(i,j) +=! A(i,k) * B(k,j) (S_0_init[i,j], S_0[i,j,k]) the passes
 * produce, with block BM x BN x BK, warp WM x WN, macro MM x MN x MK:
 *
 *   tile_block : mark hw(blockIdx.y) [floor(i/BM)]
 *                 mark hw(blockIdx.x) [floor(j/BN)]
 *                 sequence { S_0_init: [i mod BM, j mod BN]
 *                            S_0: mark red [k] -> [i mod BM, j mod BN] }
 *   strip_k    : S_0: [floor(k/BK)] -> [k mod BK] -> [i mod BM, j mod BN]
 *   tile_warp  : mark hw(warp_y) [floor((i mod BM)/WM)]
 *                mark hw(warp_x) [floor((j mod BN)/WN)] below the k tile
 *                band for S_0 (the k point band is moved under the warp
 *                bands: legal, the warp dimensions are parallel)
 *   contract   : macro-MMA contraction (paper §IV): the warp's points are
 *                tiled by MM x MN x MK and every MM x MN x MK block of S_0
 *                becomes one instance of MMA_0[i0,j0,k0] (and S_0_init
 *                blocks FILL_0[i0,j0]) by pulling the schedule back along
 *                MMA_0[i0,j0,k0] -> S_0[MM i0, MN j0, MK k0]; the now
 *                constant intra-macro bands are dropped and the macro bands
 *                [floor((k mod BK)/MK)], [floor((i mod WM)/MM),
 *                floor((j mod WN)/MN)] are unrolled (register tiles).
 */
#ifndef PM_TREE_H
#define PM_TREE_H

#include <stdio.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/union_map.h>

#include "poly/config.h"
#include "poly/poly.h"
#include "target/target.h"

/* Marks: the isl_id's user pointer is a struct pm_mark. */
enum pm_mark_kind {
	PM_MARK_HW,		/* the band below runs on hardware ids */
	PM_MARK_INFO,		/* a comment for readers of the tree */
	PM_MARK_PRODUCER	/* the subtree below runs on the producer warp
				 * of a warp-specialized kernel (k->ws) */
};

/* The hardware index a PM_MARK_HW band runs on (emit/ spells it). With
 * t the thread index in the block, d the mark's div and E its extent: */
enum pm_hw_dim {
	PM_HW_NONE,		/* no hardware index (other mark kinds) */
	PM_HW_BLOCK_Y,		/* the block's tile row (grid dimension 0) */
	PM_HW_BLOCK_X,		/* the block's tile column (grid dimension 1) */
	PM_HW_WARP_Y,		/* t / d: the warp row */
	PM_HW_WARP_X,		/* t / d mod E: the warp column */
	PM_HW_THREAD_Y,		/* t / d: a copy's row of threads */
	PM_HW_THREAD_X		/* t mod E: a copy's thread in its row */
};

struct pm_mark {
	enum pm_mark_kind kind;
	enum pm_hw_dim hw;	/* PM_HW_NONE unless kind is PM_MARK_HW */
	long div;		/* threads per index (see pm_hw_dim); else 1 */
	long extent;		/* number of hardware ids (0: grid, runtime) */
};

/* Statements created by the passes: the isl_id's user pointer is a
 * struct pm_op. */
enum pm_op_kind {
	PM_OP_FILL,	/* acc[frag] = 0 */
	PM_OP_MMA,	/* acc[frag] += A tile * B tile (shared) */
	PM_OP_STORE,	/* C tile (global) = acc[frag] */
	PM_OP_COPY,	/* shared buffer <- global tile, vector units */
	PM_OP_SYNC,	/* __syncthreads() */
	PM_OP_COMMIT,	/* close a group of asynchronous copies */
	PM_OP_WAIT,	/* wait for the copies of the current stage, sync */
	PM_OP_EPI,	/* acc[frag] = f(acc[frag], inputs): an epilogue */
	PM_OP_PRO,	/* shared tile elements = f(element): a prologue */
	PM_OP_LDF,	/* warp fragments[buf] <- shared tiles, one k-step */
	PM_OP_STS,	/* C tile (shared, staged store) = acc[frag] */
	PM_OP_STG,	/* C (global) <- C tile (shared), 16-byte units */
	PM_OP_LDR,	/* staging registers <- global tile, 16-byte units */
	PM_OP_STR,	/* shared tile <- staging registers */
	PM_OP_FIXUP,	/* split-K: sum the chunks' accumulators; only the
			 * block that sums goes on (epilogue, store) */
	PM_OP_DRAIN,	/* wait for the contraction's asynchronous MMAs */
	PM_OP_RELEASE,	/* TMA pipeline: the warp is done with stage kt mod S
			 * (arrives on its "empty" barrier) */
	PM_OP_RED,	/* an epilogue reduction: the block's partials
			 * combined, then the blocks' (emit/epired.c) */
	PM_OP_TSTG_WAIT,	/* the C tile's previous TMA stores have read
				 * it (one thread waits; the barrier follows) */
	PM_OP_TSTG	/* C (global) <- one swizzled column block of the C
			 * tile (shared), a TMA store */
};

struct pm_op {
	enum pm_op_kind kind;
	int buffer;	/* PM_OP_COPY: index into kernel->bufs */
	int stmt;	/* PM_OP_EPI: the spec statement */
	int con;	/* FILL, MMA, STORE, EPI, LDF: the contraction */
	int pending;	/* WAIT: copy groups left pending; -1: stages - 2 */
};

/* Contractions one kernel holds at most (frontend/limits.h's
 * PM_LIMIT_CONTRACTIONS). */
#define PM_MAX_CON PM_LIMIT_CONTRACTIONS

/* A contraction recognised in the spec. */
struct pm_contraction {
	int stmt;		/* spec statement */
	int acc;		/* the tensor it accumulates into */
	int out;		/* the live-out tensor: acc or the last epilogue's */
	int a, b;		/* operand tensors: a indexed by i, b by j */
	const struct pm_expr *ra, *rb;	/* their reads */
	/* pointwise prologues on the operands (NULL: the plain read) */
	const struct pm_expr *pa, *pb;
	/* the type its MMA multiplies (the operand row's), and the operand
	 * of another type widened to it on the way: 0 none, 1 a, 2 b
	 * (docs/decisions/0047-mixed-operand-types.md) */
	enum pm_type ab;
	int conv;
	/* set by the passes */
	isl_id *fill_id, *mma_id;	/* contracted statements */
	isl_pw_multi_aff *mma_prefix;	/* MMA -> prefix at the copies */
	int buf_a, buf_b;		/* its shared buffers */
};

/* A shared-memory buffer (promote/): two per contraction. */
#define PM_MAX_BUFS (2 * PM_MAX_CON)
struct pm_buffer {
	int con;			/* the contraction whose pipeline copies
					 * it (joined: 0, for both) */
	int tensor;
	int rank;
	long size[PM_MAX_RANK];		/* box size, in elements */
	isl_multi_aff *offset;		/* prefix schedule -> box origin */
	int vec;			/* elements per copy unit */
	int pitch;			/* row pitch in shared, elements */
	int swz;			/* XOR-swizzled 16-byte chunks */
	long stage_elems;		/* elements of one stage */
	isl_id *copy_id;		/* the copy statement */
	const struct pm_expr *pro;	/* prologue on the elements, or NULL */
	int pro_regs;			/* ... applied to the MMA's registers
					 * (no shared-memory pass) */
	isl_id *pro_id;			/* its statement */
	/* register-staged copies (promote/): global -> registers (LDR),
	 * registers -> shared (STR); rows per pass of the block's threads */
	isl_id *ldr_id, *str_id;
	long pass_rows;
	int tma;			/* copied by TMA boxes (promote/tma.c) */
	/* a B tile of one box that a cluster of two multicasts by halves of
	 * its rows (pm_decide) */
	int mc_rows;
	/* the tensor dimension that the contraction's k indexes (-1: none) */
	int kdim;
	/* a converting copy (docs/decisions/0047): the tensor's stored type
	 * differs from the MMA's; COPY lands the stored elements in a raw
	 * tile of raw_elems a stage (dense rows of size[1]), PRO widens them
	 * into the operand tile (and applies the prologue, if any) */
	int conv;
	long raw_elems;
	/* ... read through the MMA's registers instead (a swapped row's A
	 * operand: the user's weights, their prologue along the rows only,
	 * docs/decisions/0062): COPY lands the stored elements by TMA in the
	 * buffer's own stages (swizzled rows of size[1] stored elements: no
	 * operand tile, no raw tile, no PRO), the MMA widens its fragments
	 * (its prologue's reads of other tensors, at most PM_CONV_READS,
	 * loaded once per row: runtime/device/sm90.cuh's context) */
	int conv_regs;
};

/* marks a kernel creates at most (pm_kernel_mark): the block's and the
 * epilogue's, and per contraction its warps' and two per copy of each
 * operand (prologue, register staging's load and store): 14 a
 * contraction, 4 contractions at most (frontend/limits.h) */
#define PM_MAX_MARKS 96
/* ops a kernel creates at most (pm_kernel_op): about 14 per contraction,
 * the epilogue's and the store's */
#define PM_MAX_OPS 128
struct pm_kernel {
	isl_ctx *ctx;
	struct pm_scop *scop;		/* not owned */
	const struct pm_config *cfg;	/* not owned */
	int ncon;			/* contractions, in program order */
	/* Add(GEMM, GEMM): the second contraction accumulates onto the
	 * first's accumulator (kernel.c, recognise_shared_acc) */
	int acc_shared;
	struct pm_contraction con[PM_MAX_CON];
	isl_schedule *schedule;
	/* After contraction: macro instance <-> original instances. */
	isl_union_map *expansion;	/* MMA_0[i0,j0,k0] -> S_0[i,j,k] ... */
	isl_union_pw_multi_aff *base;	/* MMA_0[i0,j0,k0] -> S_0[MM i0, ..] */
	struct pm_op ops[PM_MAX_OPS];
	int nops;
	isl_id *store_id, *sync_id[PM_MAX_CON][2];
	/* [contraction][loop, prologue] */
	isl_id *commit_id[PM_MAX_CON][2], *wait_id[PM_MAX_CON];
	/* the fragment pipeline (promote/fragments.c), per contraction:
	 * LDF, the prologue's WAIT and its SYNC after prologues; NULL when
	 * the contraction does not use it */
	isl_id *ldf_id[PM_MAX_CON], *wait_pro_id[PM_MAX_CON];
	isl_id *sync_pro0_id[PM_MAX_CON];
	int frag[PM_MAX_CON];		/* 1: contraction c uses it */
	/* contraction c's prologues overlap its MMAs (promote.c): the MMA
	 * is not waited for right after issue, DRAIN does it later */
	int pro_late[PM_MAX_CON];
	/* 1: contraction c stages copies in registers */
	int rstage[PM_MAX_CON];
	/* contraction c's tiles arrive by TMA (promote/tma.c): one COPY
	 * instance per tile and buffer, mbarriers instead of cp.async groups
	 * and the loop's __syncthreads */
	int tma[PM_MAX_CON];
	/* the staged store (promote/store.c): pitch of the shared C tile in
	 * elements (0: direct stores), elements per 16-byte unit */
	int cst_pitch, cst_vec;
	/* TMA stores of the staged tile (cfg->tma_store): the elements of
	 * its 128-byte column blocks (0: the threads' 16-byte copies) */
	int tma_store;
	isl_id *stg_id, *sync_st_id[2];
	isl_id *fixup_id;		/* split-K (promote/store.c) */
	isl_id *red_id;			/* an epilogue reduction (store.c) */
	/* emit/: print the FIXUP op (the _split kernel) or leave it out
	 * (the kernel launched unsplit, free of its code) */
	int emit_fixup;
	/* tile rows per group of the blocks' raster order (emit/file.c);
	 * 0: the default, 1: row-major (the small variant: its blocks are
	 * all resident at once) */
	int raster;
	int nepi;
	/* epilogue statements, in order */
	isl_id *epi_id[PM_LIMIT_EPILOGUE];
	struct pm_mark marks[PM_MAX_MARKS];
	int nmarks;
	int marks_full;	/* a pm_kernel_mark past PM_MAX_MARKS: an error */
	isl_id *mark_ids[PM_MAX_MARKS];
	/* aliases into mark_ids (not owned) */
	isl_id *mark_block_x, *mark_warp_y, *mark_warp_x, *mark_producer;
	/* warp-specialized and persistent (promote/tma.c, cfg->persistent
	 * == 1): a producer warp issues every tile's copies, the consumer
	 * warps run the rest; the block loops over output tiles */
	int ws;
	/* 1: launched only on sizes that are multiples of its block tile
	 * (rows flagged PM_VF_EXACT or built exact: docs/decisions/0018,
	 * 0065): no ragged last tiles, no guards (pm_kernel_sym_ragged is
	 * 0) */
	int exact;
	/* The file takes k extents that are not multiples of the k tile
	 * (set by variant/ for every kernel of a set, or none:
	 * pm_kernel_kragged_ok; docs/decisions/0030-ragged-k.md); 0 while
	 * the exact twin "_x" is printed (emit/file.c) */
	int kragged;
	/* The operands' element bytes on the device (the operand row's: 2,
	 * or 1 for the 8-bit types; a 16-byte copy unit holds 16 / eb) and
	 * the k of one MMA instruction (docs/decisions/0029) */
	int eb, ik;
	/* Decided after promotion (promote/decide.c, pm_decide), printed by
	 * emit/: a producer warpgroup handing its registers to the consumers
	 * (setmaxnreg) instead of a producer warp (wg); clusters of two
	 * blocks multicasting B (mc); the split persistent kernel's chunks
	 * reduced through distributed shared memory in clusters (dsm); an
	 * exact twin "_x" without ragged guards in the file (twin, set by
	 * variant/); the split persistent kernel's tiles summed by their
	 * last chunk to arrive (last: emit/fixup.c) */
	int wg, mc, dsm, twin, last;
	/* the main kernel of a file: the kernels of its variant set by
	 * role (variant/variant.c; not owned; NULL where not built) */
	struct pm_kernel *var[PM_RT_NROLES];
	int nbufs;
	struct pm_buffer bufs[PM_MAX_BUFS];
};

/* The elements of a 16-byte copy unit of k's operands: 8 of 2 bytes (and
 * the host rendering's), 16 of 1. */
static inline int pm_kernel_vec(const struct pm_kernel *k)
{
	return k->eb == 1 ? 16 : 8;
}

/* The most reads of other tensors in the prologue of an operand widened
 * in the MMA's registers (pm_sm90_mma_tile_rc's row context). */
#define PM_CONV_READS 4

/* The stored type of buffer b's shared tile where the MMA widens it from
 * registers (conv_regs: its TMA maps' type), else NULL (the MMA's). */
const struct pm_elem *pm_buffer_stored(const struct pm_kernel *k, int b);
/* The bytes of an element of buffer b's shared tile: the stored type's
 * (pm_buffer_stored), else k->eb (the MMA's; 4 on the host rendering). */
int pm_buffer_eb(const struct pm_kernel *k, int b);
/* Does a buffer of k widen its elements in the MMA's registers? */
int pm_kernel_conv_regs(const struct pm_kernel *k);

/* The type the MMAs of k multiply (every contraction's). */
static inline enum pm_type pm_kernel_ab(const struct pm_kernel *k)
{
	return k->con[0].ab;
}

/* Recognise the idiom and set up the kernel; NULL + diagnostic when the
 * spec is not (yet) supported. */
struct pm_kernel *pm_kernel_alloc(struct pm_scop *scop,
	const struct pm_config *cfg, struct pm_diags *diags);
void pm_kernel_free(struct pm_kernel *k);
/* The tile of runtime size symbol sym (1: none): the least common
 * multiple of bm, bn, bk over the roles it has (output rows, columns, a
 * contraction's k). */
int pm_kernel_size_multiple(const struct pm_kernel *k, int sym);
/* Is runtime symbol sym ragged: an output extent (M, N) of a kernel that
 * is not exact, or a contraction's k of a kernel that takes ragged k
 * (k->kragged: not an exact twin; an exact row only where every
 * contraction copies by TMA: out-of-bounds boxes are zeros at no cost),
 * in every role it has?  Its
 * last tile may be partial: the iteration domain covers whole tiles (the
 * context's "sym mod tile = 0" is that of the padded extent pm_t<sym> =
 * tile * ceil(sym / tile), which the kernels' loop bounds use), the
 * accesses to global memory past sym are guarded (stores, epilogue
 * inputs), clamped (copies of rows and columns past M and N) or
 * zero-filled (copies past k: pm_kernel_k_guard_dim; TMA). */
int pm_kernel_sym_ragged(const struct pm_kernel *k, int sym);
/* What the launcher requires of runtime symbol sym: a multiple of the
 * returned value.  Ragged symbols: 16 bytes of elements where sym is some
 * tensor's contiguous (last) dimension (8 elements; 16 of 1 byte), else
 * 1; the others (k): their tile. */
int pm_kernel_sym_align(const struct pm_kernel *k, int sym);
/* Can k take ragged k extents: every operand prologue is finite at 0 (a
 * zero-filled element past k stays a zero product) and, where k is
 * exact, every contraction copies by TMA (docs/decisions/0030). */
int pm_kernel_kragged_ok(const struct pm_kernel *k);
/* The dimension of buffer buf's tensor that k indexes where its copies
 * zero-fill the elements past its size: a ragged symbol of k (runtime),
 * or a size fixed (-D, a literal) to a value that is not a multiple of
 * the k tile (the domain runs to the padded value, poly/poly.h); else
 * -1. */
int pm_kernel_k_guard_dim(const struct pm_kernel *k,
	const struct pm_buffer *buf);
/* Add "every runtime size (padded, where ragged) is a multiple of its
 * tile" to the context. */
int pm_kernel_require_multiples(struct pm_kernel *k);

/* A new mark owned by the kernel, on hardware index hw (PM_HW_NONE unless
 * kind is PM_MARK_HW) with div and extent as in enum pm_hw_dim; NULL when
 * the kernel has PM_MAX_MARKS already (then marks_full is set: the
 * pipeline fails after the pass, a band without its mark never reaches
 * the printer). */
__isl_give isl_id *pm_kernel_mark(struct pm_kernel *k, const char *name,
	enum pm_mark_kind kind, enum pm_hw_dim hw, long div, long extent);
/* A new statement id owned by the kernel. */
__isl_give isl_id *pm_kernel_op(struct pm_kernel *k, const char *name,
	enum pm_op_kind kind, int buffer);
/* The op of a statement id created by pm_kernel_op, else NULL. */
const struct pm_op *pm_kernel_op_of(const struct pm_kernel *k,
	__isl_keep isl_id *id);
/* The copy pipelines of k: one per contraction, one for both when they
 * share an operand (scop->join: one k loop; contraction 0's pipeline,
 * its ops and buffers (bufs[].con 0) feed both contractions' MMAs). */
static inline int pm_kernel_npipes(const struct pm_kernel *k)
{
	return k->scop->join ? 1 : k->ncon;
}
/* Does a buffer of k have a prologue applied through the MMA's registers
 * (pro_regs)? */
int pm_kernel_pro_regs(const struct pm_kernel *k);
/* The mark of a mark id created by pm_kernel_mark, else NULL. */
const struct pm_mark *pm_kernel_mark_of(const struct pm_kernel *k,
	__isl_keep isl_id *id);

/* The passes. Each returns 0 or -1 (with a diagnostic). */
int pm_tile_block(struct pm_kernel *k, struct pm_diags *d);
int pm_strip_k(struct pm_kernel *k, struct pm_diags *d);
int pm_tile_warp(struct pm_kernel *k, struct pm_diags *d);
int pm_contract(struct pm_kernel *k, struct pm_diags *d);

/* Legality: every dependence of the scop (mapped through the contraction
 * once it happened) goes forward in the kernel's current schedule.
 * Returns 1 legal, 0 illegal, -1 error. Extension nodes (copies) are
 * ignored: call it before promotion. */
int pm_check_legal(struct pm_kernel *k);

/* Tree utilities (schedule_tree/util.c). */
/* Make the schedule of node's tree the kernel's; 0, or -1 when node is
 * NULL (the old schedule stays). */
int pm_kernel_set_schedule(struct pm_kernel *k,
	__isl_take isl_schedule_node *node);
/* The node right below the first mark with this id in a depth-first walk
 * from node; NULL (no error) when there is none. */
__isl_give isl_schedule_node *pm_node_below_mark(
	__isl_take isl_schedule_node *node, __isl_keep isl_id *mark);
/* Is node a mark node with this id? */
int pm_node_is_mark(__isl_keep isl_schedule_node *node, __isl_keep isl_id *id);
/* Follow child 0 from node down to the leaf. */
__isl_give isl_schedule_node *pm_node_leaf(__isl_take isl_schedule_node *node);
/* Move the band at node below the next `skip` bands (marks in between
 * stay where they are): an interchange of one band with those under it.
 * Returns the node at the moved band's new position. */
__isl_give isl_schedule_node *pm_node_band_sink_past(
	__isl_take isl_schedule_node *node, int skip);
/* Descend along child 0 to the next band node (node itself if a band). */
__isl_give isl_schedule_node *pm_node_next_band(
	__isl_take isl_schedule_node *node);
/* Tile a band by sizes[] (one per member). */
__isl_give isl_schedule_node *pm_node_tile(__isl_take isl_schedule_node *node,
	const int *sizes);

/* Print the schedule tree (--dump-schedule) under a title. */
void pm_dump_schedule(FILE *out, const char *pass,
	__isl_keep isl_schedule *s);

#endif

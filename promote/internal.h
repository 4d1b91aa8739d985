/* promote — helpers shared by the files of the stage (not installed).
 *
 * graft.c holds the extension and band helpers (pm_pr_*) and calls no
 * other file of promote/; the other files call it and promote.c calls
 * them (tests/check_deps.sh keeps this graph acyclic).
 *
 * Extension maps name the prefix schedule of the node they are grafted at:
 * [p0, p1] in front of a k loop (block coordinates), [p0, p1, kt] inside
 * it, [p0, p1, kt, wy, wx, s] below the warp bands and the k-step band. */
#ifndef PM_PROMOTE_INTERNAL_H
#define PM_PROMOTE_INTERNAL_H

#include <isl/aff.h>
#include <isl/schedule_node.h>

#include "schedule_tree/tree.h"

/* Does buffer b have a prologue applied in shared memory (PRO statements;
 * not one applied to the MMA's registers), or a converting copy (its PRO
 * widens the stored elements, docs/decisions/0047)? */
static inline int pm_pr_smem_pro(const struct pm_buffer *b)
{
	return (b->pro != NULL || b->conv) && !b->pro_regs && !b->conv_regs;
}

/* Pitch, swizzle and stage size of buffers first.. (--smem; on targets
 * reading shared memory through descriptors, their canonical layouts);
 * -1 with a diagnostic when a tile cannot be laid out. */
int pm_pr_layout_buffers(struct pm_kernel *k, int first, struct pm_diags *d);
/* -1 with a diagnostic when a macro-MMA or unit of contraction c would
 * start inside a swizzled column block of an MN-major operand. */
int pm_pr_check_mn_blocks(struct pm_kernel *k, int c, struct pm_diags *d);

/* "{ <in> -> [(expr)] }" with the in tuple given the id -> mupa. */
__isl_give isl_multi_union_pw_aff *pm_pr_mupa_str(isl_ctx *ctx,
	const char *in, const char *expr, __isl_keep isl_id *id);
/* Insert band [expr] above node, optionally under a mark. */
__isl_give isl_schedule_node *pm_pr_band_str(struct pm_kernel *k,
	__isl_take isl_schedule_node *node, const char *in, const char *expr,
	__isl_keep isl_id *id, __isl_take isl_id *mark, int unroll);
/* The root of node's tree. */
__isl_give isl_schedule_node *pm_pr_graft_root(
	__isl_take isl_schedule_node *node);
/* { id[i0, ..., i(n-1)] } */
__isl_give isl_union_set *pm_pr_universe(isl_ctx *ctx, __isl_keep isl_id *id,
	int n);
/* The k tiles of contraction c that exist: { [p0, p1, kt] }. */
__isl_give isl_set *pm_pr_valid_tiles(struct pm_kernel *k, int c);
/* { [prefix] -> id[p0, p1, q, l0, v] } over buffer b's units with
 * q = kt + shift (loop, np = 3) or 0 <= q < shift (prologue, np = 2; every
 * q when shift < 0), q a valid k tile. */
__isl_give isl_map *pm_pr_copy_ext_id(struct pm_kernel *k, int b, int np,
	int shift, __isl_keep isl_id *id);
/* { [prefix] -> id[p0, p1, x] }: x = kt (np = 3) or 0 <= x < n (np = 2). */
__isl_give isl_map *pm_pr_step_ext(struct pm_kernel *k, __isl_keep isl_id *id,
	int np, int n);
/* Below g (a leaf under the filter of id[.., l0, v], units of one tile
 * row r = units per row): threads (l0 mod p, v) under the thread_y and
 * thread_x marks, then the unrolled band floor(l0 / p). */
__isl_give isl_schedule_node *pm_pr_thread_bands(struct pm_kernel *k,
	__isl_take isl_schedule_node *g, const char *in, __isl_keep isl_id *id,
	long r, long p);
/* One extension node over ops ids[] (maps ext[], taken) with a sequence of
 * their filters below it; copies and prologues get their thread bands; with
 * np == 2 a band [q] over all of them sits above the sequence. */
__isl_give isl_schedule_node *pm_pr_graft_tree(struct pm_kernel *k, int n,
	isl_id **ids, int *ndims, isl_map **ext, int np, struct pm_diags *d);
/* Append to ids/nd/ext (at *n, advanced) the copies of contraction c's
 * buffers and then op commit (kept: the caller holds it) that closes
 * their group: in the loop (np = 3, tile kt + shift) or in the prologue
 * (np = 2, tiles q < shift). The maps are new; the ids are not copied. */
void pm_pr_copies_and_commit(struct pm_kernel *k, int c, int np,
	int shift, __isl_keep isl_id *commit, isl_id **ids, int *nd,
	isl_map **ext, int *n);

/* The fragment pipeline (fragments.c).
 *
 * Does contraction c load its warp fragments one k-step ahead, across k
 * tiles (1), or per macro-MMA (0)? -1 with a diagnostic when the options
 * require the pipeline and it cannot be built. */
int pm_frag_pipe_decide(struct pm_kernel *k, int c, struct pm_diags *d);
/* Inside the k loop, node the MMA subtree right below the [kt] band and
 * wait the tree of WAIT [PRO SYNC] COPY(kt + S) COMMIT: builds
 *   sequence {
 *     MMA[s < T-1] with LDF[kt, s+1] before the macro tiles of step s;
 *     WAIT [PRO(kt + 1) SYNC]; COPY(kt + S); COMMIT;
 *     LDF[kt + 1, 0] (when tile kt + 1 exists); MMA[s = T-1]
 *   }
 * (T = BK / MK k-steps per tile, fragment buffer s mod 2). */
__isl_give isl_schedule_node *pm_frag_loop(struct pm_kernel *k, int c,
	__isl_take isl_schedule_node *node, __isl_take isl_schedule_node *wait);
/* In front of the k loop (node: the red mark), after the prologue copies:
 * WAIT (all but S-1 groups) [PRO(0) SYNC], then LDF[0, 0] per warp. */
__isl_give isl_schedule_node *pm_frag_prologue(struct pm_kernel *k, int c,
	__isl_take isl_schedule_node *node, struct pm_diags *d);

/* Register-staged prefetch (regstage.c), for targets without cp.async:
 * does contraction c use it (1), not (0), or is it required and
 * impossible (-1, diagnostic)? The loop's LDR(kt+1) extension maps (added
 * to ids/nd/ext, the copies' thread mapping) and the tree of STR(kt+1)
 * grafted after the MMAs. */
int pm_rstage_decide(struct pm_kernel *k, int c, struct pm_diags *d);
void pm_rstage_loads(struct pm_kernel *k, int c, isl_id **ids, int *nd,
	isl_map **ext, int *n);
__isl_give isl_schedule_node *pm_rstage_stores(struct pm_kernel *k, int c,
	struct pm_diags *d);

/* The TMA pipeline (tma.c), for targets with TMA copies.
 * Does contraction c use it (1; sets its buffers' tma), not (0), or is it
 * required (--tma on) and impossible (-1, diagnostic)? It needs S > 1, no
 * --mma-inflight, no fragment pipeline or register staging, no prologue in
 * shared memory, and 2-D tiles in a TMA swizzle layout. */
int pm_tma_decide(struct pm_kernel *k, int c, struct pm_diags *d);
/* Why contraction c cannot use TMA copies, or NULL. */
const char *pm_tma_obstacle(struct pm_kernel *k, int c);
/* Around the MMA subtree node (right below the [kt] band):
 *   prologue q < S-1 { [SYNC_REUSE] COPY(q) [COMMIT_PRO] }
 *   k loop { WAIT(kt); MMA(kt) issued; COPY(kt + S - 1); DRAIN;
 *            RELEASE(kt) }
 * with COPY_X[p0, p1, q, 0, 0] one instance per tile (emit/ prints the
 * barrier waits, the arming and the boxes). */
int pm_tma_pipeline(struct pm_kernel *k, int c, isl_schedule_node **node,
	struct pm_diags *d);
/* The warp-specialized form (cfg->persistent == 1; sets k->ws):
 *   producer mark { q loop { COPY(q) } }   (every tile, one thread)
 *   k loop { WAIT(kt); MMA(kt) issued; DRAIN; RELEASE(kt) }
 * The producer's subtree runs on a warp of its own, the rest on the
 * consumer warps (emit/); the ring's position continues from one output
 * tile to the next of the persistent block (emit/ adds pm_qc), and a
 * second contraction's tiles follow the first's in the same ring (their
 * buffers must have the same stages: one set of barriers). */
int pm_tma_ws_pipeline(struct pm_kernel *k, int c, isl_schedule_node **node,
	struct pm_diags *d);
/* [SYNC_REUSE] COPY(q) COMMIT_PRO for q < shift in front of contraction
 * c's k loop (node moves up to the red mark; graft.c). */
int pm_pr_prologue_copies(struct pm_kernel *k, int c, int shift,
	isl_schedule_node **node, struct pm_diags *d);

/* The store (store.c). Decides whether the block's output goes through
 * shared memory (sets k->cst_pitch, k->cst_vec; -1 with a diagnostic when
 * required and impossible), then builds the extension tree grafted after
 * the block's last statement. */
int pm_store_decide(struct pm_kernel *k, struct pm_diags *d);
__isl_give isl_schedule_node *pm_store_tree(struct pm_kernel *k);
/* Split-K (scop->nsplit > 0): FIXUP[p0, p1] grafted right after the last
 * contraction's k loop, in front of the epilogues and the store. */
__isl_give isl_schedule_node *pm_fixup_graft(struct pm_kernel *k,
	__isl_take isl_schedule_node *seq);

#endif

/* promote — shared-memory tiles, register accumulators, copy statements.
 *
 * pm_promote(k) works on the contracted tree (after schedule_tree/):
 *  - for each operand X of the contraction, the footprint of the MMA
 *    instances of one block k-step,
 *        [b_y, b_x, kt] -> X[x0, x1]   (prefix schedule^-1 . access),
 *    has a fixed box hull (isl_map_get_range_simple_fixed_box_hull):
 *    offset(b_y, b_x, kt) + [0, size0) x [0, size1). That box is the
 *    shared buffer X_shared[size0][size1] (plain row-major layout, the
 *    global tensor's own dimension order, so copies stay contiguous);
 *  - the copies are statements COPY_X[b_y, b_x, kt, l0, v] (v: units of
 *    vec contiguous elements, 16 bytes for f16) added by an extension node
 *    grafted in front of the warp bands inside the k loop, each mapped to
 *    threads (l0 mod P, v) with P = threads / (size1 / vec) and a
 *    sequential, unrolled band floor(l0 / P); SYNC statements
 *    (__syncthreads) follow the copies and the compute;
 *  - the accumulator of C lives in registers: FILL/MMA name a fragment of
 *    the warp's register tile; STORE_C[i0, j0] (macro-tile coordinates,
 *    extension after the k loop) writes each fragment to global memory,
 *    or (staged store, store.c) STS[i0, j0] writes it to a shared C tile
 *    and STG[p0, p1, l0, v] copies that tile out in 16-byte units;
 *  - the copies form a software pipeline over the k tiles (stages S): a
 *    prologue of S-1 tiles, COPY(kt + S - 1) in the loop; with the
 *    fragment pipeline (fragments.c) S tiles, COPY(kt + S) and
 *    LDF[p0, p1, q, wy, wx, s] loading the warps' fragments one k-step
 *    ahead; without cp.async, LDR(kt + 1) before and STR(kt + 1) after the
 *    MMAs stage the next tile in registers (regstage.c); with TMA
 *    (tma.c), COPY_X[p0, p1, q, 0, 0]: one instance per tile, its box
 *    issued by one thread, mbarriers in place of the copy groups and the
 *    loop's barriers; warp-specialized (--persistent on, k->ws), every
 *    tile's COPY_X[p0, p1, q, 0, 0] in a q loop under a "producer" mark in
 *    front of the k loop, which keeps WAIT, the MMAs, DRAIN and RELEASE.
 * promote/internal.h states the pieces' contracts.
 */
#ifndef PM_PROMOTE_H
#define PM_PROMOTE_H

#include "schedule_tree/tree.h"

int pm_promote(struct pm_kernel *k, struct pm_diags *d);

/* MMA instance of contraction c -> local coordinates in buffer b of the
 * operand element its macro tile starts at (built by pm_promote). */
__isl_give isl_pw_multi_aff *pm_promote_local(struct pm_kernel *k, int c,
	int b);

/* Record the decisions emit/ prints (promote/decide.c): k->wg, k->mc,
 * k->dsm and each buffer's mc_rows, from the promoted kernel. */
void pm_decide(struct pm_kernel *k);
/* The launch footprint of the promoted kernel k (promote/decide.c). */
/* Threads of a block of k (warp-specialized: one producer warp more, a
 * producer warpgroup with k->wg). */
int pm_kernel_threads(const struct pm_kernel *k);
/* A producer warpgroup's registers per thread after its setmaxnreg.dec. */
#define PM_WG_PRODUCER_REGS 40
/* The registers per thread each of the nt consumer threads of a kernel
 * with a producer warpgroup (k->wg) asks with setmaxnreg.inc: what the
 * SM's 64K leave beside the producer warpgroup's, in multiples of 8, at
 * most 232 (two consumer warpgroups: 232, as CUTLASS's; three: 152). More
 * than the pool holds and setmaxnreg.inc waits forever. */
int pm_wg_consumer_regs(int nt);
/* Dynamic shared memory bytes of a block of k (host: of the host
 * rendering, floats); off[] (or NULL) gets the buffers' offsets and, at
 * off[k->nbufs], the staged store's C tile's (0: it reuses the operand
 * buffers' memory). The TMA mbarriers (pm_kernel_nbars) are the last bytes. */
long pm_kernel_smem_bytes(struct pm_kernel *k, int host, long *off);
/* An epilogue reduction (variant/epired.h, emit/epired.c): the groups of
 * partials of each kept index of a block, *kext those indices (rows:
 * BN / MN groups of BM rows; columns: BM / MM groups per warp of a unit
 * of BN columns; a scalar: one index, a group per warp and macro tile),
 * and the offset of its floats in shared memory (the flag, the partials
 * [group][index], a float per thread). */
long pm_kernel_red_groups(const struct pm_kernel *k, int host, long *kext);
long pm_kernel_red_at(struct pm_kernel *k, int host);
/* TMA: the number of mbarriers at the end of shared memory (0: none):
 * pm_bar[2 S c + s] contraction c's "full" barrier of stage s, pm_bar[2 S
 * c + S + s] its "empty" one (warp-specialized: one ring, c = 0); with a
 * split-K fixup through distributed shared memory (k->dsm) its "go" and
 * "recv" barriers last; the last chunk to arrive sums (k->last): one
 * more 8-byte slot, last, not an mbarrier, the arrival's flag
 * (emit/fixup.c). */
int pm_kernel_nbars(struct pm_kernel *k);
/* A converting copy's raw tiles (docs/decisions/0047): their offset from
 * buffer b's (its tile's stages, rounded up to 16 bytes) and their bytes
 * (every stage; host: floats). */
long pm_buffer_raw_off(const struct pm_kernel *k, int b, int host);
long pm_buffer_raw_bytes(const struct pm_kernel *k, int b, int host);
/* The columns of buffer b's TMA box (64, 32 or 16 for a tile of blocks of
 * that many columns: SWZ 2, 3, 4; else the tile's) and the boxes of one
 * k tile. */
long pm_buffer_box_cols(const struct pm_buffer *b);
long pm_buffer_boxes(const struct pm_buffer *b);
/* Is buffer i of k a contraction's B tile? */
int pm_buffer_is_b(const struct pm_kernel *k, int i);

#endif

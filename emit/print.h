/* Internal to emit/: printing one op call and expressions. */
#ifndef PM_EMIT_PRINT_H
#define PM_EMIT_PRINT_H

#include <isl/ast.h>

#include "emit/emit.h"
#include "promote/promote.h"

void pm_print_expr(struct pm_strbuf *b, __isl_keep isl_ast_expr *e);
/* One statement (with trailing newline) for annotation a; copies happen
 * only where the C expression pred (when not NULL) is true. */
int pm_print_op(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred);
/* Row-major linear index of tensor t at the index expressions e[0..rank). */
void pm_print_linear(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e);
/* Is the dimension of the buffer's tensor read with var (0 i, 1 j, 2 k)
 * its contiguous one? */
int pm_emit_contiguous(const struct pm_buffer *buf, const struct pm_expr *r,
	int var);
/* "(e[d]) < SYM && ..." over tensor t's dimensions d of a ragged size
 * (pm_kernel_sym_ragged) at its index expressions e[0..rank); 0 (nothing
 * printed) when it has none. */
int pm_print_bounds(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e);
/* The stride (text) of dimension d of tensor t in global memory. */
void pm_print_stride(struct pm_kernel *k, struct pm_strbuf *b, int t, int d);
/* Epilogue reads loaded two elements at a time per statement (more are
 * loaded one at a time). */
#define PM_EPI_MAX_PAIRS 16
/* Does an epilogue statement load input tensor t two elements at a time
 * (f16 or f32, indexed by j in its last dimension; the launcher checks
 * that its address is a multiple of two elements)? */
int pm_epi_pairs_tensor(struct pm_kernel *k, int t);

/* "&X_shared[stage * S + pm_smem_off<P, SWZ>(l0, c)" of a copy or
 * prologue unit (annotation slots 2, 3, 4), without the closing bracket
 * (ops.c). */
void pm_print_unit_addr(struct pm_strbuf *b, const struct pm_buffer *buf,
	const char *name, const struct pm_annot *a, int host);
/* pointwise.c: the EPI op (the epilogue on a macro tile's accumulators)
 * and the PRO op (a prologue on the units this thread copied). */
void pm_print_epi(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
void pm_print_pro(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* The functor of buffer i's prologue applied to the MMA's registers:
 * "const auto pm_pro<i> = [](uint32_t) -> uint32_t {..};" (a kernel
 * local, on .f16x2 registers) or, host, "static float pm_pro<i>(float)". */
void pm_print_pro_fn(struct pm_kernel *k, struct pm_strbuf *b, int i,
	int host);
/* The register accumulator of contraction c: "pm_acc" or "pm_acc1". */
const char *pm_emit_acc_name(const struct pm_kernel *k, int c);
/* tma.c: a TMA buffer's COPY (thread 0 issues the tile's boxes; the
 * contraction's first buffer also waits for the stage's release and arms
 * its full barrier), the TMA WAIT and RELEASE ops. */
void pm_print_tma_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred);
void pm_print_tma_wait(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
void pm_print_release(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* DRAIN of a warp-specialized kernel with one k tile of MMAs in flight
 * (--mma-inflight on): all but tile kt's group, all after the last. */
void pm_print_ws_drain(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a);
/* The stage (parity 0: "((q) % S)") or the phase parity (1: "((q) / S) &
 * 1") of the ring position of k tile q (expression e) of contraction c;
 * warp-specialized kernels (k->ws) count from the block's first tile:
 * pm_qc + q, after contraction 0's tiles for contraction 1. */
void pm_print_ring(struct pm_kernel *k, struct pm_strbuf *b,
	__isl_keep isl_ast_expr *e, int parity, int c);
/* The persistent kernels' raster order: groups of PM_RASTER tile rows
 * (file.c's tile_map, persist.c's loops). */
#define PM_RASTER 8
/* persist.c: the body of a warp-specialized kernel (k->ws) after its
 * locals: the loop over tiles and the roles' code, closing the kernel. */
int pm_emit_ws_body(struct pm_kernel *k, __isl_keep isl_ast_node *ast,
	struct pm_strbuf *b, struct pm_diags *d);
/* The k tiles of contraction c: "((unsigned) K + 63u) / 64u". */
void pm_print_ktiles(struct pm_kernel *k, struct pm_strbuf *b, int c);
/* fixup.c: the predicate of the split persistent kernel's STG at tile
 * row e ("if (...) "), of a cluster's ("if (pm_own) "; nothing
 * elsewhere). */
void pm_print_strip_pred(struct pm_kernel *k, struct pm_strbuf *b,
	__isl_keep isl_ast_expr *e);
/* fixup.c: the FIXUP op (split-K) of annotation a. */
void pm_print_fixup(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* file.c, for launch.c */
/* Threads of a block of k (warp-specialized: one producer warp more). */
int pm_emit_threads(const struct pm_kernel *k);
const char *pm_emit_ctype(struct pm_kernel *k, int t, int host);
/* runtime size symbols in the launcher's order; returns their number */
int pm_emit_size_order(struct pm_kernel *k, int *order);
enum pm_entry {
	PM_ENTRY_PLAIN,		/* NAME(tensors, sizes, stream) */
	PM_ENTRY_WS,		/* NAME_ws(..., workspace, bytes, stream) */
	PM_ENTRY_WS_SIZE,	/* NAME_workspace_size(sizes) */
	/* pm_launch_NAME(choice, ..., workspace, bytes, stream) */
	PM_ENTRY_LAUNCH
};
void pm_emit_signature(struct pm_kernel *k, struct pm_strbuf *b,
	enum pm_entry e);
/* dynamic shared memory bytes; off[] the buffers' offsets and, at
 * off[k->nbufs], the staged store's C tile's (0: it reuses the operand
 * buffers' memory) (or NULL) */
long pm_emit_smem_bytes(struct pm_kernel *k, int host, long *off);
/* TMA: the number of mbarriers at the end of shared memory (0: none). */
int pm_emit_nbars(struct pm_kernel *k);
/* launch.c: the host entry points of k (and its small variant) */
struct pm_variant_set;
void pm_emit_launcher(const struct pm_variant_set *vs, struct pm_strbuf *b);
/* launch.c: k's sizes, "int64_t M, int64_t N" (decl 1, or 2: "void" when
 * none) or "M, N" (decl 0) */
void pm_emit_size_list(struct pm_kernel *k, struct pm_strbuf *b, int decl);
/* launch.c: host code that asks the blocks per SM of pm_kernel_NAME<suffix>
 * into int o (occupancy API) */
void pm_emit_occupancy(struct pm_kernel *k, const char *suffix,
	struct pm_strbuf *b);
/* launch.c: "cudaLaunchConfig_t pm_lc" (and "cudaLaunchAttribute pm_la[1]")
 * for kernel k in clusters of `cl` blocks on grid `grid` (C expressions),
 * lines indented by ind; stream: also the launch's stream */
void pm_emit_cluster_config(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind, const char *grid, const char *cl, int stream);
/* plan.c: pm_device_NAME (SMs, blocks per SM of each variant), the
 * clusters the GPU holds (pm_ncl_NAME) and the launch plan pm_plan_NAME of
 * a kernel that can split k */
void pm_emit_plan(const struct pm_variant_set *vs, struct pm_strbuf *b);
/* The plan's rows of vs's kernels (and the kernels, where kern is not
 * NULL) and its spec (table.c); returns the number of rows. */
int pm_emit_rt_table(const struct pm_variant_set *vs,
	struct pm_rt_variant *rows, const struct pm_kernel **kern,
	struct pm_rt_spec *spec);

#endif

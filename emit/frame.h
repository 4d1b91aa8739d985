/* Internal to emit/: the kernel frame (frame.c), what every printer needs
 * about a kernel and its generated locals. frame.c calls no other file of
 * emit/; every other file may call it. */
#ifndef PM_EMIT_FRAME_H
#define PM_EMIT_FRAME_H

#include <isl/ast.h>

#include "emit/emit.h"
#include "promote/promote.h"

/* The persistent kernels' raster order: groups of PM_RASTER tile rows
 * (file.c's tile_map, persist.c's loops). */
#define PM_RASTER 8

/* ---- Types, sizes and signatures ---- */

/* The C type of tensor t's elements on the GPU ("__half", ...) or, host,
 * in the host rendering (f16 and bf16 as "float"). */
const char *pm_emit_ctype(struct pm_kernel *k, int t, int host);
/* The runtime size symbols of k (not fixed by -D) in the launcher's order
 * into order[] (64 entries); returns their number. */
int pm_emit_size_order(struct pm_kernel *k, int *order);
/* The tensor argument i of the entry points and kernels (inputs, then
 * outputs, each in declaration order), or -1 past the last. */
int pm_emit_arg_tensor(const struct pm_spec *spec, int i);
/* k's sizes in the launcher's order: "int64_t M, int64_t N" (decl 1, or
 * 2: "void" when there are none) or "M, N" (decl 0). */
void pm_emit_size_list(struct pm_kernel *k, struct pm_strbuf *b, int decl);
enum pm_entry {
	PM_ENTRY_PLAIN,		/* NAME(tensors, sizes, stream) */
	PM_ENTRY_WS,		/* NAME_ws(..., workspace, bytes, stream) */
	PM_ENTRY_WS_SIZE,	/* NAME_workspace_size(sizes) */
	/* pm_launch_NAME(choice, ..., workspace, bytes, stream) */
	PM_ENTRY_LAUNCH,
	/* NAME_argv(tensors[], sizes[] of every size symbol, stream) */
	PM_ENTRY_ARGV
};
/* The signature (no trailing ";") of k's host entry point e. */
void pm_emit_signature(struct pm_kernel *k, struct pm_strbuf *b,
	enum pm_entry e);

/* ---- The block: threads, shared memory, barriers, accumulators ---- */

/* "cudaLaunchConfig_t pm_lc" and "cudaLaunchAttribute pm_la[]" for kernel
 * k (its threads and shared memory) in clusters of `cl` blocks on grid
 * `grid` (C expressions), lines indented by ind; stream: also the
 * launch's stream and, where k waits for the previous grid (--pdl), the
 * programmatic dependency. */
void pm_emit_cluster_config(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind, const char *grid, const char *cl, int stream);
/* The register accumulator of contraction c: "pm_acc" or "pm_acc1" (one
 * "pm_acc" for all when k->acc_shared). */
const char *pm_emit_acc_name(const struct pm_kernel *k, int c);
/* "DRAIN<N>((float *) ACC); " for each accumulator pipeline c's MMAs
 * write (joined contractions: both), N floats each. */
void pm_print_drains(const struct pm_kernel *k, struct pm_strbuf *b, int c,
	const char *drain, int n);

/* ---- Expressions and global addresses ---- */

/* The isl AST expression e as C text, in parentheses. */
void pm_print_expr(struct pm_strbuf *b, __isl_keep isl_ast_expr *e);
/* Is the dimension of the buffer's tensor read with var (0 i, 1 j, 2 k)
 * its contiguous one? */
int pm_emit_contiguous(const struct pm_buffer *buf, const struct pm_expr *r,
	int var);
/* The stride (text) of dimension d of tensor t in global memory. */
void pm_print_stride(struct pm_kernel *k, struct pm_strbuf *b, int t, int d);
/* "(e < EXT - u ? e : EXT - u)": the index e of dimension d of tensor t
 * clamped to the start of the last unit of u elements inside its extent
 * EXT (u = 1: the last element). */
void pm_print_clamped(struct pm_kernel *k, struct pm_strbuf *b, int t, int d,
	__isl_keep isl_ast_expr *e, int u);
/* Row-major linear index of tensor t at the index expressions e[0..rank). */
void pm_print_linear(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e);
/* "(e[d]) < SYM && ..." over tensor t's dimensions d of a ragged size
 * (pm_kernel_sym_ragged) at its index expressions e[0..rank); 0 (nothing
 * printed) when it has none. */
int pm_print_bounds(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e);

/* The extent ext (a size symbol's name or a literal; a contraction's k:
 * scop->split_ext, red_ext) as the kernel's loops run over it: "pm_tK",
 * the padded extent, where it is a ragged symbol (file.c), else ext;
 * in buf (len bytes). */
const char *pm_emit_padded_ext(const struct pm_kernel *k, const char *ext,
	char *buf, size_t len);

/* ---- The k tiles, the ring and the shared addresses ---- */

/* The k tiles of contraction c: "((unsigned) K + 63u) / 64u" (split-K:
 * of the block's chunk, pm_kn_<c>). */
void pm_print_ktiles(struct pm_kernel *k, struct pm_strbuf *b, int c);
/* The k tiles of the contractions before c, each followed by " + "
 * (nothing for c 0): where contraction c's tiles start in the ring of a
 * warp-specialized kernel, after every earlier contraction's. */
void pm_print_ktiles_before(struct pm_kernel *k, struct pm_strbuf *b, int c);
/* The stage (parity 0: "((q) % S)") or the phase parity (1: "((q) / S) &
 * 1") of the ring position of k tile q (expression e) of contraction c;
 * warp-specialized kernels (k->ws) count from the block's first tile:
 * pm_qc + q, after the earlier contractions' tiles
 * (pm_print_ktiles_before). */
void pm_print_ring(struct pm_kernel *k, struct pm_strbuf *b,
	__isl_keep isl_ast_expr *e, int parity, int c);
/* "X_shared + (stage) * SE": the base of buffer i's stage (expression
 * stage; k->ws: the k tile, its stage the ring position). */
void pm_print_stage_base(struct pm_kernel *k, struct pm_strbuf *b, int i,
	__isl_keep isl_ast_expr *stage);
/* "&X_raw[stage * R + l0 * C + c" of a converting copy's unit
 * (docs/decisions/0047): its raw tile's dense rows of C elements, without
 * the closing bracket. */
void pm_print_raw_addr(struct pm_strbuf *b, const struct pm_buffer *buf,
	const char *name, const struct pm_annot *a);
/* "&X_shared[stage * S + pm_smem_off<P, SWZ>(l0, c)" of a copy or
 * prologue unit (annotation slots 2, 3, 4), without the closing bracket. */
void pm_print_unit_addr(struct pm_strbuf *b, const struct pm_buffer *buf,
	const char *name, const struct pm_annot *a, int host);

#endif

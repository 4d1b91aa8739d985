/* emit — isl AST generation and the CUDA (or host C) printer.
 *
 * pm_emit_ast(k) builds the isl AST of the final tree. Each statement
 * instance (an op: FILL, MMA, STORE, COPY_X, SYNC) gets an annotation with
 * isl_ast_exprs computed from affine functions of the op's instance
 * (pulled back through the build's iterator map, PPCG style):
 *   FILL[i0,j0], MMA[i0,j0,k0], STORE[i0,j0]:
 *       frag = (i0 mod (WM/MM)) * (WN/MN) + (j0 mod (WN/MN))  — a literal,
 *              the macro bands being unrolled; the register fragment
 *       warp = floor((MM i0 mod BM)/WM) * (BN/WN) + floor((MN j0 mod BN)/WN)
 *   MMA: offsets of the A and B macro tiles in their shared buffers
 *     (fragment pipeline: + buffer, tile origin in the warp's fragments)
 *   LDF[p0, p1, q, wy, wx, s]: buffer s mod 2, warp, A and B origins of the
 *     warp's k-step s, stage q mod S
 *   STORE: C[MM i0, MN j0] (the macro tile origin); STS: its origin in the
 *     shared C tile; STG[p0, p1, l0, v]: C[BM p0 + l0, BN p1 + vec v] and
 *     the C tile's (l0, vec v)
 *   COPY_X[p.., l0, v]: X[offset(p) + (l0, vec v)] and the shared offset,
 *     stage p2 mod S and the k tile p2 (TMA: one instance per tile, the
 *     box origin; tma.c prints it)
 *   WAIT, RELEASE[p0, p1, kt] of a TMA contraction: kt (its stage's
 *     mbarriers and their phase)
 * Warp-specialized kernels (k->ws; persist.c): the producer mark's
 * subtree is printed for thread 0 of the extra warp (then `continue` to
 * the block's next tile), the rest for the consumer warps, inside the loop
 * over the block's tiles; with a producer warpgroup (a register prologue:
 * setmaxnreg) each role in its own branch with its own loop; stages and
 * phases count from pm_qc (pm_print_ring).
 * Marks with a hardware mapping turn the loop right below them into
 *   { const int c = init + HW; if (cond) body }
 * on the GPU (the block marks' HW: pm_by / pm_bx, the block's tile in
 * raster order, file.c); the host rendering prints every loop.
 *
 * pm_emit_file(vs) returns the whole self-contained .cu (or host .c) of a
 * variant set (variant/variant.h): a comment block with version, spec,
 * target and tiles, the target's helper code, every kernel of the set in
 * the target table's order (each with its exact "_x" twin where it has
 * ragged sizes) and the host launcher of docs/LANGUAGE.md (launch.c; its
 * plan: table.c).
 */
#ifndef PM_EMIT_H
#define PM_EMIT_H

#include <isl/ast.h>

#include "poly/strbuf.h"
#include "schedule_tree/tree.h"

#define PM_MAX_ANNOT 12

struct pm_annot {
	const struct pm_op *op;
	int n;
	isl_ast_expr *e[PM_MAX_ANNOT];
};

__isl_give isl_ast_node *pm_emit_ast(struct pm_kernel *k);
/* Print the kernel body (AST) into b. Returns -1 on an internal error
 * (message in d). Warp-specialized kernels (k->ws): role 0 prints the
 * producer's path guarded by its thread (then "continue;") and the rest
 * for the consumers, 1 the producer's path only, 2 the rest only. */
int pm_emit_body(struct pm_kernel *k, __isl_keep isl_ast_node *ast,
	struct pm_strbuf *b, int indent, int role, struct pm_diags *d);

struct pm_output {
	char *source;
	char *header;
	char *meta;
};
struct pm_variant_set;
int pm_emit_file(const struct pm_variant_set *vs, struct pm_output *out,
	struct pm_diags *d);
void pm_output_clear(struct pm_output *out);

#endif

/* Internal to emit/: an epilogue reduction (variant/epired.h,
 * docs/decisions/0037-epilogue-reductions.md) in the kernels and the
 * launcher.
 *
 * Per macro tile, before its store (STORE, STS): each thread combines the
 * reduced expression over its accumulator registers of each row (column,
 * the tile) in register order, elements past the ragged sizes the
 * operator's identity; the lanes sharing a row (column, the tile) combine
 * theirs by a xor butterfly; one lane writes the warp's partial into the
 * block's shared memory, [group][kept index] (promote/decide.c,
 * pm_kernel_red_groups). RED, after the store: the block's threads
 * combine each kept index's groups in group order and write the block's
 * partial into the workspace, [kept index][block along the reduced
 * dimension]; the last block of the panel to arrive (an int counter per
 * panel, pm_red_arrive) combines the panel's partials in block order and
 * writes the reduced output, then resets the counter. The same order in
 * every run: the results are bit-identical across runs, with no float
 * atomics.
 *
 * The workspace: the counters (pm_red_cnt_NAME(sizes) bytes), then the
 * partials; pm_red_bytes_NAME(sizes) in all, for the file's smallest
 * block tile.
 */
#ifndef PM_EMIT_EPIRED_H
#define PM_EMIT_EPIRED_H

#include "emit/frame.h"
#include "variant/variant.h"

/* Does k's spec have an epilogue reduction? */
int pm_emit_has_red(const struct pm_kernel *k);
/* The per-tile partials of the macro tile of annotation a (STORE, STS:
 * e[0] fragment, e[1] warp (host), gi / gj its global origin). */
void pm_print_red_tile(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, isl_ast_expr *gi, isl_ast_expr *gj, int host);
/* The RED op of annotation a (e[0], e[1]: the block's tile). */
void pm_print_red_block(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* The kernel's locals: pm_red_flag, pm_red_s in shared memory. */
void pm_print_red_locals(struct pm_kernel *k, struct pm_strbuf *b, int host);
/* The smallest block tile of vs's rows (the workspace's partials are
 * sized for it). */
void pm_emit_red_tile(const struct pm_variant_set *vs, int *bm, int *bn);
/* "static size_t pm_red_cnt_NAME(sizes)", "pm_red_bytes_NAME(sizes)"
 * for blocks of at least bm x bn. */
void pm_emit_red_fns(struct pm_kernel *k, struct pm_strbuf *b, int bm, int bn);

#endif

/* Internal to emit/: grouped specs (variant/group.h,
 * docs/decisions/0045-grouped-contractions.md). A grouped spec's kernels
 * are a batched spec's, the group in blockIdx.z (emit/batch.h: the
 * per-group tensors' slices, 3-D tensor maps), with the rows' size
 * symbol the group's rows: the kernel takes every group's bound as
 * pm_rows, reads the group's row range [pm_glo, pm_ghi) from offs
 * (clamped to [0, pm_rows)), names its row count as the symbol (the
 * body's guards and padded extents are the group's) and moves the row
 * tensors' pointers to the group's first row; a block whose tile is past
 * the group's tiles returns at once (the grid is every group's bound).
 * The host rendering is called once per group, as batches are. */
#ifndef PM_EMIT_GROUP_H
#define PM_EMIT_GROUP_H

#include "emit/frame.h"

/* Is the kernel's spec grouped? */
int pm_emit_grouped(const struct pm_kernel *k);
/* The kernel parameter's name of size symbol s: "pm_rows" for a grouped
 * spec's rows, else the symbol's. */
const char *pm_emit_param_name(const struct pm_kernel *k, int s);
/* After the batch locals (pm_bz, the per-group slices): the group's row
 * range, its row count under the rows' name, the early return (CUDA)
 * and the row tensors' pointers at the group's first row. */
void pm_emit_group_locals(struct pm_kernel *k, struct pm_strbuf *b,
	int host);
/* The file comment's lines of a grouped spec. */
void pm_emit_group_comment(const struct pm_kernel *k, struct pm_strbuf *b);
/* ", + (int) pm_glo" after a TMA row coordinate of tensor t: its map is
 * every group's rows (nothing for other tensors). */
const char *pm_emit_group_row0(const struct pm_kernel *k, int t);

#endif

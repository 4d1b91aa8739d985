/* Internal to emit/: grouped specs (variant/group.h,
 * docs/decisions/0045-grouped-contractions.md). A grouped spec's kernels
 * are a batched spec's (emit/batch.h: the per-group tensors' slices of
 * group pm_bz, 3-D tensor maps), with the rows' size symbol the group's
 * rows. Each block of a 1-D grid runs one unit (group, tile): its tile
 * row over every group's is found by walking the groups' tile rows
 * (ceil(rows / BM) each, from offs clamped to [0, pm_rows), pm_rows the
 * launcher's T); blocks past the units return. The kernel names the
 * group's row count as the symbol (the body's guards, padded extents and
 * raster are the group's), runs the raster on the tile in the group
 * (pm_gu) and moves the row tensors' pointers to the group's first row.
 * The host rendering is called once per group pm_bz, as batches are. */
#ifndef PM_EMIT_GROUP_H
#define PM_EMIT_GROUP_H

#include "emit/frame.h"

/* Is the kernel's spec grouped? */
int pm_emit_grouped(const struct pm_kernel *k);
/* The kernel parameter's name of size symbol s: "pm_rows" for a grouped
 * spec's rows, else the symbol's. */
const char *pm_emit_param_name(const struct pm_kernel *k, int s);
/* "blockIdx.x", or for a grouped spec "pm_gu": the block's tile in its
 * group (the raster's linear tile). */
const char *pm_emit_group_block(const struct pm_kernel *k);
/* "(((int64_t) (T) + 127) / 128 + (int64_t) (E)) * ...": the launch's
 * blocks, at least the units (group, tile) of any offs: a group of n
 * rows has ceil(n / BM) tile rows, at most n / BM + 1. */
void pm_emit_group_units(const struct pm_kernel *k, char *buf, size_t len);
/* CUDA, the kernel's first lines: the block's unit, pm_bz its group
 * (returning where it has none), [pm_glo, pm_ghi) the group's rows, the
 * rows' symbol their count, pm_gu the tile in the group. */
void pm_emit_group_unit(struct pm_kernel *k, struct pm_strbuf *b);
/* After the per-group slices: the host rendering's group rows (of its
 * pm_bz) and, on every target, the row tensors' pointers at the group's
 * first row. */
void pm_emit_group_locals(struct pm_kernel *k, struct pm_strbuf *b,
	int host);
/* A persistent kernel's (k->ws) lines before its unit loops: pm_gtx,
 * the tiles across a row, pm_nu, the units' bound, the walk's state and
 * the rows' symbol (and its padded extent), set per unit
 * (docs/decisions/0051-grouped-persistent-units.md). */
void pm_emit_group_plocals(struct pm_kernel *k, struct pm_strbuf *b);
/* In a persistent kernel's loop over pm_u: the unit's group pm_bz (the
 * loop ends past the last group), its rows [pm_glo, ...) and their count
 * as the rows' symbol. */
void pm_emit_group_punit(struct pm_kernel *k, struct pm_strbuf *b);
/* After the per-group tensors' move (batch.h, from pm_bzp): the row
 * tensors' pointers moved to pm_glo, pm_ty and pm_t, the unit's tile in
 * its group. */
void pm_emit_group_prows(struct pm_kernel *k, struct pm_strbuf *b);
/* The file comment's lines of a grouped spec. */
void pm_emit_group_comment(const struct pm_kernel *k, struct pm_strbuf *b);
/* ", + (int) pm_glo" after a TMA row coordinate of tensor t: its map is
 * every group's rows (nothing for other tensors). */
const char *pm_emit_group_row0(const struct pm_kernel *k, int t);

#endif

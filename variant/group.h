/* Grouped contractions: the spec the kernels see of a spec with a
 * `group e by offs` clause (docs/LANGUAGE.md "Grouped contractions",
 * docs/decisions/0045-grouped-contractions.md).
 *
 *   Z(i, j) +=! X(i, k) * W(e, k, j)   group e by offs   (the user's)
 *   Z(i, j) +=! X(i, k) * W(k, j)                        (what the kernels see)
 *
 * The kernels see one group: its rows i in [0, T) with T, the rows'
 * size symbol, the group's row count (offs(e) - offs(e - 1), clamped);
 * the tensors whose dimension 0 is the rows (X, Z, Y, a row scale s(i))
 * read and write that group's rows (pm_tensor.grows), the per-group
 * tensors (W(e, k, j), bias(e, j): e first) their group's slice
 * (pm_tensor.batch, as a batch: spec->nbatch 1, bdims[0] the groups'
 * extent). emit/ runs units (group, tile), each block finding its
 * group from offs (emit/group.h); the launcher's T is every group's
 * bound. Refused with `unsupported:` at the construct:
 * batch indices beside a group, statements before the grouped
 * contraction, fixed rows, the rows' extent anywhere but a tensor's
 * dimension 0 read with the rows index, a tensor read per group and
 * shared. */
#ifndef PM_VARIANT_GROUP_H
#define PM_VARIANT_GROUP_H

#include "frontend/frontend.h"
#include "poly/config.h"

/* *out the spec the kernels of spec see (free with pm_spec_free), or NULL
 * where spec is not grouped. Returns 0, or -1 with a diagnostic in d. */
int pm_group_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d);

/* The configuration of the kernels of g (pm_group_spec's): k not split,
 * no persistent kernel, no cluster, the rows not fixed (requests
 * otherwise refused with a diagnostic: -1); c->batched and c->grouped
 * set. */
int pm_group_config(const struct pm_spec *g, struct pm_config *c,
	struct pm_diags *d);

#endif

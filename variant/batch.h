/* Batched contractions: the spec the kernels see of a spec with leading
 * batch indices (docs/LANGUAGE.md "Batched contractions",
 * docs/decisions/0036-batched-grid-z.md).
 *
 *   C(b, i, j) +=! A(b, i, k) * B(k, j)        (the user's spec)
 *   C(i, j)    +=! A(i, k)    * B(k, j)        (what the kernels see)
 *
 * The output's leading indices before its last two (i, j) are batch
 * indices; every statement writes a tensor of the same rank. A read
 * indexed by the batch indices has them first, in the output's order
 * (per batch: A(b, i, k), bias(b, j), R(b, i, j)), or has none of them
 * (shared by every batch: B(k, j), bias(j)). The view drops them: each
 * batched tensor is one batch's slice (pm_tensor.batch set, the spec's
 * nbatch and bdims the batch extents), and every pass, the launch plan
 * and the printers see one batch's contraction; emit/ maps the batch to
 * blockIdx.z (the slices' base pointers, sm_90a's tensor maps a third
 * dimension) and the entry points take the user's tensors as declared.
 * Anything else is refused with `unsupported:` at the construct.
 */
#ifndef PM_VARIANT_BATCH_H
#define PM_VARIANT_BATCH_H

#include "frontend/frontend.h"

/* *out the spec the kernels of spec see (free with pm_spec_free), or NULL
 * where spec has no batch indices. Returns 0, or -1 with a diagnostic in
 * d (a refused construct, or out of memory). */
int pm_batch_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d);

#endif

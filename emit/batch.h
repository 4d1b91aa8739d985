/* Internal to emit/: batched specs (variant/batch.h,
 * docs/decisions/0036-batched-grid-z.md). The kernels see one batch's
 * contraction; blockIdx.z (the host rendering: its argument pm_bz) is
 * the batch: each batched tensor's pointer is moved to its slice at the
 * kernel's start, and sm_90a's tensor maps of batched operands have a
 * third dimension, the batch (box of 1, coordinate pm_bz). A persistent
 * kernel (k->ws) loops over units (batch, tile) instead: pm_bz is each
 * unit's batch and the pointers move at each unit
 * (docs/decisions/0042-batched-persistent-units.md). */
#ifndef PM_EMIT_BATCH_H
#define PM_EMIT_BATCH_H

#include "emit/frame.h"

/* Is the kernel's spec batched? */
int pm_emit_batched(const struct pm_kernel *k);
/* "(int64_t) (Bt)": the batch count (the product of the batch extents,
 * fixed ones as literals), into buf. */
void pm_emit_batch_count(const struct pm_kernel *k, char *buf, size_t len);
/* "(int64_t) (M) * (K)": the elements of one batch's slice of tensor t. */
void pm_emit_batch_slice(const struct pm_kernel *k, int t, char *buf,
	size_t len);
/* The kernel's first lines: pm_bz (CUDA) and each batched tensor's
 * pointer moved to its slice; a persistent kernel's: pm_nb, the batch
 * count, and pm_bzp, the batch its pointers are at (0). */
void pm_emit_batch_locals(struct pm_kernel *k, struct pm_strbuf *b,
	int host);
/* "X += by * slice;" (indented ind) of each batched tensor X. */
void pm_emit_batch_shift(struct pm_kernel *k, struct pm_strbuf *b,
	const char *by, const char *ind);
/* A persistent kernel's unit pm_u of its loop over per x pm_nb units:
 * pm_t, its tile of its batch (per tiles a batch), pm_bz, its batch, and
 * the batched tensors' pointers moved there from pm_bzp. */
void pm_emit_batch_unit(struct pm_kernel *k, struct pm_strbuf *b,
	const char *per);

#endif

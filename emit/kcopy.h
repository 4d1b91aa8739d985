/* Internal to emit/: the K-major copies of a generated file (kcopy.c;
 * variant/kcopy.h, docs/decisions/0033-kmajor-copies.md).
 *
 * A kernel reads tensor t as a K-major copy where the spec it sees marks
 * it (pm_tensor.kcopy): dims (MN, K) there, the user's (K, MN). The file
 * then holds runtime/device/kcopy.cuh (the copy kernel) and
 *   static size_t pm_kc_bytes_NAME(sizes)
 *       the workspace bytes of the copies at these sizes;
 *   static cudaError_t pm_kc_run_NAME(&X, ..., sizes, pm_at, stream)
 *       writes each copy at pm_at (in the workspace, 16-byte aligned), one
 *       after the other, and points the operand X at its copy;
 * launch.c calls them before the kernels and gives the copies their room
 * in the workspace, after the split's (pm_rt_copy_offset). */
#ifndef PM_EMIT_KCOPY_H
#define PM_EMIT_KCOPY_H

#include "emit/frame.h"

/* The number of tensors k reads as K-major copies. */
int pm_emit_kcopies(const struct pm_kernel *k);
/* pm_kc_bytes_NAME and pm_kc_run_NAME (nothing where k has no copies). */
void pm_emit_kcopy_fns(struct pm_kernel *k, struct pm_strbuf *b);
/* "if ((e = pm_kc_run_NAME(&X, ..., sizes, (char *) workspace + OFF,
 * stream)) != cudaSuccess) return e;" indented by ind, off the offset
 * expression; needs a cudaError_t e. */
void pm_emit_kcopy_call(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind, const char *off);

#endif

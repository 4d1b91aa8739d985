/* Launcher-applied prologues: the spec the kernels of a row see whose
 * operand prologues the launcher applies into copies in the workspace
 * (docs/decisions/0059-launcher-applied-prologues.md).
 *
 *   C(i, j) +=! A(i, k) * (Bq(k, j) - z(j))    (the kernels' spec, Bq i8)
 *   P(k, j)  =  f16(Bq(k, j) - z(j))           (the launcher, per launch)
 *   C(i, j) +=! A(i, k) * Bq(k, j)             (the row's: Bq f16, pre)
 *
 * An operand whose prologue runs in shared memory (it reads other
 * tensors, 0039, or widens i8, 0047) has no TMA copies, so no persistent
 * row on sm_90a. Read from the launcher's copy (P, of the type the MMA
 * multiplies, the operand's dims and layout) it has both. The tensor
 * keeps its index and name in the row's spec; its type is the copy's and
 * `pre` is set; the operand's read is plain (its prologue gone).
 * The copy's value is the shared-memory pass's: the stored element to
 * fp32, the prologue in fp32, rounded once to the MMA's type.
 * A batched operand's copy (pm_tensor.batch: of a batched or grouped
 * spec) is every batch's, slices laid out as the operand's.
 * Refused (the rows are not built): epilogue reductions, K-major copies,
 * an operand read anywhere else too, a grouped spec's row operand.
 */
#ifndef PM_VARIANT_PRE_H
#define PM_VARIANT_PRE_H

#include "frontend/diag.h"
#include "frontend/frontend.h"

/* The contraction statement *stmt and the side *arg (0, 1) of its
 * product whose operand read is of tensor t: 0, or -1 where there is
 * none. */
int pm_pre_operand(const struct pm_spec *spec, int t, int *stmt, int *arg);
/* The type of tensor t's copy: its partner operand's where the two
 * differ (t is widened), else its own. */
enum pm_type pm_pre_type(const struct pm_spec *spec, int t);
/* Why the npre tensors pre[] of spec cannot be read as copies, or NULL. */
const char *pm_pre_refused(const struct pm_spec *spec, const int *pre,
	int npre);
/* *out the spec the row's kernels see (free with pm_spec_free). Returns
 * 0, or -1 with a diagnostic in d. */
int pm_pre_spec(const struct pm_spec *spec, const int *pre, int npre,
	struct pm_spec **out, struct pm_diags *d);

#endif

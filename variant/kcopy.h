/* K-major copies of operands the tensor cores read only K-major
 * (docs/decisions/0033-kmajor-copies.md).
 *
 * The target's operand row says which types its MMA reads only K-major
 * (struct pm_operand_row, k_major: wgmma's 8-bit operands). An input of
 * such a type of 1-byte elements that every read of which is MN-major, a
 * contraction's X(k, i) or Y(k, j) of X (K, M), Y (K, N), is given to the
 * kernels as the K-major copy the launcher writes before them: the spec
 * the kernels see declares it X (M, K) read X(i, k) (dims and indices
 * reversed, pm_tensor.kcopy set), and every pass, the launch plan and the
 * printers treat it as the user's K-major operand; emit/ prints the copy
 * (the transposition kernel, its workspace, the operand's rows padded to
 * 16 bytes) and the entry points take the user's tensor as declared.
 */
#ifndef PM_VARIANT_KCOPY_H
#define PM_VARIANT_KCOPY_H

#include "frontend/frontend.h"
#include "target/target.h"

/* The spec the kernels of spec see on target tg: *out a new spec (free
 * with pm_spec_free) with the copies, or NULL where no operand needs one.
 * Returns 0, or -1 (out of memory). */
int pm_kcopy_spec(const struct pm_spec *spec, const struct pm_target *tg,
	struct pm_spec **out);

#endif

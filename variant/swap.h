/* Swapped rows: the spec the kernels of a row with the operands swapped
 * see (docs/decisions/0057-swapped-skinny-row.md).
 *
 *   C(i, j) +=! A(i, k) * B(k, j)          (the user's, C (M, N))
 *   C(j, i) +=! A(i, k) * B(k, j)          (what the kernels see, C (N, M)
 *                                           stored as the user's: tposed)
 *
 * The kernels put the output's first index on the MMA's rows, so a
 * kernel of this spec runs B's columns (N) on wgmma's 64-row side and the
 * tokens (M) on its n = 8..256 side: decode's few rows fill a 16-wide
 * tile instead of 48 zero rows of a 64-row one. Every non-input tensor of
 * rank 2 gets its dimensions and every access to it its two indices
 * swapped, pm_tensor.tposed set: its storage stays the user's (the
 * kernel's dimension 0 is contiguous, pm_tensor_contig), so the printers
 * address it with the strides pm_print_stride gives and store it without
 * staging. Each statement writing one has its variables 0 and 1
 * exchanged, so that its left-hand side stays variables 0, 1.
 * Refused (the row is not built): batched or grouped specs, K-major
 * copies, epilogue reductions, outputs of a rank other than 2.
 */
#ifndef PM_VARIANT_SWAP_H
#define PM_VARIANT_SWAP_H

#include "frontend/frontend.h"

/* *out the spec the kernels of a swapped row see (free with
 * pm_spec_free). Returns 0, or -1 with a diagnostic in d (a refused
 * spec, or out of memory). */
int pm_swap_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d);

#endif

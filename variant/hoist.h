/* Factors of a contraction's operand that do not vary along k, moved to
 * the epilogue (docs/decisions/0044-hoisted-scale-factors.md).
 *
 * In `C(i, j) +=! A(i, k) * (B(k, j) * s(j))` the factor s(j) multiplies
 * every term of C(i, j)'s sum: sum_k A(i, k) B(k, j) s(j) = s(j) sum_k
 * A(i, k) B(k, j). The spec the kernels see computes the plain product
 * into a temporary and scales it in the epilogue:
 *
 *     T(i, j) +=! A(i, k) * B(k, j)
 *     C(i, j)  =  T(i, j) * s(j)
 *
 * so the operand tiles are copied as they are (TMA on sm_90a, no pass
 * over shared memory, no barrier for it) and the factor is read once per
 * output element instead of once per k step. A factor is a multiplicand
 * (or divisor) at the top of an operand's product chain whose reads are
 * all inputs indexed by the statement's output indices only (s(j), r(i),
 * a scalar g, a number) of a type an epilogue reads (f16, bf16, f32),
 * moved where the operand's plain read is what stays (its copies then
 * need no prologue); (B(k, j) - z(j)) * s(j) stays a prologue whole. A
 * factor indexed by the other operand's index, (A(i, k) * s(j)) *
 * B(k, j), moves as well.
 * One contraction of floating-point operands (f16, bf16, fp8); an integer
 * operand's prologue is not rewritten. The one rounding the prologue's
 * result took to the operand type is not taken: the hoisted form is the
 * exact product's rounding, as the reference (frontend/eval.c) computes
 * it.
 */
#ifndef PM_VARIANT_HOIST_H
#define PM_VARIANT_HOIST_H

#include "frontend/diag.h"
#include "frontend/frontend.h"

/* The spec the kernels of spec see: *out a new spec (free with
 * pm_spec_free) with the factors in the epilogue, or NULL where there is
 * none to move. Returns 0, or -1 (out of memory, a diagnostic). */
int pm_hoist_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d);

#endif

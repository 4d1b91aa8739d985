/* frontend/eval — the language's reference semantics, on host buffers.
 *
 * Contract:
 *   pm_spec_eval(spec, sizes, bufs) -> PM_EVAL_OK | error
 *     sizes[s]  the value of spec->syms[s] (>= 1), every symbol;
 *     bufs[t]   tensor t's storage for the inputs and outputs (temporaries:
 *               ignored, may be NULL), dense and row-major in the declared
 *               index order, in the declared type: f16 and bf16 as their
 *               16-bit patterns (uint16_t), f32 float, i8 int8_t, i32
 *               int32_t.
 *   Every tensor is held in double; inputs are read exactly; outputs start
 *   from their buffers (so `+=` accumulates into them), temporaries at 0.
 *   The statements run in program order, each over its whole domain
 *   { S[lhs vars, reduction vars] : 0 <= v < extent(v) }, its right side
 *   reading the values from before the statement:
 *     T +=! e :  T[lhs] = sum over the reduction vars of e;
 *     T +=  e :  T[lhs] = T[lhs] + sum of e;
 *     T  =  e :  T[lhs] = e.
 *   A grouped statement (`group e by offs` and the statements after it):
 *   each row (lhs variable 0) of group e, [offs(e - 1), offs(e)) clamped
 *   to the rows, with the group index e; rows of no group keep their
 *   value (a product summed over each run of one group's rows).
 *   Sums run in lexicographic order of the reduction vars, in double; the
 *   functions are the generator's (gelu: the tanh form). Outputs are
 *   converted to their type once, after the last statement (the
 *   generator's "converted once, at the end of the fused chain"): f16 and
 *   bf16 round to nearest even (overflow to infinity, NaN kept), f32 by
 *   the C cast, integers round to nearest even and saturate to the type.
 *   A reference for checking generated kernels (a tolerance covers the
 *   kernels' fp32 pointwise work); exact for integer data.
 *
 * Cost: a contraction whose right side is a product of two factors is a
 * strided multiply-add loop over its domain (the factors evaluated once
 * over their own variables); any other statement walks its expression at
 * every point of its domain.
 */
#ifndef PM_FRONTEND_EVAL_H
#define PM_FRONTEND_EVAL_H

#include <stdint.h>

#include "frontend/frontend.h"

enum pm_eval_status {
	PM_EVAL_OK = 0,
	PM_EVAL_SIZE,		/* a size < 1, or a tensor past 2^40 elements */
	PM_EVAL_NOMEM,		/* out of memory */
	PM_EVAL_NULL		/* a NULL spec, sizes or input/output buffer */
};

enum pm_eval_status pm_spec_eval(const struct pm_spec *spec,
	const int64_t *sizes, void *const *bufs);

/* A pointwise expression (no reductions) with every tensor read x, as the
 * reference computes it (a prologue's value at a zero-filled element). */
double pm_eval_pointwise(const struct pm_expr *e, double x);

/* Conversions of the reference (also for checkers): a double to the
 * storage of type t at p, and back. */
void pm_eval_store(enum pm_type t, void *p, int64_t i, double x);
double pm_eval_load(enum pm_type t, const void *p, int64_t i);

#endif

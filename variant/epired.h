/* Epilogue reductions in the spec the kernels see
 * (docs/decisions/0037-epilogue-reductions.md).
 *
 * `S(i) +=! D(i, j) * D(i, j)`, `R(i) max=! D(i, j)`, `S(j) +=! C(i, j)`,
 * `a max=! abs(D(i, j))`: a reduction of the chain's last result D (in
 * the accumulator registers after the epilogue) along one or both output
 * dimensions. The kernels' spec holds it past its statements
 * (stmts[nstmts], spec->nepired 1), its reads renumbered so that variable
 * 0 is the output's row i and 1 its column j (the epilogue's numbering),
 * so that no pass sees it; emit/epired.c prints it beside the store: the
 * per-thread partials, the warp's shuffles, the block's shared memory and
 * the deterministic combine of the blocks through the workspace.
 */
#ifndef PM_VARIANT_EPIRED_H
#define PM_VARIANT_EPIRED_H

#include "frontend/diag.h"
#include "frontend/frontend.h"

/* The spec the kernels of spec see: *out a new spec (free with
 * pm_spec_free) without its epilogue reduction, which it keeps past its
 * statements, or NULL where spec has none. Returns 0, or -1 with a
 * diagnostic (a form not generated: unsupported; out of memory). */
int pm_epired_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d);

/* What the kernels' spec reduces (spec->nepired 1): the statement, the
 * output dimension it keeps (0 rows: S(i); 1 columns: S(j); 2 none: a
 * scalar). NULL where it has none. */
const struct pm_stmt *pm_epired_stmt(const struct pm_spec *spec);
int pm_epired_kept(const struct pm_spec *spec);

#endif

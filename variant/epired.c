/* The spec the kernels see without its epilogue reduction (epired.h,
 * docs/decisions/0037-epilogue-reductions.md). */
#include <stdlib.h>

#include "variant/epired.h"

/* The first read in e of tensor t, or NULL. */
static const struct pm_expr *first_read(const struct pm_expr *e, int t)
{
	if (e->kind == PM_E_READ)
		return e->tensor == t ? e : NULL;
	for (int i = 0; i < e->nargs; ++i) {
		const struct pm_expr *r = first_read(e->args[i], t);

		if (r)
			return r;
	}
	return NULL;
}

/* Is every read of e the chain tensor read as `ref` or an input; its
 * reads' variables renumbered by map (statement variable -> 0 i, 1 j)?
 * *bad: the read that is not. */
static int renumber(const struct pm_spec *spec, struct pm_expr *e, int chain,
	const struct pm_expr *ref, const int *map, const struct pm_expr **bad)
{
	if (e->kind == PM_E_READ) {
		if (e->tensor == chain) {
			for (int d = 0; d < 2; ++d)
				if (e->nidx != 2 || e->idx[d] != ref->idx[d])
					return *bad = e, 0;
		} else if (spec->tensors[e->tensor].role != PM_INPUT) {
			return *bad = e, 0;
		}
		for (int d = 0; d < e->nidx; ++d)
			e->idx[d] = map[e->idx[d]];
		return 1;
	}
	for (int i = 0; i < e->nargs; ++i)
		if (!renumber(spec, e->args[i], chain, ref, map, bad))
			return 0;
	return 1;
}

static int refuse(struct pm_diags *d, struct pm_loc loc, const char *what)
{
	pm_diag_unsupported(d, loc, "%s (docs/decisions/0037-epilogue-"
		"reductions.md)", what);
	return -1;
}

/* Statement f of k (a copy), the first epilogue reduction: is it one the
 * kernels compute?  Renumbers its reads (epired.h). */
static int check_red(struct pm_spec *k, int f, struct pm_diags *d)
{
	struct pm_stmt *st = &k->stmts[f];
	int chain = k->stmts[f - 1].lhs, map[PM_MAX_VARS];
	const struct pm_expr *ref = first_read(st->rhs, chain), *bad = NULL;

	if (f + 1 < k->nstmts)
		return refuse(d, k->stmts[f + 1].loc, pm_stmt_is_epi_reduction(
			k, f + 1) ? "one epilogue reduction per kernel for now" :
			"a statement after an epilogue reduction");
	if (k->tensors[chain].role != PM_OUTPUT)
		return refuse(d, st->loc, "an epilogue reduction reads the "
			"kernel's stored result; the one it reduces is a "
			"temporary (declare it an output)");
	if (!ref || k->tensors[chain].rank != 2 || ref->nidx != 2 ||
	    ref->idx[0] == ref->idx[1] || st->nvars != 2)
		return refuse(d, st->loc, "an epilogue reduction reads the "
			"previous statement's result at (i, j) and reduces it "
			"along i, j or both");
	for (int v = 0; v < PM_MAX_VARS; ++v)
		map[v] = 0;
	map[ref->idx[0]] = 0;
	map[ref->idx[1]] = 1;
	/* the statement's variable 0 is its output's index, if any */
	k->epired_kept = st->nlhs ? map[0] : 2;
	if (!renumber(k, st->rhs, chain, ref, map, &bad))
		return refuse(d, bad ? bad->loc : st->loc, "an epilogue "
			"reduction may read the previous statement's result at "
			"(i, j) and inputs");
	return 0;
}

int pm_epired_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d)
{
	struct pm_spec *k;
	int f = -1;

	*out = NULL;
	for (int s = spec->nstmts - 1; s > 0; --s)
		if (pm_stmt_is_epi_reduction(spec, s))
			f = s;
	if (f < 0)
		return 0;
	if (!(k = pm_spec_copy(spec))) {
		pm_diag_internal(d, "out of memory");
		return -1;
	}
	if (check_red(k, f, d) < 0) {
		pm_spec_free(k);
		return -1;
	}
	k->nstmts = f;
	k->nepired = 1;
	*out = k;
	return 0;
}

const struct pm_stmt *pm_epired_stmt(const struct pm_spec *spec)
{
	return spec->nepired ? &spec->stmts[spec->nstmts] : NULL;
}

int pm_epired_kept(const struct pm_spec *spec)
{
	return spec->epired_kept;
}

/* The spec the kernels of a swapped row see (swap.h,
 * docs/decisions/0057-swapped-skinny-row.md). */
#include <stdlib.h>

#include "variant/swap.h"

/* Exchange variables 0 and 1 everywhere in e, then swap the two indices
 * of every access to a transposed tensor. */
static void swap_expr(const struct pm_spec *spec, struct pm_expr *e,
	int vars)
{
	if (e->kind == PM_E_READ) {
		for (int i = 0; vars && i < e->nidx; ++i)
			if (e->idx[i] == 0 || e->idx[i] == 1)
				e->idx[i] = 1 - e->idx[i];
		if (spec->tensors[e->tensor].tposed) {
			int i0 = e->idx[0];

			e->idx[0] = e->idx[1];
			e->idx[1] = i0;
		}
	}
	for (int i = 0; i < e->nargs; ++i)
		swap_expr(spec, e->args[i], vars);
}

/* Why spec has no swapped row, or NULL. */
static const char *refused(const struct pm_spec *spec)
{
	if (spec->nbatch || spec->grouped)
		return "a batched or grouped spec";
	if (spec->nepired)
		return "an epilogue reduction";
	for (int t = 0; t < spec->ntensors; ++t) {
		const struct pm_tensor *x = &spec->tensors[t];

		if (x->kcopy)
			return "K-major copies of operands";
		if (x->role != PM_INPUT && x->rank != 2)
			return "an output not of rank 2";
	}
	for (int s = 0; s < spec->nstmts; ++s)
		if (spec->stmts[s].nlhs != 2)
			return "a statement not of rank 2";
	return NULL;
}

int pm_swap_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d)
{
	const char *why = refused(spec);
	struct pm_spec *k;

	*out = NULL;
	if (why) {
		pm_diag_plain(d, "no swapped row: %s", why);
		return -1;
	}
	if (!(k = pm_spec_copy(spec))) {
		pm_diag_internal(d, "out of memory");
		return -1;
	}
	for (int t = 0; t < k->ntensors; ++t) {
		struct pm_tensor *x = &k->tensors[t];
		struct pm_dim d0 = x->dims[0];

		if (x->role == PM_INPUT)
			continue;
		x->dims[0] = x->dims[1];
		x->dims[1] = d0;
		x->tposed = 1;
	}
	for (int s = 0; s < k->nstmts; ++s) {
		struct pm_stmt *st = &k->stmts[s];
		char *v0 = st->vars[0];

		st->vars[0] = st->vars[1];
		st->vars[1] = v0;
		swap_expr(k, st->rhs, 1);
	}
	*out = k;
	return 0;
}

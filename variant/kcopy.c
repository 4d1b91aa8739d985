/* The spec the kernels see: K-major copies (kcopy.h,
 * docs/decisions/0033-kmajor-copies.md). */
#include <stdlib.h>

#include "variant/kcopy.h"

/* Is read r of statement st MN-major, (k, i) or (k, j) of a contraction
 * over one k: 1; K-major (i, k) or (j, k): 0; anything else -1 (the
 * kernel's recognition says why it is refused). */
static int mn_major(const struct pm_stmt *st, const struct pm_expr *r)
{
	const int k = st->nlhs;

	if (st->kind != PM_S_REDUCE || st->nlhs != 2 || pm_stmt_nred(st) != 1 ||
	    r->nidx != 2)
		return -1;
	if (r->idx[0] == k && r->idx[1] < k)
		return 1;
	if (r->idx[1] == k && r->idx[0] < k)
		return 0;
	return -1;
}

/* Over the reads of tensor t in e: *mn counts the MN-major ones, *other
 * the rest. */
static void count_reads(const struct pm_stmt *st, const struct pm_expr *e,
	int t, int *mn, int *other)
{
	if (e->kind == PM_E_READ && e->tensor == t) {
		if (mn_major(st, e) == 1)
			++*mn;
		else
			++*other;
	}
	for (int i = 0; i < e->nargs; ++i)
		count_reads(st, e->args[i], t, mn, other);
}

/* The tensor of e's first read of two indices or more, or -1. */
static int matrix_read(const struct pm_expr *e)
{
	int r = -1;

	if (e->kind == PM_E_READ)
		return e->nidx >= 2 ? e->tensor : -1;
	for (int i = 0; i < e->nargs && r < 0; ++i)
		r = matrix_read(e->args[i]);
	return r;
}

/* Reverse the indices of every read of tensor t in e. */
static void reverse_reads(struct pm_expr *e, int t)
{
	if (e->kind == PM_E_READ && e->tensor == t) {
		int i0 = e->idx[0];

		e->idx[0] = e->idx[1];
		e->idx[1] = i0;
	}
	for (int i = 0; i < e->nargs; ++i)
		reverse_reads(e->args[i], t);
}

/* Is t an operand of a contraction whose other operand is of another
 * type (an operand widened on the way, docs/decisions/0047: its MMA reads
 * the widened tile, of the other's row)? */
static int mixed_read(const struct pm_spec *spec, int t)
{
	for (int s = 0; s < spec->nstmts; ++s) {
		const struct pm_expr *e = spec->stmts[s].rhs;
		int u[2] = { -1, -1 };

		if (spec->stmts[s].kind != PM_S_REDUCE || e->kind != PM_E_BIN ||
		    e->op != '*')
			continue;
		for (int i = 0; i < 2; ++i)
			u[i] = matrix_read(e->args[i]);
		if ((u[0] == t || u[1] == t) && u[0] >= 0 && u[1] >= 0 &&
		    spec->tensors[u[0]].type != spec->tensors[u[1]].type)
			return 1;
	}
	return 0;
}

/* Does input t need a K-major copy on tg? */
static int needs_copy(const struct pm_spec *spec, const struct pm_target *tg,
	int t)
{
	const struct pm_tensor *x = &spec->tensors[t];
	const struct pm_operand_row *row = pm_target_operand(tg, x->type);
	int mn = 0, other = 0;

	/* the copy kernel moves bytes (runtime/device/kcopy.cuh) */
	if (x->role != PM_INPUT || x->rank != 2 || !row || !row->k_major ||
	    mixed_read(spec, t) ||
	    !row->elem || row->elem->bytes != 1)
		return 0;
	for (int s = 0; s < spec->nstmts; ++s)
		count_reads(&spec->stmts[s], spec->stmts[s].rhs, t, &mn, &other);
	/* read in both layouts: no copy (kernel.c refuses the other read) */
	return mn > 0 && !other;
}

int pm_kcopy_spec(const struct pm_spec *spec, const struct pm_target *tg,
	struct pm_spec **out)
{
	struct pm_spec *k = NULL;

	*out = NULL;
	for (int t = 0; t < spec->ntensors; ++t) {
		struct pm_tensor *x;
		struct pm_dim d0;

		if (!needs_copy(spec, tg, t))
			continue;
		if (!k && !(k = pm_spec_copy(spec)))
			return -1;
		x = &k->tensors[t];
		d0 = x->dims[0];
		x->dims[0] = x->dims[1];
		x->dims[1] = d0;
		x->kcopy = 1;
		for (int s = 0; s < k->nstmts; ++s)
			reverse_reads(k->stmts[s].rhs, t);
	}
	*out = k;
	return 0;
}

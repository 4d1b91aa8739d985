/* The spec the kernels see of a batched spec (batch.h,
 * docs/decisions/0036-batched-grid-z.md). */
#include <stdlib.h>
#include <string.h>

#include "variant/batch.h"

/* The batch indices of read r (variables 0 .. nb - 1 of its statement):
 * nb when they lead it in order, 0 when it has none; -1 (a diagnostic)
 * otherwise. */
static int read_prefix(const struct pm_spec *spec, const struct pm_stmt *st,
	const struct pm_expr *r, int nb, struct pm_diags *d)
{
	const char *name = spec->tensors[r->tensor].name;
	int n = 0;

	for (int i = 0; i < r->nidx; ++i)
		n += r->idx[i] < nb;
	if (!n)
		return 0;
	if (n < nb) {
		pm_diag_unsupported(d, r->loc, "'%s' has some of the batch "
			"indices; a tensor is read per batch (every batch "
			"index, leading) or shared by every batch (none)",
			name);
		return -1;
	}
	for (int i = 0; i < nb; ++i)
		if (r->idx[i] != i) {
			pm_diag_unsupported(d, r->loc, "the batch index '%s' "
				"(a leading index of the output) is not "
				"index %d of '%s' (batch dimensions lead every "
				"tensor that has them, in the output's order)",
				st->vars[i], i + 1, name);
			return -1;
		}
	return nb;
}

/* Check every read of e and record per tensor how it is read (1 per
 * batch, 2 shared) in how[]. */
static int check_reads(const struct pm_spec *spec, const struct pm_stmt *st,
	const struct pm_expr *e, int nb, int *how, struct pm_diags *d)
{
	if (e->kind == PM_E_READ) {
		int p = read_prefix(spec, st, e, nb, d), h;

		if (p < 0)
			return -1;
		h = p ? 1 : 2;
		if (how[e->tensor] && how[e->tensor] != h) {
			pm_diag_unsupported(d, e->loc, "'%s' is read both per "
				"batch and shared by every batch",
				spec->tensors[e->tensor].name);
			return -1;
		}
		how[e->tensor] = h;
		return 0;
	}
	for (int i = 0; i < e->nargs; ++i)
		if (check_reads(spec, st, e->args[i], nb, how, d) < 0)
			return -1;
	return 0;
}

/* Drop the batch indices of the reads of batched tensors in e, renumber
 * the others. */
static void drop_reads(struct pm_expr *e, const struct pm_spec *k, int nb)
{
	if (e->kind == PM_E_READ) {
		int p = k->tensors[e->tensor].batch ? nb : 0;

		for (int i = p; i < e->nidx; ++i)
			e->idx[i - p] = e->idx[i] - nb;
		e->nidx -= p;
	}
	for (int i = 0; i < e->nargs; ++i)
		drop_reads(e->args[i], k, nb);
}

/* One batch's slice: the batched tensors' leading dimensions and the
 * statements' batch indices dropped. */
static void drop(struct pm_spec *k, int nb, const int *how)
{
	for (int t = 0; t < k->ntensors; ++t) {
		struct pm_tensor *x = &k->tensors[t];

		if (how[t] != 1)
			continue;
		x->batch = 1;
		memmove(x->dims, x->dims + nb, sizeof(x->dims[0]) *
			(size_t) (x->rank - nb));
		x->rank -= nb;
	}
	for (int s = 0; s < k->nstmts; ++s) {
		struct pm_stmt *st = &k->stmts[s];

		for (int v = 0; v < nb; ++v)
			free(st->vars[v]);
		memmove(st->vars, st->vars + nb, sizeof(st->vars[0]) *
			(size_t) (st->nvars - nb));
		st->nvars -= nb;
		st->nlhs -= nb;
		drop_reads(st->rhs, k, nb);
	}
}

int pm_batch_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d)
{
	int nb = spec->nstmts ? spec->stmts[0].nlhs - 2 : 0;
	int how[PM_LIMIT_TENSORS + 1] = { 0 };
	const struct pm_tensor *c;
	struct pm_spec *k;

	*out = NULL;
	/* statements of other ranks: the scop refuses them */
	for (int s = 0; s < spec->nstmts; ++s)
		if (spec->stmts[s].nlhs != nb + 2)
			nb = 0;
	if (nb <= 0 || spec->ntensors > PM_LIMIT_TENSORS)
		return 0;
	for (int s = 0; s < spec->nstmts; ++s) {
		const struct pm_stmt *st = &spec->stmts[s];

		/* the left-hand side: batch indices first (the statement's
		 * variables 0 .. nb - 1) */
		how[st->lhs] = 1;
		if (check_reads(spec, st, st->rhs, nb, how, d) < 0)
			return -1;
	}
	c = &spec->tensors[spec->stmts[0].lhs];
	k = pm_spec_copy(spec);
	if (!k) {
		pm_diag_internal(d, "out of memory");
		return -1;
	}
	k->nbatch = nb;
	memcpy(k->bdims, c->dims, sizeof(c->dims[0]) * (size_t) nb);
	drop(k, nb, how);
	*out = k;
	return 0;
}

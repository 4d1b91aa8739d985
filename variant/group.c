/* The spec the kernels see of a grouped spec (group.h,
 * docs/decisions/0045-grouped-contractions.md). */
#include <stdlib.h>
#include <string.h>

#include "variant/group.h"

struct gv {
	const struct pm_spec *spec;
	int rows;			/* the rows' size symbol */
	int how[PM_LIMIT_TENSORS + 1];	/* 1 per group, 2 shared */
	struct pm_diags *d;
};

/* Read r of statement st (group index g): per group (the group index
 * first) or shared, the rows only as dimension 0 of a shared tensor read
 * with the rows index (variable 0). */
static int check_read(struct gv *v, const struct pm_stmt *st,
	const struct pm_expr *r)
{
	const struct pm_tensor *t = &v->spec->tensors[r->tensor];
	int g = st->nvars, per = r->nidx > 0 && r->idx[0] == g, h = per ? 1 : 2;

	for (int i = 0; i < r->nidx; ++i) {
		int row = r->idx[i] == 0, ext = t->dims[i].sym == v->rows;

		if (row == ext && (!row || (i == 0 && !per)))
			continue;
		pm_diag_unsupported(v->d, r->loc, "'%s': a grouped "
			"contraction reads its rows ('%s', extent '%s') as "
			"dimension 1 of tensors without the group index, and "
			"the rows' extent nowhere else", t->name, st->vars[0],
			v->spec->syms[v->rows].name);
		return -1;
	}
	if (v->how[r->tensor] && v->how[r->tensor] != h) {
		pm_diag_unsupported(v->d, r->loc, "'%s' is read both per group "
			"and shared by every group", t->name);
		return -1;
	}
	v->how[r->tensor] = h;
	return 0;
}

static int check_expr(struct gv *v, const struct pm_stmt *st,
	const struct pm_expr *e)
{
	if (e->kind == PM_E_READ)
		return check_read(v, st, e);
	for (int i = 0; i < e->nargs; ++i)
		if (check_expr(v, st, e->args[i]) < 0)
			return -1;
	return 0;
}

/* Every statement grouped, writing a matrix (rows, columns) whose rows
 * are the rows' symbol; every read as check_read says. */
static int check(struct gv *v)
{
	const struct pm_spec *spec = v->spec;

	for (int s = 0; s < spec->nstmts; ++s) {
		const struct pm_stmt *st = &spec->stmts[s];
		const struct pm_tensor *t = &spec->tensors[st->lhs];

		if (!st->grouped) {
			pm_diag_unsupported(v->d, st->loc, "a statement before "
				"the grouped contraction (a grouped spec's chain "
				"starts with it)");
			return -1;
		}
		if (st->nlhs != 2 || t->dims[0].sym != v->rows ||
		    t->dims[1].sym == v->rows) {
			pm_diag_unsupported(v->d, st->loc, "'%s': a grouped "
				"spec's statements write matrices (rows '%s', "
				"columns), no batch indices", t->name,
				spec->syms[v->rows].name);
			return -1;
		}
		v->how[st->lhs] = 2;
		if (check_expr(v, st, st->rhs) < 0)
			return -1;
	}
	return 0;
}

/* Drop the group index from the reads of per-group tensors. */
static void drop_reads(struct pm_expr *e, int g)
{
	if (e->kind == PM_E_READ && e->nidx > 0 && e->idx[0] == g) {
		memmove(e->idx, e->idx + 1, sizeof(e->idx[0]) *
			(size_t) (e->nidx - 1));
		e->nidx--;
	}
	for (int i = 0; i < e->nargs; ++i)
		drop_reads(e->args[i], g);
}

static void view(struct pm_spec *k, const struct gv *v)
{
	for (int t = 0; t < k->ntensors; ++t) {
		struct pm_tensor *x = &k->tensors[t];

		if (v->how[t] == 1) {
			x->batch = 1;
			memmove(x->dims, x->dims + 1, sizeof(x->dims[0]) *
				(size_t) (x->rank - 1));
			x->rank--;
		} else if (x->rank > 0 && x->dims[0].sym == v->rows) {
			x->grows = 1;
		}
	}
	for (int s = 0; s < k->nstmts; ++s) {
		struct pm_stmt *st = &k->stmts[s];

		drop_reads(st->rhs, st->nvars);
		free(st->vars[st->nvars]);
		st->vars[st->nvars] = NULL;
		st->grouped = 0;
	}
	k->nbatch = 1;
	k->bdims[0] = v->spec->tensors[v->spec->group_offs].dims[0];
	k->group_rows = v->rows;
}

int pm_group_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d)
{
	struct gv v = { .spec = spec, .d = d };
	const struct pm_dim *rows;
	struct pm_spec *k;

	*out = NULL;
	if (!spec->grouped || spec->ntensors > PM_LIMIT_TENSORS ||
	    !spec->nstmts)
		return 0;
	rows = &spec->tensors[spec->stmts[0].lhs].dims[0];
	if (spec->stmts[0].nlhs < 1 || rows->sym < 0) {
		pm_diag_unsupported(d, spec->stmts[0].loc, "the rows of a "
			"grouped contraction have a fixed extent; declare them "
			"with a size symbol");
		return -1;
	}
	v.rows = rows->sym;
	if (check(&v) < 0)
		return -1;
	k = pm_spec_copy(spec);
	if (!k) {
		pm_diag_internal(d, "out of memory");
		return -1;
	}
	view(k, &v);
	*out = k;
	return 0;
}

int pm_group_config(const struct pm_spec *g, struct pm_config *c,
	struct pm_diags *d)
{
	const char *rows = g->syms[g->group_rows].name;

	for (int i = 0; i < c->ndefines; ++i)
		if (!strcmp(c->defines[i].name, rows)) {
			pm_diag_unsupported(d, g->syms[g->group_rows].loc, "-D "
				"%s: the rows of a grouped contraction are each "
				"group's (docs/decisions/0045)", rows);
			return -1;
		}
	if (c->split_k > 1) {
		pm_diag_plain(d, "--split-k %d: a grouped spec's blocks run "
			"units (group, tile) and do not split k "
			"(docs/decisions/0045)", c->split_k);
		return -1;
	}
	if (c->cluster == 2) {
		pm_diag_plain(d, "--cluster 2: a grouped spec's copies are not "
			"multicast (docs/decisions/0045)");
		return -1;
	}
	c->split_k = 1;
	c->batched = 1;
	c->grouped = 1;
	return 0;
}

/* The spec the kernels of a row with launcher-applied prologues see
 * (pre.h, docs/decisions/0059-launcher-applied-prologues.md). */
#include <stdlib.h>

#include "schedule_tree/recognise.h"
#include "variant/pre.h"

/* The operand read of side e of a contraction's product. */
static const struct pm_expr *operand(const struct pm_expr *e)
{
	return e->kind == PM_E_READ ? e : pm_prologue_operand(e);
}

int pm_pre_operand(const struct pm_spec *spec, int t, int *stmt, int *arg)
{
	for (int s = 0; s < spec->nstmts; ++s) {
		const struct pm_expr *e = spec->stmts[s].rhs;

		if (spec->stmts[s].kind != PM_S_REDUCE || e->kind != PM_E_BIN ||
		    e->op != '*')
			continue;
		for (int a = 0; a < 2; ++a) {
			const struct pm_expr *x = operand(e->args[a]);

			if (x && x->tensor == t) {
				*stmt = s;
				*arg = a;
				return 0;
			}
		}
	}
	return -1;
}

enum pm_type pm_pre_type(const struct pm_spec *spec, int t)
{
	const struct pm_expr *y;
	int s, a;

	if (pm_pre_operand(spec, t, &s, &a) < 0 ||
	    !(y = operand(spec->stmts[s].rhs->args[1 - a])))
		return spec->tensors[t].type;
	return spec->tensors[y->tensor].type;
}

/* Reads of tensor t in e. */
static int reads(const struct pm_expr *e, int t)
{
	int n = e->kind == PM_E_READ && e->tensor == t;

	for (int i = 0; i < e->nargs; ++i)
		n += reads(e->args[i], t);
	return n;
}

const char *pm_pre_refused(const struct pm_spec *spec, const int *pre,
	int npre)
{
	if (spec->nepired)
		return "an epilogue reduction";
	for (int t = 0; t < spec->ntensors; ++t)
		if (spec->tensors[t].kcopy)
			return "K-major copies of operands";
	for (int i = 0; i < npre; ++i) {
		int n = 0, s, a;

		if (pre[i] < 0 || pre[i] >= spec->ntensors ||
		    pm_pre_operand(spec, pre[i], &s, &a) < 0)
			return "no operand to copy";
		for (int j = 0; j < spec->nstmts; ++j)
			n += reads(spec->stmts[j].rhs, pre[i]);
		if (n != 1)
			return "an operand with a prologue read elsewhere too";
		if (spec->tensors[pre[i]].rank != 2)
			return "an operand not of rank 2";
		if (spec->tensors[pre[i]].grows)
			return "an operand of a group's rows";
	}
	return NULL;
}

/* Side a of statement s's product becomes a plain read of its operand:
 * -1 out of memory. */
static int plain(struct pm_stmt *st, int a)
{
	const struct pm_expr *x = operand(st->rhs->args[a]);
	struct pm_expr *r;

	if (st->rhs->args[a] == x)
		return 0;
	if (!(r = malloc(sizeof(*r))))
		return -1;
	*r = *x;
	r->nargs = 0;
	r->args[0] = r->args[1] = NULL;
	pm_expr_free(st->rhs->args[a]);
	st->rhs->args[a] = r;
	return 0;
}

int pm_pre_spec(const struct pm_spec *spec, const int *pre, int npre,
	struct pm_spec **out, struct pm_diags *d)
{
	const char *why = pm_pre_refused(spec, pre, npre);
	struct pm_spec *k;
	enum pm_type type[8];

	*out = NULL;
	if (why || npre > 8) {
		pm_diag_plain(d, "no launcher-applied prologue: %s",
			why ? why : "too many operands");
		return -1;
	}
	if (!(k = pm_spec_copy(spec))) {
		pm_diag_internal(d, "out of memory");
		return -1;
	}
	/* the types first: a copy's partner may be copied too */
	for (int i = 0; i < npre; ++i)
		type[i] = pm_pre_type(spec, pre[i]);
	for (int i = 0; i < npre; ++i) {
		int s, a;

		(void) pm_pre_operand(k, pre[i], &s, &a);
		if (plain(&k->stmts[s], a) < 0) {
			pm_spec_free(k);
			pm_diag_internal(d, "out of memory");
			return -1;
		}
		k->tensors[pre[i]].type = type[i];
		k->tensors[pre[i]].pre = 1;
	}
	*out = k;
	return 0;
}

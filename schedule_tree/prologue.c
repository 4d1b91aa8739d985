/* Prologues that read other tensors: an operand expression's operand
 * read and its broadcast reads (schedule_tree/recognise.h;
 * docs/decisions/0039-dequant-prologues-and-contractions.md). */
#include "target/target.h"
#include "schedule_tree/recognise.h"

/* The reads of e: their number; the first max of them in r[]. */
static int collect_reads(const struct pm_expr *e, const struct pm_expr **r,
	int n, int max)
{
	if (e->kind == PM_E_READ) {
		if (n < max)
			r[n] = e;
		return n + 1;
	}
	for (int i = 0; i < e->nargs; ++i)
		n = collect_reads(e->args[i], r, n, max);
	return n;
}

const struct pm_expr *pm_prologue_operand(const struct pm_expr *e)
{
	const struct pm_expr *r[16], *x = NULL;
	int n = collect_reads(e, r, 0, 16);

	if (n < 1 || n > 16)
		return NULL;
	for (int i = 0; i < n; ++i) {
		if (r[i]->nidx < 2)
			continue;
		if (x)
			return NULL;
		x = r[i];
	}
	return x;
}

int pm_prologue_reads_other(const struct pm_expr *pro, int tensor)
{
	if (!pro)
		return 0;
	if (pro->kind == PM_E_READ)
		return pro->tensor != tensor;
	for (int i = 0; i < pro->nargs; ++i)
		if (pm_prologue_reads_other(pro->args[i], tensor))
			return 1;
	return 0;
}

/* pm_prologue_other_reads from n reads found: the new count. */
static int other_reads(const struct pm_expr *e, int tensor,
	const struct pm_expr **r, int n, int max)
{
	if (e->kind == PM_E_READ && e->tensor != tensor) {
		if (n < max)
			r[n] = e;
		return n + 1;
	}
	for (int i = 0; i < e->nargs; ++i)
		n = other_reads(e->args[i], tensor, r, n, max);
	return n;
}

int pm_prologue_other_reads(const struct pm_expr *pro, int tensor,
	const struct pm_expr **r, int max)
{
	return pro ? other_reads(pro, tensor, r, 0, max) : 0;
}

int pm_prologue_along(const struct pm_expr *pro, int tensor, int var)
{
	const struct pm_expr *r[PM_CONV_READS];
	int n = pm_prologue_other_reads(pro, tensor, r, PM_CONV_READS);

	if (n > PM_CONV_READS)
		return 0;
	for (int q = 0; q < n; ++q)
		for (int d = 0; d < r[q]->nidx; ++d)
			if (r[q]->idx[d] != var)
				return 0;
	return 1;
}

/* Does read x (the operand) index variable v? */
static int has_var(const struct pm_expr *x, int v)
{
	for (int d = 0; d < x->nidx; ++d)
		if (x->idx[d] == v)
			return 1;
	return 0;
}

/* The first broadcast read of pro (a read other than x) that a prologue
 * cannot read, with why; NULL when every one can. */
static const struct pm_expr *bad_read(const struct pm_spec *spec,
	const struct pm_expr *pro, const struct pm_expr *x, const char **why)
{
	if (pro->kind == PM_E_READ) {
		const struct pm_tensor *t = &spec->tensors[pro->tensor];

		if (pro == x)
			return NULL;
		if (t->role != PM_INPUT) {
			*why = "is not an input (a prologue reads the operand "
				"and input vectors or scalars)";
			return pro;
		}
		if (t->type != PM_F32 && !pm_elem_of(t->type)) {
			*why = "is not f16, bf16 or f32 (a prologue reads "
				"its inputs as floats)";
			return pro;
		}
		for (int d = 0; d < pro->nidx; ++d)
			if (!has_var(x, pro->idx[d])) {
				*why = "is indexed by a variable its operand "
					"does not have (a prologue reads elements "
					"at its operand element's indices)";
				return pro;
			}
		return NULL;
	}
	for (int i = 0; i < pro->nargs; ++i) {
		const struct pm_expr *r = bad_read(spec, pro->args[i], x, why);

		if (r)
			return r;
	}
	return NULL;
}

int pm_prologue_check(const struct pm_spec *spec, const struct pm_expr *pro,
	const struct pm_expr *x, struct pm_diags *d)
{
	const char *why = NULL;
	const struct pm_expr *r;

	if (!pro)
		return 0;
	r = bad_read(spec, pro, x, &why);
	if (!r)
		return 0;
	pm_diag_unsupported(d, r->loc, "the prologue of '%s' reads '%s', "
		"which %s", spec->tensors[x->tensor].name,
		spec->tensors[r->tensor].name, why);
	return -1;
}

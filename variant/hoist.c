#define _POSIX_C_SOURCE 200809L
/* Factors of a contraction's operand moved to the epilogue (hoist.h,
 * docs/decisions/0044-hoisted-scale-factors.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "variant/hoist.h"

#define MAX_FACTORS 8

/* Does e read a variable of the reduction (numbered n and above)? */
static int reads_reduction(const struct pm_expr *e, int n)
{
	if (e->kind == PM_E_READ) {
		for (int d = 0; d < e->nidx; ++d)
			if (e->idx[d] >= n)
				return 1;
		return 0;
	}
	for (int i = 0; i < e->nargs; ++i)
		if (reads_reduction(e->args[i], n))
			return 1;
	return 0;
}

/* Are e's reads all of inputs of a type an epilogue reads (f16, bf16,
 * f32)? */
static int reads_inputs(const struct pm_spec *spec, const struct pm_expr *e)
{
	if (e->kind == PM_E_READ) {
		const struct pm_tensor *t = &spec->tensors[e->tensor];

		return t->role == PM_INPUT && (t->type == PM_F16 ||
			t->type == PM_BF16 || t->type == PM_F32);
	}
	for (int i = 0; i < e->nargs; ++i)
		if (!reads_inputs(spec, e->args[i]))
			return 0;
	return 1;
}

/* A factor that can leave the sum: constant along k, reading inputs. */
static int factor(const struct pm_spec *spec, const struct pm_expr *e,
	int nlhs)
{
	return !reads_reduction(e, nlhs) && reads_inputs(spec, e);
}

struct factors {
	struct pm_expr *e[MAX_FACTORS];
	char op[MAX_FACTORS];	/* '*' or '/' */
	int n;
};

/* Of x * F, F * x or x / F (F a factor), the argument x; -1 where e is
 * none of them. */
static int kept(const struct pm_spec *spec, const struct pm_expr *e,
	int nlhs)
{
	if (e->kind != PM_E_BIN || (e->op != '*' && e->op != '/'))
		return -1;
	if (factor(spec, e->args[1], nlhs) && reads_reduction(e->args[0], nlhs))
		return 0;
	if (e->op == '*' && factor(spec, e->args[0], nlhs) &&
	    reads_reduction(e->args[1], nlhs))
		return 1;
	return -1;
}

/* Take the factors at the top of operand side *side (its product chain)
 * into f: x * F, F * x and x / F become x, F recorded; only where what
 * stays is the operand's plain read (then its copies need no prologue: a
 * prologue that stays, (B(k, j) - z(j)) * s(j), keeps its factors, whose
 * epilogue reads would only add registers). */
static void take(const struct pm_spec *spec, struct pm_expr **side, int nlhs,
	struct factors *f)
{
	struct pm_expr *e = *side;
	int n = 0, keep;

	for (const struct pm_expr *x = e; (keep = kept(spec, x, nlhs)) >= 0;
	     x = x->args[keep])
		if (x->args[keep]->kind == PM_E_READ)
			n = 1;
	if (!n)
		return;
	while ((keep = kept(spec, e, nlhs)) >= 0 && f->n < MAX_FACTORS) {
		f->e[f->n] = e->args[1 - keep];
		f->op[f->n++] = e->op;
		*side = e->args[keep];
		e->nargs = 0;
		free(e);
		e = *side;
	}
}

/* T(vars) * f1 / f2 ... : the epilogue statement's right side, T read at
 * the statement's output variables. */
static struct pm_expr *scaled(int t, int nlhs, struct pm_loc loc,
	struct factors *f)
{
	struct pm_expr *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->kind = PM_E_READ;
	r->loc = loc;
	r->tensor = t;
	r->nidx = nlhs;
	for (int d = 0; d < nlhs; ++d)
		r->idx[d] = d;
	for (int i = 0; i < f->n; ++i) {
		struct pm_expr *b = calloc(1, sizeof(*b));

		if (!b) {
			pm_expr_free(r);
			return NULL;
		}
		b->kind = PM_E_BIN;
		b->loc = f->e[i]->loc;
		b->op = f->op[i];
		b->nargs = 2;
		b->args[0] = r;
		b->args[1] = f->e[i];
		f->e[i] = NULL;
		r = b;
	}
	return r;
}

/* The contraction's temporary (its output's shape, the accumulation
 * type), appended to k's tensors: its index, or -1. */
static int add_temp(struct pm_spec *k, int out, enum pm_type acc)
{
	struct pm_tensor *t = realloc(k->tensors, sizeof(*t) *
		(size_t) (k->ntensors + 1));
	char name[80];

	if (!t)
		return -1;
	k->tensors = t;
	t = &k->tensors[k->ntensors];
	*t = k->tensors[out];
	snprintf(name, sizeof(name), "%s_unscaled", k->tensors[out].name);
	t->name = strdup(name);
	if (!t->name)
		return -1;
	t->role = PM_TEMP;
	t->type = acc;
	return k->ntensors++;
}

/* The statement C(vars) = T(vars) * factors after statement 0 of k. */
static int add_scale(struct pm_spec *k, int tmp, struct factors *f)
{
	struct pm_stmt *s = realloc(k->stmts, sizeof(*s) *
		(size_t) (k->nstmts + 1));
	struct pm_stmt *c, *n;

	if (!s)
		return -1;
	k->stmts = s;
	memmove(&s[2], &s[1], sizeof(*s) * (size_t) (k->nstmts - 1));
	k->nstmts++;
	c = &s[0], n = &s[1];
	memset(n, 0, sizeof(*n));
	n->kind = PM_S_ASSIGN;
	n->loc = c->loc;
	n->lhs = c->lhs;
	n->nlhs = n->nvars = c->nlhs;
	for (int v = 0; v < c->nlhs; ++v)
		if (!(n->vars[v] = strdup(c->vars[v])))
			return -1;
	c->lhs = tmp;
	n->rhs = scaled(tmp, c->nlhs, c->loc, f);
	return n->rhs ? 0 : -1;
}

/* The type of e's first read of two indices or more (an operand), or
 * -1. */
static int matrix_type(const struct pm_spec *spec, const struct pm_expr *e)
{
	int t = -1;

	if (e->kind == PM_E_READ)
		return e->nidx >= 2 ? (int) spec->tensors[e->tensor].type : -1;
	for (int i = 0; i < e->nargs && t < 0; ++i)
		t = matrix_type(spec, e->args[i]);
	return t;
}

/* Is statement 0 of spec one contraction whose operands may give up
 * factors: a sum of a product, floating-point operands, room in the
 * epilogue for one statement more? */
static int candidate(const struct pm_spec *spec)
{
	const struct pm_stmt *s = &spec->stmts[0];
	int n = 0, ta, tb;

	for (int i = 0; i < spec->nstmts; ++i)
		n += spec->stmts[i].kind == PM_S_REDUCE &&
			!pm_stmt_is_epi_reduction(spec, i);
	if (n != 1 || s->kind != PM_S_REDUCE || s->red != PM_RED_SUM ||
	    s->rhs->kind != PM_E_BIN || s->rhs->op != '*' ||
	    spec->nstmts > PM_LIMIT_EPILOGUE)
		return 0;
	/* f32 accumulators: not i8 x i8 (an i8 operand beside a 16-bit one
	 * is widened to it, docs/decisions/0047) */
	ta = matrix_type(spec, s->rhs->args[0]);
	tb = matrix_type(spec, s->rhs->args[1]);
	return ta >= 0 && tb >= 0 &&
		(pm_type_accum((enum pm_type) ta) == PM_F32 ||
		 pm_type_accum((enum pm_type) tb) == PM_F32);
}

int pm_hoist_spec(const struct pm_spec *spec, struct pm_spec **out,
	struct pm_diags *d)
{
	struct factors f = { .n = 0 };
	struct pm_spec *k;
	struct pm_stmt *s;
	int tmp;

	*out = NULL;
	if (spec->nstmts < 1 || spec->nepired || spec->nbatch ||
	    !candidate(spec))
		return 0;
	if (!(k = pm_spec_copy(spec)))
		goto oom;
	s = &k->stmts[0];
	for (int i = 0; i < 2; ++i)
		take(k, &s->rhs->args[i], s->nlhs, &f);
	if (!f.n) {
		pm_spec_free(k);
		return 0;
	}
	tmp = add_temp(k, s->lhs, PM_F32);
	if (tmp < 0 || add_scale(k, tmp, &f) < 0)
		goto oom;
	*out = k;
	return 0;
oom:
	for (int i = 0; i < f.n; ++i)
		pm_expr_free(f.e[i]);
	pm_spec_free(k);
	pm_diag_internal(d, "out of memory");
	return -1;
}

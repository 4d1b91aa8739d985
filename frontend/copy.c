/* A deep copy of a checked spec (frontend.h, pm_spec_copy). */
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

/* strdup, NULL for NULL; *bad set when a copy fails */
static char *dup(const char *s, int *bad)
{
	char *r;

	if (!s)
		return NULL;
	r = malloc(strlen(s) + 1);
	if (!r)
		*bad = 1;
	else
		strcpy(r, s);
	return r;
}

static struct pm_expr *expr_copy(const struct pm_expr *e, int *bad)
{
	struct pm_expr *r;

	if (!e)
		return NULL;
	r = malloc(sizeof(*r));
	if (!r) {
		*bad = 1;
		return NULL;
	}
	*r = *e;
	for (int i = 0; i < 2; ++i)
		r->args[i] = i < e->nargs ? expr_copy(e->args[i], bad) : NULL;
	return r;
}

struct pm_spec *pm_spec_copy(const struct pm_spec *s)
{
	struct pm_spec *r = calloc(1, sizeof(*r));
	int bad = 0;

	if (!r)
		return NULL;
	r->filename = dup(s->filename, &bad);
	r->text = dup(s->text, &bad);
	r->name = dup(s->name, &bad);
	r->syms = calloc((size_t) s->nsyms + 1, sizeof(*r->syms));
	r->tensors = calloc((size_t) s->ntensors + 1, sizeof(*r->tensors));
	r->stmts = calloc((size_t) (s->nstmts + s->nepired) + 1,
		sizeof(*r->stmts));
	if (!r->syms || !r->tensors || !r->stmts) {
		pm_spec_free(r);
		return NULL;
	}
	r->grouped = s->grouped;
	r->group_offs = s->group_offs;
	r->group_rows = s->group_rows;
	r->nbatch = s->nbatch;
	memcpy(r->bdims, s->bdims, sizeof(r->bdims));
	r->nsyms = s->nsyms;
	for (int i = 0; i < s->nsyms; ++i) {
		r->syms[i] = s->syms[i];
		r->syms[i].name = dup(s->syms[i].name, &bad);
	}
	r->ntensors = s->ntensors;
	for (int i = 0; i < s->ntensors; ++i) {
		r->tensors[i] = s->tensors[i];
		r->tensors[i].name = dup(s->tensors[i].name, &bad);
	}
	r->nstmts = s->nstmts;
	r->nepired = s->nepired;
	r->epired_kept = s->epired_kept;
	for (int i = 0; i < s->nstmts + s->nepired; ++i) {
		r->stmts[i] = s->stmts[i];
		for (int j = 0; j < s->stmts[i].nvars + s->stmts[i].grouped;
		     ++j)
			r->stmts[i].vars[j] = dup(s->stmts[i].vars[j], &bad);
		r->stmts[i].rhs = expr_copy(s->stmts[i].rhs, &bad);
	}
	if (bad) {
		pm_spec_free(r);
		return NULL;
	}
	return r;
}

/* Semantic checks: a syntax tree to the checked DAG (struct pm_spec).
 *
 * Declarations first (types, names, size symbols), then the statements in
 * program order: every name is resolved, every index variable numbered
 * (lhs variables, then reductions in order of first appearance) and given
 * the extent of the first dimension it indexes; later uses must agree.
 * Temporaries are created at their first write.
 */
#include <stdlib.h>
#include <string.h>

#include "frontend/lexer.h"

struct var {
	const char *name;	/* borrowed from the syntax tree */
	bool known, reported;
	struct pm_dim ext;
	int t, d;		/* where the extent was first seen */
	struct pm_loc loc;
};

struct sema {
	const struct pm_ast *ast;
	struct pm_spec *spec;
	struct pm_diags *diags;
	bool oom;
	bool full_syms, full_tensors;	/* a limit reported */
	bool *written, *bad;	/* per tensor */
	/* the current statement */
	enum pm_stmt_kind kind;
	int nvars;
	/* vars[PM_MAX_VARS]: the group index of a grouped chain (its extent
	 * the offsets'), read as variable PM_MAX_VARS until the statement's
	 * variables are numbered */
	struct var vars[PM_MAX_VARS + 1];
	bool has_int, has_float;
	/* the grouped chain: from the first `group e by offs` on */
	const char *gname;
	int goffs;
};

/* The group index's number while a statement is converted. */
#define GROUP_VAR PM_MAX_VARS

static char *dup(struct sema *S, const char *s)
{
	char *r = malloc(strlen(s) + 1);

	if (!r)
		S->oom = true;
	else
		strcpy(r, s);
	return r;
}

static int find_tensor(const struct pm_spec *spec, const char *name)
{
	int i;

	for (i = 0; i < spec->ntensors; i++)
		if (spec->tensors[i].name && !strcmp(spec->tensors[i].name, name))
			return i;
	return -1;
}

static int find_sym(const struct pm_spec *spec, const char *name)
{
	int i;

	for (i = 0; i < spec->nsyms; i++)
		if (!strcmp(spec->syms[i].name, name))
			return i;
	return -1;
}

static bool unknown_dim(struct pm_dim d)
{
	return d.sym < 0 && d.value <= 0;
}

static void dim_str(const struct pm_spec *spec, struct pm_dim d, char *buf,
	size_t size)
{
	if (d.sym >= 0)
		snprintf(buf, size, "%s", spec->syms[d.sym].name);
	else
		snprintf(buf, size, "%ld", d.value);
}

/* Names starting with pm_ belong to generated code (its locals, helpers
 * and the split-K parameters): refused for index variables, which never
 * reach the generated code otherwise. */
static void check_reserved(struct sema *S, const char *name,
	struct pm_loc loc)
{
	if (!strncmp(name, "pm_", 3))
		pm_diag_error(S->diags, loc, "'%s': names starting with 'pm_' "
			"are reserved for generated code", name);
}

/* Tensors, size symbols and the def become C identifiers of the generated
 * file: the names it or C, C++ and CUDA reserve are refused. */
static void check_c_name(struct sema *S, const char *name, struct pm_loc loc,
	bool def)
{
	const char *why = pm_reserved_name(name, def, false);

	if (why)
		pm_diag_error(S->diags, loc, "'%s': %s", name, why);
}

static int add_sym(struct sema *S, const char *name, struct pm_loc loc)
{
	struct pm_spec *spec = S->spec;
	int i = find_sym(spec, name);
	const char *why;

	if (i >= 0)
		return i;
	check_c_name(S, name, loc, false);
	if (!pm_reserved_name(name, false, false) &&
	    (why = pm_isl_keyword(name)))
		pm_diag_error(S->diags, loc, "'%s': %s", name, why);
	if (spec->nsyms == PM_LIMIT_SYMS) {
		if (!S->full_syms)
			pm_diag_error(S->diags, loc, "too many size symbols "
				"(at most %d)", PM_LIMIT_SYMS);
		S->full_syms = true;
		return -1;
	}
	/* syms is allocated for the worst case by check_decls */
	spec->syms[spec->nsyms].name = dup(S, name);
	spec->syms[spec->nsyms].loc = loc;
	if (!spec->syms[spec->nsyms].name)
		return -1;
	return spec->nsyms++;
}

static void check_decls(struct sema *S)
{
	const struct pm_ast *ast = S->ast;
	struct pm_spec *spec = S->spec;
	int i, j, nd = 0;

	check_c_name(S, ast->name, ast->loc, true);
	for (i = 0; i < ast->ndecls; i++)
		nd += ast->decls[i].rank;
	spec->syms = calloc((size_t)nd + 1, sizeof(*spec->syms));
	if (!spec->syms) {
		S->oom = true;
		return;
	}
	for (i = 0; i < ast->ndecls && !S->oom; i++) {
		const struct pm_ast_decl *d = &ast->decls[i];
		struct pm_tensor *t = &spec->tensors[spec->ntensors];
		int type = pm_type_from_name(d->type), prev;

		if (type < 0)
			pm_diag_error(S->diags, d->type_loc,
				"unknown type '%s' (expected f16, bf16, f32, f8e4m3, "
				"f8e5m2, i8 or i32)",
				d->type);
		if (pm_func_from_name(d->name) >= 0)
			pm_diag_error(S->diags, d->loc,
				"'%s' is a function name and cannot name a tensor",
				d->name);
		check_c_name(S, d->name, d->loc, false);
		prev = find_tensor(spec, d->name);
		if (prev >= 0) {
			pm_diag_error(S->diags, d->loc,
				"redefinition of tensor '%s'", d->name);
			pm_diag_note(S->diags, spec->tensors[prev].loc,
				"previous declaration of '%s' is here", d->name);
		}
		t->name = dup(S, d->name);
		t->type = type < 0 ? PM_F32 : (enum pm_type)type;
		t->role = d->output ? PM_OUTPUT : PM_INPUT;
		t->rank = d->rank;
		t->loc = d->loc;
		for (j = 0; j < d->rank; j++) {
			t->dims[j].sym = -1;
			t->dims[j].value = d->dim_val[j];
			if (d->dim_sym[j])
				t->dims[j].sym = add_sym(S, d->dim_sym[j],
					d->dim_loc[j]);
			else if (d->dim_val[j] <= 0)
				pm_diag_error(S->diags, d->dim_loc[j],
					"dimension %d of '%s' must be positive",
					j + 1, d->name);
		}
		spec->ntensors++;
	}
	for (i = 0; i < spec->ntensors && !S->oom; i++)
		if (find_sym(spec, spec->tensors[i].name) >= 0)
			pm_diag_error(S->diags, spec->tensors[i].loc,
				"'%s' names both a tensor and a size symbol",
				spec->tensors[i].name);
}

static int find_var(const struct sema *S, const char *name)
{
	int i;

	if (S->gname && !strcmp(S->gname, name))
		return GROUP_VAR;
	for (i = 0; i < S->nvars; i++)
		if (!strcmp(S->vars[i].name, name))
			return i;
	return -1;
}

static int add_var(struct sema *S, const char *name, struct pm_loc loc)
{
	struct var *v;

	if (S->nvars == PM_MAX_VARS) {
		pm_diag_error(S->diags, loc,
			"too many index variables in one statement (at most %d)",
			PM_MAX_VARS);
		return -1;
	}
	check_reserved(S, name, loc);
	v = &S->vars[S->nvars];
	memset(v, 0, sizeof(*v));
	v->name = name;
	return S->nvars++;
}

/* Variable v indexes dimension d of tensor t at loc: check its extent. */
static void use_var(struct sema *S, int v, int t, int d, struct pm_loc loc)
{
	const struct pm_spec *spec = S->spec;
	struct pm_dim dim = spec->tensors[t].dims[d];
	struct var *x = &S->vars[v];
	char a[64], b[64];

	if (unknown_dim(dim))
		return;
	if (!x->known) {
		x->known = true;
		x->ext = dim;
		x->t = t;
		x->d = d;
		x->loc = loc;
		return;
	}
	if (x->reported || (dim.sym == x->ext.sym &&
	    (dim.sym >= 0 || dim.value == x->ext.value)))
		return;
	x->reported = true;
	dim_str(spec, dim, a, sizeof(a));
	dim_str(spec, x->ext, b, sizeof(b));
	pm_diag_error(S->diags, loc,
		"index '%s' ranges over %s here (dimension %d of '%s') but over %s in '%s' (dimension %d)",
		x->name, a, d + 1, spec->tensors[t].name, b,
		spec->tensors[x->t].name, x->d + 1);
	pm_diag_note(S->diags, x->loc, "'%s' first ranges over %s here",
		x->name, b);
}

/* Is name written by some statement? */
static bool written_somewhere(const struct sema *S, const char *name)
{
	int i;

	for (i = 0; i < S->ast->nstmts; i++)
		if (!strcmp(S->ast->stmts[i].lhs->name, name))
			return true;
	return false;
}

static struct pm_expr *conv(struct sema *S, const struct pm_ast_expr *a);

static struct pm_expr *conv_read(struct sema *S, const struct pm_ast_expr *a,
	struct pm_expr *e)
{
	const struct pm_spec *spec = S->spec;
	int t = find_tensor(spec, a->name), i, v;
	bool ok = true;

	if (t < 0) {
		bool plain = true;
		for (i = 0; i < a->nargs; i++)
			plain = plain && a->args[i]->kind == PM_A_VAR;
		if (written_somewhere(S, a->name))
			pm_diag_error(S->diags, a->loc,
				"temporary '%s' is read before it is written",
				a->name);
		else if (plain)
			pm_diag_error(S->diags, a->loc,
				"tensor '%s' is not declared", a->name);
		else
			pm_diag_error(S->diags, a->loc,
				"unknown function '%s'", a->name);
		return NULL;
	}
	if (a->nargs != spec->tensors[t].rank) {
		pm_diag_error(S->diags, a->loc,
			"wrong number of indices for '%s': expected %d, got %d",
			a->name, spec->tensors[t].rank, a->nargs);
		return NULL;
	}
	e->kind = PM_E_READ;
	e->tensor = t;
	e->nidx = a->nargs;
	for (i = 0; i < a->nargs; i++) {
		const struct pm_ast_expr *x = a->args[i];
		if (x->kind != PM_A_VAR) {
			pm_diag_error(S->diags, x->start,
				"index %d of '%s' is not a plain index variable (affine index expressions are not supported)",
				i + 1, a->name);
			ok = false;
			continue;
		}
		v = find_var(S, x->name);
		if (v < 0 && S->kind == PM_S_ASSIGN) {
			pm_diag_error(S->diags, x->loc,
				"index '%s' is not on the left-hand side; a reduction needs '+=!' or '+='",
				x->name);
			ok = false;
			continue;
		}
		if (v < 0 && (v = add_var(S, x->name, x->loc)) < 0)
			return NULL;
		if (v == GROUP_VAR && i) {
			pm_diag_error(S->diags, x->loc, "the group index '%s' "
				"is index %d of '%s'; a per-group tensor has it "
				"first", x->name, i + 1, a->name);
			ok = false;
			continue;
		}
		use_var(S, v, t, i, x->loc);
		e->idx[i] = v;
	}
	if (spec->tensors[t].type == PM_I8 || spec->tensors[t].type == PM_I32)
		S->has_int = true;
	else
		S->has_float = true;
	return ok ? e : NULL;
}

static struct pm_expr *conv_call(struct sema *S, const struct pm_ast_expr *a,
	struct pm_expr *e, enum pm_func fn)
{
	int i, arity = pm_func_arity(fn);
	bool ok = true;

	if (a->nargs != arity) {
		pm_diag_error(S->diags, a->loc,
			"function '%s' takes %d argument%s, but %d given",
			a->name, arity, arity == 1 ? "" : "s", a->nargs);
		return NULL;
	}
	e->kind = PM_E_CALL;
	e->fn = fn;
	e->nargs = arity;
	for (i = 0; i < arity; i++)
		ok = (e->args[i] = conv(S, a->args[i])) != NULL && ok;
	return ok ? e : NULL;
}

static struct pm_expr *conv(struct sema *S, const struct pm_ast_expr *a)
{
	struct pm_expr *e = calloc(1, sizeof(*e)), *r = NULL;
	int fn, i;
	bool ok = true;

	if (!e) {
		S->oom = true;
		return NULL;
	}
	e->loc = a->loc;
	switch (a->kind) {
	case PM_A_NUM:
		e->kind = PM_E_NUM;
		e->num = a->num;
		r = e;
		break;
	case PM_A_VAR:
		fn = find_tensor(S->spec, a->name);
		if (fn >= 0 && !S->spec->tensors[fn].rank) {
			r = conv_read(S, a, e);	/* a scalar */
			break;
		}
		if (fn >= 0)
			pm_diag_error(S->diags, a->loc,
				"tensor '%s' is read without indices", a->name);
		else if (pm_func_from_name(a->name) >= 0)
			pm_diag_error(S->diags, a->loc,
				"function '%s' is used without arguments", a->name);
		else
			pm_diag_error(S->diags, a->loc,
				"'%s' is not a tensor read; index variables may only appear as indices",
				a->name);
		break;
	case PM_A_NEG:
	case PM_A_BIN:
		e->kind = a->kind == PM_A_NEG ? PM_E_NEG : PM_E_BIN;
		e->op = a->op;
		e->nargs = a->nargs;
		for (i = 0; i < a->nargs; i++)
			ok = (e->args[i] = conv(S, a->args[i])) != NULL && ok;
		r = ok ? e : NULL;
		break;
	case PM_A_APPLY:
		fn = pm_func_from_name(a->name);
		r = fn >= 0 ? conv_call(S, a, e, (enum pm_func)fn) :
			conv_read(S, a, e);
		break;
	}
	if (!r)
		pm_expr_free(e);
	return r;
}

/* The lhs: its tensor (-1 for a new temporary) and variables. */
static int check_lhs(struct sema *S, const struct pm_ast_stmt *s, int *t)
{
	const struct pm_ast_expr *lhs = s->lhs;
	const struct pm_spec *spec = S->spec;
	int i;

	*t = find_tensor(spec, lhs->name);
	if (pm_func_from_name(lhs->name) >= 0) {
		pm_diag_error(S->diags, lhs->loc,
			"cannot assign to function '%s'", lhs->name);
		return -1;
	}
	if (*t < 0 && s->kind == PM_S_ACCUM)
		pm_diag_error(S->diags, lhs->loc,
			"temporary '%s' is updated with '+=' before it is written",
			lhs->name);
	if (*t >= 0 && spec->tensors[*t].role == PM_INPUT) {
		pm_diag_error(S->diags, lhs->loc,
			"cannot write to input '%s'", lhs->name);
		pm_diag_note(S->diags, spec->tensors[*t].loc,
			"'%s' is declared as a parameter here", lhs->name);
		return -1;
	}
	/* rank-0 targets: reductions only (docs/LANGUAGE.md, "Epilogue
	 * reductions") */
	if (*t >= 0 && !spec->tensors[*t].rank &&
	    spec->tensors[*t].role == PM_OUTPUT &&
	    (lhs->nargs || s->kind != PM_S_REDUCE)) {
		pm_diag_error(S->diags, lhs->loc, "output '%s' is a scalar: it "
			"is written only as the target of a reduction ('%s +=! "
			"...', '%s max=! ...', '%s min=! ...')", lhs->name,
			lhs->name, lhs->name, lhs->name);
		pm_diag_note(S->diags, spec->tensors[*t].loc,
			"'%s' is declared here", lhs->name);
		return -1;
	}
	if (*t >= 0 && lhs->nargs != spec->tensors[*t].rank) {
		pm_diag_error(S->diags, lhs->loc,
			"wrong number of indices for '%s': expected %d, got %d",
			lhs->name, spec->tensors[*t].rank, lhs->nargs);
		return -1;
	}
	for (i = 0; i < lhs->nargs; i++) {
		const struct pm_ast_expr *x = lhs->args[i];
		if (x->kind != PM_A_VAR) {
			pm_diag_error(S->diags, x->start,
				"index %d of '%s' is not a plain index variable (affine index expressions are not supported)",
				i + 1, lhs->name);
			return -1;
		}
		if (find_var(S, x->name) == GROUP_VAR) {
			pm_diag_error(S->diags, x->loc, "the group index '%s' "
				"is an index of '%s'; it indexes no output (each "
				"row's group is found from '%s')", x->name,
				lhs->name, S->spec->tensors[S->goffs].name);
			return -1;
		}
		if (find_var(S, x->name) >= 0) {
			pm_diag_error(S->diags, x->loc,
				"index variable '%s' appears twice on the left-hand side",
				x->name);
			return -1;
		}
		add_var(S, x->name, x->loc);
		if (*t >= 0)
			use_var(S, i, *t, i, x->loc);
	}
	return 0;
}

/* Create the temporary first written by s (also after errors, so that
 * later statements do not report it as missing). */
static int new_temp(struct sema *S, const struct pm_ast_stmt *s, bool bad)
{
	struct pm_spec *spec = S->spec;
	struct pm_tensor *t = &spec->tensors[spec->ntensors];
	int i;

	check_c_name(S, s->lhs->name, s->lhs->loc, false);
	/* created all the same (tensors has room for one per statement) */
	if (spec->ntensors == PM_LIMIT_TENSORS && !S->full_tensors) {
		pm_diag_error(S->diags, s->lhs->loc, "too many tensors (at most "
			"%d, temporaries included)", PM_LIMIT_TENSORS);
		S->full_tensors = true;
	}
	t->name = dup(S, s->lhs->name);
	t->role = PM_TEMP;
	t->type = S->has_int && !S->has_float ? PM_I32 : PM_F32;
	t->rank = s->lhs->nargs;
	t->loc = s->lhs->loc;
	for (i = 0; i < t->rank; i++) {
		t->dims[i].sym = -1;
		t->dims[i].value = 0;
		if (i < S->nvars && S->vars[i].known) {
			t->dims[i] = S->vars[i].ext;
		} else if (!bad) {
			pm_diag_error(S->diags, s->lhs->args[i]->loc,
				"cannot infer the size of index '%s' of temporary '%s': it indexes no tensor on the right-hand side",
				S->vars[i].name, t->name);
			bad = true;
		}
	}
	S->bad[spec->ntensors] = bad;
	return spec->ntensors++;
}

/* A `group e by offs` clause of s: a contraction's, offs an i32 input of
 * rank 1, one group index per spec; the chain is grouped from here on. */
static int check_group(struct sema *S, const struct pm_ast_stmt *s)
{
	const struct pm_spec *spec = S->spec;
	int t;

	if (!s->group)
		return 0;
	if (s->kind != PM_S_REDUCE || s->red != PM_RED_SUM) {
		pm_diag_error(S->diags, s->clause_loc, "'group' follows a "
			"contraction ('+=!')");
		return -1;
	}
	t = find_tensor(spec, s->group_by);
	if (t < 0) {
		pm_diag_error(S->diags, s->group_by_loc, "tensor '%s' is not "
			"declared", s->group_by);
		return -1;
	}
	if (spec->tensors[t].role != PM_INPUT ||
	    spec->tensors[t].type != PM_I32 || spec->tensors[t].rank != 1) {
		pm_diag_error(S->diags, s->group_by_loc, "'%s' must be an input "
			"of type i32 and rank 1 (the groups' cumulative row "
			"ends)", s->group_by);
		pm_diag_note(S->diags, spec->tensors[t].loc, "'%s' is declared "
			"here", s->group_by);
		return -1;
	}
	if (S->gname && (strcmp(S->gname, s->group) || S->goffs != t)) {
		pm_diag_error(S->diags, s->clause_loc, "one group index per "
			"spec: 'group %s by %s' after 'group %s by %s'", s->group,
			s->group_by, S->gname, spec->tensors[S->goffs].name);
		return -1;
	}
	check_reserved(S, s->group, s->group_loc);
	S->gname = s->group;
	S->goffs = t;
	memset(&S->vars[GROUP_VAR], 0, sizeof(S->vars[GROUP_VAR]));
	S->vars[GROUP_VAR].name = s->group;
	use_var(S, GROUP_VAR, t, 0, s->group_loc);
	return 0;
}

/* A statement of the grouped chain: rows (lhs index 0) that a group
 * holds; after the chain's first contraction only grouped contractions
 * and assignments. */
static int check_grouped(struct sema *S, const struct pm_ast_stmt *s)
{
	if (!S->gname)
		return 0;
	if (!s->lhs->nargs || (s->kind != PM_S_ASSIGN && !s->group)) {
		pm_diag_error(S->diags, s->lhs->loc, "after a grouped "
			"contraction every statement writes rows of groups: "
			"an assignment with indices, or a contraction with "
			"'group %s by %s'", S->gname,
			S->spec->tensors[S->goffs].name);
		return -1;
	}
	return 0;
}

/* The group index read as GROUP_VAR: variable n. */
static void number_group(struct pm_expr *e, int n)
{
	if (!e)
		return;
	if (e->kind == PM_E_READ)
		for (int i = 0; i < e->nidx; ++i)
			if (e->idx[i] == GROUP_VAR)
				e->idx[i] = n;
	for (int i = 0; i < e->nargs && i < 2; ++i)
		number_group(e->args[i], n);
}

static void check_stmt(struct sema *S, const struct pm_ast_stmt *s)
{
	struct pm_spec *spec = S->spec;
	struct pm_stmt *st = &spec->stmts[spec->nstmts++];
	int errs = S->diags->nerrors, t, i;

	S->kind = st->kind = s->kind;
	st->red = s->red;
	st->loc = s->lhs->loc;
	st->lhs = -1;
	S->nvars = 0;
	S->has_int = S->has_float = false;
	t = find_tensor(spec, s->lhs->name);
	/* a bad clause: the statement still writes its target */
	if (check_group(S, s) < 0 || check_grouped(S, s) < 0) {
		if (t >= 0)
			S->written[t] = true;
		else if (pm_func_from_name(s->lhs->name) < 0)
			new_temp(S, s, true);
		return;
	}
	if (check_lhs(S, s, &t) < 0) {
		if (t < 0 && pm_func_from_name(s->lhs->name) < 0)
			new_temp(S, s, true);
		return;
	}
	st->nlhs = s->lhs->nargs;
	st->rhs = conv(S, s->rhs);
	if (t < 0)
		t = new_temp(S, s, S->diags->nerrors > errs);
	st->lhs = t;
	S->written[t] = true;
	st->nvars = S->nvars;
	for (i = 0; i < S->nvars; i++)
		st->vars[i] = dup(S, S->vars[i].name);
	if (!S->gname)
		return;
	if (S->nvars == PM_MAX_VARS) {
		pm_diag_error(S->diags, s->lhs->loc, "too many index variables "
			"in one statement (at most %d, the group index "
			"included)", PM_MAX_VARS);
		return;
	}
	st->grouped = 1;
	st->vars[S->nvars] = dup(S, S->gname);
	number_group(st->rhs, S->nvars);
	spec->grouped = 1;
	spec->group_offs = S->goffs;
}

struct pm_spec *pm_sema(const struct pm_ast *ast, const char *text,
	const char *filename, struct pm_diags *diags)
{
	struct sema S;
	struct pm_spec *spec = calloc(1, sizeof(*spec));
	size_t nt = (size_t)(ast->ndecls + ast->nstmts) + 1;
	int errs = diags->nerrors, i;

	memset(&S, 0, sizeof(S));
	S.ast = ast;
	S.spec = spec;
	S.diags = diags;
	S.written = calloc(nt, sizeof(bool));
	S.bad = calloc(nt, sizeof(bool));
	if (!spec || !S.written || !S.bad ||
	    !(spec->tensors = calloc(nt, sizeof(*spec->tensors))) ||
	    !(spec->stmts = calloc((size_t)ast->nstmts + 1,
			sizeof(*spec->stmts))) ||
	    !(spec->filename = dup(&S, filename ? filename : "<input>")) ||
	    !(spec->text = dup(&S, text)) || !(spec->name = dup(&S, ast->name)))
		S.oom = true;
	if (!S.oom)
		check_decls(&S);
	/* statements are checked only after clean declarations */
	if (!S.oom && diags->nerrors == errs) {
		for (i = 0; i < ast->nstmts && !S.oom; i++)
			check_stmt(&S, &ast->stmts[i]);
		for (i = 0; i < spec->ntensors && !S.oom; i++)
			if (spec->tensors[i].role == PM_OUTPUT && !S.written[i])
				pm_diag_error(diags, spec->tensors[i].loc,
					"output '%s' is never written",
					spec->tensors[i].name);
	}
	if (S.oom)
		pm_diag_plain(diags, "out of memory");
	free(S.written);
	free(S.bad);
	if (diags->nerrors != errs) {
		pm_spec_free(spec);
		return NULL;
	}
	return spec;
}

void pm_expr_free(struct pm_expr *e)
{
	int i;

	if (!e)
		return;
	for (i = 0; i < e->nargs && i < 2; i++)
		pm_expr_free(e->args[i]);
	free(e);
}

void pm_spec_free(struct pm_spec *spec)
{
	int i, j;

	if (!spec)
		return;
	for (i = 0; spec->syms && i < spec->nsyms; i++)
		free(spec->syms[i].name);
	for (i = 0; spec->tensors && i < spec->ntensors; i++)
		free(spec->tensors[i].name);
	for (i = 0; spec->stmts && i < spec->nstmts + spec->nepired; i++) {
		for (j = 0; j < spec->stmts[i].nvars + spec->stmts[i].grouped;
		     j++)
			free(spec->stmts[i].vars[j]);
		pm_expr_free(spec->stmts[i].rhs);
	}
	free(spec->syms);
	free(spec->tensors);
	free(spec->stmts);
	free(spec->filename);
	free(spec->text);
	free(spec->name);
	free(spec);
}

struct pm_spec *pm_spec_parse(const char *text, const char *filename,
	struct pm_diags *diags)
{
	struct pm_diags local, *d = diags;
	const char *old_file, *old_text;
	struct pm_ast *ast;
	struct pm_spec *spec = NULL;

	if (!d) {
		pm_diags_init(&local, filename, text);
		d = &local;
	}
	old_file = d->filename;
	old_text = d->text;
	if (!d->filename)
		d->filename = filename;
	if (!d->text)
		d->text = text;
	if (!text) {
		pm_diag_plain(d, "no spec text given");
	} else if (strlen(text) > PM_LIMIT_SPEC_BYTES) {
		pm_diag_plain(d, "the spec is too large (%zu bytes, at most %d)",
			strlen(text), PM_LIMIT_SPEC_BYTES);
	} else if ((ast = pm_parse(text, d)) != NULL) {
		spec = pm_sema(ast, text, filename, d);
		pm_ast_free(ast);
	}
	d->filename = old_file;
	d->text = old_text;
	if (d == &local)
		pm_diags_clear(&local);
	return spec;
}

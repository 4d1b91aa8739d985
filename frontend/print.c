/* Names of types and functions, and printing a spec back as .tc text. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

static const char *const type_names[] = { "f16", "bf16", "f32", "i8", "i32",
	"f8e4m3", "f8e5m2" };

static const struct {
	const char *name;
	int arity;
} funcs[] = {
	{ "relu", 1 }, { "sigmoid", 1 }, { "tanh", 1 }, { "gelu", 1 },
	{ "gelu_erf", 1 }, { "silu", 1 }, { "exp", 1 }, { "abs", 1 },
	{ "max", 2 }, { "min", 2 }
};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *pm_type_name(enum pm_type t)
{
	if ((int)t < 0 || (int)t >= COUNT(type_names))
		return "?";
	return type_names[t];
}

int pm_type_from_name(const char *s)
{
	int i;

	for (i = 0; i < COUNT(type_names); i++)
		if (!strcmp(s, type_names[i]))
			return i;
	return -1;
}

enum pm_type pm_type_accum(enum pm_type t)
{
	return t == PM_I8 || t == PM_I32 ? PM_I32 : PM_F32;
}

const char *pm_func_name(enum pm_func f)
{
	if ((int)f < 0 || (int)f >= COUNT(funcs))
		return "?";
	return funcs[f].name;
}

int pm_func_arity(enum pm_func f)
{
	if ((int)f < 0 || (int)f >= COUNT(funcs))
		return 0;
	return funcs[f].arity;
}

int pm_func_from_name(const char *s)
{
	int i;

	for (i = 0; i < COUNT(funcs); i++)
		if (!strcmp(s, funcs[i].name))
			return i;
	return -1;
}

/* The shortest decimal text that reads back as the same double. */
static void print_num(FILE *out, double v)
{
	char buf[40];
	int prec;

	if (!isfinite(v)) {
		fprintf(out, "%s", isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
		return;
	}
	if (v > -1e15 && v < 1e15 && v == (double)(long long)v) {
		fprintf(out, "%.0f", v);
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fprintf(out, "%s", buf);
}

/* Precedence: 1 for + -, 2 for * /, 3 for unary minus, 4 for atoms. */
static int prec(const struct pm_expr *e)
{
	switch (e->kind) {
	case PM_E_BIN:
		return e->op == '+' || e->op == '-' ? 1 : 2;
	case PM_E_NEG:
		return 3;
	case PM_E_NUM:
		return signbit(e->num) ? 3 : 4;
	default:
		return 4;
	}
}

static const char *var_name(const struct pm_stmt *stmt, int v)
{
	if (stmt && v >= 0 && v < stmt->nvars + stmt->grouped &&
	    stmt->vars[v])
		return stmt->vars[v];
	return "?";
}

static void print_sub(FILE *out, const struct pm_spec *spec,
	const struct pm_stmt *stmt, const struct pm_expr *e, bool paren)
{
	if (paren)
		fputc('(', out);
	pm_expr_print(out, spec, stmt, e);
	if (paren)
		fputc(')', out);
}

void pm_expr_print(FILE *out, const struct pm_spec *spec,
	const struct pm_stmt *stmt, const struct pm_expr *e)
{
	int i, p;

	if (!e) {
		fputs("?", out);
		return;
	}
	switch (e->kind) {
	case PM_E_NUM:
		print_num(out, e->num);
		break;
	case PM_E_READ:
		fputs(spec && e->tensor >= 0 && e->tensor < spec->ntensors ?
			spec->tensors[e->tensor].name : "?", out);
		if (!e->nidx)		/* a scalar */
			break;
		fputc('(', out);
		for (i = 0; i < e->nidx; i++)
			fprintf(out, "%s%s", i ? ", " : "",
				var_name(stmt, e->idx[i]));
		fputc(')', out);
		break;
	case PM_E_NEG:
		fputc('-', out);
		print_sub(out, spec, stmt, e->args[0], prec(e->args[0]) < 3);
		break;
	case PM_E_BIN:
		/* left-associative: keep the tree exactly as it is */
		p = prec(e);
		print_sub(out, spec, stmt, e->args[0], prec(e->args[0]) < p);
		fprintf(out, " %c ", e->op);
		print_sub(out, spec, stmt, e->args[1], prec(e->args[1]) <= p);
		break;
	case PM_E_CALL:
		fprintf(out, "%s(", pm_func_name(e->fn));
		for (i = 0; i < e->nargs && i < 2; i++) {
			if (i)
				fputs(", ", out);
			pm_expr_print(out, spec, stmt, e->args[i]);
		}
		fputc(')', out);
		break;
	}
}

static void print_decl(FILE *out, const struct pm_spec *spec,
	const struct pm_tensor *t)
{
	int i;

	if (!t->rank) {		/* a scalar */
		fprintf(out, "%s %s", pm_type_name(t->type), t->name);
		return;
	}
	fprintf(out, "%s(", pm_type_name(t->type));
	for (i = 0; i < t->rank; i++) {
		if (i)
			fputs(", ", out);
		if (t->dims[i].sym >= 0)
			fputs(spec->syms[t->dims[i].sym].name, out);
		else
			fprintf(out, "%ld", t->dims[i].value);
	}
	fprintf(out, ") %s", t->name);
}

static void print_decls(FILE *out, const struct pm_spec *spec,
	enum pm_role role)
{
	int i, n = 0;

	fputc('(', out);
	for (i = 0; i < spec->ntensors; i++) {
		if (spec->tensors[i].role != role)
			continue;
		if (n++)
			fputs(", ", out);
		print_decl(out, spec, &spec->tensors[i]);
	}
	fputc(')', out);
}

static bool reads_result(const struct pm_spec *spec, const struct pm_expr *e)
{
	if (e->kind == PM_E_READ)
		return spec->tensors[e->tensor].role != PM_INPUT;
	for (int i = 0; i < e->nargs; ++i)
		if (reads_result(spec, e->args[i]))
			return true;
	return false;
}

bool pm_stmt_is_epi_reduction(const struct pm_spec *spec, int s)
{
	return s > 0 && s < spec->nstmts &&
		spec->stmts[s].kind == PM_S_REDUCE &&
		reads_result(spec, spec->stmts[s].rhs);
}

const char *pm_red_op_name(enum pm_red_op op)
{
	static const char *const names[] = { "+=!", "max=!", "min=!" };

	return (unsigned) op < 3 ? names[op] : "?";
}

void pm_spec_print(FILE *out, const struct pm_spec *spec)
{
	static const char *const ops[] = { "+=!", "+=", "=" };
	int i, j;

	fprintf(out, "def %s", spec->name);
	print_decls(out, spec, PM_INPUT);
	fputs(" -> ", out);
	print_decls(out, spec, PM_OUTPUT);
	fputs(" {\n", out);
	for (i = 0; i < spec->nstmts; i++) {
		const struct pm_stmt *s = &spec->stmts[i];
		fprintf(out, "    %s", spec->tensors[s->lhs].name);
		for (j = 0; j < s->nlhs; j++)
			fprintf(out, "%s%s", j ? ", " : "(", var_name(s, j));
		fprintf(out, "%s %s ", s->nlhs ? ")" : "",
			s->kind == PM_S_REDUCE ? pm_red_op_name(s->red) :
			ops[s->kind]);
		pm_expr_print(out, spec, s, s->rhs);
		/* the clause on the grouped chain's contractions */
		if (s->grouped && s->kind == PM_S_REDUCE)
			fprintf(out, "   group %s by %s", var_name(s, s->nvars),
				spec->tensors[spec->group_offs].name);
		fputc('\n', out);
	}
	fputs("}\n", out);
}

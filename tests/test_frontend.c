/* Frontend tests: the spec language, the DAG, the diagnostics format. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "tests/frontend_util.h"

/* ---- diagnostics ---- */

static void test_diag_format(void **state)
{
	struct pm_diags d;
	struct pm_loc loc = { 2, 5 }, none = { 0, 0 };
	(void)state;

	pm_diags_init(&d, "x.tc", "line one\nab\tcdef\n");
	assert_string_equal(pm_diags_text(&d), "");
	pm_diag_error(&d, loc, "bad '%s'", "cd");
	assert_string_equal(d.buf,
		"x.tc:2:5: error: bad 'cd'\nab\tcdef\n  \t ^\n");
	assert_int_equal(d.nerrors, 1);
	pm_diags_clear(&d);
	assert_string_equal(pm_diags_text(&d), "");

	pm_diags_init(&d, "x.tc", "abc");
	loc.line = 1;
	loc.col = 1;
	pm_diag_note(&d, loc, "here %d", 7);
	assert_int_equal(d.nerrors, 0);
	pm_diag_error(&d, none, "no place");
	pm_diag_plain(&d, "bad option '%s'", "-x");
	assert_string_equal(d.buf, "x.tc:1:1: note: here 7\nabc\n^\n"
		"x.tc: error: no place\npolymma: error: bad option '-x'\n");
	assert_int_equal(d.nerrors, 2);
	pm_diags_clear(&d);

	/* no source text, and a line past the end: no source line */
	pm_diags_init(&d, "y.tc", NULL);
	pm_diag_error(&d, loc, "m");
	loc.line = 9;
	pm_diags_clear(&d);
	pm_diags_init(&d, "y.tc", "a\n");
	pm_diag_error(&d, loc, "m");
	assert_string_equal(d.buf, "y.tc:9:1: error: m\n");
	pm_diags_clear(&d);
}

static void test_diag_grows(void **state)
{
	struct pm_diags d;
	struct pm_loc loc = { 1, 3 };
	int i;
	(void)state;

	pm_diags_init(&d, "z.tc", "0123456789");
	for (i = 0; i < 1000; i++)
		pm_diag_error(&d, loc, "error number %d", i);
	assert_int_equal(d.nerrors, 1000);
	assert_non_null(strstr(d.buf, "z.tc:1:3: error: error number 999\n"
		"0123456789\n  ^\n"));
	assert_int_equal(strlen(d.buf), d.len);
	pm_diags_clear(&d);
}

/* ---- valid specs and the DAG ---- */


static void test_example(void **state)
{
	struct pm_spec *s = parse_ok(gemm_bias_relu);
	const struct pm_stmt *st;
	const struct pm_expr *e;
	static const int ik[] = { 0, 2 }, kj[] = { 2, 1 }, ij[] = { 0, 1 },
		j[] = { 1 };
	(void)state;

	assert_string_equal(s->name, "gemm_bias_relu");
	assert_string_equal(s->filename, "t.tc");
	assert_string_equal(s->text, gemm_bias_relu);
	assert_int_equal(s->nsyms, 3);
	assert_string_equal(s->syms[0].name, "M");
	assert_string_equal(s->syms[1].name, "K");
	assert_string_equal(s->syms[2].name, "N");
	assert_int_equal(s->syms[0].loc.line, 2);
	assert_int_equal(s->syms[0].loc.col, 24);

	assert_int_equal(s->ntensors, 4);
	assert_string_equal(s->tensors[0].name, "A");
	assert_string_equal(s->tensors[1].name, "B");
	assert_string_equal(s->tensors[2].name, "bias");
	assert_string_equal(s->tensors[3].name, "C");
	assert_int_equal(s->tensors[0].role, PM_INPUT);
	assert_int_equal(s->tensors[2].role, PM_INPUT);
	assert_int_equal(s->tensors[3].role, PM_OUTPUT);
	assert_int_equal(s->tensors[3].type, PM_F16);
	assert_int_equal(s->tensors[2].rank, 1);
	assert_int_equal(s->tensors[3].rank, 2);
	assert_int_equal(s->tensors[0].dims[0].sym, 0);
	assert_int_equal(s->tensors[0].dims[1].sym, 1);
	assert_int_equal(s->tensors[1].dims[1].sym, 2);
	assert_int_equal(s->tensors[2].dims[0].sym, 2);
	assert_int_equal(s->tensors[3].loc.line, 2);
	assert_int_equal(s->tensors[3].loc.col, 73);

	assert_int_equal(s->nstmts, 2);
	st = &s->stmts[0];
	assert_int_equal(st->kind, PM_S_REDUCE);
	assert_int_equal(st->lhs, 3);
	assert_int_equal(st->nlhs, 2);
	assert_int_equal(st->nvars, 3);
	assert_int_equal(pm_stmt_nred(st), 1);
	assert_string_equal(st->vars[0], "i");
	assert_string_equal(st->vars[1], "j");
	assert_string_equal(st->vars[2], "k");
	assert_int_equal(st->loc.line, 3);
	assert_int_equal(st->loc.col, 5);
	e = st->rhs;
	assert_int_equal(e->kind, PM_E_BIN);
	assert_int_equal(e->op, '*');
	assert_int_equal(e->loc.col, 25);
	assert_read(s, e->args[0], "A", 2, ik);
	assert_read(s, e->args[1], "B", 2, kj);
	assert_int_equal(e->args[1]->loc.col, 27);

	st = &s->stmts[1];
	assert_int_equal(st->kind, PM_S_ASSIGN);
	assert_int_equal(st->nvars, 2);
	assert_int_equal(pm_stmt_nred(st), 0);
	e = st->rhs;
	assert_int_equal(e->kind, PM_E_CALL);
	assert_int_equal(e->fn, PM_FN_RELU);
	assert_int_equal(e->nargs, 1);
	e = e->args[0];
	assert_int_equal(e->kind, PM_E_BIN);
	assert_int_equal(e->op, '+');
	assert_read(s, e->args[0], "C", 2, ij);
	assert_read(s, e->args[1], "bias", 1, j);
	assert_string_equal(expr_text(s, 1), "relu(C(i, j) + bias(j))");
	pm_spec_free(s);
}

static void test_statement_kinds(void **state)
{
	struct pm_spec *s = parse_ok(HDR
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) += A(i, k) * B(k, j)\n"
		"  C(i, j) = C(i, j) * 2\n"
		"}\n");
	(void)state;

	assert_int_equal(s->nstmts, 3);
	assert_int_equal(s->stmts[0].kind, PM_S_REDUCE);
	assert_int_equal(s->stmts[1].kind, PM_S_ACCUM);
	assert_int_equal(pm_stmt_nred(&s->stmts[1]), 1);
	assert_int_equal(s->stmts[2].kind, PM_S_ASSIGN);
	assert_int_equal(s->stmts[2].rhs->args[1]->kind, PM_E_NUM);
	assert_true(s->stmts[2].rhs->args[1]->num == 2.0);
	pm_spec_free(s);
}

static void test_functions(void **state)
{
	static const char *names[] = { "relu", "sigmoid", "tanh", "gelu",
		"gelu_erf", "silu", "exp", "abs", "max", "min" };
	char text[512];
	int f;
	(void)state;

	for (f = 0; f < 10; f++) {
		struct pm_spec *s;
		const struct pm_expr *e;
		int arity = f >= PM_FN_MAX ? 2 : 1;

		assert_string_equal(pm_func_name((enum pm_func)f), names[f]);
		assert_int_equal(pm_func_arity((enum pm_func)f), arity);
		assert_int_equal(pm_func_from_name(names[f]), f);
		snprintf(text, sizeof(text),
			"def g(f32(M, N) X, f32(N) b) -> (f32(M, N) Y) {\n"
			"  Y(i, j) = %s(X(i, j)%s)\n}\n", names[f],
			arity == 2 ? ", b(j)" : "");
		s = parse_ok(text);
		e = s->stmts[0].rhs;
		assert_int_equal(e->kind, PM_E_CALL);
		assert_int_equal(e->fn, f);
		assert_int_equal(e->nargs, arity);
		assert_int_equal(e->args[0]->kind, PM_E_READ);
		if (arity == 2)
			assert_int_equal(e->args[1]->kind, PM_E_READ);
		assert_int_equal(e->loc.col, 13);
		pm_spec_free(s);
	}
	assert_int_equal(pm_func_from_name("nope"), -1);
	assert_int_equal(pm_func_from_name("RELU"), -1);
}

static void test_types(void **state)
{
	static const char *names[] = { "f16", "bf16", "f32", "i8", "i32",
		"f8e4m3", "f8e5m2" };
	int t;
	(void)state;

	for (t = 0; t < 7; t++) {
		char text[256];
		struct pm_spec *s;

		assert_string_equal(pm_type_name((enum pm_type)t), names[t]);
		assert_int_equal(pm_type_from_name(names[t]), t);
		snprintf(text, sizeof(text),
			"def g(%s(M) X) -> (%s(M) Y) {\n  Y(i) = X(i)\n}\n",
			names[t], names[t]);
		s = parse_ok(text);
		assert_int_equal(s->tensors[0].type, t);
		assert_int_equal(s->tensors[1].type, t);
		pm_spec_free(s);
	}
	assert_int_equal(pm_type_from_name("f64"), -1);
	assert_int_equal(pm_type_accum(PM_F16), PM_F32);
	assert_int_equal(pm_type_accum(PM_BF16), PM_F32);
	assert_int_equal(pm_type_accum(PM_I8), PM_I32);
	assert_int_equal(pm_type_accum(PM_F8E4M3), PM_F32);
	assert_int_equal(pm_type_accum(PM_F8E5M2), PM_F32);
	assert_int_equal(pm_type_from_name("f8"), -1);
}

static void test_broadcasts(void **state)
{
	struct pm_spec *s = parse_ok(
		"def g(f16(M, N) X, f16(N) bias, f32(M) scale) -> (f16(M, N) Y) {\n"
		"  Y(i, j) = X(i, j) * scale(i) + bias(j)\n}\n");
	static const int i[] = { 0 }, j[] = { 1 };
	const struct pm_expr *e = s->stmts[0].rhs;
	(void)state;

	assert_int_equal(e->op, '+');
	assert_read(s, e->args[0]->args[1], "scale", 1, i);
	assert_read(s, e->args[1], "bias", 1, j);
	pm_spec_free(s);
}

/* Scalars: TYPE NAME, read by name (a read without indices). */
static void test_scalars(void **state)
{
	struct pm_spec *s = parse_ok(
		"def g(f16(M, N) X, f32 s) -> (f16(M, N) Y) {\n"
		"  Y(i, j) = X(i, j) * s + s\n}\n");
	const struct pm_expr *e = s->stmts[0].rhs;
	(void)state;

	assert_int_equal(s->tensors[1].rank, 0);
	assert_int_equal(s->tensors[1].type, PM_F32);
	assert_int_equal(e->op, '+');
	assert_read(s, e->args[1], "s", 0, NULL);
	assert_read(s, e->args[0]->args[1], "s", 0, NULL);
	pm_spec_free(s);
}

static void test_literal_dims(void **state)
{
	struct pm_spec *s = parse_ok(
		"def g(f16(64, K) A, f16(K, N) B) -> (f32(64, N) C) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n}\n");
	(void)state;

	assert_int_equal(s->nsyms, 2);
	assert_string_equal(s->syms[0].name, "K");
	assert_string_equal(s->syms[1].name, "N");
	assert_int_equal(s->tensors[0].dims[0].sym, -1);
	assert_int_equal(s->tensors[0].dims[0].value, 64);
	assert_int_equal(s->tensors[0].dims[1].sym, 0);
	assert_int_equal(s->tensors[2].dims[0].sym, -1);
	assert_int_equal(s->tensors[2].dims[0].value, 64);
	assert_int_equal(s->tensors[2].type, PM_F32);
	assert_string_equal(spec_text(s),
		"def g(f16(64, K) A, f16(K, N) B) -> (f32(64, N) C) {\n"
		"    C(i, j) +=! A(i, k) * B(k, j)\n}\n");
	pm_spec_free(s);
}

static void test_comments(void **state)
{
	struct pm_spec *s = parse_ok(
		"# leading comment\n"
		"def g(f16(M) X,   # a parameter\n"
		"      f16(M) Z) -> (f16(M) Y) { # body\n"
		"  # a comment line in the body\n"
		"  Y(i) = X(i) + Z(i) # trailing\n"
		"}\n"
		"# the end, without a newline");
	(void)state;

	assert_int_equal(s->ntensors, 3);
	assert_int_equal(s->nstmts, 1);
	assert_int_equal(s->stmts[0].loc.line, 5);
	assert_int_equal(s->stmts[0].loc.col, 3);
	pm_spec_free(s);
}

/* The four layouts of a matmul are four access relations. */
static void test_layouts(void **state)
{
	static const struct {
		const char *a_decl, *a_read, *b_decl, *b_read;
		int a_idx[2], b_idx[2];
	} cases[] = {
		{ "(M, K)", "A(i, k)", "(K, N)", "B(k, j)", { 0, 2 }, { 2, 1 } },
		{ "(M, K)", "A(i, k)", "(N, K)", "B(j, k)", { 0, 2 }, { 1, 2 } },
		{ "(K, M)", "A(k, i)", "(K, N)", "B(k, j)", { 2, 0 }, { 2, 1 } },
		{ "(K, M)", "A(k, i)", "(N, K)", "B(j, k)", { 2, 0 }, { 1, 2 } },
	};
	int c;
	(void)state;

	for (c = 0; c < 4; c++) {
		char text[512];
		struct pm_spec *s;
		const struct pm_stmt *st;

		snprintf(text, sizeof(text),
			"def mm(f16%s A, f16%s B) -> (f32(M, N) C) {\n"
			"  C(i, j) +=! %s * %s\n}\n", cases[c].a_decl,
			cases[c].b_decl, cases[c].a_read, cases[c].b_read);
		s = parse_ok(text);
		st = &s->stmts[0];
		assert_int_equal(st->nvars, 3);
		assert_string_equal(st->vars[0], "i");
		assert_string_equal(st->vars[1], "j");
		assert_string_equal(st->vars[2], "k");
		assert_read(s, st->rhs->args[0], "A", 2, cases[c].a_idx);
		assert_read(s, st->rhs->args[1], "B", 2, cases[c].b_idx);
		assert_int_equal(s->nsyms, 3);
		assert_dim_sym(s, &s->tensors[2], 0, "M");
		assert_dim_sym(s, &s->tensors[2], 1, "N");
		pm_spec_free(s);
	}
}

static void test_var_numbering(void **state)
{
	struct pm_spec *s = parse_ok(
		"def g(f16(M, P, Q) X, f16(Q, P, N) W) -> (f32(N, M) Y) {\n"
		"  Y(j, i) +=! X(i, p, q) * W(q, p, j)\n"
		"  Y(a, b) += W(c, d, a) * X(b, d, c)\n}\n");
	const struct pm_stmt *st = &s->stmts[0];
	static const int ipq[] = { 1, 2, 3 }, qpj[] = { 3, 2, 0 },
		cda[] = { 2, 3, 0 }, bdc[] = { 1, 3, 2 };
	(void)state;

	assert_int_equal(st->nlhs, 2);
	assert_int_equal(st->nvars, 4);
	assert_string_equal(st->vars[0], "j");
	assert_string_equal(st->vars[1], "i");
	assert_string_equal(st->vars[2], "p");
	assert_string_equal(st->vars[3], "q");
	assert_read(s, st->rhs->args[0], "X", 3, ipq);
	assert_read(s, st->rhs->args[1], "W", 3, qpj);
	st = &s->stmts[1];
	assert_string_equal(st->vars[2], "c");
	assert_string_equal(st->vars[3], "d");
	assert_read(s, st->rhs->args[0], "W", 3, cda);
	assert_read(s, st->rhs->args[1], "X", 3, bdc);
	/* syms in order of first appearance: M P Q N */
	assert_int_equal(s->nsyms, 4);
	assert_string_equal(s->syms[3].name, "N");
	pm_spec_free(s);
}

static void check_temp_type(const char *in, const char *out, enum pm_type t)
{
	char text[512];
	struct pm_spec *s;

	snprintf(text, sizeof(text),
		"def g(%s(M, K) A, %s(K, N) B) -> (%s(M, N) C) {\n"
		"  T(i, j) +=! A(i, k) * B(k, j)\n"
		"  C(i, j) = T(i, j)\n}\n", in, in, out);
	s = parse_ok(text);
	assert_int_equal(s->ntensors, 4);
	assert_string_equal(s->tensors[3].name, "T");
	assert_int_equal(s->tensors[3].role, PM_TEMP);
	assert_int_equal(s->tensors[3].type, t);
	assert_int_equal(s->tensors[3].rank, 2);
	assert_dim_sym(s, &s->tensors[3], 0, "M");
	assert_dim_sym(s, &s->tensors[3], 1, "N");
	assert_int_equal(s->tensors[3].loc.line, 2);
	assert_int_equal(s->tensors[3].loc.col, 3);
	assert_int_equal(s->stmts[0].lhs, 3);
	assert_int_equal(s->stmts[1].rhs->tensor, 3);
	pm_spec_free(s);
}

static void test_temporaries(void **state)
{
	struct pm_spec *s;
	(void)state;

	check_temp_type("f16", "f16", PM_F32);
	check_temp_type("bf16", "bf16", PM_F32);
	check_temp_type("f32", "f32", PM_F32);
	check_temp_type("i8", "i32", PM_I32);
	check_temp_type("i32", "i8", PM_I32);

	/* idiom 4: two contractions into temporaries, then a pointwise
	 * statement; temporaries come after outputs, in first-write order */
	s = parse_ok("def g(f16(M, K) A, f16(K, N) B, f16(M, 32) D, f16(32, N) E)"
		" -> (f16(M, N) O) {\n"
		"  Q(i, j) +=! D(i, l) * E(l, j)\n"
		"  P(i, j) +=! A(i, k) * B(k, j)\n"
		"  O(i, j) = relu(P(i, j)) + Q(i, j)\n}\n");
	assert_int_equal(s->ntensors, 7);
	assert_string_equal(s->tensors[4].name, "O");
	assert_string_equal(s->tensors[5].name, "Q");
	assert_string_equal(s->tensors[6].name, "P");
	assert_int_equal(s->tensors[5].role, PM_TEMP);
	assert_dim_sym(s, &s->tensors[5], 0, "M");
	assert_dim_sym(s, &s->tensors[5], 1, "N");
	assert_int_equal(s->stmts[0].lhs, 5);
	assert_int_equal(s->stmts[1].lhs, 6);
	pm_spec_free(s);

	/* a temporary with a literal dim, written twice */
	s = parse_ok("def g(f32(8, N) X) -> (f32(8, N) Y) {\n"
		"  T(i, j) = exp(X(i, j))\n"
		"  T(i, j) += X(i, j)\n"
		"  Y(a, b) = T(a, b)\n}\n");
	assert_int_equal(s->tensors[2].dims[0].sym, -1);
	assert_int_equal(s->tensors[2].dims[0].value, 8);
	assert_dim_sym(s, &s->tensors[2], 1, "N");
	assert_int_equal(s->stmts[1].lhs, 2);
	pm_spec_free(s);
}

static void test_epilogue_and_prologue(void **state)
{
	struct pm_spec *s = parse_ok(HDR
		"  C(i, j) +=! relu(A(i, k)) * B(k, j)\n"
		"  C(i, j) = min(max(C(i, j), 0), 6) / 6\n}\n");
	(void)state;

	assert_int_equal(s->stmts[0].rhs->args[0]->kind, PM_E_CALL);
	assert_int_equal(s->stmts[1].rhs->args[0]->fn, PM_FN_MIN);
	assert_int_equal(s->stmts[1].rhs->args[0]->args[0]->fn, PM_FN_MAX);
	pm_spec_free(s);
}

static void test_numbers(void **state)
{
	struct pm_spec *s = parse_ok("def g(f32(N) X) -> (f32(N) Y) {\n"
		"  Y(i) = X(i) * 1 + 0.5 - 1e-3 + 2.5E+2 + .25 + 3.\n}\n");
	const struct pm_expr *e = s->stmts[0].rhs;
	(void)state;

	assert_true(e->args[1]->num == 3.0);
	e = e->args[0];
	assert_true(e->args[1]->num == 0.25);
	e = e->args[0];
	assert_true(e->args[1]->num == 250.0);
	e = e->args[0];
	assert_int_equal(e->op, '-');
	assert_true(e->args[1]->num == 1e-3);
	e = e->args[0];
	assert_true(e->args[1]->num == 0.5);
	assert_true(e->args[0]->args[1]->num == 1.0);
	assert_string_equal(expr_text(s, 0),
		"X(i) * 1 + 0.5 - 0.001 + 250 + 0.25 + 3");
	pm_spec_free(s);
}

static void test_precedence_and_print(void **state)
{
	struct pm_spec *s = parse_ok("def g(f32(N) a, f32(N) b, f32(N) c) -> (f32(N) y) {\n"
		"  y(i) = a(i) - (b(i) - c(i))\n"
		"  y(i) = (a(i) - b(i)) - c(i)\n"
		"  y(i) = -(a(i) + b(i)) * -c(i)\n"
		"  y(i) = a(i) / (b(i) * c(i)) + a(i) * b(i) / c(i)\n"
		"  y(i) = a(i) + b(i) * c(i) - --a(i)\n"
		"  y(i) = ((a(i)))\n}\n");
	(void)state;

	assert_string_equal(expr_text(s, 0), "a(i) - (b(i) - c(i))");
	assert_string_equal(expr_text(s, 1), "a(i) - b(i) - c(i)");
	assert_string_equal(expr_text(s, 2), "-(a(i) + b(i)) * -c(i)");
	assert_string_equal(expr_text(s, 3),
		"a(i) / (b(i) * c(i)) + a(i) * b(i) / c(i)");
	assert_string_equal(expr_text(s, 4), "a(i) + b(i) * c(i) - --a(i)");
	assert_string_equal(expr_text(s, 5), "a(i)");
	assert_int_equal(s->stmts[2].rhs->args[0]->kind, PM_E_NEG);
	assert_int_equal(s->stmts[4].rhs->op, '-');
	pm_spec_free(s);
}

/* Printing then parsing gives the same text again. */
static void test_print_roundtrip(void **state)
{
	static const char *specs[] = {
		"def g(f16(M, K) A, f16(N, K) B, f16(N) bias, f16(M, N) R) -> (f16(M, N) C) {\n"
		"    C(i, j) +=! relu(A(i, k)) * B(j, k)\n"
		"    C(i, j) = gelu_erf(C(i, j) + bias(j)) * 0.125 + R(i, j) / -3\n"
		"}\n",
		"def h() -> (f32(4) Y) {\n    Y(i) = 1\n}\n",
		"def q(f8e4m3(M, K) A, f8e4m3(N, K) B, f32 s) -> (bf16(M, N) C) {\n"
		"    X(i, j) +=! A(i, k) * B(j, k)\n"
		"    C(i, j) = X(i, j) * s\n"
		"}\n",
	};
	int i;
	(void)state;

	for (i = 0; i < 3; i++) {
		struct pm_spec *s = parse_ok(specs[i]), *s2;
		char *text = malloc(4096);

		assert_non_null(text);
		strcpy(text, spec_text(s));

		assert_string_equal(text, specs[i]);
		s2 = parse_ok(text);
		assert_string_equal(spec_text(s2), text);
		free(text);
		pm_spec_free(s);
		pm_spec_free(s2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diag_format),
		cmocka_unit_test(test_diag_grows),
		cmocka_unit_test(test_example),
		cmocka_unit_test(test_statement_kinds),
		cmocka_unit_test(test_functions),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_broadcasts),
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_literal_dims),
		cmocka_unit_test(test_comments),
		cmocka_unit_test(test_layouts),
		cmocka_unit_test(test_var_numbering),
		cmocka_unit_test(test_temporaries),
		cmocka_unit_test(test_epilogue_and_prologue),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_precedence_and_print),
		cmocka_unit_test(test_print_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

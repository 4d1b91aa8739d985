/* Parser: tokens to a syntax tree (names unresolved). Stops at the first
 * syntax error.
 *
 *   spec  := 'def' IDENT '(' [decl {',' decl}] ')' '->' '(' decl {',' decl} ')'
 *            '{' {stmt} '}' EOF
 *   decl  := IDENT ['(' dim {',' dim} ')'] IDENT      dim := IDENT | INT
 *   stmt  := apply ('+=!' | '+=' | '=') expr           (one per line)
 *   expr  := term {('+' | '-') term}
 *   term  := unary {('*' | '/') unary}
 *   unary := '-' unary | primary
 *   primary := NUMBER | IDENT ['(' expr {',' expr} ')'] | '(' expr ')'
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lexer.h"

struct parser {
	struct pm_token *toks;
	int pos;
	struct pm_diags *diags;
	int depth;
};

#define MAX_DEPTH PM_LIMIT_NESTING
#define MAX_HEIGHT PM_LIMIT_HEIGHT

static const struct pm_token *peek(const struct parser *p)
{
	return &p->toks[p->pos];
}

static const struct pm_token *next(struct parser *p)
{
	const struct pm_token *t = &p->toks[p->pos];
	if (t->kind != PM_T_EOF)
		p->pos++;
	return t;
}

static void unexpected(struct parser *p, const char *what)
{
	char buf[64];
	const struct pm_token *t = peek(p);

	pm_diag_error(p->diags, t->loc, "expected %s, found %s", what,
		pm_tok_describe(t, buf, sizeof(buf)));
}

static const struct pm_token *expect(struct parser *p, enum pm_tok_kind k,
	const char *what)
{
	if (peek(p)->kind != k) {
		unexpected(p, what);
		return NULL;
	}
	return next(p);
}

static char *tok_str(struct parser *p, const struct pm_token *t)
{
	char *s = malloc((size_t)t->len + 1);

	if (!s) {
		pm_diag_plain(p->diags, "out of memory");
		return NULL;
	}
	memcpy(s, t->start, (size_t)t->len);
	s[t->len] = '\0';
	return s;
}

void pm_ast_expr_free(struct pm_ast_expr *e)
{
	int i;

	if (!e)
		return;
	for (i = 0; i < e->nargs; i++)
		pm_ast_expr_free(e->args[i]);
	free(e->name);
	free(e);
}

static struct pm_ast_expr *node(struct parser *p, enum pm_ast_kind kind,
	const struct pm_token *t)
{
	struct pm_ast_expr *e = calloc(1, sizeof(*e));

	if (!e) {
		pm_diag_plain(p->diags, "out of memory");
		return NULL;
	}
	e->kind = kind;
	e->loc = e->start = t->loc;
	e->height = 1;
	return e;
}

/* Set the height of e from its arguments; false (after a diagnostic) when
 * the tree gets too high for the recursive passes after the parser. */
static bool grown(struct parser *p, struct pm_ast_expr *e)
{
	int i;

	e->height = 1;
	for (i = 0; i < e->nargs; i++)
		if (e->args[i]->height + 1 > e->height)
			e->height = e->args[i]->height + 1;
	if (e->height <= MAX_HEIGHT)
		return true;
	pm_diag_error(p->diags, e->loc,
		"expression is nested too deeply (more than %d levels)",
		MAX_HEIGHT);
	return false;
}

static struct pm_ast_expr *parse_expr(struct parser *p);

/* NAME '(' expr {',' expr} ')' with the name already read. */
static struct pm_ast_expr *parse_apply(struct parser *p,
	const struct pm_token *name)
{
	struct pm_ast_expr *e = node(p, PM_A_APPLY, name);

	if (!e || !(e->name = tok_str(p, name)) ||
	    !expect(p, PM_T_LPAREN, "'('"))
		goto fail;
	if (peek(p)->kind == PM_T_RPAREN) {
		unexpected(p, "an index or an argument");
		goto fail;
	}
	for (;;) {
		if (e->nargs == PM_MAX_RANK) {
			pm_diag_error(p->diags, peek(p)->loc,
				"too many indices or arguments (at most %d)",
				PM_MAX_RANK);
			goto fail;
		}
		e->args[e->nargs] = parse_expr(p);
		if (!e->args[e->nargs])
			goto fail;
		e->nargs++;
		if (peek(p)->kind == PM_T_RPAREN)
			break;
		if (!expect(p, PM_T_COMMA, "',' or ')'"))
			goto fail;
	}
	next(p);
	if (!grown(p, e))
		goto fail;
	return e;
fail:
	pm_ast_expr_free(e);
	return NULL;
}

static struct pm_ast_expr *parse_primary(struct parser *p)
{
	const struct pm_token *t = peek(p);
	struct pm_ast_expr *e;

	switch (t->kind) {
	case PM_T_INT:
	case PM_T_NUM:
		next(p);
		e = node(p, PM_A_NUM, t);
		if (e)
			e->num = t->num;
		return e;
	case PM_T_IDENT:
		next(p);
		if (peek(p)->kind == PM_T_LPAREN)
			return parse_apply(p, t);
		e = node(p, PM_A_VAR, t);
		if (e && !(e->name = tok_str(p, t))) {
			pm_ast_expr_free(e);
			return NULL;
		}
		return e;
	case PM_T_LPAREN:
		next(p);
		e = parse_expr(p);
		if (e && !expect(p, PM_T_RPAREN, "')'")) {
			pm_ast_expr_free(e);
			return NULL;
		}
		if (e)
			e->start = t->loc;
		return e;
	default:
		unexpected(p, "an expression");
		return NULL;
	}
}

static struct pm_ast_expr *parse_unary(struct parser *p)
{
	const struct pm_token *t = peek(p);
	struct pm_ast_expr *e, *arg;

	if (t->kind != PM_T_MINUS)
		return parse_primary(p);
	next(p);
	if (++p->depth > MAX_DEPTH) {
		pm_diag_error(p->diags, t->loc, "expression is nested too deeply");
		return NULL;
	}
	arg = parse_unary(p);
	p->depth--;
	if (!arg)
		return NULL;
	e = node(p, PM_A_NEG, t);
	if (!e) {
		pm_ast_expr_free(arg);
		return NULL;
	}
	e->nargs = 1;
	e->args[0] = arg;
	if (!grown(p, e)) {
		pm_ast_expr_free(e);
		return NULL;
	}
	return e;
}

static struct pm_ast_expr *binary(struct parser *p, struct pm_ast_expr *lhs,
	const struct pm_token *op, struct pm_ast_expr *rhs)
{
	struct pm_ast_expr *e;

	if (!rhs || !(e = node(p, PM_A_BIN, op))) {
		pm_ast_expr_free(lhs);
		pm_ast_expr_free(rhs);
		return NULL;
	}
	e->op = *op->start;
	e->start = lhs->start;
	e->nargs = 2;
	e->args[0] = lhs;
	e->args[1] = rhs;
	if (!grown(p, e)) {
		pm_ast_expr_free(e);
		return NULL;
	}
	return e;
}

static struct pm_ast_expr *parse_term(struct parser *p)
{
	struct pm_ast_expr *e = parse_unary(p);

	while (e && (peek(p)->kind == PM_T_STAR || peek(p)->kind == PM_T_SLASH)) {
		const struct pm_token *op = next(p);
		e = binary(p, e, op, parse_unary(p));
	}
	return e;
}

static struct pm_ast_expr *parse_expr(struct parser *p)
{
	const struct pm_token *t = peek(p);
	struct pm_ast_expr *e;

	if (++p->depth > MAX_DEPTH) {
		pm_diag_error(p->diags, t->loc, "expression is nested too deeply");
		return NULL;
	}
	e = parse_term(p);
	while (e && (peek(p)->kind == PM_T_PLUS || peek(p)->kind == PM_T_MINUS)) {
		const struct pm_token *op = next(p);
		e = binary(p, e, op, parse_term(p));
	}
	p->depth--;
	return e;
}

/* '(' dim {',' dim} ')' of a declaration. */
static int parse_dims(struct parser *p, struct pm_ast_decl *d)
{
	const struct pm_token *t;

	if (!expect(p, PM_T_LPAREN, "'('"))
		return -1;
	for (;;) {
		t = peek(p);
		if (d->rank == PM_MAX_RANK) {
			pm_diag_error(p->diags, t->loc,
				"too many dimensions (at most %d)", PM_MAX_RANK);
			return -1;
		}
		d->dim_loc[d->rank] = t->loc;
		if (t->kind == PM_T_IDENT) {
			if (!(d->dim_sym[d->rank] = tok_str(p, t)))
				return -1;
		} else if (t->kind == PM_T_INT) {
			errno = 0;
			d->dim_val[d->rank] = strtol(t->start, NULL, 10);
			if (errno == ERANGE || d->dim_val[d->rank] > INT_MAX) {
				pm_diag_error(p->diags, t->loc,
					"dimension %.*s is too large", t->len,
					t->start);
				return -1;
			}
		} else {
			unexpected(p, "a size symbol or an integer");
			return -1;
		}
		next(p);
		d->rank++;
		if (peek(p)->kind == PM_T_RPAREN)
			break;
		if (!expect(p, PM_T_COMMA, "',' or ')'"))
			return -1;
	}
	next(p);
	return 0;
}

/* TYPE '(' dim {',' dim} ')' NAME, or TYPE NAME: a scalar (rank 0) */
static int parse_decl(struct parser *p, struct pm_ast_decl *d, bool output)
{
	const struct pm_token *t;

	d->output = output;
	if (!(t = expect(p, PM_T_IDENT, output ? "an output type" :
			"a parameter type")))
		return -1;
	d->type_loc = t->loc;
	if (!(d->type = tok_str(p, t)) ||
	    (peek(p)->kind != PM_T_IDENT && parse_dims(p, d) < 0))
		return -1;
	if (!(t = expect(p, PM_T_IDENT, "a tensor name")))
		return -1;
	d->loc = t->loc;
	d->name = tok_str(p, t);
	return d->name ? 0 : -1;
}

/* '(' decl {',' decl} ')'; parameters may be an empty list. */
static int parse_decls(struct parser *p, struct pm_ast *ast, bool output)
{
	if (!expect(p, PM_T_LPAREN, "'('"))
		return -1;
	if (!output && peek(p)->kind == PM_T_RPAREN) {
		next(p);
		return 0;
	}
	for (;;) {
		struct pm_ast_decl *d;

		if (ast->ndecls == PM_LIMIT_TENSORS) {
			pm_diag_error(p->diags, peek(p)->loc,
				"too many tensors (at most %d)",
				PM_LIMIT_TENSORS);
			return -1;
		}
		d = realloc(ast->decls,
			(size_t)(ast->ndecls + 1) * sizeof(*d));
		if (!d) {
			pm_diag_plain(p->diags, "out of memory");
			return -1;
		}
		ast->decls = d;
		d = &ast->decls[ast->ndecls++];
		memset(d, 0, sizeof(*d));
		if (parse_decl(p, d, output) < 0)
			return -1;
		if (peek(p)->kind == PM_T_RPAREN)
			break;
		if (!expect(p, PM_T_COMMA, "',' or ')'"))
			return -1;
	}
	next(p);
	return 0;
}

/* A reduction operator: the only ones a scalar target (no indices)
 * takes. */
static int is_stmt_op(enum pm_tok_kind k)
{
	return k == PM_T_REDUCE || k == PM_T_RMAX || k == PM_T_RMIN;
}

/* Is t the identifier word on the line of the token before it? */
static int word_on_line(const struct parser *p, const struct pm_token *t,
	const char *word)
{
	size_t n = strlen(word);

	return t->kind == PM_T_IDENT && t->len == (int) n &&
		!strncmp(t->start, word, n) &&
		t->loc.line == p->toks[p->pos - 1].loc.line;
}

/* An optional `group IDENT by IDENT` ending a statement (a grouped
 * contraction, docs/LANGUAGE.md "Grouped contractions"); sema checks
 * where it may stand. */
static int parse_group(struct parser *p, struct pm_ast_stmt *s)
{
	const struct pm_token *t;

	if (!word_on_line(p, peek(p), "group"))
		return 0;
	s->clause_loc = next(p)->loc;
	if (!(t = expect(p, PM_T_IDENT, "the group index after 'group'")))
		return -1;
	s->group_loc = t->loc;
	if (!(s->group = tok_str(p, t)))
		return -1;
	if (!word_on_line(p, peek(p), "by")) {
		unexpected(p, "'by' after the group index");
		return -1;
	}
	next(p);
	if (!(t = expect(p, PM_T_IDENT, "the offsets' tensor after 'by'")))
		return -1;
	s->group_by_loc = t->loc;
	return (s->group_by = tok_str(p, t)) ? 0 : -1;
}

static int parse_stmt(struct parser *p, struct pm_ast *ast)
{
	const struct pm_token *t = next(p), *op;
	struct pm_ast_stmt *s;

	s = realloc(ast->stmts, (size_t)(ast->nstmts + 1) * sizeof(*s));
	if (!s) {
		pm_diag_plain(p->diags, "out of memory");
		return -1;
	}
	ast->stmts = s;
	s = &ast->stmts[ast->nstmts++];
	memset(s, 0, sizeof(*s));
	if (peek(p)->kind != PM_T_LPAREN) {
		/* a scalar target: `amax max=! abs(C(i, j))` */
		if (!(s->lhs = node(p, PM_A_APPLY, t)) ||
		    !(s->lhs->name = tok_str(p, t)))
			return -1;
	} else if (!(s->lhs = parse_apply(p, t))) {
		return -1;
	}
	op = peek(p);
	switch (op->kind) {
	case PM_T_REDUCE: s->kind = PM_S_REDUCE; break;
	case PM_T_RMAX: s->kind = PM_S_REDUCE; s->red = PM_RED_MAX; break;
	case PM_T_RMIN: s->kind = PM_S_REDUCE; s->red = PM_RED_MIN; break;
	case PM_T_ACCUM: s->kind = PM_S_ACCUM; break;
	case PM_T_ASSIGN: s->kind = PM_S_ASSIGN; break;
	default:
		unexpected(p, "'=', '+=', '+=!', 'max=!' or 'min=!'");
		return -1;
	}
	next(p);
	if (!(s->rhs = parse_expr(p)))
		return -1;
	if (parse_group(p, s) < 0)
		return -1;
	/* A new statement starts on a new line. */
	t = peek(p);
	if (t->kind != PM_T_RBRACE && t->kind != PM_T_EOF &&
	    t->loc.line == p->toks[p->pos - 1].loc.line) {
		unexpected(p, "an operator or the end of the statement");
		return -1;
	}
	return 0;
}

static int parse_spec(struct parser *p, struct pm_ast *ast)
{
	const struct pm_token *t, *lbrace;

	if (peek(p)->kind == PM_T_EOF) {
		pm_diag_error(p->diags, peek(p)->loc,
			"empty spec: expected 'def'");
		return -1;
	}
	if (!expect(p, PM_T_DEF, "'def'") ||
	    !(t = expect(p, PM_T_IDENT, "the name of the def")))
		return -1;
	ast->loc = t->loc;
	if (!(ast->name = tok_str(p, t)) || parse_decls(p, ast, false) < 0 ||
	    !expect(p, PM_T_ARROW, "'->'") || parse_decls(p, ast, true) < 0 ||
	    !(lbrace = expect(p, PM_T_LBRACE, "'{'")))
		return -1;
	for (;;) {
		t = peek(p);
		if (t->kind == PM_T_RBRACE)
			break;
		if (t->kind == PM_T_EOF) {
			pm_diag_error(p->diags, t->loc,
				"expected '}' at the end of def '%s', found end of input",
				ast->name);
			pm_diag_note(p->diags, lbrace->loc,
				"the body of '%s' starts here", ast->name);
			return -1;
		}
		if (t->kind != PM_T_IDENT) {
			unexpected(p, "a statement or '}'");
			return -1;
		}
		if (ast->nstmts == PM_LIMIT_STMTS) {
			pm_diag_error(p->diags, t->loc,
				"too many statements (at most %d)",
				PM_LIMIT_STMTS);
			return -1;
		}
		if (p->toks[p->pos + 1].kind != PM_T_LPAREN &&
		    !is_stmt_op(p->toks[p->pos + 1].kind)) {
			next(p);
			unexpected(p, "'(' after the tensor name");
			return -1;
		}
		if (parse_stmt(p, ast) < 0)
			return -1;
	}
	next(p);
	if (peek(p)->kind == PM_T_DEF) {
		pm_diag_error(p->diags, peek(p)->loc,
			"only one 'def' per file is supported");
		return -1;
	}
	if (!expect(p, PM_T_EOF, "end of input after '}'"))
		return -1;
	return 0;
}

void pm_ast_free(struct pm_ast *ast)
{
	int i, j;

	if (!ast)
		return;
	for (i = 0; i < ast->ndecls; i++) {
		free(ast->decls[i].type);
		free(ast->decls[i].name);
		for (j = 0; j < ast->decls[i].rank; j++)
			free(ast->decls[i].dim_sym[j]);
	}
	for (i = 0; i < ast->nstmts; i++) {
		pm_ast_expr_free(ast->stmts[i].lhs);
		pm_ast_expr_free(ast->stmts[i].rhs);
		free(ast->stmts[i].group);
		free(ast->stmts[i].group_by);
	}
	free(ast->decls);
	free(ast->stmts);
	free(ast->name);
	free(ast);
}

struct pm_ast *pm_parse(const char *text, struct pm_diags *diags)
{
	struct parser p = { NULL, 0, diags, 0 };
	struct pm_ast *ast;
	int n;

	p.toks = pm_lex_all(text, diags, &n);
	if (!p.toks)
		return NULL;
	ast = calloc(1, sizeof(*ast));
	if (!ast) {
		pm_diag_plain(diags, "out of memory");
	} else if (parse_spec(&p, ast) < 0) {
		pm_ast_free(ast);
		ast = NULL;
	}
	free(p.toks);
	return ast;
}

/* Frontend internals: tokens (lexer.c), the syntax tree (parser.c) and the
 * step from syntax tree to checked DAG (sema.c). Not a public header.
 *
 * The syntax tree keeps names as strings; sema resolves them. Function calls
 * and tensor reads are both "applications" NAME(arg, ...) in the tree: sema
 * decides which one a name is.
 */
#ifndef PM_FRONTEND_LEXER_H
#define PM_FRONTEND_LEXER_H

#include <stdbool.h>

#include "frontend/frontend.h"

enum pm_tok_kind {
	PM_T_EOF, PM_T_IDENT, PM_T_INT, PM_T_NUM, PM_T_DEF,
	PM_T_LPAREN, PM_T_RPAREN, PM_T_LBRACE, PM_T_RBRACE, PM_T_COMMA,
	PM_T_ARROW, PM_T_PLUS, PM_T_MINUS, PM_T_STAR, PM_T_SLASH,
	PM_T_ASSIGN, PM_T_ACCUM, PM_T_REDUCE,
	PM_T_RMAX, PM_T_RMIN	/* max=! min=! */
};

struct pm_token {
	enum pm_tok_kind kind;
	struct pm_loc loc;
	const char *start;	/* into the source text */
	int len;
	double num;		/* PM_T_INT, PM_T_NUM */
};

/* Lex the whole text. Returns a malloc'ed array ending with a PM_T_EOF token
 * (whose loc is just after the last token), or NULL after a diagnostic. */
struct pm_token *pm_lex_all(const char *text, struct pm_diags *diags,
	int *ntokens);
/* "'text'" for a token, "end of input" for PM_T_EOF, into buf. */
const char *pm_tok_describe(const struct pm_token *t, char *buf, int size);

enum pm_ast_kind { PM_A_NUM, PM_A_VAR, PM_A_APPLY, PM_A_NEG, PM_A_BIN };

struct pm_ast_expr {
	enum pm_ast_kind kind;
	struct pm_loc loc;	/* name, number or operator */
	struct pm_loc start;	/* first token of the expression */
	double num;		/* PM_A_NUM */
	char op;		/* PM_A_BIN: + - * / */
	char *name;		/* PM_A_VAR, PM_A_APPLY */
	int nargs;		/* PM_A_APPLY: arguments; NEG 1; BIN 2 */
	struct pm_ast_expr *args[PM_MAX_RANK];
	int height;		/* 1 for a leaf */
};

struct pm_ast_decl {
	char *type;
	struct pm_loc type_loc;
	char *name;
	struct pm_loc loc;
	bool output;
	int rank;
	char *dim_sym[PM_MAX_RANK];	/* NULL for a literal */
	long dim_val[PM_MAX_RANK];
	struct pm_loc dim_loc[PM_MAX_RANK];
};

struct pm_ast_stmt {
	enum pm_stmt_kind kind;
	enum pm_red_op red;		/* PM_S_REDUCE */
	struct pm_ast_expr *lhs;	/* PM_A_APPLY (no arguments: a scalar) */
	struct pm_ast_expr *rhs;
	/* `group e by offs` after a contraction (docs/LANGUAGE.md,
	 * "Grouped contractions"): the group index and the offsets' tensor,
	 * NULL without the clause */
	char *group, *group_by;
	struct pm_loc group_loc, group_by_loc, clause_loc;
};

struct pm_ast {
	char *name;
	struct pm_loc loc;
	int ndecls;
	struct pm_ast_decl *decls;	/* parameters, then outputs */
	int nstmts;
	struct pm_ast_stmt *stmts;
};

/* Parse the text; NULL after a diagnostic. */
struct pm_ast *pm_parse(const char *text, struct pm_diags *diags);
void pm_ast_free(struct pm_ast *ast);
void pm_ast_expr_free(struct pm_ast_expr *e);

/* Check a syntax tree and build the DAG; NULL after diagnostics. */
struct pm_spec *pm_sema(const struct pm_ast *ast, const char *text,
	const char *filename, struct pm_diags *diags);

#endif

/* Lexer: the whole text to an array of tokens. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/lexer.h"

struct lexer {
	const char *p;
	const char *line_start;
	int line;
	struct pm_diags *diags;
	struct pm_token *toks;
	int n, cap;
};

static struct pm_loc here(const struct lexer *lx, const char *p)
{
	struct pm_loc loc = { lx->line, (int)(p - lx->line_start) + 1 };
	return loc;
}

static int push(struct lexer *lx, enum pm_tok_kind kind, const char *start,
	int len)
{
	struct pm_token *t;

	if (lx->n == lx->cap) {
		int cap = lx->cap ? 2 * lx->cap : 64;
		t = realloc(lx->toks, (size_t)cap * sizeof(*t));
		if (!t) {
			pm_diag_plain(lx->diags, "out of memory");
			return -1;
		}
		lx->toks = t;
		lx->cap = cap;
	}
	t = &lx->toks[lx->n++];
	t->kind = kind;
	t->loc = here(lx, start);
	t->start = start;
	t->len = len;
	t->num = 0;
	return 0;
}

/* Skip blanks, newlines and comments. */
static void skip_space(struct lexer *lx)
{
	for (;;) {
		char c = *lx->p;
		if (c == '\n') {
			lx->p++;
			lx->line++;
			lx->line_start = lx->p;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			lx->p++;
		} else if (c == '#') {
			while (*lx->p && *lx->p != '\n')
				lx->p++;
		} else {
			return;
		}
	}
}

/* digits [. digits] [e [+-] digits], or . digits [...] */
static int lex_number(struct lexer *lx)
{
	const char *s = lx->p, *q = s;
	bool is_int = true;
	char buf[128];
	double v;
	int len;

	while (isdigit((unsigned char)*q))
		q++;
	if (*q == '.') {
		is_int = false;
		q++;
		while (isdigit((unsigned char)*q))
			q++;
	}
	if ((*q == 'e' || *q == 'E') && (isdigit((unsigned char)q[1]) ||
	    ((q[1] == '+' || q[1] == '-') && isdigit((unsigned char)q[2])))) {
		is_int = false;
		q += 2;
		while (isdigit((unsigned char)*q))
			q++;
	}
	len = (int)(q - s);
	if (isalpha((unsigned char)*q) || *q == '_') {
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		pm_diag_error(lx->diags, here(lx, s), "invalid number '%.*s'",
			(int)(q - s), s);
		return -1;
	}
	if (len >= (int)sizeof(buf)) {
		pm_diag_error(lx->diags, here(lx, s), "number is too long");
		return -1;
	}
	memcpy(buf, s, (size_t)len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, NULL);
	if (errno == ERANGE && (isinf(v) || v != 0)) {
		pm_diag_error(lx->diags, here(lx, s),
			"number '%s' is out of range", buf);
		return -1;
	}
	if (push(lx, is_int ? PM_T_INT : PM_T_NUM, s, len) < 0)
		return -1;
	lx->toks[lx->n - 1].num = v;
	lx->p = q;
	return 0;
}

static int lex_punct(struct lexer *lx)
{
	const char *s = lx->p;
	enum pm_tok_kind k;
	int len = 1;

	switch (*s) {
	case '(': k = PM_T_LPAREN; break;
	case ')': k = PM_T_RPAREN; break;
	case '{': k = PM_T_LBRACE; break;
	case '}': k = PM_T_RBRACE; break;
	case ',': k = PM_T_COMMA; break;
	case '*': k = PM_T_STAR; break;
	case '/': k = PM_T_SLASH; break;
	case '=': k = PM_T_ASSIGN; break;
	case '-':
		k = PM_T_MINUS;
		if (s[1] == '>') {
			k = PM_T_ARROW;
			len = 2;
		}
		break;
	case '+':
		k = PM_T_PLUS;
		if (s[1] == '=') {
			k = PM_T_ACCUM;
			len = 2;
			if (s[2] == '!') {
				k = PM_T_REDUCE;
				len = 3;
			}
		}
		break;
	default:
		if (isprint((unsigned char)*s))
			pm_diag_error(lx->diags, here(lx, s),
				"unexpected character '%c'", *s);
		else
			pm_diag_error(lx->diags, here(lx, s),
				"unexpected character '\\x%02x'",
				(unsigned)(unsigned char)*s);
		return -1;
	}
	if (push(lx, k, s, len) < 0)
		return -1;
	lx->p += len;
	return 0;
}

/* The identifier from s to lx->p fits the fixed buffers of names. */
static int check_ident(struct lexer *lx, const char *s)
{
	if (lx->p - s <= PM_LIMIT_IDENT)
		return 0;
	pm_diag_error(lx->diags, here(lx, s), "identifier '%.20s...' is too "
		"long (%ld characters, at most %d)", s, (long)(lx->p - s),
		PM_LIMIT_IDENT);
	return -1;
}

struct pm_token *pm_lex_all(const char *text, struct pm_diags *diags,
	int *ntokens)
{
	struct lexer lx = { text, text, 1, diags, NULL, 0, 0 };
	struct pm_token *eof;
	int rc;

	for (;;) {
		skip_space(&lx);
		if (!*lx.p)
			break;
		if (isalpha((unsigned char)*lx.p) || *lx.p == '_') {
			const char *s = lx.p;
			while (isalnum((unsigned char)*lx.p) || *lx.p == '_')
				lx.p++;
			rc = check_ident(&lx, s);
			if (!rc)
				rc = push(&lx, PM_T_IDENT, s, (int)(lx.p - s));
			if (!rc && lx.p - s == 3 && !strncmp(s, "def", 3))
				lx.toks[lx.n - 1].kind = PM_T_DEF;
			/* max=! and min=!: one operator token */
			if (!rc && lx.p - s == 3 && (!strncmp(s, "max", 3) ||
			    !strncmp(s, "min", 3)) && lx.p[0] == '=' &&
			    lx.p[1] == '!') {
				lx.toks[lx.n - 1].kind = s[1] == 'a' ?
					PM_T_RMAX : PM_T_RMIN;
				lx.toks[lx.n - 1].len = 5;
				lx.p += 2;
			}
		} else if (isdigit((unsigned char)*lx.p) ||
			   (*lx.p == '.' && isdigit((unsigned char)lx.p[1]))) {
			rc = lex_number(&lx);
		} else {
			rc = lex_punct(&lx);
		}
		if (rc < 0) {
			free(lx.toks);
			return NULL;
		}
	}
	if (push(&lx, PM_T_EOF, lx.p, 0) < 0) {
		free(lx.toks);
		return NULL;
	}
	/* End of input is reported just after the last token. */
	eof = &lx.toks[lx.n - 1];
	if (lx.n > 1) {
		const struct pm_token *last = &lx.toks[lx.n - 2];
		eof->loc = last->loc;
		eof->loc.col += last->len;
	} else {
		eof->loc.line = 1;
		eof->loc.col = 1;
	}
	*ntokens = lx.n;
	return lx.toks;
}

const char *pm_tok_describe(const struct pm_token *t, char *buf, int size)
{
	if (t->kind == PM_T_EOF)
		snprintf(buf, (size_t)size, "end of input");
	else
		snprintf(buf, (size_t)size, "'%.*s'", t->len > 40 ? 40 : t->len,
			t->start);
	return buf;
}

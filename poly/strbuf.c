#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "poly/strbuf.h"

static char empty[1];

void pm_strbuf_init(struct pm_strbuf *b)
{
	b->s = empty;
	b->len = b->cap = 0;
	b->failed = 0;
}

void pm_strbuf_free(struct pm_strbuf *b)
{
	if (b->s != empty)
		free(b->s);
	pm_strbuf_init(b);
}

static int grow(struct pm_strbuf *b, size_t need)
{
	size_t cap = b->cap ? b->cap : 256;
	char *s;

	if (b->len + need + 1 <= b->cap)
		return 0;
	while (cap < b->len + need + 1)
		cap *= 2;
	s = realloc(b->s == empty ? NULL : b->s, cap);
	if (!s) {
		b->failed = 1;
		return -1;
	}
	if (b->s == empty)
		s[0] = '\0';
	b->s = s;
	b->cap = cap;
	return 0;
}

void pm_strbuf_add(struct pm_strbuf *b, const char *str)
{
	size_t n = strlen(str);

	if (grow(b, n) < 0)
		return;
	memcpy(b->s + b->len, str, n + 1);
	b->len += n;
}

void pm_strbuf_printf(struct pm_strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || grow(b, n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

char *pm_strbuf_take(struct pm_strbuf *b)
{
	char *s = b->s == empty ? calloc(1, 1) : b->s;

	pm_strbuf_init(b);
	return s;
}

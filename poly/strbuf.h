/* A growing NUL-terminated string (used to build isl strings and code). */
#ifndef PM_STRBUF_H
#define PM_STRBUF_H

#include <stddef.h>

struct pm_strbuf {
	char *s;
	size_t len, cap;
	int failed;		/* an allocation failed; s stays valid */
};

void pm_strbuf_init(struct pm_strbuf *b);
void pm_strbuf_free(struct pm_strbuf *b);
void pm_strbuf_add(struct pm_strbuf *b, const char *str);
void pm_strbuf_printf(struct pm_strbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Hand over the string (caller frees); b is left empty. */
char *pm_strbuf_take(struct pm_strbuf *b);

#endif

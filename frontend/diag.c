/* Diagnostics buffer: gcc-style messages appended to a growing string. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/diag.h"

void pm_diags_init(struct pm_diags *d, const char *filename, const char *text)
{
	d->filename = filename;
	d->text = text;
	d->len = 0;
	d->nerrors = 0;
	d->cls = PM_ERR_NONE;
	d->cap = 256;
	d->buf = malloc(d->cap);
	if (d->buf)
		d->buf[0] = '\0';
	else
		d->cap = 0;
}

void pm_diags_clear(struct pm_diags *d)
{
	free(d->buf);
	d->buf = NULL;
	d->len = d->cap = 0;
	d->nerrors = 0;
	d->cls = PM_ERR_NONE;
}

const char *pm_diags_text(const struct pm_diags *d)
{
	return d->buf ? d->buf : "";
}

/* Make room for n more bytes plus the terminating NUL. */
static int reserve(struct pm_diags *d, size_t n)
{
	size_t cap;
	char *nb;

	if (d->len + n + 1 <= d->cap)
		return 0;
	cap = d->cap ? d->cap : 256;
	while (cap < d->len + n + 1)
		cap *= 2;
	nb = realloc(d->buf, cap);
	if (!nb)
		return -1;
	if (!d->buf)
		nb[0] = '\0';
	d->buf = nb;
	d->cap = cap;
	return 0;
}

static void append_n(struct pm_diags *d, const char *s, size_t n)
{
	if (reserve(d, n) < 0)
		return;
	memcpy(d->buf + d->len, s, n);
	d->len += n;
	d->buf[d->len] = '\0';
}

static void append_s(struct pm_diags *d, const char *s)
{
	append_n(d, s, strlen(s));
}

static void append_v(struct pm_diags *d, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0 || reserve(d, (size_t)n) < 0)
		return;
	vsnprintf(d->buf + d->len, (size_t)n + 1, fmt, ap);
	d->len += (size_t)n;
}

static void append_f(struct pm_diags *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void append_f(struct pm_diags *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	append_v(d, fmt, ap);
	va_end(ap);
}

/* Find line `line` (1-based) of the source; NULL when there is none. */
static const char *find_line(const char *text, int line, size_t *len)
{
	const char *p = text;
	int l;

	if (!text || line < 1)
		return NULL;
	for (l = 1; l < line; l++) {
		p = strchr(p, '\n');
		if (!p)
			return NULL;
		p++;
	}
	*len = strcspn(p, "\r\n");
	return p;
}

/* The source line, then a caret under column col (tabs kept so that the
 * caret lines up). */
static void append_source(struct pm_diags *d, struct pm_loc loc)
{
	const char *src;
	size_t len = 0, i;

	src = find_line(d->text, loc.line, &len);
	if (!src)
		return;
	append_n(d, src, len);
	append_s(d, "\n");
	for (i = 0; loc.col > 1 && i < (size_t)(loc.col - 1); i++)
		append_s(d, i < len && src[i] == '\t' ? "\t" : " ");
	append_s(d, "^\n");
}

static void report(struct pm_diags *d, struct pm_loc loc, const char *kind,
	const char *prefix, const char *fmt, va_list ap)
{
	const char *file = d->filename ? d->filename : "<input>";

	if (loc.line > 0)
		append_f(d, "%s:%d:%d: %s: ", file, loc.line,
			loc.col > 0 ? loc.col : 1, kind);
	else
		append_f(d, "%s: %s: ", file, kind);
	append_s(d, prefix);
	append_v(d, fmt, ap);
	append_s(d, "\n");
	if (loc.line > 0)
		append_source(d, loc);
}

/* Count an error of class cls. */
static void count(struct pm_diags *d, enum pm_err_class cls)
{
	d->nerrors++;
	if (cls > d->cls)
		d->cls = cls;
}

enum pm_err_class pm_diags_class(const struct pm_diags *d)
{
	return d->cls;
}

void pm_diag_error(struct pm_diags *d, struct pm_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(d, loc, "error", "", fmt, ap);
	va_end(ap);
	count(d, PM_ERR_SPEC);
}

void pm_diag_unsupported(struct pm_diags *d, struct pm_loc loc,
	const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(d, loc, "error", "unsupported: ", fmt, ap);
	va_end(ap);
	count(d, PM_ERR_UNSUPPORTED);
}

void pm_diag_note(struct pm_diags *d, struct pm_loc loc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(d, loc, "note", "", fmt, ap);
	va_end(ap);
}

/* "polymma: error: " prefix fmt, then a newline. */
static void plain(struct pm_diags *d, const char *prefix, const char *fmt,
	va_list ap)
{
	append_s(d, "polymma: error: ");
	append_s(d, prefix);
	append_v(d, fmt, ap);
	append_s(d, "\n");
}

void pm_diag_plain(struct pm_diags *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plain(d, "", fmt, ap);
	va_end(ap);
	count(d, PM_ERR_SPEC);
}

void pm_diag_internal(struct pm_diags *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	plain(d, "internal error: ", fmt, ap);
	va_end(ap);
	count(d, PM_ERR_INTERNAL);
}

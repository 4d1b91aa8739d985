/* Diagnostics: gcc-style messages collected into a growing buffer.
 *
 *   pm_diag_error(d, loc, "tensor '%s' is not declared", name)
 *   appends  "file:line:col: error: tensor 'X' is not declared\n"
 *            "<the source line>\n"
 *            "<spaces>^\n"
 * loc.line/col are 1-based; line 0 means "no location" (prints
 * "file: error: ..." without the source line).
 */
#ifndef PM_DIAG_H
#define PM_DIAG_H

#include <stddef.h>

struct pm_loc {
	int line;
	int col;
};

struct pm_diags {
	const char *filename;	/* not owned */
	const char *text;	/* source text, not owned (may be NULL) */
	char *buf;		/* NUL-terminated, owned */
	size_t len, cap;
	int nerrors;
};

void pm_diags_init(struct pm_diags *d, const char *filename,
	const char *text);
/* Releases buf and resets the counts; d can be used again afterwards. */
void pm_diags_clear(struct pm_diags *d);
/* The messages so far; "" when none (also after pm_diags_clear). */
const char *pm_diags_text(const struct pm_diags *d);
void pm_diag_error(struct pm_diags *d, struct pm_loc loc, const char *fmt,
	...) __attribute__((format(printf, 3, 4)));
void pm_diag_note(struct pm_diags *d, struct pm_loc loc, const char *fmt,
	...) __attribute__((format(printf, 3, 4)));
/* Message with no location and no file prefix: "polymma: error: ...". */
void pm_diag_plain(struct pm_diags *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif

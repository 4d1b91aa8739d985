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

/* The class of an error, least severe first: a mistake in the spec or the
 * options, a request polymma cannot fulfil yet ("unsupported: ..."), a bug
 * in polymma ("internal error: ..."). */
enum pm_err_class {
	PM_ERR_NONE = 0,
	PM_ERR_SPEC,
	PM_ERR_UNSUPPORTED,
	PM_ERR_INTERNAL
};

struct pm_diags {
	const char *filename;	/* not owned */
	const char *text;	/* source text, not owned (may be NULL) */
	char *buf;		/* NUL-terminated, owned */
	size_t len, cap;
	int nerrors;
	enum pm_err_class cls;	/* the most severe class so far */
};

void pm_diags_init(struct pm_diags *d, const char *filename,
	const char *text);
/* Releases buf and resets the counts; d can be used again afterwards. */
void pm_diags_clear(struct pm_diags *d);
/* The messages so far; "" when none (also after pm_diags_clear). */
const char *pm_diags_text(const struct pm_diags *d);
/* The most severe class of the errors so far: PM_ERR_NONE when there is
 * none (also after pm_diags_clear); notes have no class. */
enum pm_err_class pm_diags_class(const struct pm_diags *d);
/* An error of class PM_ERR_SPEC. */
void pm_diag_error(struct pm_diags *d, struct pm_loc loc, const char *fmt,
	...) __attribute__((format(printf, 3, 4)));
/* A note on the error before it; does not count as an error. */
void pm_diag_note(struct pm_diags *d, struct pm_loc loc, const char *fmt,
	...) __attribute__((format(printf, 3, 4)));
/* Message with no location and no file prefix: "polymma: error: ...";
 * class PM_ERR_SPEC. */
void pm_diag_plain(struct pm_diags *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A request polymma cannot fulfil yet, at loc: pm_diag_error with the
 * message "unsupported: " fmt; class PM_ERR_UNSUPPORTED. */
void pm_diag_unsupported(struct pm_diags *d, struct pm_loc loc,
	const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A bug in polymma: pm_diag_plain with the message "internal error: "
 * fmt; class PM_ERR_INTERNAL. */
void pm_diag_internal(struct pm_diags *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif

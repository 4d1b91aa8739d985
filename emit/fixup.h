/* Internal to emit/: the split-K fixup (fixup.c). */
#ifndef PM_EMIT_FIXUP_H
#define PM_EMIT_FIXUP_H

#include "emit/frame.h"

/* The predicate of the split persistent kernel's STG at tile row e
 * ("if (...) "), of a cluster's ("if (pm_own) "; nothing elsewhere). */
void pm_print_strip_pred(struct pm_kernel *k, struct pm_strbuf *b,
	__isl_keep isl_ast_expr *e);
/* The FIXUP op (split-K) of annotation a. */
void pm_print_fixup(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);

#endif

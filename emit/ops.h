/* Internal to emit/: the op printer (ops.c), one statement of the AST.
 * It prints the ops of the synchronous pipeline itself and dispatches the
 * copy units to copies.c, the pointwise ops to pointwise.c, the TMA
 * pipeline's to tma.c and the split-K fixup to fixup.c; none of them calls
 * it back. */
#ifndef PM_EMIT_OPS_H
#define PM_EMIT_OPS_H

#include "emit/frame.h"

/* One statement (with trailing newline) for annotation a; copies happen
 * only where the C expression pred (when not NULL) is true. Returns -1 on
 * an op kind it does not know. */
int pm_print_op(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred);

#endif

/* Internal to emit/: the persistent warp-specialized kernels' bodies
 * (persist.c). */
#ifndef PM_EMIT_PERSIST_H
#define PM_EMIT_PERSIST_H

#include "emit/frame.h"

/* The body of a warp-specialized kernel (k->ws) after its locals: the
 * loop over tiles and the roles' code (pm_emit_body), closing the kernel.
 * Returns -1 on an internal error (message in d). */
int pm_emit_ws_body(struct pm_kernel *k, __isl_keep isl_ast_node *ast,
	struct pm_strbuf *b, struct pm_diags *d);

#endif

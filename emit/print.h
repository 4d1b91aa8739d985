/* Internal to emit/: printing one op call and expressions. */
#ifndef PM_EMIT_PRINT_H
#define PM_EMIT_PRINT_H

#include <isl/ast.h>

#include "emit/emit.h"

void pm_print_expr(struct pm_strbuf *b, __isl_keep isl_ast_expr *e);
/* One statement (with trailing newline) for annotation a. */
int pm_print_op(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* Row-major linear index of tensor t at the index expressions e[0..rank). */
void pm_print_linear(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e);
/* The stride (text) of dimension d of tensor t in global memory. */
void pm_print_stride(struct pm_kernel *k, struct pm_strbuf *b, int t, int d);

#endif

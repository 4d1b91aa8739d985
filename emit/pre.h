/* Internal to emit/: the launcher-applied prologues of a generated file
 * (pre.c; variant/pre.h, docs/decisions/0059-launcher-applied-prologues.md).
 *
 * Rows whose kernels read operands as the launcher's copies (their spec's
 * tensors with `pre`, runtime flag PM_RT_PRE) are launched after one
 * kernel per copy,
 *   pm_pre_NAME_X(inputs, pm_y, pm_rows, pm_cols, sizes)
 * which writes X's elements, each to fp32, the operand's prologue (the
 * main kernel's shared-memory pass's expression), rounded once to the
 * copy's type, 8 a thread (16-byte stores), into the workspace at
 * c->pre_off (each copy 256-aligned); the operand then points at it. */
#ifndef PM_EMIT_PRE_H
#define PM_EMIT_PRE_H

#include "emit/frame.h"
#include "variant/variant.h"

/* The number of tensors kernel k reads as the launcher's copies. */
int pm_emit_pres(const struct pm_kernel *k);
/* Does a row of main kernel k's file (k->var) read copies? Its launcher
 * then takes a workspace (NAME_ws, NAME_workspace_size) where k does not
 * split. */
int pm_emit_has_pre(const struct pm_kernel *k);
/* A row of vs reading copies (every such row reads the same), or NULL. */
struct pm_kernel *pm_emit_pre_row(const struct pm_variant_set *vs);
/* The output dimension over which the elements of tensor t's copy are
 * reused (0, the rows, for a copy of B; 1 for one of A), in main kernel
 * k. */
int pm_emit_pre_reuse(const struct pm_kernel *k, int t);
/* The copies' kernels (nothing where no row of vs reads copies). */
void pm_emit_pre_kernels(const struct pm_variant_set *vs,
	struct pm_strbuf *b);
/* pm_plan_NAME's "p.pre_bytes = ..; p.pre_reuse = ..;" (nothing where no
 * row of vs reads copies). */
void pm_emit_pre_plan(const struct pm_variant_set *vs, struct pm_strbuf *b);
/* In row kernel k's launch (indented by ind; cudaError_t e, the
 * pm_launch_NAME arguments in scope): the copies, then each operand
 * pointing at its copy. */
void pm_emit_pre_call(const struct pm_variant_set *vs, struct pm_kernel *k,
	struct pm_strbuf *b, const char *ind);

#endif

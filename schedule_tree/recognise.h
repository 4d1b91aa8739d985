/* Recognition helpers of kernel.c.
 *
 * prologue.c: operand prologues that read other tensors (dequantizing
 * weights: C(i, j) +=! A(i, k) * ((Bq(k, j) - z(j)) * s(j))).
 *
 * A contraction's operand expression is a pointwise function of one
 * operand read (2-D, indexed by the contraction's k) and of broadcast
 * reads: inputs of rank 0 or 1 (f16, bf16 or f32) indexed by the
 * operand's own variables (s(j) beside B(k, j), sa(k) beside A(i, k)).
 * The shared-memory prologue reads each broadcast element at the indices
 * of the operand element it converts, in the copy's own distribution
 * (emit/pointwise.c); a prologue reading other tensors is never applied
 * to the MMA's registers (promote.c, pro_regs_decide;
 * docs/decisions/0039-dequant-prologues-and-contractions.md).
 * shared.c: contractions reading one tensor. */
#ifndef PM_SCHEDULE_TREE_RECOGNISE_H
#define PM_SCHEDULE_TREE_RECOGNISE_H

#include "frontend/frontend.h"
#include "schedule_tree/tree.h"

/* The operand read of operand expression e: its one read of two or more
 * indices, the others of fewer (broadcasts); NULL when there is no such
 * read or several. */
const struct pm_expr *pm_prologue_operand(const struct pm_expr *e);
/* Does prologue pro (NULL: none) read a tensor other than tensor? */
int pm_prologue_reads_other(const struct pm_expr *pro, int tensor);
/* The number of prologue pro's (NULL: none) reads of tensors other than
 * tensor; the first max of them, left to right, in r[]. */
int pm_prologue_other_reads(const struct pm_expr *pro, int tensor,
	const struct pm_expr **r, int max);
/* Does pro read other tensors along variable var only (0 i, 1 j; or
 * scalars), at most PM_CONV_READS of them: a prologue an operand widened
 * in the MMA's registers can apply (docs/decisions/0062)? */
int pm_prologue_along(const struct pm_expr *pro, int tensor, int var);
/* -1 with a diagnostic (unsupported) when prologue pro (NULL: none) of
 * operand read x reads a tensor a prologue cannot: not an input, not
 * f16, bf16 or f32, or indexed by a variable x does not have. */
int pm_prologue_check(const struct pm_spec *spec, const struct pm_expr *pro,
	const struct pm_expr *x, struct pm_diags *d);

/* Contractions of k reading one tensor (shared.c): one shared operand
 * with the same access, k extent and no prologue is one copy for both
 * in a kernel of two (scop->join); anything else is refused: -1 with a
 * diagnostic at the read. */
int pm_kernel_check_shared(struct pm_kernel *k, struct pm_diags *d);

#endif

/* The main kernel's operands whose prologue runs in shared memory
 * (promote/internal.h's pm_pr_smem_pro: a prologue not through the MMA's
 * registers, or a converting copy), which have no TMA copies.
 *
 *   vs->pre[0 .. npre)  those operands' tensors: on a target whose
 *                       persistent rows copy by TMA, those rows read them
 *                       as copies the launcher writes into the workspace
 *                       (variant/pre.h, docs/decisions/0059);
 *   vs->pre_why         why they cannot (pm_pre_refused), or NULL;
 *   vs->swap_regs       the swapped rows read them themselves, widened
 *                       in the MMA's registers: every one an i8 B of the
 *                       one contraction, its prologue along j only
 *                       (docs/decisions/0062).
 */
#ifndef PM_VARIANT_OPERANDS_H
#define PM_VARIANT_OPERANDS_H

#include "variant/variant.h"

/* Set vs->pre, npre, pre_why and swap_regs from vs->main. */
void pm_variant_pre_operands(struct pm_variant_set *vs);

#endif

/* Which operands the persistent rows read as the launcher's copies and
 * which the swapped rows widen in the registers (operands.h). */
#include "schedule_tree/recognise.h"
#include "variant/operands.h"
#include "variant/pre.h"

/* Do the swapped rows of main kernel k read its operands with a prologue
 * in shared memory themselves, widened in the MMA's registers (promote's
 * conv_regs, docs/decisions/0062)?  Where every such operand is an i8 B
 * of the one contraction (the swapped kernels' A) whose prologue (if
 * any) reads other tensors along j only (a zero point z(j); a factor
 * along j is in the epilogue, 0044). */
static int swap_regs(const struct pm_kernel *k)
{
	for (int i = 0; i < k->nbufs; ++i) {
		const struct pm_buffer *buf = &k->bufs[i];

		if (!(buf->pro || buf->conv) || buf->pro_regs)
			continue;
		if (!buf->conv || k->ncon != 1 || buf->tensor != k->con[0].b ||
		    !pm_prologue_along(buf->pro, buf->tensor, 1))
			return 0;
	}
	return 1;
}

void pm_variant_pre_operands(struct pm_variant_set *vs)
{
	const struct pm_kernel *k = vs->main;

	for (int i = 0; i < k->nbufs; ++i) {
		const struct pm_buffer *buf = &k->bufs[i];
		int seen = 0;

		if (!(buf->pro || buf->conv) || buf->pro_regs)
			continue;
		for (int j = 0; j < vs->npre; ++j)
			seen |= vs->pre[j] == buf->tensor;
		if (!seen && vs->npre < 8)
			vs->pre[vs->npre++] = buf->tensor;
	}
	if (!vs->npre || vs->target->tma != 2)
		return;
	vs->pre_why = pm_pre_refused(k->scop->spec, vs->pre, vs->npre);
	vs->swap_regs = swap_regs(k);
}

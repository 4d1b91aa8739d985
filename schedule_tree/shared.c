/* Contractions reading one tensor (schedule_tree/recognise.h). */
#include "schedule_tree/recognise.h"

/* The reads of contraction c1 of tensors contraction c0 also reads:
 * their number, the last in *r. */
static int shared_reads(const struct pm_kernel *k, int c0, int c1,
	const struct pm_expr **r)
{
	const struct pm_expr *r1[2] = { k->con[c1].ra, k->con[c1].rb };
	int n = 0;

	for (int i = 0; i < 2; ++i)
		if (r1[i]->tensor == k->con[c0].a ||
		    r1[i]->tensor == k->con[c0].b)
			*r = r1[i], n++;
	return n;
}

/* Two contractions reading one tensor: one shared operand with the same
 * access, k extent and no prologue is one copy for both (the scop joined
 * the k loops of a kernel of two, scop->join); anything else is refused. */
static int check_pair(struct pm_kernel *k, int c0, int c1,
	struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_expr *r = NULL;
	int n = shared_reads(k, c0, c1, &r);

	if (!n || (n == 1 && k->scop->join))
		return 0;
	pm_diag_unsupported(d, r->loc, "%s contractions read '%s'%s",
		k->ncon > 2 ? "two" : "both", spec->tensors[r->tensor].name,
		n > 1 ? " and both their operands are shared (the same "
		"product twice)" : k->ncon > 2 ? "; a shared operand is one "
		"copy in kernels of two contractions only" : "; a shared "
		"operand is one copy when both read it with the same access, "
		"as a plain read (no prologue), over one k extent");
	return -1;
}

int pm_kernel_check_shared(struct pm_kernel *k, struct pm_diags *d)
{
	for (int c1 = 1; c1 < k->ncon; ++c1)
		for (int c0 = 0; c0 < c1; ++c0)
			if (check_pair(k, c0, c1, d) < 0)
				return -1;
	return 0;
}

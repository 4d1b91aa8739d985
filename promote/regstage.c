/* Register-staged prefetch (the paper's sm_70 pipeline; contract in
 * promote/internal.h).
 *
 * Without asynchronous copies a copy is a global load followed at once by
 * a shared store, so the warp waits for the load. With 2 stages the k loop
 * body becomes
 *
 *   WAIT (barrier); LDR(kt+1): the units of tile kt+1 into registers;
 *   MMA(kt); STR(kt+1): the registers into stage (kt+1) mod 2
 *
 * and the loads are in flight during the MMAs. STR writes the stage that
 * MMA(kt-1) read: the barrier at the top of iteration kt orders them, and
 * the barrier of iteration kt+1 publishes the stores. LDR and STR have the
 * copy's instances and thread mapping; unit u = floor(l0 / P) of a thread
 * lives in register pm_rs<b>[u]. */
#include <isl/map.h>
#include <isl/schedule_node.h>

#include "target/target.h"
#include "promote/internal.h"

int pm_rstage_decide(struct pm_kernel *k, int c, struct pm_diags *d)
{
	const struct pm_config *cfg = k->cfg;
	const char *why = NULL;

	if (cfg->reg_stage == 0)
		return 0;
	if (cfg->target->async_copy)
		why = "the target copies asynchronously (cp.async)";
	else if (cfg->stages != 2)
		why = "it needs exactly 2 shared-memory stages";
	for (int b = 0; !why && b < k->nbufs; ++b) {
		if (k->bufs[b].con != c)
			continue;
		if (k->bufs[b].vec != pm_kernel_vec(k))
			why = "it needs 16-byte copy units";
		else if (pm_pr_smem_pro(&k->bufs[b]))
			why = "prologues are applied in shared memory";
	}
	if (!why)
		return 1;
	if (cfg->reg_stage < 0)
		return 0;
	pm_diag_plain(d, "--reg-stage on: not possible here: %s (target %s, "
		"stages %d)", why, cfg->target->name, cfg->stages);
	return -1;
}

/* LDR(kt+1) of contraction c's buffers, for the loop's extension. */
void pm_rstage_loads(struct pm_kernel *k, int c, isl_id **ids, int *nd,
	isl_map **ext, int *n)
{
	for (int b = 0; b < k->nbufs; ++b) {
		struct pm_buffer *buf = &k->bufs[b];

		if (buf->con != c)
			continue;
		buf->ldr_id = pm_kernel_op(k, "LDR", PM_OP_LDR, b);
		ids[*n] = buf->ldr_id, nd[*n] = 5;
		ext[(*n)++] = pm_pr_copy_ext_id(k, b, 3, 1, buf->ldr_id);
	}
}

__isl_give isl_schedule_node *pm_rstage_stores(struct pm_kernel *k, int c,
	struct pm_diags *d)
{
	isl_id *ids[4];
	int nd[4], n = 0;
	isl_map *ext[4];

	for (int b = 0; b < k->nbufs; ++b) {
		struct pm_buffer *buf = &k->bufs[b];

		if (buf->con != c)
			continue;
		buf->str_id = pm_kernel_op(k, "STR", PM_OP_STR, b);
		ids[n] = buf->str_id, nd[n] = 5;
		ext[n++] = pm_pr_copy_ext_id(k, b, 3, 1, buf->str_id);
	}
	return pm_pr_graft_tree(k, n, ids, nd, ext, 3, d);
}

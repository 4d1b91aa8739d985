/* The fragment pipeline: warp fragments loaded one k-step ahead, across
 * k tiles (contract in promote/internal.h).
 *
 * With T = BK / MK k-steps per block k tile and the macro k equal to the
 * instruction's k, every warp holds two fragment buffers: the A fragments
 * of its WM rows and the B fragments of its WN columns for one k-step.
 * LDF[p0, p1, q, wy, wx, s] loads step s of tile q into buffer s mod 2;
 * the macro-MMAs of step s read buffer s mod 2. The k loop body becomes
 *
 *   for s < T-1:  LDF(kt, s+1); MMA(kt, s)
 *   WAIT(tile kt+1) [PRO(kt+1); SYNC]; COPY(kt+S); COMMIT
 *   LDF(kt+1, 0); MMA(kt, T-1)
 *
 * Why the barrier may come before the last MMAs: every read of stage
 * kt mod S (the LDFs of tile kt) has been issued before it, so after it
 * the stage can take tile kt + S; T even keeps LDF(kt+1, 0) (buffer 0)
 * apart from MMA(kt, T-1) (buffer 1). */
#include <stdio.h>

#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "target/target.h"
#include "promote/internal.h"

int pm_frag_pipe_decide(struct pm_kernel *k, int c, struct pm_diags *d)
{
	const struct pm_config *cfg = k->cfg;
	const struct pm_target *t = cfg->target;
	const char *why = NULL;

	(void) c;
	if (cfg->frag_pipe == 0)
		return 0;
	if (!t->frag_pipe)
		why = "the target has no warp-level fragment loads";
	else if (cfg->stages < 2)
		why = "it needs at least 2 shared-memory stages";
	else if (t->ik > 1 && cfg->mk != k->ik)
		why = "it needs the macro-MMA k to be the instruction's k";
	else if ((cfg->bk / cfg->mk) % 2)
		why = "it needs an even number of macro k-steps per block k tile";
	else if (k->scop->join)
		why = "the contractions share an operand (one k loop, two "
			"contractions' fragments)";
	if (!why)
		return 1;
	if (cfg->frag_pipe < 0)
		return 0;
	pm_diag_plain(d, "--frag-pipeline on: not possible here: %s "
		"(target %s, block k %d, mma k %d, stages %d)", why, t->name,
		cfg->bk, cfg->mk, cfg->stages);
	return -1;
}

/* The LDF statement of contraction c (created once). */
static isl_id *ldf_id(struct pm_kernel *k, int c)
{
	if (!k->ldf_id[c]) {
		k->ldf_id[c] = pm_kernel_op(k, "LDF", PM_OP_LDF, -1);
		k->ops[k->nops - 1].con = c;
	}
	return k->ldf_id[c];
}

/* An extension tree (extension + leaf) from "{ prefix -> L[...] : ... }"
 * with L renamed to the LDF statement; when valid, q (position 2) must be
 * a k tile that exists. */
static __isl_give isl_schedule_node *ldf_tree(struct pm_kernel *k, int c,
	const char *str, int valid)
{
	isl_map *ext = isl_map_read_from_str(k->ctx, str);
	isl_id *id = ldf_id(k, c);

	ext = isl_map_set_tuple_id(ext, isl_dim_out, isl_id_copy(id));
	if (valid) {
		isl_set *t = pm_pr_valid_tiles(k, c);

		t = isl_set_add_dims(t, isl_dim_set, 3);
		t = isl_set_set_tuple_id(t, isl_id_copy(id));
		ext = isl_map_intersect_range(ext, t);
	}
	return isl_schedule_node_from_extension(isl_union_map_from_map(ext));
}

/* { MMA[i0, j0, k0] : k0 mod T in [lo, hi] } */
static __isl_give isl_union_set *mma_steps(struct pm_kernel *k, int c, int lo,
	int hi)
{
	char str[160];
	isl_set *set;
	int T = k->cfg->bk / k->cfg->mk;

	snprintf(str, sizeof(str), "{ M[i0, j0, k0] : %d <= k0 mod %d <= %d }",
		lo, T, hi);
	set = isl_set_read_from_str(k->ctx, str);
	set = isl_set_set_tuple_id(set, isl_id_copy(k->con[c].mma_id));
	return isl_union_set_from_set(set);
}

/* Go up from node to the ancestor at tree depth depth. */
static __isl_give isl_schedule_node *up_to(__isl_take isl_schedule_node *node,
	int depth)
{
	isl_size d = isl_schedule_node_get_tree_depth(node);

	if (d < 0)
		return isl_schedule_node_free(node);
	return isl_schedule_node_ancestor(node, d - depth);
}

/* The k-step band [s] of child i of the sequence seq (an MMA subtree:
 * warp_y mark, [wy], warp_x mark, [wx], then [s]). */
static __isl_give isl_schedule_node *step_band(struct pm_kernel *k,
	__isl_take isl_schedule_node *seq, int i)
{
	seq = pm_node_below_mark(isl_schedule_node_child(seq, i),
		k->mark_warp_x);
	return isl_schedule_node_child(seq, 0);
}

__isl_give isl_schedule_node *pm_frag_loop(struct pm_kernel *k, int c,
	__isl_take isl_schedule_node *node, __isl_take isl_schedule_node *wait)
{
	int T = k->cfg->bk / k->cfg->mk;
	isl_union_set_list *filters;
	isl_schedule_node *g;
	char str[256];
	isl_size depth;

	filters = isl_union_set_list_alloc(k->ctx, 2);
	filters = isl_union_set_list_add(filters, mma_steps(k, c, 0, T - 2));
	filters = isl_union_set_list_add(filters, mma_steps(k, c, T - 1, T - 1));
	node = isl_schedule_node_insert_sequence(node, filters);
	depth = isl_schedule_node_get_tree_depth(node);
	if (depth < 0) {
		isl_schedule_node_free(wait);
		return isl_schedule_node_free(node);
	}
	/* steps s < T-1: LDF(kt, s+1) in front of the macro tiles of s */
	node = isl_schedule_node_child(step_band(k, node, 0), 0);
	snprintf(str, sizeof(str), "{ [p0, p1, kt, wy, wx, s] -> "
		"L[p0, p1, kt, wy, wx, s + 1] : s + 1 < %d }", T);
	node = isl_schedule_node_graft_before(node, ldf_tree(k, c, str, 0));
	/* step T-1: LDF(kt+1, 0) first */
	node = up_to(node, depth);
	node = step_band(k, node, 1);
	/* unguarded: after the last tile it loads fragments nobody reads
	 * (from a stage inside the buffer), which costs less than a branch
	 * in the loop body */
	g = ldf_tree(k, c, "{ [p0, p1, kt, wy, wx] -> "
		"L[p0, p1, kt + 1, wy, wx, 0] }", 0);
	node = isl_schedule_node_graft_before(node, g);
	/* the barrier and the copies in front of step T-1 */
	node = up_to(node, depth);
	node = isl_schedule_node_child(isl_schedule_node_child(node, 1), 0);
	return isl_schedule_node_graft_before(node, wait);
}

/* LDF(0, 0) for every warp of the block, under the warp marks. */
static __isl_give isl_schedule_node *first_ldf(struct pm_kernel *k, int c)
{
	const struct pm_config *cfg = k->cfg;
	const char *in = "[p0, p1, q, wy, wx, s]";
	char str[256];
	isl_schedule_node *g;

	snprintf(str, sizeof(str), "{ [p0, p1] -> L[p0, p1, 0, wy, wx, 0] : "
		"0 <= wy < %d and 0 <= wx < %d }", cfg->bm / cfg->wm,
		cfg->bn / cfg->wn);
	g = ldf_tree(k, c, str, 1);
	g = isl_schedule_node_child(g, 0);
	g = pm_pr_band_str(k, g, in, "wx", ldf_id(k, c),
		isl_id_copy(k->mark_warp_x), 0);
	g = pm_pr_band_str(k, g, in, "wy", ldf_id(k, c),
		isl_id_copy(k->mark_warp_y), 0);
	return pm_pr_graft_root(g);
}

__isl_give isl_schedule_node *pm_frag_prologue(struct pm_kernel *k, int c,
	__isl_take isl_schedule_node *node, struct pm_diags *d)
{
	isl_id *ids[8];
	int nd[8], n = 0, pro = 0;
	isl_map *ext[8];
	isl_schedule_node *g;

	for (int b = 0; b < k->nbufs; ++b)
		pro |= k->bufs[b].con == c && pm_pr_smem_pro(&k->bufs[b]);
	k->wait_pro_id[c] = pm_kernel_op(k, "WAIT_PRO", PM_OP_WAIT, pro);
	k->ops[k->nops - 1].con = c;
	k->ops[k->nops - 1].pending = k->cfg->stages - 1;
	ids[n] = k->wait_pro_id[c], nd[n] = 3;
	ext[n++] = pm_pr_step_ext(k, k->wait_pro_id[c], 2, 1);
	for (int b = 0; pro && b < k->nbufs; ++b) {
		if (k->bufs[b].con != c || !pm_pr_smem_pro(&k->bufs[b]))
			continue;
		ids[n] = k->bufs[b].pro_id, nd[n] = 5;
		ext[n++] = pm_pr_copy_ext_id(k, b, 2, 1, k->bufs[b].pro_id);
	}
	if (pro) {
		k->sync_pro0_id[c] = pm_kernel_op(k, "SYNC_PRO0", PM_OP_SYNC,
			-1);
		ids[n] = k->sync_pro0_id[c], nd[n] = 3;
		ext[n++] = pm_pr_step_ext(k, k->sync_pro0_id[c], 2, 1);
	}
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 2, d);
	if (!g)
		return isl_schedule_node_free(node);
	node = isl_schedule_node_graft_before(node, g);
	return isl_schedule_node_graft_before(node, first_ldf(k, c));
}

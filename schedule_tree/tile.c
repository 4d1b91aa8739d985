/* Block tiling, k strip-mining and warp tiling. */
#include <isl/aff.h>
#include <isl/id.h>
#include <isl/schedule_node.h>

#include "schedule_tree/tree.h"

/* Split a 2-member band into two 1-member bands, each under a hardware
 * mark: mark(outer) [d0] -> mark(inner) [d1]. Returns the inner band. */
static __isl_give isl_schedule_node *split_hw(
	__isl_take isl_schedule_node *node, __isl_take isl_id *outer,
	__isl_take isl_id *inner)
{
	node = isl_schedule_node_band_split(node, 1);
	node = isl_schedule_node_insert_mark(node, outer);
	node = isl_schedule_node_child(node, 0);
	node = isl_schedule_node_child(node, 0);
	node = isl_schedule_node_insert_mark(node, inner);
	return isl_schedule_node_child(node, 0);
}

/* mark out [i, j] -> tile by BM x BN; the tile band is split and mapped to
 * the block's tile row and column pm_by / pm_bx (emit/file.c derives them
 * from blockIdx.x: tiles in groups of rows); the point band sinks to the
 * leaves. */
int pm_tile_block(struct pm_kernel *k, struct pm_diags *d)
{
	const struct pm_config *c = k->cfg;
	int sizes[2] = { c->bm, c->bn };
	isl_schedule_node *node;
	isl_id *by, *bx;

	(void) d;
	node = isl_schedule_get_root(k->schedule);
	node = pm_node_below_mark(node, k->scop->mark_out);
	node = isl_schedule_node_parent(node);
	node = isl_schedule_node_delete(node);		/* the "out" mark */
	node = pm_node_tile(node, sizes);
	by = pm_kernel_mark(k, "block_y", PM_MARK_HW, PM_HW_BLOCK_Y, 1, 0);
	bx = pm_kernel_mark(k, "block_x", PM_MARK_HW, PM_HW_BLOCK_X, 1, 0);
	k->mark_block_x = bx;
	node = split_hw(node, by, bx);
	node = isl_schedule_node_child(node, 0);	/* point band */
	node = isl_schedule_node_band_sink(node);
	return pm_kernel_set_schedule(k, node);
}

/* mark red [k] -> [floor(k/BK)] -> [k mod BK], for every contraction. */
int pm_strip_k(struct pm_kernel *k, struct pm_diags *d)
{
	int bk = k->cfg->bk;
	isl_schedule_node *node;
	isl_size n;

	(void) d;
	node = isl_schedule_get_root(k->schedule);
	node = pm_node_below_mark(node, k->mark_block_x);
	node = isl_schedule_node_child(node, 0);		/* sequence */
	n = isl_schedule_node_n_children(node);
	for (int i = 0; i < n; ++i) {
		node = isl_schedule_node_child(node, i);
		node = isl_schedule_node_child(node, 0);
		if (pm_node_is_mark(node, k->scop->mark_red)) {
			node = isl_schedule_node_child(node, 0);
			node = pm_node_tile(node, &bk);
			node = isl_schedule_node_parent(node);
		}
		node = isl_schedule_node_parent(node);
		node = isl_schedule_node_parent(node);
	}
	return pm_kernel_set_schedule(k, node);
}

/* In every statement's subtree, tile the point band [i mod BM, j mod BN]
 * (the last band above the leaf) by WM x WN, map the tile band to warps
 * and, below a k tile band, move the k point band under the warp bands. */
int pm_tile_warp(struct pm_kernel *k, struct pm_diags *d)
{
	const struct pm_config *c = k->cfg;
	int sizes[2] = { c->wm, c->wn };
	int nwy = c->bm / c->wm, nwx = c->bn / c->wn;
	isl_schedule_node *node;
	isl_size n;

	(void) d;
	int unit = pm_config_unit(c);

	node = isl_schedule_get_root(k->schedule);
	node = pm_node_below_mark(node, k->mark_block_x);
	node = isl_schedule_node_child(node, 0);		/* sequence */
	n = isl_schedule_node_n_children(node);
	k->mark_warp_y = pm_kernel_mark(k, "warp_y", PM_MARK_HW,
		PM_HW_WARP_Y, unit * nwx, nwy);
	k->mark_warp_x = pm_kernel_mark(k, "warp_x", PM_MARK_HW,
		PM_HW_WARP_X, unit, nwx);
	isl_id_free(k->mark_warp_y);
	isl_id_free(k->mark_warp_x);
	for (int i = 0; i < n; ++i) {
		int has_k;

		node = isl_schedule_node_child(node, i);	/* filter */
		node = isl_schedule_node_child(node, 0);
		has_k = pm_node_is_mark(node, k->scop->mark_red);
		node = pm_node_leaf(node);
		node = isl_schedule_node_parent(node);		/* point band */
		node = pm_node_tile(node, sizes);
		node = split_hw(node, isl_id_copy(k->mark_warp_y),
			isl_id_copy(k->mark_warp_x));
		if (has_k) {
			/* [kt] -> [kp] -> hw [wi] -> hw [wj] -> [iw, jw] */
			node = isl_schedule_node_parent(node);	/* mark x */
			node = isl_schedule_node_parent(node);	/* [wi] */
			node = isl_schedule_node_parent(node);	/* mark y */
			node = isl_schedule_node_parent(node);	/* [kp] */
			node = pm_node_band_sink_past(node, 2);
		}
		while (isl_schedule_node_get_type(node) !=
		       isl_schedule_node_filter)
			node = isl_schedule_node_parent(node);
		node = isl_schedule_node_parent(node);	/* sequence */
	}
	return pm_kernel_set_schedule(k, node);
}

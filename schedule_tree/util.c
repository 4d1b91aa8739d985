/* Small schedule-tree utilities. */
#include <stdlib.h>
#include <isl/aff.h>
#include <isl/id.h>
#include <isl/val.h>

#include "schedule_tree/tree.h"

__isl_give isl_schedule_node *pm_node_below_mark(
	__isl_take isl_schedule_node *node, __isl_keep isl_id *mark)
{
	isl_size n;

	if (!node)
		return NULL;
	if (isl_schedule_node_get_type(node) == isl_schedule_node_mark) {
		isl_id *id = isl_schedule_node_mark_get_id(node);
		int hit = id == mark;

		isl_id_free(id);
		if (hit)
			return isl_schedule_node_child(node, 0);
	}
	n = isl_schedule_node_n_children(node);
	for (int i = 0; i < n; ++i) {
		isl_schedule_node *c = isl_schedule_node_child(
			isl_schedule_node_copy(node), i);

		c = pm_node_below_mark(c, mark);
		if (c) {
			isl_schedule_node_free(node);
			return c;
		}
	}
	isl_schedule_node_free(node);
	return NULL;
}

__isl_give isl_schedule_node *pm_node_leaf(__isl_take isl_schedule_node *node)
{
	while (node && isl_schedule_node_has_children(node) == isl_bool_true)
		node = isl_schedule_node_child(node, 0);
	return node;
}

__isl_give isl_schedule_node *pm_node_next_band(
	__isl_take isl_schedule_node *node)
{
	while (node && isl_schedule_node_get_type(node) !=
	       isl_schedule_node_band) {
		if (isl_schedule_node_has_children(node) != isl_bool_true)
			return isl_schedule_node_free(node);
		node = isl_schedule_node_child(node, 0);
	}
	return node;
}

__isl_give isl_schedule_node *pm_node_band_sink_past(
	__isl_take isl_schedule_node *node, int skip)
{
	isl_multi_union_pw_aff *mupa;
	isl_size n;
	int *coinc;

	if (!node)
		return NULL;
	mupa = isl_schedule_node_band_get_partial_schedule(node);
	n = isl_schedule_node_band_n_member(node);
	coinc = calloc(n > 0 ? n : 1, sizeof(int));
	for (int i = 0; coinc && i < n; ++i)
		coinc[i] = isl_schedule_node_band_member_get_coincident(node,
			i) == isl_bool_true;
	node = isl_schedule_node_delete(node);
	for (int i = 0; i < skip; ++i) {
		node = pm_node_next_band(node);
		node = isl_schedule_node_child(node, 0);
	}
	node = isl_schedule_node_insert_partial_schedule(node, mupa);
	for (int i = 0; coinc && i < n; ++i)
		node = isl_schedule_node_band_member_set_coincident(node, i,
			coinc[i]);
	free(coinc);
	return node;
}

__isl_give isl_schedule_node *pm_node_tile(__isl_take isl_schedule_node *node,
	const int *sizes)
{
	isl_space *space;
	isl_multi_val *mv;
	isl_size n;

	if (!node)
		return NULL;
	space = isl_schedule_node_band_get_space(node);
	n = isl_space_dim(space, isl_dim_set);
	mv = isl_multi_val_zero(space);
	for (int i = 0; i < n; ++i)
		mv = isl_multi_val_set_val(mv, i, isl_val_int_from_si(
			isl_schedule_node_get_ctx(node), sizes[i]));
	return isl_schedule_node_band_tile(node, mv);
}

int pm_node_is_mark(__isl_keep isl_schedule_node *node, __isl_keep isl_id *id)
{
	isl_id *m;
	int r;

	if (!node || isl_schedule_node_get_type(node) != isl_schedule_node_mark)
		return 0;
	m = isl_schedule_node_mark_get_id(node);
	r = m == id;
	isl_id_free(m);
	return r;
}

int pm_kernel_set_schedule(struct pm_kernel *k,
	__isl_take isl_schedule_node *node)
{
	isl_schedule *s = isl_schedule_node_get_schedule(node);

	isl_schedule_node_free(node);
	if (!s)
		return -1;
	isl_schedule_free(k->schedule);
	k->schedule = s;
	return 0;
}

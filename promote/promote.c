/* Shared-memory promotion of the operands, register accumulators. */
#include <stdio.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/fixed_box.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/union_map.h>
#include <isl/union_set.h>
#include <isl/val.h>

#include "poly/strbuf.h"
#include "promote/promote.h"

/* MMA -> X[..]: the operand elements read by each macro instance. */
static __isl_give isl_union_map *mma_access(struct pm_kernel *k, int tensor)
{
	isl_union_map *reads = isl_union_map_copy(k->scop->reads);
	isl_space *space = isl_space_set_alloc(k->ctx, 0,
		k->scop->spec->tensors[tensor].rank);
	isl_union_map *mma_exp;

	space = isl_space_set_tuple_id(space, isl_dim_set,
		isl_id_copy(k->scop->array_ids[tensor]));
	reads = isl_union_map_intersect_range(reads,
		isl_union_set_from_set(isl_set_universe(space)));
	mma_exp = isl_union_map_intersect_domain(
		isl_union_map_copy(k->expansion),
		isl_union_set_from_set(isl_set_universe(isl_space_set_tuple_id(
			isl_space_set_alloc(k->ctx, 0, 3), isl_dim_set,
			isl_id_copy(k->mma_id)))));
	return isl_union_map_apply_range(mma_exp, reads);
}

/* The tensor's own layout strides are not needed here: the buffer is
 * dense row-major in the tensor's dimension order. */
static int add_buffer(struct pm_kernel *k, __isl_keep isl_schedule_node *at,
	int tensor, struct pm_diags *d)
{
	struct pm_buffer *buf = &k->bufs[k->nbufs];
	isl_union_map *prefix, *fp;
	isl_map *map;
	isl_fixed_box *box;
	isl_multi_val *size;
	int rank = k->scop->spec->tensors[tensor].rank;
	char name[80];

	prefix = isl_schedule_node_get_prefix_schedule_union_map(at);
	prefix = isl_union_map_intersect_domain(prefix,
		isl_union_map_domain(mma_access(k, tensor)));
	fp = isl_union_map_apply_range(isl_union_map_reverse(prefix),
		mma_access(k, tensor));
	map = isl_map_from_union_map(fp);
	box = isl_map_get_range_simple_fixed_box_hull(map);
	isl_map_free(map);
	if (!box)
		return -1;
	if (isl_fixed_box_is_valid(box) != isl_bool_true) {
		isl_fixed_box_free(box);
		pm_diag_plain(d, "internal error: the footprint of '%s' in "
			"one block k-step has no fixed-size box",
			k->scop->spec->tensors[tensor].name);
		return -1;
	}
	size = isl_fixed_box_get_size(box);
	buf->tensor = tensor;
	buf->rank = rank;
	for (int i = 0; i < rank; ++i) {
		isl_val *v = isl_multi_val_get_val(size, i);
		buf->size[i] = isl_val_get_num_si(v);
		isl_val_free(v);
	}
	isl_multi_val_free(size);
	buf->offset = isl_fixed_box_get_offset(box);
	isl_fixed_box_free(box);
	buf->vec = buf->size[rank - 1] % 8 == 0 ? 8 : 1;
	snprintf(name, sizeof(name), "COPY_%s",
		k->scop->spec->tensors[tensor].name);
	buf->copy_id = pm_kernel_op(k, name, PM_OP_COPY, k->nbufs);
	k->nbufs++;
	return buf->offset ? 0 : -1;
}

/* "{ <in> -> [(expr)] }" with the in tuple given the id -> mupa. */
static __isl_give isl_multi_union_pw_aff *mupa_str(isl_ctx *ctx,
	const char *in, const char *expr, __isl_keep isl_id *id)
{
	char str[512];
	isl_pw_multi_aff *pma;

	snprintf(str, sizeof(str), "{ %s -> [(%s)] }", in, expr);
	pma = isl_pw_multi_aff_read_from_str(ctx, str);
	pma = isl_pw_multi_aff_set_tuple_id(pma, isl_dim_in, isl_id_copy(id));
	return isl_multi_union_pw_aff_from_union_pw_multi_aff(
		isl_union_pw_multi_aff_from_pw_multi_aff(pma));
}

/* Insert band [expr] above node, optionally under a mark. */
static __isl_give isl_schedule_node *band_str(struct pm_kernel *k,
	__isl_take isl_schedule_node *node, const char *in, const char *expr,
	__isl_keep isl_id *id, __isl_take isl_id *mark, int unroll)
{
	node = isl_schedule_node_insert_partial_schedule(node,
		mupa_str(k->ctx, in, expr, id));
	if (unroll)
		node = isl_schedule_node_band_member_set_ast_loop_type(node,
			0, isl_ast_loop_unroll);
	if (mark)
		node = isl_schedule_node_insert_mark(node, mark);
	return node;
}

static __isl_give isl_schedule_node *graft_root(
	__isl_take isl_schedule_node *node)
{
	while (node && isl_schedule_node_has_parent(node) == isl_bool_true)
		node = isl_schedule_node_parent(node);
	return node;
}

/* The copy of buffer b: extension { [p0,p1,p2] -> COPY[p.., l0, v] }. */
static __isl_give isl_schedule_node *copy_tree(struct pm_kernel *k, int b,
	struct pm_diags *d)
{
	struct pm_buffer *buf = &k->bufs[b];
	int nt = pm_config_threads(k->cfg);
	long r = buf->size[1] / buf->vec, p;
	char str[512], hw[64];
	const char *in = "[p0, p1, p2, l0, v]";
	isl_id *mark;
	isl_map *ext;
	isl_schedule_node *g;

	p = nt / r < buf->size[0] ? nt / r : buf->size[0];
	if (buf->rank != 2 || nt % r || buf->size[0] % p) {
		pm_diag_plain(d, "unsupported tile configuration: a %ldx%ld "
			"tile of '%s' cannot be copied by %d threads in 16-byte "
			"units; choose other --block/--warp sizes",
			buf->size[0], buf->size[1],
			k->scop->spec->tensors[buf->tensor].name, nt);
		return NULL;
	}
	snprintf(str, sizeof(str), "{ [p0, p1, p2] -> C[p0, p1, p2, l0, v] : "
		"0 <= l0 < %ld and 0 <= v < %ld }", buf->size[0], r);
	ext = isl_map_read_from_str(k->ctx, str);
	ext = isl_map_set_tuple_id(ext, isl_dim_out,
		isl_id_copy(buf->copy_id));
	g = isl_schedule_node_from_extension(isl_union_map_from_map(ext));
	g = isl_schedule_node_child(g, 0);
	snprintf(str, sizeof(str), "floor(l0 / %ld)", p);
	g = band_str(k, g, in, str, buf->copy_id, NULL, 1);
	snprintf(hw, sizeof(hw), "((int) threadIdx.x %% %ld)", r);
	mark = pm_kernel_mark(k, "thread_x", PM_MARK_HW, hw, r, -1);
	g = band_str(k, g, in, "v", buf->copy_id, mark, 0);
	snprintf(str, sizeof(str), "l0 mod %ld", p);
	snprintf(hw, sizeof(hw), "((int) threadIdx.x / %ld)", r);
	mark = pm_kernel_mark(k, "thread_y", PM_MARK_HW, hw, p, -1);
	g = band_str(k, g, in, str, buf->copy_id, mark, 0);
	return graft_root(g);
}

static __isl_give isl_schedule_node *sync_tree(struct pm_kernel *k,
	int which, int nprefix)
{
	char str[128];
	isl_map *ext;

	snprintf(str, sizeof(str), nprefix == 3 ?
		"{ [p0, p1, p2] -> S[p0, p1, p2] }" : "{ [p0, p1] -> S[p0, p1] }");
	ext = isl_map_read_from_str(k->ctx, str);
	ext = isl_map_set_tuple_id(ext, isl_dim_out,
		isl_id_copy(k->sync_id[which]));
	return isl_schedule_node_from_extension(isl_union_map_from_map(ext));
}

/* STORE[i0, j0] for the block [p0, p1], under the warp marks. */
static __isl_give isl_schedule_node *store_tree(struct pm_kernel *k)
{
	const struct pm_config *c = k->cfg;
	const char *in = "[i0, j0]";
	char str[512];
	isl_map *ext;
	isl_schedule_node *g;
	isl_multi_union_pw_aff *frag;

	k->store_id = pm_kernel_op(k, "STORE", PM_OP_STORE, -1);
	snprintf(str, sizeof(str), "{ [p0, p1] -> S[i0, j0] : "
		"%d p0 <= %d i0 < %d p0 + %d and %d p1 <= %d j0 < %d p1 + %d }",
		c->bm, c->mm, c->bm, c->bm, c->bn, c->mn, c->bn, c->bn);
	ext = isl_map_read_from_str(k->ctx, str);
	ext = isl_map_set_tuple_id(ext, isl_dim_out, isl_id_copy(k->store_id));
	g = isl_schedule_node_from_extension(isl_union_map_from_map(ext));
	g = isl_schedule_node_child(g, 0);
	snprintf(str, sizeof(str), "floor(((%d i0) mod %d) / %d)", c->mm, c->wm,
		c->mm);
	frag = mupa_str(k->ctx, in, str, k->store_id);
	snprintf(str, sizeof(str), "floor(((%d j0) mod %d) / %d)", c->mn, c->wn,
		c->mn);
	frag = isl_multi_union_pw_aff_flat_range_product(frag,
		mupa_str(k->ctx, in, str, k->store_id));
	g = isl_schedule_node_insert_partial_schedule(g, frag);
	g = isl_schedule_node_band_member_set_ast_loop_type(g, 0,
		isl_ast_loop_unroll);
	g = isl_schedule_node_band_member_set_ast_loop_type(g, 1,
		isl_ast_loop_unroll);
	snprintf(str, sizeof(str), "floor(((%d j0) mod %d) / %d)", c->mn, c->bn,
		c->wn);
	g = band_str(k, g, in, str, k->store_id, isl_id_copy(k->mark_warp_x),
		0);
	snprintf(str, sizeof(str), "floor(((%d i0) mod %d) / %d)", c->mm, c->bm,
		c->wm);
	g = band_str(k, g, in, str, k->store_id, isl_id_copy(k->mark_warp_y),
		0);
	return graft_root(g);
}

int pm_promote(struct pm_kernel *k, struct pm_diags *d)
{
	isl_schedule_node *node, *g;
	isl_schedule *s;
	int ok = 1;

	k->sync_id[0] = pm_kernel_op(k, "SYNC_IN", PM_OP_SYNC, -1);
	k->sync_id[1] = pm_kernel_op(k, "SYNC_OUT", PM_OP_SYNC, -1);
	node = isl_schedule_get_root(k->schedule);
	node = pm_node_below_mark(node, k->scop->mark_red);	/* [kt] */
	node = isl_schedule_node_child(node, 0);
	{
		isl_union_pw_multi_aff *pre;
		isl_space *sp = isl_space_set_tuple_id(isl_space_set_alloc(
			k->ctx, 0, 3), isl_dim_set, isl_id_copy(k->mma_id));

		pre = isl_schedule_node_get_prefix_schedule_union_pw_multi_aff(
			node);
		sp = isl_space_map_from_domain_and_range(sp,
			isl_space_set_alloc(k->ctx, 0, 3));
		k->mma_prefix = isl_union_pw_multi_aff_extract_pw_multi_aff(
			pre, sp);
		isl_union_pw_multi_aff_free(pre);
	}
	if (add_buffer(k, node, k->con.a, d) < 0 ||
	    add_buffer(k, node, k->con.b, d) < 0)
		ok = 0;
	for (int b = 0; ok && b < k->nbufs; ++b) {
		g = copy_tree(k, b, d);
		if (!g)
			ok = 0;
		else
			node = isl_schedule_node_graft_before(node, g);
	}
	if (ok) {
		node = isl_schedule_node_graft_before(node, sync_tree(k, 0, 3));
		node = isl_schedule_node_graft_after(node, sync_tree(k, 1, 3));
		/* up to the filter of the MMA statement, then graft STORE */
		while (node && !pm_node_is_mark(node, k->scop->mark_red))
			node = isl_schedule_node_parent(node);
		node = isl_schedule_node_graft_after(node, store_tree(k));
	}
	s = node && ok ? isl_schedule_node_get_schedule(node) : NULL;
	isl_schedule_node_free(node);
	if (!s)
		return -1;
	isl_schedule_free(k->schedule);
	k->schedule = s;
	return 0;
}

/* MMA[i0,j0,k0] -> local coordinates of the operand's first element in
 * buffer b: access(base(MMA)) - offset(prefix(MMA)). */
__isl_give isl_pw_multi_aff *pm_promote_local(struct pm_kernel *k, int b)
{
	struct pm_buffer *buf = &k->bufs[b];
	isl_union_map *acc;
	isl_pw_multi_aff *x, *prefix, *off;
	isl_space *space;

	acc = isl_union_map_apply_range(isl_union_map_from_union_pw_multi_aff(
		isl_union_pw_multi_aff_copy(k->base)),
		isl_union_map_copy(k->scop->reads));
	space = isl_space_set_tuple_id(isl_space_set_alloc(k->ctx, 0, 3),
		isl_dim_set, isl_id_copy(k->mma_id));
	space = isl_space_map_from_domain_and_range(space,
		isl_space_set_tuple_id(isl_space_set_alloc(k->ctx, 0, buf->rank),
			isl_dim_set, isl_id_copy(k->scop->array_ids[buf->tensor])));
	x = isl_pw_multi_aff_from_map(isl_union_map_extract_map(acc, space));
	isl_union_map_free(acc);
	prefix = isl_pw_multi_aff_copy(k->mma_prefix);
	off = isl_pw_multi_aff_from_multi_aff(isl_multi_aff_copy(buf->offset));
	off = isl_pw_multi_aff_pullback_pw_multi_aff(off, prefix);
	x = isl_pw_multi_aff_reset_tuple_id(x, isl_dim_out);
	off = isl_pw_multi_aff_reset_tuple_id(off, isl_dim_out);
	return isl_pw_multi_aff_sub(x, off);
}

/* Extension trees grafted into the schedule: the helpers that build
 * bands, extension maps and the copy/commit ops shared by the files of
 * promote/ (promote.c, fragments.c, regstage.c, store.c, tma.c). This file
 * calls no other file of promote/, so that their dependency graph stays
 * acyclic (tests/check_deps.sh). */
#include <stdio.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "promote/internal.h"

/* "{ <in> -> [(expr)] }" with the in tuple given the id -> mupa. */
__isl_give isl_multi_union_pw_aff *pm_pr_mupa_str(isl_ctx *ctx,
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
__isl_give isl_schedule_node *pm_pr_band_str(struct pm_kernel *k,
	__isl_take isl_schedule_node *node, const char *in, const char *expr,
	__isl_keep isl_id *id, __isl_take isl_id *mark, int unroll)
{
	node = isl_schedule_node_insert_partial_schedule(node,
		pm_pr_mupa_str(k->ctx, in, expr, id));
	if (unroll)
		node = isl_schedule_node_band_member_set_ast_loop_type(node,
			0, isl_ast_loop_unroll);
	if (mark)
		node = isl_schedule_node_insert_mark(node, mark);
	return node;
}

__isl_give isl_schedule_node *pm_pr_graft_root(
	__isl_take isl_schedule_node *node)
{
	while (node && isl_schedule_node_has_parent(node) == isl_bool_true)
		node = isl_schedule_node_parent(node);
	return node;
}

__isl_give isl_union_set *pm_pr_universe(isl_ctx *ctx, __isl_keep isl_id *id,
	int n)
{
	return isl_union_set_from_set(isl_set_universe(isl_space_set_tuple_id(
		isl_space_set_alloc(ctx, 0, n), isl_dim_set, isl_id_copy(id))));
}

/* The k tiles that exist: { [p0, p1, p2] } (range of the MMA prefix). */
__isl_give isl_set *pm_pr_valid_tiles(struct pm_kernel *k, int c)
{
	isl_union_set *dom = isl_schedule_get_domain(k->schedule);
	isl_space *sp = isl_space_set_tuple_id(isl_space_set_alloc(k->ctx, 0,
		3), isl_dim_set, isl_id_copy(k->con[c].mma_id));
	isl_set *mma = isl_union_set_extract_set(dom, sp);

	isl_union_set_free(dom);
	return isl_set_apply(mma, isl_map_from_pw_multi_aff(
		isl_pw_multi_aff_copy(k->con[c].mma_prefix)));
}

static __isl_give isl_map *copy_ext(struct pm_kernel *k, int b, int np,
	int shift)
{
	return pm_pr_copy_ext_id(k, b, np, shift, k->bufs[b].copy_id);
}

__isl_give isl_map *pm_pr_copy_ext_id(struct pm_kernel *k, int b, int np,
	int shift, __isl_keep isl_id *id)
{
	struct pm_buffer *buf = &k->bufs[b];
	long r = buf->size[1] / buf->vec;
	char str[512];
	isl_map *ext;
	isl_set *t;

	long rows = buf->size[0];

	/* TMA: one instance per tile, the box at its origin */
	if (buf->tma && id == buf->copy_id)
		rows = r = 1;
	if (np == 3)
		snprintf(str, sizeof(str), "{ [p0, p1, kt] -> C[p0, p1, q, l0, v] "
			": q = kt + %d and 0 <= l0 < %ld and 0 <= v < %ld }",
			shift, rows, r);
	else if (shift < 0)	/* every tile (the producer's loop) */
		snprintf(str, sizeof(str), "{ [p0, p1] -> C[p0, p1, q, l0, v] : "
			"q >= 0 and 0 <= l0 < %ld and 0 <= v < %ld }", rows, r);
	else
		snprintf(str, sizeof(str), "{ [p0, p1] -> C[p0, p1, q, l0, v] : "
			"0 <= q < %d and 0 <= l0 < %ld and 0 <= v < %ld }",
			shift, rows, r);
	ext = isl_map_read_from_str(k->ctx, str);
	ext = isl_map_set_tuple_id(ext, isl_dim_out, isl_id_copy(id));
	t = pm_pr_valid_tiles(k, buf->con);
	t = isl_set_add_dims(t, isl_dim_set, 2);
	t = isl_set_set_tuple_id(t, isl_id_copy(id));
	return isl_map_intersect_range(ext, t);
}

/* { [prefix] -> OP[p0, p1, x] } for the per-step ops (np = 3: x = kt;
 * np = 2: 0 <= x < n). */
__isl_give isl_map *pm_pr_step_ext(struct pm_kernel *k, __isl_keep isl_id *id,
	int np, int n)
{
	char str[256];
	isl_map *ext;

	if (np == 3)
		snprintf(str, sizeof(str), "{ [p0, p1, kt] -> S[p0, p1, kt] }");
	else
		snprintf(str, sizeof(str), "{ [p0, p1] -> S[p0, p1, q] : "
			"0 <= q < %d }", n);
	ext = isl_map_read_from_str(k->ctx, str);
	return isl_map_set_tuple_id(ext, isl_dim_out, isl_id_copy(id));
}

__isl_give isl_schedule_node *pm_pr_thread_bands(struct pm_kernel *k,
	__isl_take isl_schedule_node *g, const char *in, __isl_keep isl_id *id,
	long r, long p)
{
	char str[128];
	isl_id *mark;

	snprintf(str, sizeof(str), "floor(l0 / %ld)", p);
	g = pm_pr_band_str(k, g, in, str, id, NULL, 1);
	mark = pm_kernel_mark(k, "thread_x", PM_MARK_HW, PM_HW_THREAD_X, 1, r);
	g = pm_pr_band_str(k, g, in, "v", id, mark, 0);
	snprintf(str, sizeof(str), "l0 mod %ld", p);
	mark = pm_kernel_mark(k, "thread_y", PM_MARK_HW, PM_HW_THREAD_Y, r, p);
	return pm_pr_band_str(k, g, in, str, id, mark, 0);
}

/* Below the filter of buffer b's copy: its thread bands. */
static __isl_give isl_schedule_node *copy_bands(struct pm_kernel *k, int b,
	__isl_keep isl_id *id, __isl_take isl_schedule_node *g, long p)
{
	struct pm_buffer *buf = &k->bufs[b];

	return pm_pr_thread_bands(k, g, "[p0, p1, p2, l0, v]", id,
		buf->size[1] / buf->vec, p);
}

/* Rows of a buffer copied per pass of the whole block. */
static long copy_rows(struct pm_kernel *k, int b, struct pm_diags *d)
{
	struct pm_buffer *buf = &k->bufs[b];
	int nt = pm_config_threads(k->cfg);
	long r = buf->size[1] / buf->vec;
	long p = nt / r < buf->size[0] ? nt / r : buf->size[0];

	if (buf->rank != 2 || nt % r || p < 1 || buf->size[0] % p) {
		pm_diag_plain(d, "unsupported tile configuration: a %ldx%ld "
			"tile of '%s' cannot be copied by %d threads in 16-byte "
			"units; choose other --block/--warp sizes",
			buf->size[0], buf->size[1],
			k->scop->spec->tensors[buf->tensor].name, nt);
		return -1;
	}
	return p;
}

/* One extension node over ops[] (extension maps ext[]) with a sequence of
 * their filters below it; copies get their thread bands. When np == 2 a
 * band [q] over all of them sits above the sequence (the prologue). */
__isl_give isl_schedule_node *pm_pr_graft_tree(struct pm_kernel *k, int n,
	isl_id **ids, int *ndims, isl_map **ext, int np, struct pm_diags *d)
{
	isl_union_map *umap = NULL;
	isl_union_set_list *filters;
	isl_multi_union_pw_aff *q = NULL;
	isl_schedule_node *g;

	filters = isl_union_set_list_alloc(k->ctx, n);
	for (int i = 0; i < n; ++i) {
		isl_union_map *m = isl_union_map_from_map(ext[i]);
		umap = i ? isl_union_map_union(umap, m) : m;
		filters = isl_union_set_list_add(filters,
			pm_pr_universe(k->ctx, ids[i], ndims[i]));
		if (np == 2) {
			const char *in = ndims[i] == 5 ? "[p0, p1, q, l0, v]" :
				"[p0, p1, q]";
			isl_multi_union_pw_aff *m2 = pm_pr_mupa_str(k->ctx, in, "q",
				ids[i]);
			q = i ? isl_multi_union_pw_aff_union_add(q, m2) : m2;
		}
	}
	g = isl_schedule_node_from_extension(umap);
	g = isl_schedule_node_child(g, 0);
	g = isl_schedule_node_insert_sequence(g, filters);
	for (int i = 0; i < n; ++i) {
		const struct pm_op *op = pm_kernel_op_of(k, ids[i]);
		long p;

		if (!op || (op->kind != PM_OP_COPY && op->kind != PM_OP_PRO &&
		    op->kind != PM_OP_LDR && op->kind != PM_OP_STR))
			continue;
		if (op->kind == PM_OP_COPY && k->bufs[op->buffer].tma)
			continue;	/* one thread issues the boxes */
		p = copy_rows(k, op->buffer, d);
		k->bufs[op->buffer].pass_rows = p;
		if (p < 0) {
			isl_multi_union_pw_aff_free(q);
			return isl_schedule_node_free(g);
		}
		g = isl_schedule_node_child(g, i);
		g = isl_schedule_node_child(g, 0);
		g = copy_bands(k, op->buffer, ids[i], g, p);
		g = isl_schedule_node_parent(g);
		while (isl_schedule_node_get_type(g) != isl_schedule_node_sequence)
			g = isl_schedule_node_parent(g);
	}
	if (q) {
		g = isl_schedule_node_insert_partial_schedule(g, q);
		g = isl_schedule_node_band_member_set_ast_loop_type(g, 0,
			isl_ast_loop_unroll);
	}
	return pm_pr_graft_root(g);
}

/* The copies of contraction c's buffers and the commit that closes their
 * group: in the loop (np = 3, tile kt + shift) or in the prologue (np = 2,
 * tiles q < shift). */
void pm_pr_copies_and_commit(struct pm_kernel *k, int c, int np,
	int shift, __isl_keep isl_id *commit, isl_id **ids, int *nd,
	isl_map **ext, int *n)
{
	for (int b = 0; b < k->nbufs; ++b) {
		if (k->bufs[b].con != c)
			continue;
		ids[*n] = k->bufs[b].copy_id, nd[*n] = 5;
		ext[(*n)++] = copy_ext(k, b, np, shift);
	}
	ids[*n] = commit, nd[*n] = 3;
	ext[(*n)++] = pm_pr_step_ext(k, commit, np, np == 3 ? 0 : shift);
}

/* In front of contraction c's k loop (node: inside it, moved up to the
 * red mark): [SYNC_REUSE] COPY(q) COMMIT_PRO for tiles q < shift. A later
 * contraction's tiles reuse the shared memory of the earlier ones (emit/):
 * the barrier first, once. */
int pm_pr_prologue_copies(struct pm_kernel *k, int c, int shift,
	isl_schedule_node **node, struct pm_diags *d)
{
	isl_id *ids[8];
	int nd[8], n = 0;
	isl_map *ext[8];
	isl_schedule_node *g;

	while (*node && !pm_node_is_mark(*node, k->scop->mark_red))
		*node = isl_schedule_node_parent(*node);
	k->commit_id[c][1] = pm_kernel_op(k, "COMMIT_PRO", PM_OP_COMMIT, -1);
	k->ops[k->nops - 1].con = c;
	if (c > 0) {
		isl_id *sync = pm_kernel_op(k, "SYNC_REUSE", PM_OP_SYNC, -1);

		ids[n] = sync, nd[n] = 3;
		ext[n++] = pm_pr_step_ext(k, sync, 2, 1);
		isl_id_free(sync);	/* the extension holds it */
	}
	pm_pr_copies_and_commit(k, c, 2, shift, k->commit_id[c][1], ids, nd,
		ext, &n);
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 2, d);
	if (!g)
		return -1;
	*node = isl_schedule_node_graft_before(*node, g);
	return *node ? 0 : -1;
}

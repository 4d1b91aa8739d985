/* Macro-MMA contraction (paper §IV) and the legality check. */
#include <stdio.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/union_set.h>

#include "schedule_tree/tree.h"

static __isl_give isl_map *read_map2(isl_ctx *ctx, const char *str,
	__isl_keep isl_id *in, __isl_keep isl_id *out)
{
	isl_map *map = isl_map_read_from_str(ctx, str);

	map = isl_map_set_tuple_id(map, isl_dim_in, isl_id_copy(in));
	return isl_map_set_tuple_id(map, isl_dim_out, isl_id_copy(out));
}

/* base: FILL[i0,j0] -> S_init[MM i0, MN j0], MMA[i0,j0,k0] ->
 * S[MM i0, MN j0, MK k0]; expansion: every macro instance to the original
 * instances it stands for. */
/* The maps of contraction n. */
static void build_con_maps(struct pm_kernel *k, int n)
{
	const struct pm_config *c = k->cfg;
	struct pm_contraction *con = &k->con[n];
	isl_id *s_init = pm_scop_stmt_id(k->scop, con->stmt, PM_ROLE_INIT);
	isl_id *s_upd = pm_scop_stmt_id(k->scop, con->stmt, PM_ROLE_UPDATE);
	char str[512], name[16];
	isl_map *m;

	snprintf(name, sizeof(name), n ? "FILL_%d" : "FILL", n);
	con->fill_id = pm_kernel_op(k, name, PM_OP_FILL, -1);
	k->ops[k->nops - 1].con = n;
	snprintf(name, sizeof(name), n ? "MMA_%d" : "MMA", n);
	con->mma_id = pm_kernel_op(k, name, PM_OP_MMA, -1);
	k->ops[k->nops - 1].con = n;
	snprintf(str, sizeof(str), "{ F[i0, j0] -> S[%d i0, %d j0] }",
		c->mm, c->mn);
	m = read_map2(k->ctx, str, con->fill_id, s_init);
	k->base = isl_union_pw_multi_aff_add_pw_multi_aff(k->base,
		isl_pw_multi_aff_from_map(m));
	snprintf(str, sizeof(str), "{ F[i0, j0, k0] -> S[%d i0, %d j0, %d k0] }",
		c->mm, c->mn, c->mk);
	m = read_map2(k->ctx, str, con->mma_id, s_upd);
	k->base = isl_union_pw_multi_aff_add_pw_multi_aff(k->base,
		isl_pw_multi_aff_from_map(m));

	snprintf(str, sizeof(str), "{ F[i0, j0] -> S[i, j] : "
		"%d i0 <= i < %d i0 + %d and %d j0 <= j < %d j0 + %d }",
		c->mm, c->mm, c->mm, c->mn, c->mn, c->mn);
	k->expansion = isl_union_map_add_map(k->expansion, read_map2(k->ctx,
		str, con->fill_id, s_init));
	snprintf(str, sizeof(str), "{ F[i0, j0, k0] -> S[i, j, k] : "
		"%d i0 <= i < %d i0 + %d and %d j0 <= j < %d j0 + %d and "
		"%d k0 <= k < %d k0 + %d }", c->mm, c->mm, c->mm, c->mn, c->mn,
		c->mn, c->mk, c->mk, c->mk);
	k->expansion = isl_union_map_add_map(k->expansion, read_map2(k->ctx,
		str, con->mma_id, s_upd));
}

static int build_maps(struct pm_kernel *k)
{
	const struct pm_config *c = k->cfg;
	char str[512];
	isl_space *sp = isl_space_params_alloc(k->ctx, 0);

	k->base = isl_union_pw_multi_aff_empty_space(isl_space_copy(sp));
	k->expansion = isl_union_map_empty(sp);
	for (int n = 0; n < k->ncon; ++n)
		build_con_maps(k, n);
	for (int st = k->ncon; st < k->scop->spec->nstmts; ++st) {
		isl_id *sid = pm_scop_stmt_id(k->scop, st, PM_ROLE_ASSIGN);
		isl_id *eid;
		char name[32];

		snprintf(name, sizeof(name), "EPI_%d", st);
		eid = pm_kernel_op(k, name, PM_OP_EPI, -1);
		k->ops[k->nops - 1].stmt = st;
		k->ops[k->nops - 1].con = k->ncon - 1;
		k->epi_id[k->nepi++] = eid;
		snprintf(str, sizeof(str), "{ F[i0, j0] -> S[%d i0, %d j0] }",
			c->mm, c->mn);
		k->base = isl_union_pw_multi_aff_add_pw_multi_aff(k->base,
			isl_pw_multi_aff_from_map(read_map2(k->ctx, str, eid,
				sid)));
		snprintf(str, sizeof(str), "{ F[i0, j0] -> S[i, j] : "
			"%d i0 <= i < %d i0 + %d and %d j0 <= j < %d j0 + %d }",
			c->mm, c->mm, c->mm, c->mn, c->mn, c->mn);
		k->expansion = isl_union_map_add_map(k->expansion,
			read_map2(k->ctx, str, eid, sid));
	}
	k->expansion = isl_union_map_intersect_range(k->expansion,
		isl_union_set_copy(k->scop->domain));
	return k->base && k->expansion ? 0 : -1;
}

static __isl_give isl_schedule_node *unroll_all(
	__isl_take isl_schedule_node *node)
{
	isl_size n = isl_schedule_node_band_n_member(node);

	for (int i = 0; i < n; ++i)
		node = isl_schedule_node_band_member_set_ast_loop_type(node, i,
			isl_ast_loop_unroll);
	return node;
}

/* At each filter of sequence seq: fn on the band above the branch's leaf
 * (has_k: the branch is a contraction's, marked by mark_red); returns the
 * node at the sequence. */
static __isl_give isl_schedule_node *each_branch(struct pm_kernel *k,
	__isl_take isl_schedule_node *seq,
	__isl_give isl_schedule_node *(*fn)(struct pm_kernel *k,
		__isl_take isl_schedule_node *node, int has_k))
{
	isl_size n = isl_schedule_node_n_children(seq);

	for (int i = 0; i < n; ++i) {
		int has_k;

		seq = isl_schedule_node_child(seq, i);
		seq = isl_schedule_node_child(seq, 0);
		has_k = pm_node_is_mark(seq, k->scop->mark_red);
		seq = pm_node_leaf(seq);
		seq = isl_schedule_node_parent(seq);
		seq = fn(k, seq, has_k);
		while (seq && isl_schedule_node_get_type(seq) !=
		       isl_schedule_node_filter)
			seq = isl_schedule_node_parent(seq);
		seq = isl_schedule_node_parent(seq);
	}
	return seq;
}

/* Tile a warp's point band [iw, jw] (and, has_k, [kp] above it) by the
 * macro shape (each_branch). */
static __isl_give isl_schedule_node *tile_branch(struct pm_kernel *k,
	__isl_take isl_schedule_node *node, int has_k)
{
	const struct pm_config *c = k->cfg;
	int mn[2] = { c->mm, c->mn };

	node = pm_node_tile(node, mn);			/* [fi, fj] */
	if (has_k) {
		node = isl_schedule_node_parent(node);	/* [kp] */
		node = pm_node_tile(node, &c->mk);	/* [fk] */
		node = isl_schedule_node_child(node, 0);	/* [kk] */
		node = pm_node_band_sink_past(node, 1);
	}
	return node;
}

/* After the pullback (each_branch): drop a branch's intra-macro bands
 * [ii, jj] (and, has_k, [kk]), now constant, and unroll its macro
 * bands. */
static __isl_give isl_schedule_node *finish_branch(struct pm_kernel *k,
	__isl_take isl_schedule_node *node, int has_k)
{
	(void) k;
	node = isl_schedule_node_delete(node);		/* [ii, jj] */
	if (has_k) {
		node = isl_schedule_node_parent(node);
		node = isl_schedule_node_delete(node);	/* [kk] */
	}
	node = isl_schedule_node_parent(node);		/* [fi, fj] */
	node = unroll_all(node);
	if (has_k) {
		node = isl_schedule_node_parent(node);	/* [fk] */
		node = unroll_all(node);
	}
	return node;
}

static __isl_give isl_schedule_node *sequence_node(struct pm_kernel *k)
{
	isl_schedule_node *node = isl_schedule_get_root(k->schedule);

	node = pm_node_below_mark(node, k->mark_block_x);
	return isl_schedule_node_child(node, 0);
}

int pm_contract(struct pm_kernel *k, struct pm_diags *d)
{
	isl_schedule_node *node;
	isl_schedule *s;

	(void) d;
	if (build_maps(k) < 0)
		return -1;
	node = each_branch(k, sequence_node(k), &tile_branch);
	s = isl_schedule_node_get_schedule(node);
	isl_schedule_node_free(node);
	s = isl_schedule_pullback_union_pw_multi_aff(s,
		isl_union_pw_multi_aff_copy(k->base));
	isl_schedule_free(k->schedule);
	k->schedule = s;
	return pm_kernel_set_schedule(k, each_branch(k, sequence_node(k),
		&finish_branch));
}

int pm_check_legal(struct pm_kernel *k)
{
	isl_union_map *deps = pm_scop_deps(k->scop);
	isl_union_map *sched, *lt;
	isl_bool ok;

	if (k->expansion) {
		isl_union_set *dom;

		deps = isl_union_map_apply_range(
			isl_union_map_copy(k->expansion), deps);
		deps = isl_union_map_apply_range(deps, isl_union_map_reverse(
			isl_union_map_copy(k->expansion)));
		dom = isl_union_map_domain(isl_union_map_copy(k->expansion));
		deps = isl_union_map_subtract(deps,
			isl_union_set_identity(dom));
	}
	sched = isl_schedule_get_map(k->schedule);
	lt = isl_union_map_lex_lt_union_map(isl_union_map_copy(sched), sched);
	ok = isl_union_map_is_subset(deps, lt);
	isl_union_map_free(deps);
	isl_union_map_free(lt);
	return ok < 0 ? -1 : ok == isl_bool_true;
}

/* AST generation with per-op annotations. */
#include <stdio.h>
#include <stdlib.h>

#include <isl/aff.h>
#include <isl/ast_build.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/set.h>
#include <isl/union_map.h>

#include "emit/emit.h"
#include "emit/frame.h"
#include "promote/promote.h"

static void annot_free(void *user)
{
	struct pm_annot *a = user;

	for (int i = 0; i < a->n; ++i)
		isl_ast_expr_free(a->e[i]);
	free(a);
}

/* "{ X[vars] -> [(expr)] }" as a pw_aff on the op's space. */
static __isl_give isl_pw_aff *pa_str(isl_ctx *ctx, const char *vars,
	const char *expr, __isl_keep isl_id *id)
{
	char str[512];
	isl_pw_multi_aff *pma;
	isl_pw_aff *pa;

	snprintf(str, sizeof(str), "{ X%s -> [(%s)] }", vars, expr);
	pma = isl_pw_multi_aff_read_from_str(ctx, str);
	pma = isl_pw_multi_aff_set_tuple_id(pma, isl_dim_in, isl_id_copy(id));
	pa = isl_pw_multi_aff_get_pw_aff(pma, 0);
	isl_pw_multi_aff_free(pma);
	return pa;
}

/* frag and warp of a macro-tile instance with coordinates i0, j0. */
static void frag_warp(struct pm_kernel *k, const char *vars,
	__isl_keep isl_id *id, isl_pw_aff **pa)
{
	const struct pm_config *c = k->cfg;
	char str[256];
	int fm = c->wm / c->mm, fn = c->wn / c->mn;

	snprintf(str, sizeof(str), "(i0 mod %d) * %d + (j0 mod %d)", fm, fn,
		fn);
	pa[0] = pa_str(k->ctx, vars, str, id);
	snprintf(str, sizeof(str), "floor(((%d i0) mod %d) / %d) * %d + "
		"floor(((%d j0) mod %d) / %d)", c->mm, c->bm, c->wm, c->bn / c->wn,
		c->mn, c->bn, c->wn);
	pa[1] = pa_str(k->ctx, vars, str, id);
}

/* The affine functions of an op instance, on the op's space. */
static int op_functions(struct pm_kernel *k, const struct pm_op *op,
	__isl_keep isl_id *id, isl_pw_aff **pa)
{
	const struct pm_config *c = k->cfg;
	char str[256];

	switch (op->kind) {
	case PM_OP_FILL:
		frag_warp(k, "[i0, j0]", id, pa);
		return 2;
	case PM_OP_MMA: {
		const struct pm_contraction *con = &k->con[op->con];
		isl_pw_multi_aff *la = pm_promote_local(k, op->con,
			con->buf_a);
		isl_pw_multi_aff *lb = pm_promote_local(k, op->con,
			con->buf_b);
		isl_pw_aff *kt = isl_pw_multi_aff_get_pw_aff(con->mma_prefix, 2);

		frag_warp(k, "[i0, j0, k0]", id, pa);
		pa[2] = isl_pw_multi_aff_get_pw_aff(la, 0);
		pa[3] = isl_pw_multi_aff_get_pw_aff(la, 1);
		pa[4] = isl_pw_multi_aff_get_pw_aff(lb, 0);
		pa[5] = isl_pw_multi_aff_get_pw_aff(lb, 1);
		/* the stage (k->ws: the tile; emit/ adds the ring's
		 * position, pm_print_ring) */
		pa[6] = k->ws ? kt : isl_pw_aff_mod_val(kt,
			isl_val_int_from_si(k->ctx, c->stages));
		isl_pw_multi_aff_free(la);
		isl_pw_multi_aff_free(lb);
		/* A widened in the registers with a prologue along its rows
		 * (docs/decisions/0062): the macro tile's first global row */
		if (k->bufs[con->buf_a].conv_regs && k->bufs[con->buf_a].pro) {
			snprintf(str, sizeof(str), "%d i0", c->mm);
			pa[7] = pa_str(k->ctx, "[i0, j0, k0]", str, id);
			return 8;
		}
		if (!k->frag[op->con])
			return 7;
		/* fragment buffer of the k-step; the macro tile's origin
		 * inside the warp's fragments */
		snprintf(str, sizeof(str), "(k0 mod %d) mod 2", c->bk / c->mk);
		pa[7] = pa_str(k->ctx, "[i0, j0, k0]", str, id);
		snprintf(str, sizeof(str), "%d * (i0 mod %d)", c->mm, c->wm / c->mm);
		pa[8] = pa_str(k->ctx, "[i0, j0, k0]", str, id);
		snprintf(str, sizeof(str), "%d * (j0 mod %d)", c->mn, c->wn / c->mn);
		pa[9] = pa_str(k->ctx, "[i0, j0, k0]", str, id);
		return 10;
	}
	case PM_OP_LDF: {
		/* buffer s mod 2, warp, the A and B tile origins of the warp
		 * at step s in buffer coordinates, the stage */
		const struct pm_contraction *con = &k->con[op->con];
		const char *vars = "[p0, p1, q, wy, wx, s]";
		int akc = pm_emit_contiguous(&k->bufs[con->buf_a], con->ra, 2);
		int bnc = pm_emit_contiguous(&k->bufs[con->buf_b], con->rb, 1);
		char wm[32], wn[32], ks[32];

		pa[0] = pa_str(k->ctx, vars, "s mod 2", id);
		snprintf(str, sizeof(str), "wy * %d + wx", c->bn / c->wn);
		pa[1] = pa_str(k->ctx, vars, str, id);
		snprintf(wm, sizeof(wm), "%d wy", c->wm);
		snprintf(wn, sizeof(wn), "%d wx", c->wn);
		snprintf(ks, sizeof(ks), "%d s", c->mk);
		pa[2] = pa_str(k->ctx, vars, akc ? wm : ks, id);
		pa[3] = pa_str(k->ctx, vars, akc ? ks : wm, id);
		pa[4] = pa_str(k->ctx, vars, bnc ? ks : wn, id);
		pa[5] = pa_str(k->ctx, vars, bnc ? wn : ks, id);
		snprintf(str, sizeof(str), "q mod %d", c->stages);
		pa[6] = pa_str(k->ctx, vars, str, id);
		return 7;
	}
	case PM_OP_STS:
		/* fragment, warp, the macro tile's origin in the C tile */
		frag_warp(k, "[i0, j0]", id, pa);
		snprintf(str, sizeof(str), "(%d i0) mod %d", c->mm, c->bm);
		pa[2] = pa_str(k->ctx, "[i0, j0]", str, id);
		snprintf(str, sizeof(str), "(%d j0) mod %d", c->mn, c->bn);
		pa[3] = pa_str(k->ctx, "[i0, j0]", str, id);
		/* its global origin (an epilogue reduction's, epired.c) */
		snprintf(str, sizeof(str), "%d i0", c->mm);
		pa[4] = pa_str(k->ctx, "[i0, j0]", str, id);
		snprintf(str, sizeof(str), "%d j0", c->mn);
		pa[5] = pa_str(k->ctx, "[i0, j0]", str, id);
		return 6;
	case PM_OP_STG: {
		/* global (row, column), then the C tile's */
		const char *vars = "[p0, p1, l0, v]";

		snprintf(str, sizeof(str), "%d p0 + l0", c->bm);
		pa[0] = pa_str(k->ctx, vars, str, id);
		snprintf(str, sizeof(str), "%d p1 + %d v", c->bn, k->cst_vec);
		pa[1] = pa_str(k->ctx, vars, str, id);
		pa[2] = pa_str(k->ctx, vars, "l0", id);
		snprintf(str, sizeof(str), "%d v", k->cst_vec);
		pa[3] = pa_str(k->ctx, vars, str, id);
		return 4;
	}
	case PM_OP_TSTG: {
		/* the block's global (row, column), the column block */
		const char *vars = "[p0, p1, s]";

		snprintf(str, sizeof(str), "%d p0", c->bm);
		pa[0] = pa_str(k->ctx, vars, str, id);
		snprintf(str, sizeof(str), "%d p1 + %d s", c->bn, k->tma_store);
		pa[1] = pa_str(k->ctx, vars, str, id);
		pa[2] = pa_str(k->ctx, vars, "s", id);
		return 3;
	}
	case PM_OP_TSTG_WAIT:
	case PM_OP_FIXUP:
	case PM_OP_RED:
		/* the block's tile coordinates */
		pa[0] = pa_str(k->ctx, "[p0, p1]", "p0", id);
		pa[1] = pa_str(k->ctx, "[p0, p1]", "p1", id);
		return 2;
	case PM_OP_EPI:
	case PM_OP_STORE:
		frag_warp(k, "[i0, j0]", id, pa);
		snprintf(str, sizeof(str), "%d i0", c->mm);
		pa[2] = pa_str(k->ctx, "[i0, j0]", str, id);
		snprintf(str, sizeof(str), "%d j0", c->mn);
		pa[3] = pa_str(k->ctx, "[i0, j0]", str, id);
		return 4;
	case PM_OP_LDR:
	case PM_OP_STR:
	case PM_OP_PRO:
	case PM_OP_COPY: {
		struct pm_buffer *buf = &k->bufs[op->buffer];
		const char *vars = "[p0, p1, p2, l0, v]";
		isl_pw_multi_aff *proj, *off;

		snprintf(str, sizeof(str), "{ X%s -> [p0, p1, p2] }", vars);
		proj = isl_pw_multi_aff_read_from_str(k->ctx, str);
		proj = isl_pw_multi_aff_set_tuple_id(proj, isl_dim_in,
			isl_id_copy(id));
		off = isl_pw_multi_aff_from_multi_aff(
			isl_multi_aff_copy(buf->offset));
		off = isl_pw_multi_aff_pullback_pw_multi_aff(off, proj);
		pa[0] = isl_pw_aff_add(isl_pw_multi_aff_get_pw_aff(off, 0),
			pa_str(k->ctx, vars, "l0", id));
		snprintf(str, sizeof(str), "%d v", buf->vec);
		pa[1] = isl_pw_aff_add(isl_pw_multi_aff_get_pw_aff(off, 1),
			pa_str(k->ctx, vars, str, id));
		isl_pw_multi_aff_free(off);
		pa[2] = pa_str(k->ctx, vars, "l0", id);
		snprintf(str, sizeof(str), "%d v", buf->vec);
		pa[3] = pa_str(k->ctx, vars, str, id);
		snprintf(str, sizeof(str), "p2 mod %d", c->stages);
		pa[4] = pa_str(k->ctx, vars, str, id);
		if (op->kind == PM_OP_COPY) {
			/* the k tile (TMA: its barriers' phases) */
			pa[5] = pa_str(k->ctx, vars, "p2", id);
			return 6;
		}
		if (op->kind != PM_OP_LDR && op->kind != PM_OP_STR)
			return 5;
		/* the thread's unit (its staging register), the thread */
		snprintf(str, sizeof(str), "floor(l0 / %ld)", buf->pass_rows);
		pa[5] = pa_str(k->ctx, vars, str, id);
		snprintf(str, sizeof(str), "(l0 mod %ld) * %ld + v",
			buf->pass_rows, buf->size[1] / buf->vec);
		pa[6] = pa_str(k->ctx, vars, str, id);
		return 7;
	}
	case PM_OP_WAIT:
	case PM_OP_RELEASE:
	case PM_OP_DRAIN:
		/* the k tile (TMA: the stage's barrier and phase; DRAIN: is
		 * it the last, with MMAs in flight) */
		if (!k->tma[op->con])
			return 0;
		pa[0] = pa_str(k->ctx, "[p0, p1, p2]", "p2", id);
		return 1;
	case PM_OP_SYNC:
	case PM_OP_COMMIT:
		return 0;
	}
	return 0;
}

/* The functions of an op (op_functions), computed at its first instance:
 * they do not depend on the instance (another statement of the same op:
 * computed afresh). */
struct op_fns {
	isl_id *id;	/* the statement they are on (NULL: not yet) */
	int n;
	isl_pw_aff *pa[PM_MAX_ANNOT];
};

struct ast_data {
	struct pm_kernel *k;
	struct op_fns *fns;	/* per op of k */
	int failed;
};

/* The functions of op (its statement id), a copy of each in pa; their
 * number. */
static int op_functions_cached(struct ast_data *data, const struct pm_op *op,
	__isl_keep isl_id *id, isl_pw_aff **pa)
{
	struct op_fns *f = &data->fns[op - data->k->ops];

	if (f->id && f->id != id)
		return op_functions(data->k, op, id, pa);
	if (!f->id) {
		f->n = op_functions(data->k, op, id, f->pa);
		f->id = isl_id_copy(id);
	}
	for (int i = 0; i < f->n; ++i)
		pa[i] = isl_pw_aff_copy(f->pa[i]);
	return f->n;
}

static __isl_give isl_ast_node *at_domain(__isl_take isl_ast_node *node,
	__isl_keep isl_ast_build *build, void *user)
{
	struct ast_data *data = user;
	struct pm_kernel *k = data->k;
	isl_ast_expr *call, *fn;
	isl_id *id;
	const struct pm_op *op;
	struct pm_annot *a;
	isl_pw_aff *pa[PM_MAX_ANNOT];
	isl_pw_multi_aff *iter;
	isl_map *sched;

	call = isl_ast_node_user_get_expr(node);
	fn = isl_ast_expr_get_op_arg(call, 0);
	id = isl_ast_expr_get_id(fn);
	isl_ast_expr_free(fn);
	isl_ast_expr_free(call);
	op = pm_kernel_op_of(k, id);
	a = calloc(1, sizeof(*a));
	if (!op || !a) {
		data->failed = 1;
		isl_id_free(id);
		free(a);
		return node;
	}
	a->op = op;
	a->n = op_functions_cached(data, op, id, pa);
	isl_id_free(id);
	sched = isl_map_from_union_map(isl_ast_build_get_schedule(build));
	iter = isl_pw_multi_aff_from_map(isl_map_reverse(sched));
	for (int i = 0; i < a->n; ++i) {
		pa[i] = isl_pw_aff_pullback_pw_multi_aff(pa[i],
			isl_pw_multi_aff_copy(iter));
		a->e[i] = isl_ast_build_expr_from_pw_aff(build, pa[i]);
		if (!a->e[i])
			data->failed = 1;
	}
	isl_pw_multi_aff_free(iter);
	id = isl_id_alloc(k->ctx, "annot", a);
	id = isl_id_set_free_user(id, &annot_free);
	return isl_ast_node_set_annotation(node, id);
}

/* The identity of the parameters lift_divs adds (their isl_id's user
 * pointer). */
static const char lifted_anchor;

/* The kernel's context with its existentially quantified variables (the
 * divisibility of the size symbols and split-K chunks by their multiples,
 * schedule_tree/sizes.c: "M mod 128 = 0") lifted into parameters of their
 * own, after the others ("M = 128 d0"): every set of the AST build then
 * holds equalities between parameters instead of an existential variable
 * each, which isl's simplifications, gists and emptiness tests handle
 * several times faster; the AST is the same (checked: pm_emit_ast). */
static __isl_give isl_set *lift_divs(__isl_take isl_set *context)
{
	isl_ctx *ctx = isl_set_get_ctx(context);
	isl_size np = isl_set_dim(context, isl_dim_param);
	isl_size nd;

	context = isl_set_lift(context);
	nd = isl_set_dim(context, isl_dim_set);
	if (np < 0 || nd < 0)
		return isl_set_free(context);
	context = isl_set_move_dims(context, isl_dim_param, np, isl_dim_set,
		0, nd);
	for (int i = 0; i < nd; ++i) {
		char name[32];

		snprintf(name, sizeof(name), "pm_div%d", i);
		context = isl_set_set_dim_id(context, isl_dim_param, np + i,
			isl_id_alloc(ctx, name, (void *) &lifted_anchor));
	}
	return isl_set_params(context);
}

static isl_bool expr_lifted(__isl_keep isl_ast_expr *e);

static isl_bool args_lifted(__isl_keep isl_ast_expr *e)
{
	isl_size n = isl_ast_expr_op_get_n_arg(e);
	isl_bool r = n < 0 ? isl_bool_error : isl_bool_false;

	for (int i = 0; r == isl_bool_false && i < n; ++i) {
		isl_ast_expr *arg = isl_ast_expr_op_get_arg(e, i);

		r = expr_lifted(arg);
		isl_ast_expr_free(arg);
	}
	return r;
}

/* Does e refer to a parameter of lift_divs? */
static isl_bool expr_lifted(__isl_keep isl_ast_expr *e)
{
	isl_id *id;
	isl_bool r;

	switch (isl_ast_expr_get_type(e)) {
	case isl_ast_expr_id:
		id = isl_ast_expr_id_get_id(e);
		r = id ? isl_bool_ok(isl_id_get_user(id) == &lifted_anchor) :
			isl_bool_error;
		isl_id_free(id);
		return r;
	case isl_ast_expr_op:
		return args_lifted(e);
	case isl_ast_expr_int:
		return isl_bool_false;
	default:
		return isl_bool_error;
	}
}

/* Does one of node's own expressions refer to a parameter of lift_divs?
 * (found: the traversal stops with an error, *found set) */
static isl_bool node_lifted(__isl_keep isl_ast_node *node, void *user)
{
	int *found = user;
	isl_ast_expr *e[3] = { NULL, NULL, NULL };
	isl_id *id = NULL;
	isl_bool r = isl_bool_false;

	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_for:
		e[0] = isl_ast_node_for_get_init(node);
		e[1] = isl_ast_node_for_get_cond(node);
		e[2] = isl_ast_node_for_get_inc(node);
		break;
	case isl_ast_node_if:
		e[0] = isl_ast_node_if_get_cond(node);
		break;
	case isl_ast_node_user:
		e[0] = isl_ast_node_user_get_expr(node);
		id = isl_ast_node_get_annotation(node);
		break;
	default:
		break;
	}
	for (int i = 0; r == isl_bool_false && i < 3; ++i)
		if (e[i])
			r = expr_lifted(e[i]);
	if (id && r == isl_bool_false) {
		struct pm_annot *a = isl_id_get_user(id);

		for (int i = 0; a && r == isl_bool_false && i < a->n; ++i)
			r = expr_lifted(a->e[i]);
	}
	for (int i = 0; i < 3; ++i)
		isl_ast_expr_free(e[i]);
	isl_id_free(id);
	if (r == isl_bool_true)
		*found = 1;
	return r == isl_bool_false ? isl_bool_true : isl_bool_error;
}

/* The AST of k, built from context. */
static __isl_give isl_ast_node *build_ast(struct pm_kernel *k,
	__isl_take isl_set *context)
{
	struct ast_data data = { k, NULL, 0 };
	isl_ast_build *build;
	isl_ast_node *ast;

	data.fns = calloc(k->nops ? k->nops : 1, sizeof(*data.fns));
	if (!data.fns) {
		isl_set_free(context);
		return NULL;
	}
	build = isl_ast_build_from_context(context);
	build = isl_ast_build_set_at_each_domain(build, &at_domain, &data);
	ast = isl_ast_build_node_from_schedule(build,
		isl_schedule_copy(k->schedule));
	isl_ast_build_free(build);
	for (int o = 0; o < k->nops; ++o) {
		isl_id_free(data.fns[o].id);
		for (int i = 0; i < data.fns[o].n; ++i)
			isl_pw_aff_free(data.fns[o].pa[i]);
	}
	free(data.fns);
	if (data.failed)
		return isl_ast_node_free(ast);
	return ast;
}

/* Built from the lifted context (lift_divs); should an expression refer to
 * a lifted parameter (not seen: isl eliminates the parameters appended
 * last), from k's own context, as before. */
__isl_give isl_ast_node *pm_emit_ast(struct pm_kernel *k)
{
	isl_ast_node *ast;
	int found = 0;

	ast = build_ast(k, lift_divs(isl_set_copy(k->scop->context)));
	if (ast && isl_ast_node_foreach_descendant_top_down(ast, &node_lifted,
	    &found) >= 0)
		return ast;
	isl_ast_node_free(ast);
	if (!found && isl_ctx_last_error(k->ctx) == isl_error_quota)
		return NULL;
	return build_ast(k, isl_set_copy(k->scop->context));
}

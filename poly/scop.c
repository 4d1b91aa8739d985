/* Domains, accesses and the initial schedule from the DAG. */
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/union_set.h>

#include "poly/poly.h"
#include "poly/strbuf.h"

static int sym_index(const struct pm_spec *spec, const char *name)
{
	for (int s = 0; s < spec->nsyms; ++s)
		if (!strcmp(spec->syms[s].name, name))
			return s;
	return -1;
}

int pm_scop_sym_fixed(const struct pm_scop *scop, int s, long *v)
{
	if (scop->sym_value[s] <= 0)
		return 0;
	if (v)
		*v = scop->sym_value[s];
	return 1;
}

void pm_scop_dim_str(const struct pm_scop *scop, int t, int d, char *buf,
	int len)
{
	const struct pm_dim *dim = &scop->spec->tensors[t].dims[d];
	long v;

	if (dim->sym < 0)
		snprintf(buf, len, "%ld", dim->value);
	else if (pm_scop_sym_fixed(scop, dim->sym, &v))
		snprintf(buf, len, "%ld", v);
	else
		snprintf(buf, len, "%s", scop->spec->syms[dim->sym].name);
}

/* "[M, N, K] -> " (runtime symbols only). */
static void params_str(const struct pm_scop *scop, struct pm_strbuf *b)
{
	int first = 1;

	pm_strbuf_add(b, "[");
	for (int s = 0; s < scop->spec->nsyms; ++s) {
		if (pm_scop_sym_fixed(scop, s, NULL))
			continue;
		pm_strbuf_printf(b, "%s%s", first ? "" : ", ",
			scop->spec->syms[s].name);
		first = 0;
	}
	for (int r = 0; r < scop->nsplit; ++r)
		pm_strbuf_printf(b, "%spm_k0_%d, pm_kn_%d", first && !r ? "" :
			", ", r, r);
	pm_strbuf_add(b, "] -> ");
}

/* The split index of spec statement s (-1: not split). */
static int split_of(const struct pm_scop *scop, int s)
{
	for (int r = 0; r < scop->nsplit; ++r)
		if (scop->split_stmt[r] == s)
			return r;
	return -1;
}

/* Find the extent of variable v of statement st: the first reference
 * (lhs, then reads) that it indexes. */
static int find_extent(const struct pm_spec *spec, const struct pm_expr *e,
	int v, int *t, int *d)
{
	if (!e)
		return 0;
	if (e->kind == PM_E_READ) {
		for (int i = 0; i < e->nidx; ++i)
			if (e->idx[i] == v) {
				*t = e->tensor;
				*d = i;
				return 1;
			}
		return 0;
	}
	for (int i = 0; i < e->nargs; ++i)
		if (find_extent(spec, e->args[i], v, t, d))
			return 1;
	return 0;
}

/* The extent of variable v of statement st as text; a reduction's
 * fixed to a value that is not a multiple of the k tile: the padded
 * value (poly.h). */
static void var_extent(const struct pm_scop *scop, const struct pm_stmt *st,
	int v, char *buf, int len)
{
	int t = st->lhs, d = v;
	const struct pm_dim *dim;
	long x = 0;

	if (v >= st->nlhs && !find_extent(scop->spec, st->rhs, v, &t, &d)) {
		snprintf(buf, len, "1");
		return;
	}
	pm_scop_dim_str(scop, t, d, buf, len);
	dim = &scop->spec->tensors[t].dims[d];
	if (dim->sym < 0)
		x = dim->value;
	else
		pm_scop_sym_fixed(scop, dim->sym, &x);
	if (v >= st->nlhs && x > 0 && scop->kpad > 1 && x % scop->kpad)
		snprintf(buf, len, "%ld", (x + scop->kpad - 1) / scop->kpad *
			scop->kpad);
}

/* "{ S[d0, d1] : 0 <= d0 < M and 0 <= d1 < N }" over the first n vars
 * (a split contraction's k: 0 <= dk < pm_kn_<r>). */
static void domain_str(const struct pm_scop *scop, const struct pm_stmt *st,
	int n, struct pm_strbuf *b)
{
	char ext[PM_LIMIT_IDENT + 1];
	int r = split_of(scop, (int) (st - scop->spec->stmts));

	params_str(scop, b);
	pm_strbuf_add(b, "{ S[");
	for (int v = 0; v < n; ++v)
		pm_strbuf_printf(b, "%sd%d", v ? ", " : "", v);
	pm_strbuf_add(b, "]");
	for (int v = 0; v < n; ++v) {
		var_extent(scop, st, v, ext, sizeof(ext));
		if (r >= 0 && v == st->nlhs)
			snprintf(ext, sizeof(ext), "pm_kn_%d", r);
		pm_strbuf_printf(b, "%s 0 <= d%d < %s", v ? " and" : " :", v,
			ext);
	}
	pm_strbuf_add(b, " }");
}

static __isl_give isl_set *read_set(isl_ctx *ctx, const char *str,
	__isl_take isl_id *id)
{
	isl_set *set = isl_set_read_from_str(ctx, str);

	return isl_set_set_tuple_id(set, id);
}

/* S[d0..d(n-1)] -> T[d_idx0, ...]; index variable kv (-1: none) offset
 * by pm_k0_<r> (a split contraction's reads). */
static __isl_give isl_map *access_map_off(struct pm_scop *scop, int n,
	__isl_keep isl_id *sid, int tensor, int nidx, const int *idx, int kv,
	int r)
{
	struct pm_strbuf b;
	isl_map *map;

	pm_strbuf_init(&b);
	params_str(scop, &b);
	pm_strbuf_add(&b, "{ S[");
	for (int v = 0; v < n; ++v)
		pm_strbuf_printf(&b, "%sd%d", v ? ", " : "", v);
	pm_strbuf_add(&b, "] -> T[");
	for (int i = 0; i < nidx; ++i) {
		pm_strbuf_printf(&b, "%sd%d", i ? ", " : "", idx[i]);
		if (kv >= 0 && idx[i] == kv)
			pm_strbuf_printf(&b, " + pm_k0_%d", r);
	}
	pm_strbuf_add(&b, "] }");
	map = isl_map_read_from_str(scop->ctx, b.s);
	pm_strbuf_free(&b);
	map = isl_map_set_tuple_id(map, isl_dim_in, isl_id_copy(sid));
	return isl_map_set_tuple_id(map, isl_dim_out,
		isl_id_copy(scop->array_ids[tensor]));
}

static __isl_give isl_map *access_map(struct pm_scop *scop, int n,
	__isl_keep isl_id *sid, int tensor, int nidx, const int *idx)
{
	return access_map_off(scop, n, sid, tensor, nidx, idx, -1, 0);
}

static __isl_give isl_union_map *collect_reads(struct pm_scop *scop,
	const struct pm_expr *e, int n, __isl_keep isl_id *sid, int kv, int r,
	__isl_take isl_union_map *acc)
{
	if (!e)
		return acc;
	if (e->kind == PM_E_READ)
		return isl_union_map_add_map(acc, access_map_off(scop, n, sid,
			e->tensor, e->nidx, e->idx, kv, r));
	for (int i = 0; i < e->nargs; ++i)
		acc = collect_reads(scop, e->args[i], n, sid, kv, r, acc);
	return acc;
}

static __isl_give isl_id *new_stmt_id(struct pm_scop *scop, int k,
	enum pm_stmt_role role, int s, int ndims)
{
	char name[32];

	scop->stmts[k].role = role;
	scop->stmts[k].stmt = s;
	scop->stmts[k].ndims = ndims;
	snprintf(name, sizeof(name), role == PM_ROLE_INIT ? "S_%d_init" :
		"S_%d", s);
	scop->stmt_ids[k] = isl_id_alloc(scop->ctx, name, &scop->stmts[k]);
	return scop->stmt_ids[k];
}

/* Domains and accesses of every statement. */
static isl_stat build_statements(struct pm_scop *scop)
{
	const struct pm_spec *spec = scop->spec;
	isl_space *space = isl_set_get_space(scop->context);
	int k = 0;

	scop->domain = isl_union_set_empty(isl_space_copy(space));
	scop->reads = isl_union_map_empty(isl_space_copy(space));
	scop->writes = isl_union_map_empty(space);
	for (int s = 0; s < spec->nstmts; ++s) {
		const struct pm_stmt *st = &spec->stmts[s];
		int lhs_idx[PM_MAX_RANK];
		struct pm_strbuf b;
		isl_id *id;

		for (int i = 0; i < st->nlhs; ++i)
			lhs_idx[i] = i;
		if (st->kind == PM_S_REDUCE) {
			id = new_stmt_id(scop, k++, PM_ROLE_INIT, s, st->nlhs);
			pm_strbuf_init(&b);
			domain_str(scop, st, st->nlhs, &b);
			scop->domain = isl_union_set_add_set(scop->domain,
				read_set(scop->ctx, b.s, isl_id_copy(id)));
			pm_strbuf_free(&b);
			scop->writes = isl_union_map_add_map(scop->writes,
				access_map(scop, st->nlhs, id, st->lhs,
					st->nlhs, lhs_idx));
		}
		id = new_stmt_id(scop, k++, st->kind == PM_S_ASSIGN ?
			PM_ROLE_ASSIGN : PM_ROLE_UPDATE, s, st->nvars);
		pm_strbuf_init(&b);
		domain_str(scop, st, st->nvars, &b);
		scop->domain = isl_union_set_add_set(scop->domain,
			read_set(scop->ctx, b.s, isl_id_copy(id)));
		pm_strbuf_free(&b);
		scop->writes = isl_union_map_add_map(scop->writes,
			access_map(scop, st->nvars, id, st->lhs, st->nlhs,
				lhs_idx));
		if (st->kind != PM_S_ASSIGN)
			scop->reads = isl_union_map_add_map(scop->reads,
				access_map(scop, st->nvars, id, st->lhs,
					st->nlhs, lhs_idx));
		scop->reads = collect_reads(scop, st->rhs, st->nvars, id,
			split_of(scop, s) >= 0 ? st->nlhs : -1, split_of(scop, s),
			scop->reads);
	}
	scop->nstmts = k;
	scop->domain = isl_union_set_intersect_params(scop->domain,
		isl_set_copy(scop->context));
	scop->reads = isl_union_map_intersect_domain(scop->reads,
		isl_union_set_copy(scop->domain));
	scop->writes = isl_union_map_intersect_domain(scop->writes,
		isl_union_set_copy(scop->domain));
	if (!scop->domain || !scop->reads || !scop->writes)
		return isl_stat_error;
	return isl_stat_ok;
}

/* S[d0, ..., d(n-1)] -> [d(dim[0]), ...] (a member -1: 0) */
static __isl_give isl_multi_union_pw_aff *perm_schedule(
	struct pm_scop *scop, int k, int cnt, const int *dim)
{
	isl_space *space;
	isl_multi_aff *ma;

	space = isl_space_set_alloc(scop->ctx, 0, scop->stmts[k].ndims);
	space = isl_space_set_tuple_id(space, isl_dim_set,
		isl_id_copy(scop->stmt_ids[k]));
	space = isl_space_map_from_domain_and_range(space,
		isl_space_set_alloc(scop->ctx, 0, cnt));
	ma = isl_multi_aff_zero(isl_space_copy(space));
	for (int i = 0; i < cnt; ++i)
		if (dim[i] >= 0)
			ma = isl_multi_aff_set_aff(ma, i, isl_aff_var_on_domain(
				isl_local_space_from_space(isl_space_domain(
				isl_space_copy(space))), isl_dim_set, dim[i]));
	isl_space_free(space);
	return isl_multi_union_pw_aff_from_union_pw_multi_aff(
		isl_union_pw_multi_aff_from_multi_aff(ma));
}

/* S[d0, ..., d(n-1)] -> [d(first), ..., d(first+cnt-1)] */
static __isl_give isl_multi_union_pw_aff *dims_schedule(
	struct pm_scop *scop, int k, int first, int cnt)
{
	int dim[PM_MAX_VARS];

	for (int i = 0; i < cnt; ++i)
		dim[i] = first + i;
	return perm_schedule(scop, k, cnt, dim);
}

/* Epilogue reductions (docs/LANGUAGE.md, "Epilogue reductions"): the
 * statement dimension that band member p of the output band takes, or -1
 * (the member is 0). The update S_n[vars] takes the variables that index
 * the chain's result (the first read of a non-input tensor of rank
 * `rank`), the init S_n_init[lhs vars] those of them on its left side:
 * S(i) +=! D(i, j) * D(i, j): S_n[i, j] -> [i, j], S_n_init[i] -> [i, 0];
 * S(j) +=! C(i, j): S_n[j, i] -> [i, j], S_n_init[j] -> [0, j]. */
static int epi_red_dims(const struct pm_spec *spec, const struct pm_expr *e,
	int rank, int *dim)
{
	if (e->kind == PM_E_READ && spec->tensors[e->tensor].role !=
	    PM_INPUT && e->nidx == rank) {
		for (int p = 0; p < rank; ++p)
			dim[p] = e->idx[p];
		return 1;
	}
	for (int i = 0; i < e->nargs; ++i)
		if (epi_red_dims(spec, e->args[i], rank, dim))
			return 1;
	return 0;
}

/* The output band of scop statement k (rank members), or NULL after a
 * diagnostic. */
static __isl_give isl_multi_union_pw_aff *out_schedule(struct pm_scop *scop,
	int k, int rank, unsigned *carried)
{
	const struct pm_spec *spec = scop->spec;
	int s = scop->stmts[k].stmt, dim[PM_MAX_RANK];
	const struct pm_stmt *st = &spec->stmts[s];

	if (!pm_stmt_is_epi_reduction(spec, s))
		return st->nlhs == rank ? dims_schedule(scop, k, 0, rank) : NULL;
	if (st->nvars != rank || !epi_red_dims(spec, st->rhs, rank, dim))
		return NULL;
	/* the members along which it reduces carry its dependences: not
	 * coincident */
	for (int p = 0; p < rank; ++p)
		if (dim[p] >= st->nlhs)
			*carried |= 1u << p;
	if (scop->stmts[k].role == PM_ROLE_INIT)
		for (int p = 0; p < rank; ++p)
			dim[p] = dim[p] < st->nlhs ? dim[p] : -1;
	return perm_schedule(scop, k, rank, dim);
}

/* The filter of scop statement k in the initial sequence: program
 * order, but joined contractions (S_0_init, S_0, S_1_init, S_1 first)
 * share filter 2 after their inits. */
static int filter_of(const struct pm_scop *scop, int k)
{
	static const int joined[4] = { 0, 2, 1, 2 };

	if (!scop->join)
		return k;
	return k < 4 ? joined[k] : k - 1;
}

/* The sequence's filters (each the statements filter_of puts there). */
static __isl_give isl_union_set_list *seq_filters(struct pm_scop *scop)
{
	int nf = scop->nstmts - scop->join;
	isl_union_set_list *filters = isl_union_set_list_alloc(scop->ctx, nf);

	for (int f = 0; f < nf; ++f) {
		isl_union_set *u = isl_union_set_empty(isl_space_params_alloc(
			scop->ctx, 0));

		for (int k = 0; k < scop->nstmts; ++k)
			if (filter_of(scop, k) == f)
				u = isl_union_set_add_set(u, isl_set_universe(
					isl_space_set_tuple_id(
					isl_space_set_alloc(scop->ctx, 0,
					scop->stmts[k].ndims), isl_dim_set,
					isl_id_copy(scop->stmt_ids[k]))));
		filters = isl_union_set_list_add(filters, u);
	}
	return filters;
}

/* The "red" band [k] of filter f (NULL: the filter has no reduction). */
static __isl_give isl_multi_union_pw_aff *red_band(struct pm_scop *scop,
	int f, int rank)
{
	isl_multi_union_pw_aff *red = NULL;

	for (int k = 0; k < scop->nstmts; ++k) {
		int nred = scop->stmts[k].role == PM_ROLE_INIT ? 0 :
			pm_stmt_nred(&scop->spec->stmts[scop->stmts[k].stmt]);
		isl_multi_union_pw_aff *m;

		if (!nred || filter_of(scop, k) != f ||
		    pm_stmt_is_epi_reduction(scop->spec, scop->stmts[k].stmt))
			continue;
		m = dims_schedule(scop, k, rank, nred);
		red = red ? isl_multi_union_pw_aff_union_add(red, m) : m;
	}
	return red;
}

/* The fused initial schedule (see poly.h). */
static isl_stat build_schedule(struct pm_scop *scop, struct pm_diags *diags)
{
	const struct pm_spec *spec = scop->spec;
	isl_multi_union_pw_aff *out = NULL;
	isl_schedule_node *node;
	int rank = spec->stmts[spec->nstmts - 1].nlhs;
	unsigned carried = 0;

	/* the output band's rank: the last statement's that is not an
	 * epilogue reduction */
	for (int s = spec->nstmts - 1; s >= 0; --s)
		if (!pm_stmt_is_epi_reduction(spec, s)) {
			rank = spec->stmts[s].nlhs;
			break;
		}
	for (int k = 0; k < scop->nstmts; ++k) {
		const struct pm_stmt *st = &spec->stmts[scop->stmts[k].stmt];
		isl_multi_union_pw_aff *mupa;

		mupa = out_schedule(scop, k, rank, &carried);
		if (!mupa) {
			pm_diag_unsupported(diags, st->loc, "statements "
				"of different output rank cannot be fused "
				"into one kernel yet");
			isl_multi_union_pw_aff_free(out);
			return isl_stat_error;
		}
		out = out ? isl_multi_union_pw_aff_union_add(out, mupa) : mupa;
	}
	out = isl_multi_union_pw_aff_intersect_domain(out,
		isl_union_set_copy(scop->domain));
	scop->schedule = isl_schedule_from_domain(
		isl_union_set_copy(scop->domain));
	node = isl_schedule_get_root(scop->schedule);
	isl_schedule_free(scop->schedule);
	node = isl_schedule_node_child(node, 0);
	if (scop->nstmts > 1) {
		node = isl_schedule_node_insert_sequence(node,
			seq_filters(scop));
		for (int f = 0; f < scop->nstmts - scop->join; ++f) {
			isl_multi_union_pw_aff *red = red_band(scop, f, rank);

			if (!red)
				continue;
			node = isl_schedule_node_child(node, f);
			node = isl_schedule_node_child(node, 0);
			node = isl_schedule_node_insert_partial_schedule(node,
				red);
			node = isl_schedule_node_insert_mark(node,
				isl_id_copy(scop->mark_red));
			node = isl_schedule_node_parent(node);
			node = isl_schedule_node_parent(node);
		}
	} else {
		int nred = pm_stmt_nred(&spec->stmts[0]);

		if (nred) {
			node = isl_schedule_node_insert_partial_schedule(node,
				dims_schedule(scop, 0, rank, nred));
			node = isl_schedule_node_insert_mark(node,
				isl_id_copy(scop->mark_red));
		}
	}
	node = isl_schedule_node_insert_partial_schedule(node, out);
	for (int i = 0; i < rank; ++i)
		node = isl_schedule_node_band_member_set_coincident(node, i,
			!(carried >> i & 1));
	node = isl_schedule_node_insert_mark(node, isl_id_copy(scop->mark_out));
	scop->schedule = isl_schedule_node_get_schedule(node);
	isl_schedule_node_free(node);
	return scop->schedule ? isl_stat_ok : isl_stat_error;
}

static int check_defines(struct pm_scop *scop, const struct pm_config *cfg,
	struct pm_diags *diags)
{
	for (int i = 0; i < cfg->ndefines; ++i) {
		int s = sym_index(scop->spec, cfg->defines[i].name);

		if (s < 0) {
			pm_diag_plain(diags, "-D %s: '%s' is not a size symbol "
				"of '%s'", cfg->defines[i].name,
				cfg->defines[i].name, scop->spec->name);
			return -1;
		}
		if (cfg->defines[i].value <= 0) {
			pm_diag_plain(diags, "-D %s=%ld: sizes must be positive",
				cfg->defines[i].name, cfg->defines[i].value);
			return -1;
		}
		scop->sym_value[s] = cfg->defines[i].value;
	}
	return 0;
}

/* Split-K: the reductions over one variable (at most
 * PM_LIMIT_CONTRACTIONS: the front end's limit). */
static void find_splits(struct pm_scop *scop)
{
	const struct pm_spec *spec = scop->spec;

	for (int s = 0; s < spec->nstmts &&
	    scop->nsplit < PM_LIMIT_CONTRACTIONS; ++s) {
		const struct pm_stmt *st = &spec->stmts[s];

		if (st->kind != PM_S_REDUCE || st->nvars != st->nlhs + 1 ||
		    pm_stmt_is_epi_reduction(spec, s))
			continue;
		scop->split_stmt[scop->nsplit] = s;
		var_extent(scop, st, st->nlhs, scop->split_ext[scop->nsplit],
			sizeof(scop->split_ext[0]));
		scop->nsplit++;
	}
}

/* The extents of the reductions' k, in program order (the persistent
 * kernel's k tiles per output tile, emit/). */
static void red_extent(struct pm_scop *scop)
{
	const struct pm_spec *spec = scop->spec;
	int n = 0;

	for (int r = 0; r < PM_LIMIT_CONTRACTIONS; ++r)
		snprintf(scop->red_ext[r], sizeof(scop->red_ext[r]), "1");
	for (int s = 0; s < spec->nstmts && n < PM_LIMIT_CONTRACTIONS; ++s) {
		const struct pm_stmt *st = &spec->stmts[s];

		if (st->kind != PM_S_REDUCE || st->nvars != st->nlhs + 1 ||
		    pm_stmt_is_epi_reduction(spec, s))
			continue;
		var_extent(scop, st, st->nlhs, scop->red_ext[n],
			sizeof(scop->red_ext[n]));
		n++;
	}
}

/* Are the direct operand reads a and b (tensor reads, not prologues)
 * of one tensor with one access? */
static int same_read(const struct pm_expr *a, const struct pm_expr *b)
{
	if (a->kind != PM_E_READ || b->kind != PM_E_READ ||
	    a->tensor != b->tensor || a->nidx != b->nidx)
		return 0;
	for (int i = 0; i < a->nidx; ++i)
		if (a->idx[i] != b->idx[i])
			return 0;
	return 1;
}

/* Is statement s a contraction T(i, j) +=! x * y over one k? */
static int is_product(const struct pm_spec *spec, int s)
{
	const struct pm_stmt *st = spec->stmts + s;

	return s < spec->nstmts && st->kind == PM_S_REDUCE && st->nlhs == 2 &&
		st->nvars == 3 && st->rhs->kind == PM_E_BIN &&
		st->rhs->op == '*';
}

/* scop->join (poly.h): statements 0 and 1 are the only contractions,
 * over k extents of one size, and exactly one operand read of statement 1
 * is an operand read of statement 0. */
static int find_join(const struct pm_scop *scop)
{
	const struct pm_spec *spec = scop->spec;
	char e0[PM_LIMIT_IDENT + 1], e1[PM_LIMIT_IDENT + 1];
	int n = 0;

	if (!is_product(spec, 0) || !is_product(spec, 1) ||
	    (spec->nstmts > 2 && spec->stmts[2].kind == PM_S_REDUCE))
		return 0;
	var_extent(scop, &spec->stmts[0], 2, e0, sizeof(e0));
	var_extent(scop, &spec->stmts[1], 2, e1, sizeof(e1));
	if (strcmp(e0, e1))
		return 0;
	for (int i = 0; i < 2; ++i)
		for (int j = 0; j < 2; ++j)
			n += same_read(spec->stmts[0].rhs->args[i],
				spec->stmts[1].rhs->args[j]);
	return n == 1;
}

static __isl_give isl_set *build_context(struct pm_scop *scop)
{
	struct pm_strbuf b;
	int first = 1;
	isl_set *set;

	pm_strbuf_init(&b);
	params_str(scop, &b);
	pm_strbuf_add(&b, "{ : ");
	for (int s = 0; s < scop->spec->nsyms; ++s) {
		if (pm_scop_sym_fixed(scop, s, NULL))
			continue;
		pm_strbuf_printf(&b, "%s%s >= 1", first ? "" : " and ",
			scop->spec->syms[s].name);
		first = 0;
		scop->nparams++;
	}
	for (int r = 0; r < scop->nsplit; ++r) {
		pm_strbuf_printf(&b, "%spm_k0_%d >= 0 and pm_kn_%d >= 1 and "
			"pm_k0_%d + pm_kn_%d <= %s", first ? "" : " and ", r, r,
			r, r, scop->split_ext[r]);
		first = 0;
	}
	/* joined contractions: one chunk (the plan gives both the same) */
	if (scop->join && scop->nsplit == 2)
		pm_strbuf_add(&b, " and pm_k0_1 = pm_k0_0 and pm_kn_1 = "
			"pm_kn_0");
	pm_strbuf_add(&b, first ? "true }" : " }");
	set = isl_set_read_from_str(scop->ctx, b.s);
	pm_strbuf_free(&b);
	return set;
}

__isl_give struct pm_scop *pm_scop_build(isl_ctx *ctx,
	const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_diags *diags)
{
	struct pm_scop *scop = calloc(1, sizeof(*scop));
	int nst = 0;

	if (!scop)
		return NULL;
	scop->ctx = ctx;
	scop->spec = spec;
	for (int s = 0; s < spec->nstmts; ++s)
		nst += spec->stmts[s].kind == PM_S_REDUCE ? 2 : 1;
	scop->sym_value = calloc(spec->nsyms + 1, sizeof(long));
	scop->stmts = calloc(nst, sizeof(*scop->stmts));
	scop->stmt_ids = calloc(nst, sizeof(isl_id *));
	scop->narrays = spec->ntensors;
	scop->arrays = calloc(spec->ntensors, sizeof(*scop->arrays));
	scop->array_ids = calloc(spec->ntensors, sizeof(isl_id *));
	if (!scop->sym_value || !scop->stmts || !scop->stmt_ids ||
	    !scop->arrays || !scop->array_ids)
		goto error;
	if (check_defines(scop, cfg, diags) < 0)
		goto error;
	scop->kpad = cfg->bk;
	for (int t = 0; t < spec->ntensors; ++t) {
		scop->arrays[t].tensor = t;
		scop->array_ids[t] = isl_id_alloc(ctx,
			spec->tensors[t].name, &scop->arrays[t]);
	}
	if (cfg->split_k != 1)
		find_splits(scop);
	red_extent(scop);
	scop->join = find_join(scop);
	scop->mark_out = isl_id_alloc(ctx, "out", NULL);
	scop->mark_red = isl_id_alloc(ctx, "red", NULL);
	scop->context = build_context(scop);
	if (!scop->context || build_statements(scop) < 0)
		goto error;
	if (build_schedule(scop, diags) < 0)
		goto error;
	if (pm_scop_compute_deps(scop) < 0)
		goto error;
	return scop;
error:
	if (!pm_isl_quota_diag(ctx, diags) && !diags->nerrors &&
	    isl_ctx_last_error(ctx) != isl_error_none)
		pm_diag_internal(diags, "isl: %s",
			isl_ctx_last_error_msg(ctx) ?
			isl_ctx_last_error_msg(ctx) : "unknown");
	pm_scop_free(scop);
	return NULL;
}

void pm_isl_bound(isl_ctx *ctx)
{
	isl_ctx_reset_operations(ctx);
	isl_ctx_set_max_operations(ctx, PM_LIMIT_ISL_OPS);
}

/* Is ctx out of its operation budget? isl reports a quota error, but a
 * later error (a parser's) may replace it: a trivial step fails on a
 * spent budget, as the budget stays spent. */
static int over_budget(isl_ctx *ctx)
{
	isl_set *set;
	isl_bool empty;

	if (isl_ctx_last_error(ctx) == isl_error_quota)
		return 1;
	if (!isl_ctx_get_max_operations(ctx))
		return 0;
	set = isl_set_read_from_str(ctx, "{ [i] : 0 <= i <= 1 }");
	empty = isl_set_is_empty(set);
	isl_set_free(set);
	return empty < 0 && isl_ctx_last_error(ctx) == isl_error_quota;
}

void pm_isl_quota_report(struct pm_diags *d)
{
	static const char msg[] = "the spec is too large to schedule: isl "
		"spent its budget of %lu operations";

	if (!strstr(pm_diags_text(d), "the spec is too large to schedule"))
		pm_diag_plain(d, msg, PM_LIMIT_ISL_OPS);
}

int pm_isl_quota_diag(isl_ctx *ctx, struct pm_diags *d)
{
	if (!over_budget(ctx))
		return 0;
	pm_isl_quota_report(d);
	return 1;
}

void pm_scop_free(struct pm_scop *scop)
{
	if (!scop)
		return;
	isl_set_free(scop->context);
	isl_union_set_free(scop->domain);
	isl_union_map_free(scop->reads);
	isl_union_map_free(scop->writes);
	isl_union_map_free(scop->dep_flow);
	isl_union_map_free(scop->dep_false);
	isl_schedule_free(scop->schedule);
	for (int k = 0; k < scop->nstmts; ++k)
		isl_id_free(scop->stmt_ids[k]);
	for (int t = 0; t < scop->narrays; ++t)
		isl_id_free(scop->array_ids ? scop->array_ids[t] : NULL);
	isl_id_free(scop->mark_out);
	isl_id_free(scop->mark_red);
	free(scop->stmt_ids);
	free(scop->stmts);
	free(scop->array_ids);
	free(scop->arrays);
	free(scop->sym_value);
	pm_spec_free(scop->own_spec);
	pm_spec_free(scop->own_base);
	free(scop);
}

__isl_keep isl_id *pm_scop_stmt_id(const struct pm_scop *scop, int stmt,
	enum pm_stmt_role role)
{
	for (int k = 0; k < scop->nstmts; ++k)
		if (scop->stmts[k].stmt == stmt && scop->stmts[k].role == role)
			return scop->stmt_ids[k];
	return NULL;
}

const struct pm_stmt_info *pm_stmt_info_of(const struct pm_scop *scop,
	__isl_keep isl_id *id)
{
	void *user = isl_id_get_user(id);

	for (int k = 0; k < scop->nstmts; ++k)
		if (user == &scop->stmts[k])
			return &scop->stmts[k];
	return NULL;
}

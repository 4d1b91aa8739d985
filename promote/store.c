/* The store of the block's output tile (contract in promote/internal.h).
 *
 * Direct:  STORE[i0, j0] per macro tile: each thread writes its own
 *          accumulator elements (pairs) to global memory.
 * Staged (the paper's §V-D):
 *          SYNC_ST[p0, p1]                     the operand tiles are free
 *          STS[i0, j0]      per macro tile      acc -> C_shared (padded rows)
 *          SYNC_ST2[p0, p1]
 *          STG[p0, p1, l0, v]                   16-byte units C_shared ->
 *                                               C, coalesced, threads
 *                                               (l0 mod P, v) as the copies
 *          C_shared[BM][BN + pad] reuses the operand buffers' memory.
 * Staged, TMA stores (sm_90a's warp-specialized kernels, k->tma_store;
 * docs/decisions/0048-tma-stores.md):
 *          TSTG_WAIT[p0, p1]                   the previous tile's stores
 *                                              have read C_shared
 *          SYNC_ST, STS (swizzled column blocks of W = 128 bytes), SYNC_ST2
 *          TSTG[p0, p1, s]   0 <= s < BN / W   one thread: TMA store of
 *                                              block s (clipped at M, N)
 *
 * Split-K (the scop's contractions cover a chunk of k per blockIdx.z):
 *          FIXUP[p0, p1]                       after the last k loop: the
 *                                              blocks of a tile exchange
 *                                              their partial accumulators
 *                                              through the workspace; the
 *                                              last to arrive sums them and
 *                                              goes on, the others stop. */
#include <stdio.h>

#include <isl/map.h>
#include <isl/schedule_node.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "target/target.h"
#include "promote/internal.h"

/* The elements of a 128-byte column block of the staged tile where k's
 * tile can leave by TMA stores, else 0 (and why). */
static int tma_store_width(const struct pm_kernel *k, const char **why)
{
	const struct pm_config *c = k->cfg;
	const struct pm_tensor *out = &k->scop->spec->tensors[k->con[0].out];
	const struct pm_elem *e = pm_elem_of(out->type);

	*why = NULL;
	if (!c->target->emits_cuda || c->target->tma != 2 || !k->ws)
		*why = "not a warp-specialized sm_90a kernel";
	else if (k->scop->nsplit)
		*why = "a split kernel (its strips leave by the threads)";
	else if (k->scop->spec->grouped)
		*why = "a grouped kernel (a box clipped at the tensor's end "
			"would write into the next group's rows)";
	else if (out->rank != 2)
		*why = "an output not of rank 2";
	else if (out->tposed)
		*why = "a transposed output (a swapped row)";
	else if (!e || e->bytes != 2 || !e->tma)
		*why = "not a 16-bit output";
	else if (c->bn % (128 / e->bytes) || c->mn % (128 / e->bytes))
		*why = "a tile width not of 128-byte blocks";
	return *why ? 0 : 128 / e->bytes;
}

/* Elements per 16 bytes of the output type (0: no staging). */
static int out_vec(const struct pm_kernel *k)
{
	enum pm_type t = k->scop->spec->tensors[k->con[0].out].type;
	const struct pm_elem *e = pm_elem_of(t);

	return e ? 16 / e->bytes : t == PM_F32 ? 4 : 0;
}

int pm_store_decide(struct pm_kernel *k, struct pm_diags *d)
{
	const struct pm_config *c = k->cfg;
	int vec = out_vec(k), nt = pm_config_threads(c);
	int r = vec ? c->bn / vec : 0;
	const char *why = NULL;

	/* threads per tile row: the row's 16-byte units, rounded up to a
	 * divisor of the block's threads (the lanes past the row idle) */
	while (r > 0 && r < nt && nt % r)
		++r;

	k->cst_pitch = 0;
	if (c->staged_store == 0)
		return 0;
	if (!vec || c->bn % vec)
		why = "the output type or tile width does not make 16-byte units";
	else if (r > nt || (nt / r < c->bm && c->bm % (nt / r)))
		why = "the block's threads do not cover the tile in 16-byte "
			"units";
	if (why) {
		if (c->staged_store < 0)
			return 0;
		pm_diag_plain(d, "--staged-store on: not possible here: %s "
			"(block %dx%d, %d threads)", why, c->bm, c->bn, nt);
		return -1;
	}
	/* rows padded by 16 bytes: the pair stores of a warp's 8 rows x 4
	 * lanes fall into 32 distinct banks; rows stay 16-byte aligned */
	k->cst_pitch = c->bn + vec;
	k->cst_vec = vec;
	k->tma_store = c->tma_store ? tma_store_width(k, &why) : 0;
	return 0;
}

/* Below node (a leaf under the filter of id[i0, j0]): the macro tile band
 * (unrolled) under the warp bands, as for FILL / MMA. */
static __isl_give isl_schedule_node *warp_bands(struct pm_kernel *k,
	__isl_take isl_schedule_node *g, __isl_keep isl_id *id)
{
	const struct pm_config *c = k->cfg;
	const char *in = "[i0, j0]";
	char str[256];
	isl_multi_union_pw_aff *frag;

	snprintf(str, sizeof(str), "floor(((%d i0) mod %d) / %d)", c->mm, c->wm,
		c->mm);
	frag = pm_pr_mupa_str(k->ctx, in, str, id);
	snprintf(str, sizeof(str), "floor(((%d j0) mod %d) / %d)", c->mn, c->wn,
		c->mn);
	frag = isl_multi_union_pw_aff_flat_range_product(frag,
		pm_pr_mupa_str(k->ctx, in, str, id));
	g = isl_schedule_node_insert_partial_schedule(g, frag);
	g = isl_schedule_node_band_member_set_ast_loop_type(g, 0,
		isl_ast_loop_unroll);
	g = isl_schedule_node_band_member_set_ast_loop_type(g, 1,
		isl_ast_loop_unroll);
	snprintf(str, sizeof(str), "floor(((%d j0) mod %d) / %d)", c->mn, c->bn,
		c->wn);
	g = pm_pr_band_str(k, g, in, str, id, isl_id_copy(k->mark_warp_x), 0);
	snprintf(str, sizeof(str), "floor(((%d i0) mod %d) / %d)", c->mm, c->bm,
		c->wm);
	return pm_pr_band_str(k, g, in, str, id, isl_id_copy(k->mark_warp_y), 0);
}

/* Below node (a leaf under the filter of STG): threads (l0 mod P, v) and
 * the unrolled band floor(l0 / P), P = threads / (BN / vec) rows per pass. */
static __isl_give isl_schedule_node *thread_bands(struct pm_kernel *k,
	__isl_take isl_schedule_node *g, __isl_keep isl_id *id)
{
	const struct pm_config *c = k->cfg;
	int r = c->bn / k->cst_vec, nt = pm_config_threads(c);

	while (r < nt && nt % r)
		++r;
	return pm_pr_thread_bands(k, g, "[p0, p1, l0, v]", id, r,
		nt / r < c->bm ? nt / r : c->bm);
}

/* "{ [p0, p1] -> S[i0, j0] : the block's macro tiles }" */
static __isl_give isl_map *tiles_ext(struct pm_kernel *k, __isl_keep isl_id *id)
{
	const struct pm_config *c = k->cfg;
	char str[512];
	isl_map *ext;

	snprintf(str, sizeof(str), "{ [p0, p1] -> S[i0, j0] : "
		"%d p0 <= %d i0 < %d p0 + %d and %d p1 <= %d j0 < %d p1 + %d }",
		c->bm, c->mm, c->bm, c->bm, c->bn, c->mn, c->bn, c->bn);
	ext = isl_map_read_from_str(k->ctx, str);
	return isl_map_set_tuple_id(ext, isl_dim_out, isl_id_copy(id));
}

static __isl_give isl_map *str_ext(struct pm_kernel *k, const char *str,
	__isl_keep isl_id *id)
{
	isl_map *ext = isl_map_read_from_str(k->ctx, str);

	return isl_map_set_tuple_id(ext, isl_dim_out, isl_id_copy(id));
}

/* An epilogue reduction (variant/epired.h): RED[p0, p1] after the store,
 * the block's combine (emit/epired.c); NULL without one. */
static __isl_give isl_map *red_ext(struct pm_kernel *k)
{
	if (!k->scop->spec->nepired)
		return NULL;
	k->red_id = pm_kernel_op(k, "RED", PM_OP_RED, -1);
	return str_ext(k, "{ [p0, p1] -> S[p0, p1] }", k->red_id);
}

static __isl_give isl_schedule_node *direct_tree(struct pm_kernel *k)
{
	isl_schedule_node *g;
	isl_map *red;
	isl_union_set_list *filters;

	k->store_id = pm_kernel_op(k, "STORE", PM_OP_STORE, -1);
	k->ops[k->nops - 1].con = k->ncon - 1;
	red = red_ext(k);
	if (!red) {
		g = isl_schedule_node_from_extension(isl_union_map_from_map(
			tiles_ext(k, k->store_id)));
		g = warp_bands(k, isl_schedule_node_child(g, 0), k->store_id);
		return pm_pr_graft_root(g);
	}
	/* the macro tiles' stores (and partials), then the block's RED */
	g = isl_schedule_node_from_extension(isl_union_map_add_map(
		isl_union_map_from_map(tiles_ext(k, k->store_id)), red));
	filters = isl_union_set_list_alloc(k->ctx, 2);
	filters = isl_union_set_list_add(filters,
		pm_pr_universe(k->ctx, k->store_id, 2));
	filters = isl_union_set_list_add(filters,
		pm_pr_universe(k->ctx, k->red_id, 2));
	g = isl_schedule_node_child(g, 0);
	g = isl_schedule_node_insert_sequence(g, filters);
	g = isl_schedule_node_child(isl_schedule_node_child(g, 0), 0);
	g = warp_bands(k, g, k->store_id);
	return pm_pr_graft_root(g);
}

/* The sequence of filters below the extension umap, at the node below
 * filter i. */
static __isl_give isl_schedule_node *ext_sequence(
	__isl_take isl_union_map *umap, __isl_take isl_union_set_list *filters,
	int i)
{
	isl_schedule_node *g = isl_schedule_node_from_extension(umap);

	g = isl_schedule_node_child(g, 0);
	g = isl_schedule_node_insert_sequence(g, filters);
	return isl_schedule_node_child(isl_schedule_node_child(g, i), 0);
}

/* From a node below one of a sequence's filters: the node below its
 * filter i. */
static __isl_give isl_schedule_node *next_branch(
	__isl_take isl_schedule_node *g, int i)
{
	while (g && isl_schedule_node_get_type(g) != isl_schedule_node_sequence)
		g = isl_schedule_node_parent(g);
	return isl_schedule_node_child(isl_schedule_node_child(g, i), 0);
}

/* The staged store with TMA stores (the file's comment): TSTG_WAIT,
 * SYNC_ST, STS under the warp bands, SYNC_ST2, TSTG[p0, p1, s] (no thread
 * band: the printer lets one thread issue them). */
static __isl_give isl_schedule_node *tma_staged_tree(struct pm_kernel *k)
{
	isl_id *ids[5];
	isl_union_map *umap;
	isl_union_set_list *filters;
	isl_schedule_node *g;
	isl_map *red;
	char str[128];
	const int dims[5] = { 2, 2, 2, 2, 3 };

	ids[0] = pm_kernel_op(k, "TSTG_WAIT", PM_OP_TSTG_WAIT, -1);
	k->sync_st_id[0] = pm_kernel_op(k, "SYNC_ST", PM_OP_SYNC, -1);
	k->store_id = pm_kernel_op(k, "STS", PM_OP_STS, -1);
	k->ops[k->nops - 1].con = k->ncon - 1;
	k->sync_st_id[1] = pm_kernel_op(k, "SYNC_ST2", PM_OP_SYNC, -1);
	k->stg_id = pm_kernel_op(k, "TSTG", PM_OP_TSTG, -1);
	ids[1] = k->sync_st_id[0], ids[2] = k->store_id;
	ids[3] = k->sync_st_id[1], ids[4] = k->stg_id;
	snprintf(str, sizeof(str), "{ [p0, p1] -> S[p0, p1, s] : "
		"0 <= s < %d }", k->cfg->bn / k->tma_store);
	umap = isl_union_map_from_map(str_ext(k, "{ [p0, p1] -> S[p0, p1] }",
		ids[0]));
	umap = isl_union_map_add_map(umap, str_ext(k,
		"{ [p0, p1] -> S[p0, p1] }", ids[1]));
	umap = isl_union_map_add_map(umap, tiles_ext(k, ids[2]));
	umap = isl_union_map_add_map(umap, str_ext(k,
		"{ [p0, p1] -> S[p0, p1] }", ids[3]));
	umap = isl_union_map_add_map(umap, str_ext(k, str, ids[4]));
	/* an epilogue reduction's RED after the stores' issue (a
	 * persistent kernel's too: docs/decisions/0056) */
	red = red_ext(k);
	if (red)
		umap = isl_union_map_add_map(umap, red);
	filters = isl_union_set_list_alloc(k->ctx, 6);
	for (int i = 0; i < 5; ++i)
		filters = isl_union_set_list_add(filters,
			pm_pr_universe(k->ctx, ids[i], dims[i]));
	if (red)
		filters = isl_union_set_list_add(filters,
			pm_pr_universe(k->ctx, k->red_id, 2));
	g = ext_sequence(umap, filters, 2);
	g = warp_bands(k, g, ids[2]);
	g = next_branch(g, 4);
	g = pm_pr_band_str(k, g, "[p0, p1, s]", "s", ids[4], NULL, 1);
	isl_id_free(ids[0]);
	return pm_pr_graft_root(g);
}

static __isl_give isl_schedule_node *staged_tree(struct pm_kernel *k)
{
	const struct pm_config *c = k->cfg;
	isl_id *ids[4];
	isl_union_map *umap;
	isl_union_set_list *filters;
	isl_schedule_node *g;
	isl_map *red;
	char str[256];

	if (k->tma_store)
		return tma_staged_tree(k);
	k->store_id = pm_kernel_op(k, "STS", PM_OP_STS, -1);
	k->ops[k->nops - 1].con = k->ncon - 1;
	k->stg_id = pm_kernel_op(k, "STG", PM_OP_STG, -1);
	k->sync_st_id[0] = pm_kernel_op(k, "SYNC_ST", PM_OP_SYNC, -1);
	k->sync_st_id[1] = pm_kernel_op(k, "SYNC_ST2", PM_OP_SYNC, -1);
	ids[0] = k->sync_st_id[0], ids[1] = k->store_id;
	ids[2] = k->sync_st_id[1], ids[3] = k->stg_id;
	umap = isl_union_map_from_map(str_ext(k, "{ [p0, p1] -> S[p0, p1] }",
		ids[0]));
	umap = isl_union_map_add_map(umap, tiles_ext(k, ids[1]));
	umap = isl_union_map_add_map(umap, str_ext(k,
		"{ [p0, p1] -> S[p0, p1] }", ids[2]));
	snprintf(str, sizeof(str), "{ [p0, p1] -> S[p0, p1, l0, v] : "
		"0 <= l0 < %d and 0 <= v < %d }", c->bm, c->bn / k->cst_vec);
	umap = isl_union_map_add_map(umap, str_ext(k, str, ids[3]));
	red = red_ext(k);
	if (red)
		umap = isl_union_map_add_map(umap, red);
	filters = isl_union_set_list_alloc(k->ctx, 5);
	filters = isl_union_set_list_add(filters,
		pm_pr_universe(k->ctx, ids[0], 2));
	filters = isl_union_set_list_add(filters,
		pm_pr_universe(k->ctx, ids[1], 2));
	filters = isl_union_set_list_add(filters,
		pm_pr_universe(k->ctx, ids[2], 2));
	filters = isl_union_set_list_add(filters,
		pm_pr_universe(k->ctx, ids[3], 4));
	if (red)
		filters = isl_union_set_list_add(filters,
			pm_pr_universe(k->ctx, k->red_id, 2));
	g = ext_sequence(umap, filters, 1);
	g = warp_bands(k, g, ids[1]);
	g = next_branch(g, 3);
	g = thread_bands(k, g, ids[3]);
	return pm_pr_graft_root(g);
}

__isl_give isl_schedule_node *pm_store_tree(struct pm_kernel *k)
{
	return k->cst_pitch ? staged_tree(k) : direct_tree(k);
}

/* Does the filter of node (a sequence child) contain statement id? */
static int filter_has(__isl_keep isl_schedule_node *node, __isl_keep isl_id *id)
{
	isl_union_set *f = isl_schedule_node_filter_get_filter(node);
	isl_space *sp = isl_space_set_tuple_id(isl_space_set_alloc(
		isl_schedule_node_get_ctx(node), 0, 3), isl_dim_set,
		isl_id_copy(id));
	isl_set *s = isl_union_set_extract_set(f, sp);
	int r = isl_set_is_empty(s) == isl_bool_false;

	isl_set_free(s);
	isl_union_set_free(f);
	return r;
}

__isl_give isl_schedule_node *pm_fixup_graft(struct pm_kernel *k,
	__isl_take isl_schedule_node *seq)
{
	isl_schedule_node *g;
	isl_size n = isl_schedule_node_n_children(seq);
	int last = -1;

	if (!k->scop->nsplit)
		return seq;
	for (int i = 0; i < n; ++i) {
		seq = isl_schedule_node_child(seq, i);
		if (filter_has(seq, k->con[k->ncon - 1].mma_id))
			last = i;
		seq = isl_schedule_node_parent(seq);
	}
	if (last < 0)
		return isl_schedule_node_free(seq);
	k->fixup_id = pm_kernel_op(k, "FIXUP", PM_OP_FIXUP, -1);
	g = isl_schedule_node_from_extension(isl_union_map_from_map(str_ext(k,
		"{ [p0, p1] -> S[p0, p1] }", k->fixup_id)));
	g = pm_pr_graft_root(g);
	seq = isl_schedule_node_child(isl_schedule_node_child(seq, last), 0);
	seq = isl_schedule_node_graft_after(seq, g);
	/* back to the block's sequence (the graft made one of its own) */
	seq = isl_schedule_node_root(seq);
	seq = pm_node_below_mark(seq, k->mark_block_x);
	return isl_schedule_node_child(seq, 0);
}

#include <stdlib.h>
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
#include "target/target.h"
#include "promote/internal.h"
#include "promote/promote.h"
#include "schedule_tree/recognise.h"

/* MMA -> X[..]: the operand elements read by each macro instance. */
static __isl_give isl_union_map *mma_access(struct pm_kernel *k, int c,
	int tensor)
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
			isl_id_copy(k->con[c].mma_id)))));
	return isl_union_map_apply_range(mma_exp, reads);
}

/* Does buffer buf (of tensor, in contraction c) widen its stored elements
 * in the MMA's registers (conv_regs, docs/decisions/0062)?  A converting
 * copy of A in a persistent kernel of a target with A in registers, one
 * MMA pipeline, its rows 32, 64 or 128 bytes (a TMA swizzle of the row),
 * its prologue (if any) reading other tensors along its rows only (a
 * thread's rows are fixed, its elements' k are not spelled out); in the
 * swapped rows only, the kernels checked on the GPU (an i8 A elsewhere,
 * --persistent on, stays refused as before). */
static int conv_regs(struct pm_kernel *k, int c, int tensor,
	const struct pm_buffer *buf)
{
	const struct pm_config *cfg = k->cfg;
	const struct pm_elem *e = pm_elem_storage(
		k->scop->spec->tensors[tensor].type);
	long row = e ? buf->size[1] * e->bytes : 0;

	if (!buf->conv || !pm_prologue_along(buf->pro, tensor, 0) ||
	    tensor != k->con[c].a || !cfg->swap ||
	    k->scop->join || !cfg->target->mma_ra ||
	    !cfg->target->desc_smem || !cfg->target->emits_cuda ||
	    cfg->persistent <= 0 || cfg->mma_inflight > 0 || k->frag[c] ||
	    buf->rank != 2 || buf->size[0] % 16)
		return 0;
	return row == 32 || row == 64 || row == 128;
}

/* The tensor's own layout strides are not needed here: the buffer is
 * dense row-major in the tensor's dimension order. The footprint is that
 * of contraction c's MMAs; the buffer is copied by contraction 0's
 * pipeline when the contractions share one (scop->join). */
static int add_buffer(struct pm_kernel *k, __isl_keep isl_schedule_node *at,
	int c, int tensor, struct pm_diags *d)
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
		isl_union_map_domain(mma_access(k, c, tensor)));
	fp = isl_union_map_apply_range(isl_union_map_reverse(prefix),
		mma_access(k, c, tensor));
	map = isl_map_from_union_map(fp);
	box = isl_map_get_range_simple_fixed_box_hull(map);
	isl_map_free(map);
	if (!box)
		return -1;
	if (isl_fixed_box_is_valid(box) != isl_bool_true) {
		isl_fixed_box_free(box);
		pm_diag_internal(d, "the footprint of '%s' in "
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
	buf->vec = buf->size[rank - 1] % pm_kernel_vec(k) == 0 ?
		pm_kernel_vec(k) : 1;
	snprintf(name, sizeof(name), "COPY_%s",
		k->scop->spec->tensors[tensor].name);
	buf->copy_id = pm_kernel_op(k, name, PM_OP_COPY, k->nbufs);
	buf->con = k->scop->join ? 0 : c;
	buf->pro = tensor == k->con[c].a ? k->con[c].pa : k->con[c].pb;
	/* an operand widened to the MMA's type on the way (decisions/0047) */
	buf->conv = k->scop->spec->tensors[tensor].type != pm_kernel_ab(k);
	buf->conv_regs = conv_regs(k, c, tensor, buf);
	buf->raw_elems = 0;
	for (int i = 0; buf->conv && !buf->conv_regs && i < rank; ++i)
		buf->raw_elems = (buf->raw_elems ? buf->raw_elems : 1) *
			buf->size[i];
	buf->kdim = -1;
	{
		const struct pm_expr *r = tensor == k->con[c].a ?
			k->con[c].ra : k->con[c].rb;

		for (int d = 0; d < r->nidx; ++d)
			if (r->idx[d] == 2)
				buf->kdim = d;
	}
	if ((buf->pro || buf->conv) && !buf->conv_regs) {
		snprintf(name, sizeof(name), "PRO_%s",
			k->scop->spec->tensors[tensor].name);
		buf->pro_id = pm_kernel_op(k, name, PM_OP_PRO, k->nbufs);
	}
	k->nbufs++;
	return buf->offset ? 0 : -1;
}

/* WAIT, then the prologues of the operands with one (each thread on the
 * units it copied itself, tile kt + shift) and a barrier; without
 * prologues WAIT includes the barrier. */
static void wait_and_prologues(struct pm_kernel *k, int c, int shift,
	isl_id **ids, int *nd, isl_map **ext, int *n)
{
	int pro = 0;

	for (int b = 0; b < k->nbufs; ++b)
		pro |= k->bufs[b].con == c && pm_pr_smem_pro(&k->bufs[b]);
	k->wait_id[c] = pm_kernel_op(k, "WAIT", PM_OP_WAIT, pro);
	k->ops[k->nops - 1].con = c;
	ids[*n] = k->wait_id[c], nd[*n] = 3;
	ext[(*n)++] = pm_pr_step_ext(k, k->wait_id[c], 3, 0);
	if (!pro)
		return;
	for (int b = 0; b < k->nbufs; ++b) {
		if (k->bufs[b].con != c || !pm_pr_smem_pro(&k->bufs[b]))
			continue;
		ids[*n] = k->bufs[b].pro_id, nd[*n] = 5;
		ext[(*n)++] = pm_pr_copy_ext_id(k, b, 3, shift,
			k->bufs[b].pro_id);
	}
	k->sync_id[c][1] = pm_kernel_op(k, "SYNC_PRO", PM_OP_SYNC, -1);
	ids[*n] = k->sync_id[c][1], nd[*n] = 3;
	ext[(*n)++] = pm_pr_step_ext(k, k->sync_id[c][1], 3, 0);
}

/* Prologues overlapped with asynchronous MMAs: does contraction c use
 * them (1), not (0), or are they required and impossible (-1, with a
 * diagnostic)? They need a prologue, S > 1, no fragment pipeline, no
 * register staging, MMAs waited in the same iteration (not --mma-inflight);
 * by default only targets with asynchronous MMAs use them. */
static int pro_late_decide(struct pm_kernel *k, int c, struct pm_diags *d)
{
	const struct pm_config *cfg = k->cfg;
	int pro = 0, ok;

	for (int b = 0; b < k->nbufs; ++b)
		pro |= k->bufs[b].con == c && pm_pr_smem_pro(&k->bufs[b]);
	if (!pro || !cfg->pro_overlap)
		return 0;
	ok = cfg->stages > 1 && !k->frag[c] && !k->rstage[c] &&
		cfg->mma_inflight <= 0;
	if (cfg->pro_overlap > 0 && !ok) {
		pm_diag_plain(d, "--pro-overlap on: not possible here (it needs "
			"--stages 2 or more, no fragment pipeline, no register "
			"staging and --mma-inflight off)");
		return -1;
	}
	return ok && (cfg->pro_overlap > 0 || cfg->target->mma_drain);
}


/* The shared-memory prologues of contraction c's buffers, of tile kt + 1
 * (np = 3, in the loop) or tile 0 (np = 2, in front of it). */
static void pro_exts(struct pm_kernel *k, int c, int np, isl_id **ids,
	int *nd, isl_map **ext, int *n)
{
	for (int b = 0; b < k->nbufs; ++b) {
		if (k->bufs[b].con != c || !pm_pr_smem_pro(&k->bufs[b]))
			continue;
		ids[*n] = k->bufs[b].pro_id, nd[*n] = 5;
		ext[(*n)++] = pm_pr_copy_ext_id(k, b, np, 1, k->bufs[b].pro_id);
	}
}

/* The pipeline with overlapped prologues (pro_late_decide):
 *   prologue q < S-1 { COPY(q); COMMIT }; WAIT; PRO(0)
 *   k loop { SYNC; COPY(kt + S - 1); COMMIT; MMA(kt) issued;
 *            WAIT; PRO(kt + 1); DRAIN }
 * WAIT leaves S - 2 groups pending (tile kt + 1 has landed) and has no
 * barrier: each thread transforms the units it copied itself, while tile
 * kt's MMAs run; the barrier at the top of the next iteration publishes
 * them (and, after DRAIN, frees stage kt mod S for tile kt + S). */
static int pipeline_late(struct pm_kernel *k, int c, isl_schedule_node **node,
	struct pm_diags *d)
{
	int S = k->cfg->stages;
	isl_id *ids[8], *wait, *drain;
	int nd[8], n = 0;
	isl_map *ext[8];
	isl_schedule_node *g;

	k->commit_id[c][0] = pm_kernel_op(k, "COMMIT", PM_OP_COMMIT, -1);
	k->ops[k->nops - 1].con = c;
	k->sync_id[c][0] = pm_kernel_op(k, "SYNC", PM_OP_SYNC, -1);
	ids[n] = k->sync_id[c][0], nd[n] = 3;
	ext[n++] = pm_pr_step_ext(k, k->sync_id[c][0], 3, 0);
	pm_pr_copies_and_commit(k, c, 3, S - 1, k->commit_id[c][0], ids, nd,
		ext, &n);
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 3, d);
	if (!g)
		return -1;
	*node = isl_schedule_node_graft_before(*node, g);
	/* after the MMAs: the next tile's prologues, then the wait */
	n = 0;
	k->wait_id[c] = wait = pm_kernel_op(k, "WAIT", PM_OP_WAIT, 1);
	k->ops[k->nops - 1].con = c;
	ids[n] = wait, nd[n] = 3;
	ext[n++] = pm_pr_step_ext(k, wait, 3, 0);
	pro_exts(k, c, 3, ids, nd, ext, &n);
	drain = pm_kernel_op(k, "DRAIN", PM_OP_DRAIN, -1);
	k->ops[k->nops - 1].con = c;
	ids[n] = drain, nd[n] = 3;
	ext[n++] = pm_pr_step_ext(k, drain, 3, 0);
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 3, d);
	isl_id_free(drain);		/* the extension holds it */
	if (!g)
		return -1;
	*node = isl_schedule_node_graft_after(*node, g);
	/* in front of the k loop: the copies, then tile 0's prologues */
	if (pm_pr_prologue_copies(k, c, S - 1, node, d) < 0)
		return -1;
	n = 0;
	k->wait_pro_id[c] = pm_kernel_op(k, "WAIT_PRO", PM_OP_WAIT, 1);
	k->ops[k->nops - 1].con = c;
	ids[n] = k->wait_pro_id[c], nd[n] = 3;
	ext[n++] = pm_pr_step_ext(k, k->wait_pro_id[c], 2, 1);
	pro_exts(k, c, 2, ids, nd, ext, &n);
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 2, d);
	if (!g)
		return -1;
	*node = isl_schedule_node_graft_before(*node, g);
	return *node ? 0 : -1;
}

/* The copies, as a software pipeline over the k tiles (stages S):
 *   S = 1:  k loop { COPY(kt); COMMIT; WAIT [PRO; SYNC]; MMA; SYNC }
 *   S > 1:  prologue q < S-1 { COPY(q); COMMIT }
 *           k loop { WAIT [PRO(kt); SYNC]; COPY(kt + S - 1); COMMIT; MMA }
 *   with the fragment pipeline (fragments.c; S > 1):
 *           prologue q < S { COPY(q); COMMIT }; WAIT [PRO(0); SYNC]; LDF(0)
 *           k loop { MMA[s < T-1] + LDF(kt, s+1); WAIT [PRO(kt+1); SYNC];
 *                    COPY(kt + S); COMMIT; LDF(kt+1, 0); MMA[s = T-1] }
 *     (the barrier comes after the last k-step's fragments are in
 *     registers, so stage kt mod S is free for tile kt + S).
 *   with asynchronous MMAs (wgmma; S > 2):
 *           prologue q < S-2 { COPY(q); COMMIT }
 *           k loop { WAIT [PRO(kt); SYNC]; COPY(kt + S - 2); COMMIT; MMA }
 *     the MMAs of tile kt - 1 still run during the barrier and the copies:
 *     WAIT first waits for all but the last group of MMAs (tile kt - 2, so
 *     stage (kt - 2) mod S is free for tile kt + S - 2), then for the
 *     copies of tile kt (S - 3 groups left pending).
 *   with prologues overlapped with asynchronous MMAs: pipeline_late.
 * COPY instances exist only for valid k tiles: isl adds the guards. */
static int pipeline(struct pm_kernel *k, int c, isl_schedule_node **node,
	struct pm_diags *d)
{
	int S = k->cfg->stages;
	int fp = k->frag[c];
	/* asynchronous MMAs: one k tile of MMAs in flight across the
	 * barrier, so the copies run S - 2 tiles ahead */
	int async = k->cfg->mma_inflight > 0;
	int shift = fp ? S : async ? S - 2 : S - 1;
	isl_id *ids[8];
	int nd[8];
	isl_map *ext[8];
	int n = 0;
	isl_schedule_node *g;

	k->tma[c] = pm_tma_decide(k, c, d);
	if (k->tma[c] < 0)
		return -1;
	if (k->tma[c] && k->cfg->persistent > 0)
		return pm_tma_ws_pipeline(k, c, node, d);
	if (k->tma[c])
		return pm_tma_pipeline(k, c, node, d);
	if (k->cfg->persistent > 0) {
		const char *why = k->cfg->tma ? pm_tma_obstacle(k, c) : NULL;

		pm_diag_plain(d, "--persistent on: not possible here (it needs "
			"TMA copies%s%s)", why ? ", and " : ": --target sm_90a, "
			"--tma not off", why ? why : "");
		return -1;
	}
	k->pro_late[c] = pro_late_decide(k, c, d);
	if (k->pro_late[c] < 0)
		return -1;
	if (k->pro_late[c])
		return pipeline_late(k, c, node, d);
	if (async && (S < 3 || fp || k->rstage[c])) {
		pm_diag_plain(d, "--mma-inflight on keeps one k tile of MMAs in "
			"flight: it needs --stages 3 or more");
		return -1;
	}
	k->commit_id[c][0] = pm_kernel_op(k, "COMMIT", PM_OP_COMMIT, -1);
	k->ops[k->nops - 1].con = c;
	if (S > 1)
		wait_and_prologues(k, c, fp, ids, nd, ext, &n);
	if (async)	/* the loop's WAIT: S - 3 copy groups left pending */
		((struct pm_op *) isl_id_get_user(k->wait_id[c]))->pending =
			S - 3;
	if (k->rstage[c])
		pm_rstage_loads(k, c, ids, nd, ext, &n);
	else
		pm_pr_copies_and_commit(k, c, 3, shift, k->commit_id[c][0],
			ids, nd, ext, &n);
	if (S == 1)
		wait_and_prologues(k, c, 0, ids, nd, ext, &n);
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 3, d);
	if (!g)
		return -1;
	if (fp)
		*node = pm_frag_loop(k, c, *node, g);
	else
		*node = isl_schedule_node_graft_before(*node, g);
	if (k->rstage[c]) {
		g = pm_rstage_stores(k, c, d);
		if (!g)
			return -1;
		*node = isl_schedule_node_graft_after(*node, g);
	}
	if (S == 1) {
		k->sync_id[c][0] = pm_kernel_op(k, "SYNC", PM_OP_SYNC, -1);
		*node = isl_schedule_node_graft_after(*node, pm_pr_graft_root(
			isl_schedule_node_from_extension(isl_union_map_from_map(
			pm_pr_step_ext(k, k->sync_id[c][0], 3, 0)))));
		return *node ? 0 : -1;
	}
	/* the prologue, in front of the k loop */
	if (pm_pr_prologue_copies(k, c, shift, node, d) < 0)
		return -1;
	if (fp)
		*node = pm_frag_prologue(k, c, *node, d);
	return *node ? 0 : -1;
}

/* The node right below the [kt] band of contraction c: under the filter
 * of the block's sequence that holds its MMA statement. */
static __isl_give isl_schedule_node *below_kt(struct pm_kernel *k, int c)
{
	isl_schedule_node *node = isl_schedule_get_root(k->schedule);
	isl_space *sp = isl_space_set_tuple_id(isl_space_set_alloc(k->ctx, 0,
		3), isl_dim_set, isl_id_copy(k->con[c].mma_id));
	isl_size n;

	node = pm_node_below_mark(node, k->mark_block_x);
	node = isl_schedule_node_child(node, 0);		/* sequence */
	n = isl_schedule_node_n_children(node);
	for (int i = 0; i < n; ++i) {
		isl_schedule_node *f = isl_schedule_node_child(
			isl_schedule_node_copy(node), i);
		isl_union_set *filter = isl_schedule_node_filter_get_filter(f);
		isl_set *set = isl_union_set_extract_set(filter,
			isl_space_copy(sp));
		isl_bool empty = isl_set_is_empty(set);

		isl_set_free(set);
		isl_union_set_free(filter);
		if (empty == isl_bool_false) {
			isl_schedule_node_free(node);
			isl_space_free(sp);
			f = pm_node_below_mark(f, k->scop->mark_red);
			return isl_schedule_node_child(f, 0);
		}
		isl_schedule_node_free(f);
	}
	isl_space_free(sp);
	return isl_schedule_node_free(node);
}

/* A prologue on A applied to the MMA's register operand
 * (<mma_fn>_mma_tile_ra): the target reads A through registers, the
 * contraction does not load fragments itself (no fragment pipeline), and
 * no MMA is still in flight when the next tile's fragments are loaded
 * (not --mma-inflight: a wgmma reads its A registers until it completes;
 * measured wrong results). Sets buf_a's pro_regs; -1 with a diagnostic
 * when required and impossible. */
static int pro_regs_decide(struct pm_kernel *k, int c, struct pm_diags *d)
{
	struct pm_buffer *ba = &k->bufs[k->con[c].buf_a];
	/* a prologue reading other tensors runs in shared memory, where a
	 * thread knows its elements' indices (decisions/0039) */
	int other = pm_prologue_reads_other(ba->pro, ba->tensor);
	int ok = k->cfg->target->mma_ra && !k->frag[c] &&
		k->cfg->mma_inflight <= 0 && !other && !ba->conv;

	if (!ba->pro || !k->cfg->pro_regs)
		return 0;
	if (k->cfg->pro_regs > 0 && !ok) {
		pm_diag_plain(d, "--pro-regs on: not possible here (%s)",
			ba->conv ? "the operand is widened to the MMA's type in "
			"shared memory (docs/decisions/0047)" :
			other ? "the prologue reads other tensors: it is applied "
			"in shared memory" :
			!k->cfg->target->mma_ra ? "the target has no macro-MMA "
			"with A in registers" : k->frag[c] ? "the fragment "
			"pipeline loads the fragments: --frag-pipeline off" :
			"MMAs in flight across k tiles: --mma-inflight off");
		return -1;
	}
	ba->pro_regs = ok;
	return 0;
}

/* Contraction c's MMA -> its prefix schedule [p0, p1, kt] at node. */
static void mma_prefix(struct pm_kernel *k, int c,
	__isl_keep isl_schedule_node *node)
{
	isl_union_pw_multi_aff *pre;
	isl_space *sp;

	sp = isl_space_set_tuple_id(isl_space_set_alloc(k->ctx, 0, 3),
		isl_dim_set, isl_id_copy(k->con[c].mma_id));
	pre = isl_schedule_node_get_prefix_schedule_union_pw_multi_aff(node);
	sp = isl_space_map_from_domain_and_range(sp,
		isl_space_set_alloc(k->ctx, 0, 3));
	k->con[c].mma_prefix = isl_union_pw_multi_aff_extract_pw_multi_aff(
		pre, sp);
	isl_union_pw_multi_aff_free(pre);
}

/* Joined contractions (scop->join): contraction 1 in contraction 0's k
 * loop, reading the shared operand's buffer and one buffer of its own
 * (footprint of its MMAs, copied by contraction 0's pipeline). */
static int join_second(struct pm_kernel *k, __isl_keep isl_schedule_node *node,
	struct pm_diags *d)
{
	struct pm_contraction *c0 = &k->con[0], *c1 = &k->con[1];
	int shared_a = c1->a == c0->a;

	mma_prefix(k, 1, node);
	c1->buf_a = shared_a ? c0->buf_a : k->nbufs;
	c1->buf_b = shared_a ? k->nbufs : c0->buf_b;
	return add_buffer(k, node, 1, shared_a ? c1->b : c1->a, d);
}

/* Contraction 1 of joined contractions runs in contraction 0's pipeline:
 * the same decisions. */
static void join_flags(struct pm_kernel *k)
{
	k->frag[1] = k->frag[0];
	k->rstage[1] = k->rstage[0];
	k->tma[1] = k->tma[0];
	k->pro_late[1] = k->pro_late[0];
}

/* Buffers, copies and pipeline of contraction c (joined: of both). */
static int promote_one(struct pm_kernel *k, int c, struct pm_diags *d)
{
	struct pm_contraction *con = &k->con[c];
	isl_schedule_node *node = below_kt(k, c);
	int first = k->nbufs, join = k->scop->join && k->ncon > 1;

	mma_prefix(k, c, node);
	con->buf_a = first;
	con->buf_b = first + 1;
	k->frag[c] = pm_frag_pipe_decide(k, c, d);
	if (k->frag[c] < 0)
		node = isl_schedule_node_free(node);
	if (!node || add_buffer(k, node, c, con->a, d) < 0 ||
	    add_buffer(k, node, c, con->b, d) < 0 ||
	    (join && join_second(k, node, d) < 0) ||
	    pm_pr_layout_buffers(k, first, d) < 0 ||
	    pm_pr_check_mn_blocks(k, c, d) < 0 ||
	    (join && pm_pr_check_mn_blocks(k, 1, d) < 0) ||
	    pro_regs_decide(k, c, d) < 0 ||
	    (join && pro_regs_decide(k, 1, d) < 0) ||
	    (k->rstage[c] = pm_rstage_decide(k, c, d)) < 0 ||
	    pipeline(k, c, &node, d) < 0) {
		isl_schedule_node_free(node);
		return -1;
	}
	if (join)
		join_flags(k);
	return pm_kernel_set_schedule(k, node);
}

int pm_promote(struct pm_kernel *k, struct pm_diags *d)
{
	isl_schedule_node *node;
	isl_size n;

	for (int c = 0; c < pm_kernel_npipes(k); ++c)
		if (promote_one(k, c, d) < 0)
			return -1;
	if (pm_store_decide(k, d) < 0)
		return -1;
	/* STORE after everything else of the block */
	node = isl_schedule_get_root(k->schedule);
	node = pm_node_below_mark(node, k->mark_block_x);
	node = isl_schedule_node_child(node, 0);	/* sequence */
	node = pm_fixup_graft(k, node);
	n = isl_schedule_node_n_children(node);
	node = isl_schedule_node_child(node, n - 1);
	node = isl_schedule_node_child(node, 0);
	return pm_kernel_set_schedule(k,
		isl_schedule_node_graft_after(node, pm_store_tree(k)));
}

/* MMA[i0,j0,k0] -> local coordinates of the operand's first element in
 * buffer b: access(base(MMA)) - offset(prefix(MMA)). */
__isl_give isl_pw_multi_aff *pm_promote_local(struct pm_kernel *k, int c,
	int b)
{
	struct pm_buffer *buf = &k->bufs[b];
	isl_union_map *acc;
	isl_pw_multi_aff *x, *prefix, *off;
	isl_space *space;

	acc = isl_union_map_apply_range(isl_union_map_from_union_pw_multi_aff(
		isl_union_pw_multi_aff_copy(k->base)),
		isl_union_map_copy(k->scop->reads));
	space = isl_space_set_tuple_id(isl_space_set_alloc(k->ctx, 0, 3),
		isl_dim_set, isl_id_copy(k->con[c].mma_id));
	space = isl_space_map_from_domain_and_range(space,
		isl_space_set_tuple_id(isl_space_set_alloc(k->ctx, 0, buf->rank),
			isl_dim_set, isl_id_copy(k->scop->array_ids[buf->tensor])));
	x = isl_pw_multi_aff_from_map(isl_union_map_extract_map(acc, space));
	isl_union_map_free(acc);
	prefix = isl_pw_multi_aff_copy(k->con[c].mma_prefix);
	off = isl_pw_multi_aff_from_multi_aff(isl_multi_aff_copy(buf->offset));
	off = isl_pw_multi_aff_pullback_pw_multi_aff(off, prefix);
	x = isl_pw_multi_aff_reset_tuple_id(x, isl_dim_out);
	off = isl_pw_multi_aff_reset_tuple_id(off, isl_dim_out);
	return isl_pw_multi_aff_sub(x, off);
}

/* The TMA pipeline (promote/internal.h states the contract).
 *
 * Copies by the Tensor Memory Accelerator: one thread issues a k tile's
 * boxes, COPY_X[p0, p1, q, 0, 0] (one instance per tile and buffer, no
 * thread bands), after arming the stage's "full" barrier with the tile's
 * bytes; the stage is reused once every warp has arrived on its "empty"
 * barrier. No cp.async groups and no __syncthreads in the k loop:
 *   prologue q < S-1 { [SYNC_REUSE] COPY(q) }
 *   k loop { WAIT(kt): full[kt mod S]; MMA(kt) issued;
 *            COPY(kt + S - 1): empty[(kt - 1) mod S], arm, boxes;
 *            DRAIN; RELEASE(kt): empty[kt mod S] }
 * The tile of the next copies is issued while the MMAs run.
 * Warp-specialized (persistent) kernels with --mma-inflight on: DRAIN
 * waits for all but tile kt's MMAs and RELEASE frees stage kt - 1; the
 * last k tile drains all and frees its own stage too. */
#include "target/target.h"
#include "promote/internal.h"

const char *pm_tma_obstacle(struct pm_kernel *k, int c)
{
	const struct pm_config *cfg = k->cfg;
	int host = !cfg->target->emits_cuda;

	if (!cfg->target->tma)
		return "the target has no TMA";
	if (cfg->stages < 2)
		return "it needs --stages 2 or more";
	if (cfg->mma_inflight > 0 && cfg->persistent <= 0)
		return "with --mma-inflight on the stages are freed by "
			"barriers (but in persistent kernels: --persistent on)";
	if (k->frag[c] || k->rstage[c])
		return "the fragment pipeline or register staging copies "
			"through the threads";
	for (int b = 0; b < k->nbufs; ++b) {
		const struct pm_buffer *buf = &k->bufs[b];
		int p = buf->pitch, eb = pm_buffer_eb(k, b);

		if (buf->con != c)
			continue;
		if (pm_pr_smem_pro(buf))
			return "a prologue applied in shared memory reads the "
				"units each thread copied";
		if (buf->rank != 2 || buf->vec != pm_kernel_vec(k) ||
		    buf->size[0] > 256)
			return "a tile is not a 2-D box of at most 256 rows";
		if (!host && !(buf->swz == 1 && p == buf->size[1] &&
		    (p * eb == 32 || p * eb == 64 || p * eb == 128)) &&
		    !(buf->swz >= 2 && p == buf->size[1]))
			return "a tile's shared layout is not a TMA swizzle "
				"(--smem swizzle)";
	}
	return NULL;
}

int pm_tma_decide(struct pm_kernel *k, int c, struct pm_diags *d)
{
	const struct pm_config *cfg = k->cfg;
	int want = cfg->tma < 0 ? cfg->target->tma == 2 : cfg->tma;
	const char *why;

	if (!want)
		return 0;
	why = pm_tma_obstacle(k, c);
	if (why && cfg->tma > 0) {
		pm_diag_plain(d, "--tma on: not possible here (%s)", why);
		return -1;
	}
	if (why)
		return 0;
	for (int b = 0; b < k->nbufs; ++b)
		if (k->bufs[b].con == c)
			k->bufs[b].tma = 1;
	return 1;
}

/* A new op of contraction c. */
static __isl_give isl_id *con_op(struct pm_kernel *k, const char *name,
	enum pm_op_kind kind, int c)
{
	isl_id *id = pm_kernel_op(k, name, kind, -1);

	k->ops[k->nops - 1].con = c;
	return id;
}

/* Around the MMA subtree node (right below the [kt] band): WAIT(kt) in
 * front; after it, with copies, COPY(kt + S - 1), then DRAIN and
 * RELEASE(kt). */
static int k_loop(struct pm_kernel *k, int c, int copies,
	isl_schedule_node **node, struct pm_diags *d)
{
	int S = k->cfg->stages;
	isl_id *ids[8], *drain, *release;
	int nd[8], n = 0;
	isl_map *ext[8];
	isl_schedule_node *g;

	/* in front of the MMAs: wait for tile kt */
	k->wait_id[c] = con_op(k, "WAIT", PM_OP_WAIT, c);
	ids[n] = k->wait_id[c], nd[n] = 3;
	ext[n++] = pm_pr_step_ext(k, k->wait_id[c], 3, 0);
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 3, d);
	if (!g)
		return -1;
	*node = isl_schedule_node_graft_before(*node, g);
	/* after them: tile kt + S - 1's copies, the wait, the release */
	n = 0;
	for (int b = 0; copies && b < k->nbufs; ++b) {
		if (k->bufs[b].con != c)
			continue;
		ids[n] = k->bufs[b].copy_id, nd[n] = 5;
		ext[n++] = pm_pr_copy_ext_id(k, b, 3, S - 1,
			k->bufs[b].copy_id);
	}
	drain = con_op(k, "DRAIN", PM_OP_DRAIN, c);
	ids[n] = drain, nd[n] = 3;
	ext[n++] = pm_pr_step_ext(k, drain, 3, 0);
	release = con_op(k, "RELEASE", PM_OP_RELEASE, c);
	ids[n] = release, nd[n] = 3;
	ext[n++] = pm_pr_step_ext(k, release, 3, 0);
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 3, d);
	isl_id_free(drain);		/* the extension holds them */
	isl_id_free(release);
	if (!g)
		return -1;
	*node = isl_schedule_node_graft_after(*node, g);
	return *node ? 0 : -1;
}

int pm_tma_pipeline(struct pm_kernel *k, int c, isl_schedule_node **node,
	struct pm_diags *d)
{
	if (k_loop(k, c, 1, node, d) < 0)
		return -1;
	/* in front of the k loop: tiles 0 .. S - 2 */
	return pm_pr_prologue_copies(k, c, k->cfg->stages - 1, node, d);
}

int pm_tma_ws_pipeline(struct pm_kernel *k, int c, isl_schedule_node **node,
	struct pm_diags *d)
{
	isl_id *ids[8], *mark;
	int nd[8], n = 0;
	isl_map *ext[8];
	isl_schedule_node *g;

	/* split-K only in api/'s split variant (persistent 2) */
	if (k->scop->nsplit && k->cfg->persistent != 2) {
		pm_diag_plain(d, "--persistent on: not possible here (it does "
			"not split k)");
		return -1;
	}
	/* two contractions: one ring, the second's tiles after the first's
	 * in the same stages (their buffers share the memory, emit/) */
	if (c > 0 && (!k->tma[0] ||
	    k->bufs[k->con[0].buf_a].stage_elems !=
	    k->bufs[k->con[c].buf_a].stage_elems ||
	    k->bufs[k->con[0].buf_b].stage_elems !=
	    k->bufs[k->con[c].buf_b].stage_elems ||
	    k->con[0].buf_a > k->con[0].buf_b ||
	    k->con[c].buf_a > k->con[c].buf_b)) {
		pm_diag_plain(d, "--persistent on: not possible here (the "
			"contractions' shared tiles differ)");
		return -1;
	}
	/* one k tile of MMAs in flight: the stage of tile kt - 1 released
	 * after tile kt's are issued (emit/ops.c, emit/tma.c) */
	if (k->cfg->mma_inflight > 0 && (k->scop->nsplit ||
	    k->cfg->stages < 3)) {
		pm_diag_plain(d, "--mma-inflight on in a persistent kernel: "
			"not possible here (%s)", k->scop->nsplit ? "it splits "
			"k: --split-k 1" : "it needs --stages 3 or more");
		return -1;
	}
	if (k_loop(k, c, 0, node, d) < 0)
		return -1;
	/* the producer: every tile's copies, in order, in front of the k
	 * loop; its q loop is a loop (not unrolled) under the producer mark */
	while (*node && !pm_node_is_mark(*node, k->scop->mark_red))
		*node = isl_schedule_node_parent(*node);
	n = 0;
	for (int b = 0; b < k->nbufs; ++b) {
		if (k->bufs[b].con != c)
			continue;
		ids[n] = k->bufs[b].copy_id, nd[n] = 5;
		ext[n++] = pm_pr_copy_ext_id(k, b, 2, -1, k->bufs[b].copy_id);
	}
	g = pm_pr_graft_tree(k, n, ids, nd, ext, 2, d);
	if (!g)
		return -1;
	g = isl_schedule_node_child(g, 0);	/* the [q] band */
	g = isl_schedule_node_band_member_set_ast_loop_type(g, 0,
		isl_ast_loop_default);
	if (!k->mark_producer)	/* an alias: k->mark_ids owns one */
		k->mark_producer = pm_kernel_mark(k, "producer",
			PM_MARK_PRODUCER, PM_HW_NONE, 1, 1);
	else
		isl_id_copy(k->mark_producer);
	mark = k->mark_producer;
	g = isl_schedule_node_insert_mark(g, mark);
	g = pm_pr_graft_root(g);
	*node = isl_schedule_node_graft_before(*node, g);
	k->ws = 1;
	return *node ? 0 : -1;
}

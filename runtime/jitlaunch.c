/* A JIT-compiled file's launcher over the driver API (runtime/jitlaunch.h).
 * Each step names the printed code it follows (emit/launch.c, table.c). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/jitlaunch.h"
#include "runtime/jitmodule.h"

/* the file's short names of jitmodule.h's error helpers */
#define fail pm_rt_fail
#define cuda_fail pm_rt_cuda_fail

struct pm_rt_clctx {
	const struct pm_cuda *cu;
	struct pm_rt_kernel *k;
	struct pm_rt_module *m;
	int row;
};

/* Clusters of s blocks of the split-in-clusters row the GPU holds at once
 * (table.c: pm_clusters_NAME); 0: none. */
static int clusters(void *p, int s)
{
	struct pm_rt_clctx *c = p;
	struct pm_rt_module *m = c->m;
	const struct pm_rt_jit_row *w;
	pm_CUlaunchAttribute a;
	pm_CUlaunchConfig lc;
	int n = 0;

	if (s < 2 || s > 8 || c->row < 0)
		return 0;
	w = &c->k->j.kern[c->row];
	pthread_mutex_lock(&c->k->lock);
	if (!m->clusters[s]) {
		memset(&a, 0, sizeof(a));
		memset(&lc, 0, sizeof(lc));
		a.id = PM_CU_LAUNCH_ATTR_CLUSTER_DIM;
		a.value.cluster.x = (unsigned) s;
		a.value.cluster.y = a.value.cluster.z = 1;
		lc.grid[0] = (unsigned) s;
		lc.grid[1] = lc.grid[2] = 1;
		lc.block[0] = (unsigned) w->threads;
		lc.block[1] = lc.block[2] = 1;
		lc.smem = (unsigned) w->smem;
		lc.attrs = &a;
		lc.nattrs = 1;
		if (!c->cu->OccupancyMaxActiveClusters ||
		    c->cu->OccupancyMaxActiveClusters(&n, m->f[c->row][0], &lc))
			n = 0;
		m->clusters[s] = n > 0 ? n : -1;
	}
	n = m->clusters[s] > 0 ? m->clusters[s] : 0;
	pthread_mutex_unlock(&c->k->lock);
	return n;
}

/* The entry's checks (launch.c, checks and argv_entry); *ua: the problem
 * needs the _unaligned row (entries.c, checks_ua). */
static int checks(struct pm_rt_kernel *k, void *const *t, const int64_t *s,
	int *ua)
{
	const struct pm_rt_jit *j = &k->j;

	*ua = 0;

	if (!t || !s)
		return fail(k, PM_RT_L_EINVAL, "no tensors or sizes (NULL)");
	for (int i = 0; i < j->nsyms; ++i)
		if (j->fixed[i] && s[i] != j->fixed[i])
			return fail(k, PM_RT_L_EINVAL, "%s is %lld, fixed at %lld",
				j->sym_name[i], (long long) s[i],
				(long long) j->fixed[i]);
	for (int i = 0; i < j->nsizes; ++i) {
		int64_t v = s[j->order[i]];
		int a = j->has_ua ? j->ua_align[i] : j->align[i];

		if (v < 1 || v > 0x7fffff00 || v % a)
			return fail(k, PM_RT_L_EINVAL, "%s = %lld: not in "
				"[1, 2^31 - 256] or not a multiple of %d",
				j->sym_name[j->order[i]], (long long) v, a);
		*ua |= v % j->align[i] != 0;
	}
	for (int i = 0; i < j->ntensors; ++i) {
		int a = j->has_ua ? j->ua_talign[i] : j->talign[i];

		if ((uintptr_t) t[i] % (uintptr_t) a)
			return fail(k, PM_RT_L_EINVAL, "tensor %s is not %d-byte "
				"aligned", j->tname[i], a);
		*ua |= (uintptr_t) t[i] % (uintptr_t) j->talign[i] != 0;
	}
	return PM_RT_L_OK;
}

/* table.c, pm_plan_NAME: the problem, the override, the plan. */
static int plan(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	struct pm_rt_module *m, const int64_t *s, int nows, int ua,
	struct pm_rt_choice *c)
{
	const struct pm_rt_jit *j = &k->j;
	struct pm_rt_clctx cc = { cu, k, m, -1 };
	struct pm_rt_device d;
	struct pm_rt_problem p;
	struct pm_rt_force f;

	memset(&d, 0, sizeof(d));
	memset(&p, 0, sizeof(p));
	d.sms = m->sms;
	for (int i = 0; i < j->nrows; ++i) {
		d.occ[i] = m->occ[i];
		if (j->rows[i].role == PM_RT_PERSIST_SPLIT_CL)
			cc.row = i;
	}
	d.clusters = clusters;
	d.ctx = &cc;
	p.m = pm_rt_dim_value(&j->m, s);
	p.n = pm_rt_dim_value(&j->n, s);
	p.unaligned = ua;
	p.mis = pm_rt_jit_mis(j, s);
	for (int r = 0; r < j->spec.nk; ++r)
		p.k[r] = pm_rt_dim_value(&j->k[r], s);
	/* table.c: a grouped plan knows the groups, a batched one the
	 * batch count */
	if (j->grouped)
		p.grouped = (int) pm_rt_jit_batch(j, s);
	else if (j->nbatch)
		p.batch = pm_rt_jit_batch(j, s);
	/* table.c, pm_emit_pre_plan: the copies' bytes and reuse */
	if (j->npre) {
		p.pre_bytes = pm_rt_jit_pre_bytes(j, s, NULL);
		p.pre_reuse = INT64_MAX;
		for (int i = 0; i < j->npre; ++i) {
			int64_t u = pm_rt_dim_value(&j->pre[i].reuse, s);

			if (j->pre[i].per_group)
				u /= pm_rt_jit_batch(j, s);
			p.pre_reuse = u < p.pre_reuse ? u : p.pre_reuse;
		}
	}
	if (pm_rt_parse_force(getenv("POLYMMA_VARIANT"), j->rows, j->nrows,
	    &f) != PM_RT_OK)
		return fail(k, PM_RT_L_EINVAL, "POLYMMA_VARIANT names no "
			"kernel of %s", j->name);
	if (pm_rt_plan(&j->spec, j->rows, j->nrows, &d, &p, &f, c) !=
	    PM_RT_OK || (nows && c->ws_bytes && pm_rt_no_workspace(j->rows,
	    j->nrows, &d, &p, &j->spec, c) != PM_RT_OK))
		return fail(k, PM_RT_L_EINVAL, "no kernel of %s runs these "
			"sizes%s", j->name, f.v >= 0 ? " (POLYMMA_VARIANT)" : "");
	return PM_RT_L_OK;
}

/* launch.c, tma_maps: the tensor map of m (a batched tensor's: the
 * batch its third dimension, pm_tma_map_3d). */
static int tmap(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	const struct pm_rt_tma *m, void *base, const int64_t *s,
	pm_CUtensorMap *out)
{
	uint64_t rows = (uint64_t) pm_rt_dim_value(&m->rows, s);
	uint64_t cols = (uint64_t) pm_rt_dim_value(&m->cols, s);
	/* a K-major copy's rows padded (kcopy.cuh, pm_kc_pitch) */
	const uint64_t pitch = m->kc ? (uint64_t) pm_rt_kc_pitch((int64_t)
		cols) : cols;
	const uint64_t dims[3] = { cols, rows,
		(uint64_t) pm_rt_jit_batch(&k->j, s) };
	const uint64_t strides[2] = { pitch * (uint64_t) m->esize,
		rows * pitch * (uint64_t) m->esize };
	const unsigned box[3] = { (unsigned) m->box_cols,
		(unsigned) m->box_rows, 1 };
	const unsigned estr[3] = { 1, 1, 1 };
	const int sw = m->swizzle == 128 ? 3 : m->swizzle == 64 ? 2 :
		m->swizzle == 32 ? 1 : 0;
	pm_CUresult r;

	if (!cu->TensorMapEncodeTiled)
		return fail(k, PM_RT_L_ECUDA, "the driver has no "
			"cuTensorMapEncodeTiled (CUDA 12 or later)");
	r = cu->TensorMapEncodeTiled(out, m->dtype, m->batched ? 3 : 2, base,
		dims, strides, box, estr, PM_CU_TMAP_INTERLEAVE_NONE, sw,
		PM_CU_TMAP_L2_256B, PM_CU_TMAP_OOB_NONE);
	return r ? fail(k, PM_RT_L_EINVAL, "tensor %s: the driver refuses its "
		"tensor map (CUresult %d)", k->j.tname[m->tensor], r) :
		PM_RT_L_OK;
}

/* launch.c, mc_grid: the clusters of two blocks of row r resident at
 * once (asked once; 2^30 where the driver does not say). */
static int64_t mc_clusters(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	struct pm_rt_module *m, int r)
{
	const struct pm_rt_jit_row *w = &k->j.kern[r];
	pm_CUlaunchConfig lc;
	int n = 0;

	pthread_mutex_lock(&k->lock);
	if (!m->mc_clusters[r]) {
		memset(&lc, 0, sizeof(lc));
		lc.grid[0] = 2;
		lc.grid[1] = lc.grid[2] = 1;
		lc.block[0] = (unsigned) w->threads;
		lc.block[1] = lc.block[2] = 1;
		lc.smem = (unsigned) w->smem;
		if (!cu->OccupancyMaxActiveClusters ||
		    cu->OccupancyMaxActiveClusters(&n, m->f[r][0], &lc) || n < 1)
			n = 1 << 30;
		m->mc_clusters[r] = n;
	}
	n = m->mc_clusters[r];
	pthread_mutex_unlock(&k->lock);
	return n;
}

/* launch.c, launch: the grid of row w (x, and z: the batch), or an
 * error past its bounds. */
static int grid_of(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	struct pm_rt_module *m, const struct pm_rt_jit_row *w,
	const struct pm_rt_choice *c, const int64_t *s, int64_t *gx,
	int64_t *gz)
{
	const struct pm_rt_jit *j = &k->j;
	const int64_t rows = pm_rt_dim_value(&j->m, s);
	const int64_t tn = (pm_rt_dim_value(&j->n, s) + w->bn - 1) / w->bn;
	const int64_t tiles = (rows + w->bm - 1) / w->bm * tn;
	const int64_t nb = pm_rt_jit_batch(j, s);
	/* persistent, not planned: at most the GPU's blocks */
	const int64_t pb = j->planned ? c->grid : (int64_t) m->sms * m->occ[0];
	int64_t units = tiles;

	if (tiles > 2147483647)
		return fail(k, PM_RT_L_EINVAL, "more than 2^31 - 1 tiles");
	*gz = w->zsplit ? c->s : 1;
	if (j->grouped) {
		/* units (group, tile) of the 1-D grid (emit/group.h) */
		units = ((rows + w->bm - 1) / w->bm + nb) * tn;
		if (units > 2147483647)
			return fail(k, PM_RT_L_EINVAL, "more than 2^31 - 1 "
				"units (group, tile)");
		*gx = w->persistent && pb < units ? pb : units;
		return PM_RT_L_OK;
	}
	if (j->nbatch && nb > 65535)
		return fail(k, PM_RT_L_EINVAL, "%lld batches: at most 65535",
			(long long) nb);
	if (j->nbatch && w->persistent && (units = tiles * nb) > 2147483647)
		return fail(k, PM_RT_L_EINVAL, "more than 2^31 - 1 units "
			"(batch, tile)");
	if (j->nbatch && !w->persistent)
		*gz = nb;
	if (!j->planned)
		*gx = w->persistent && pb < units ? pb : units;
	else
		*gx = c->grid;
	/* clusters of two: pairs of vertically adjacent tiles, at most
	 * half the blocks and the clusters resident at once */
	if (w->mc) {
		int64_t g = tn * (((rows + w->bm - 1) / w->bm + 1) / 2);
		const int64_t nc = mc_clusters(k, cu, m, (int) (w - j->kern));

		if (g > pb / 2)
			g = pb / 2;
		if (g > nc)
			g = nc;
		*gx = 2 * (g > 1 ? g : 1);
	}
	return PM_RT_L_OK;
}

/* launch.c, pm_emit_pre_call: a row with PM_RT_PRE reads the copies the
 * module's pm_pre_NAME_<tensor> write into ws at c->pre_off; ptr[] then
 * points each copied tensor at its copy. */
static int pre_copies(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	const struct pm_rt_module *m, const struct pm_rt_choice *c,
	const int64_t *s, void *ws, pm_CUstream stream, void **ptr)
{
	const struct pm_rt_jit *j = &k->j;
	size_t off[PM_RT_JIT_KC];
	int64_t sz[PM_RT_JIT_SYMS];
	void *arg[PM_RT_JIT_TENSORS + 3 + PM_RT_JIT_SYMS];

	if (!ws)
		return fail(k, PM_RT_L_EINVAL, "a launcher-applied prologue "
			"without a workspace");
	pm_rt_jit_pre_bytes(j, s, off);
	for (int i = 0; i < j->nsizes; ++i)
		sz[i] = s[j->order[i]];
	for (int i = 0; i < j->npre; ++i) {
		void *y = (char *) ws + c->pre_off + off[i];
		int64_t r = pm_rt_dim_value(&j->pre[i].r, s);
		int64_t cc = pm_rt_dim_value(&j->pre[i].c, s);
		int64_t n = (r * cc / 8 * (j->pre[i].batched ?
			pm_rt_jit_batch(j, s) : 1) + 255) / 256;
		int a = 0;
		pm_CUresult e;

		for (int t = 0; t < j->ninputs; ++t)
			arg[a++] = &ptr[t];
		arg[a++] = &y;
		arg[a++] = &r;
		arg[a++] = &cc;
		for (int t = 0; t < j->nsizes; ++t)
			arg[a++] = &sz[t];
		if (n > 2147483647)
			return fail(k, PM_RT_L_EINVAL, "tensor %s: more than "
				"2^31 - 1 blocks to copy",
				j->tname[j->pre[i].tensor]);
		if ((e = cu->LaunchKernel(m->pref[i], (unsigned) n, 1, 1, 256,
		    1, 1, 0, stream, arg, NULL)))
			return cuda_fail(k, cu, "a launcher-applied prologue", e);
	}
	/* after every copy: a copy's kernel reads the operands as given */
	for (int i = 0; i < j->npre; ++i)
		ptr[j->pre[i].tensor] = (char *) ws + c->pre_off + off[i];
	return PM_RT_L_OK;
}

/* Kernel f of row w on grid x 1 x gz in clusters of cl blocks (0: none)
 * with the file's programmatic dependency (k->j.pdl, the kernels' wait:
 * docs/decisions/0068-pdl.md): the driver's result, or -1 (k's error
 * set) where clusters need a cuLaunchKernelEx the driver lacks. Without
 * it the dependency is dropped: a plain launch, the wait a no-op. */
static int launch_kernel(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	pm_CUfunction f, const struct pm_rt_jit_row *w, unsigned grid,
	unsigned gz, unsigned cl, pm_CUstream stream, void **arg)
{
	pm_CUlaunchAttribute a[2];
	pm_CUlaunchConfig lc;
	unsigned n = 0;

	memset(a, 0, sizeof(a));
	memset(&lc, 0, sizeof(lc));
	if (cl) {
		a[n].id = PM_CU_LAUNCH_ATTR_CLUSTER_DIM;
		a[n].value.cluster.x = cl;
		a[n].value.cluster.y = a[n].value.cluster.z = 1;
		++n;
	}
	if (k->j.pdl && cu->LaunchKernelEx) {
		a[n].id = PM_CU_LAUNCH_ATTR_PROG_SERIAL;
		a[n].value.prog_serial = 1;
		++n;
	}
	if (!n)
		return (int) cu->LaunchKernel(f, grid, 1, gz,
			(unsigned) w->threads, 1, 1, (unsigned) w->smem, stream,
			arg, NULL);
	if (!cu->LaunchKernelEx) {
		fail(k, PM_RT_L_ECUDA, "the driver has no cuLaunchKernelEx "
			"(CUDA 12 or later)");
		return -1;
	}
	lc.grid[0] = grid;
	lc.grid[1] = 1;
	lc.grid[2] = gz;
	lc.block[0] = (unsigned) w->threads;
	lc.block[1] = lc.block[2] = 1;
	lc.smem = (unsigned) w->smem;
	lc.stream = stream;
	lc.attrs = a;
	lc.nattrs = n;
	return (int) cu->LaunchKernelEx(&lc, f, arg, NULL);
}

/* launch.c, launch: row c->v with its arguments. */
static int run(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	struct pm_rt_module *m, const struct pm_rt_choice *c,
	void *const *t, const int64_t *s, void *ws, pm_CUstream stream)
{
	const struct pm_rt_jit *j = &k->j;
	const struct pm_rt_jit_row *w = &j->kern[c->v];
	void *ptr[PM_RT_JIT_TENSORS], *arg[64], *part, *cnt;
	void *rpart = NULL, *rcnt = NULL;
	int sz[PM_RT_JIT_SYMS], kc[PM_RT_MAX_K], cl = c->cl, n = 0, x = 1;
	unsigned tdp = (unsigned) c->tdp;
	pm_CUtensorMap maps[PM_RT_JIT_TMA];
	int64_t grid = 0, gz = 1;
	pm_CUresult r;
	int rc = grid_of(k, cu, m, w, c, s, &grid, &gz);

	if (rc)
		return rc;
	for (int i = 0; i < j->ntensors; ++i) {
		ptr[i] = t[i];
		arg[n++] = &ptr[i];
	}
	if ((j->rows[c->v].flags & PM_RT_PRE) &&
	    (rc = pre_copies(k, cu, m, c, s, ws, stream, ptr)))
		return rc;
	for (int i = 0; i < j->nsizes; ++i) {
		sz[i] = (int) s[j->order[i]];
		arg[n++] = &sz[i];
	}
	part = c->s > 1 && ws ? (char *) ws + c->cnt_bytes : NULL;
	cnt = ws;
	/* an epilogue reduction: its partials, then its counters
	 * (launch.c; the workspace is all its) */
	if (j->red) {
		size_t rc_bytes;

		pm_rt_jit_red_bytes(j, s, &rc_bytes);
		rpart = (char *) ws + rc_bytes;
		rcnt = ws;
	}
	if (w->nsplit) {
		arg[n++] = &part;
		arg[n++] = &cnt;
		for (int i = 0; i < w->nsplit; ++i) {
			kc[i] = (int) c->kc[i];
			arg[n++] = &kc[i];
		}
		if (w->tdp)
			arg[n++] = &tdp;
		if (w->cl)
			arg[n++] = &cl;
	}
	if (j->red) {
		arg[n++] = &rpart;
		arg[n++] = &rcnt;
	}
	for (int i = 0; i < w->ntma; ++i) {
		if ((rc = tmap(k, cu, &w->tma[i], ptr[w->tma[i].tensor], s,
		    &maps[i])))
			return rc;
		arg[n++] = &maps[i];
	}
	/* the exact twin where its tile divides the ragged sizes */
	for (int i = 0; i < j->nsyms && w->twin; ++i)
		if (w->twin_mult[i] && s[i] % w->twin_mult[i])
			x = 0;
	x = x && w->twin;
	r = launch_kernel(k, cu, m->f[c->v][x], w, (unsigned) grid,
		(unsigned) gz, w->cl && c->cl > 1 ? (unsigned) c->cl : 0u, stream,
		arg);
	return r < 0 ? PM_RT_L_ECUDA : r ? cuda_fail(k, cu, "the launch", r) :
		PM_RT_L_OK;
}

/* need bytes of workspace: the stream's kept one (use_kept), else the
 * caller's ws where ws_bytes hold them; NULL where neither. */
static void *ws_take(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	const struct pm_rt_module *m, pm_CUstream stream, void *ws,
	size_t ws_bytes, int use_kept, size_t need, struct pm_rt_own_ws *o,
	size_t zero)
{
	if (use_kept)
		return pm_rt_ws_kept(cu, &k->lock, k->kept, m->ctx, stream,
			need, o, zero);
	return ws_bytes >= need ? ws : NULL;
}

/* A launch's workspace w of need bytes for what: none (the stream's kept
 * one could not be had, or the caller's is missing or smaller) or
 * misaligned, the error; else PM_RT_L_OK. */
static int ws_check(struct pm_rt_kernel *k, const void *w, int use_kept,
	size_t need, const char *what)
{
	if (!w && use_kept)
		return fail(k, PM_RT_L_ECUDA, "no workspace of %zu bytes for "
			"%s", need, what);
	if (!w)
		return fail(k, PM_RT_L_EINVAL, "%s: a workspace of %zu bytes "
			"needed (polymma_kernel_workspace_size)", what, need);
	if ((uintptr_t) w % 16)
		return fail(k, PM_RT_L_EINVAL, "the workspace is not 16-byte "
			"aligned");
	return PM_RT_L_OK;
}

/* A file with an epilogue reduction: every launch takes its workspace
 * (entries.c, the entries of such files; it has no split rows): the
 * stream's kept one, or the caller's of ws_bytes, 16-byte aligned. */
static int red_launch(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	struct pm_rt_module *m, const struct pm_rt_choice *c,
	void *const *t, const int64_t *s, void *ws, size_t ws_bytes,
	int use_kept, pm_CUstream stream, struct pm_rt_own_ws *o)
{
	size_t cnt, need = pm_rt_jit_red_bytes(&k->j, s, &cnt);
	int rc;

	if (c->ws_bytes)
		return fail(k, PM_RT_L_EINVAL, "a split plan beside an "
			"epilogue reduction");
	/* in a capture all of it zeroed, as launch.c's launch-alone one */
	ws = ws_take(k, cu, m, stream, ws, ws_bytes, use_kept, need, o, need);
	if ((rc = ws_check(k, ws, use_kept, need, "the epilogue reduction")))
		return rc;
	return run(k, cu, m, c, t, s, ws, stream);
}

/* The K-major copies into the workspace at at (kcopy.cuh, pm_kcopy:
 * one block per tile, stream-ordered), and tt: t, each copied tensor
 * pointing at its copy. */
static int copies(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	const struct pm_rt_module *m, void *const *t, const int64_t *s,
	char *at, pm_CUstream stream, void **tt)
{
	const struct pm_rt_jit *j = &k->j;
	size_t off[PM_RT_JIT_KC];

	for (int i = 0; i < j->ntensors; ++i)
		tt[i] = t[i];
	pm_rt_jit_kc_bytes(j, s, off);
	for (int i = 0; i < j->nkc; ++i) {
		const void *x = t[j->kc[i].tensor];
		void *y = at + off[i];
		int64_t r = pm_rt_dim_value(&j->kc[i].r, s);
		int64_t c = pm_rt_dim_value(&j->kc[i].c, s);
		int64_t tc = (c + PM_RT_KC_COLS - 1) / PM_RT_KC_COLS;
		int64_t n = (r + PM_RT_KC_ROWS - 1) / PM_RT_KC_ROWS * tc;
		void *arg[5] = { &x, &y, &r, &c, &tc };
		pm_CUresult e;

		if (n > 2147483647)
			return fail(k, PM_RT_L_EINVAL, "tensor %s: more than "
				"2^31 - 1 tiles to copy", j->tname[j->kc[i].tensor]);
		if ((e = cu->LaunchKernel(m->kcf, (unsigned) n, 1, 1,
		    PM_RT_KC_THREADS, 1, 1, 0, stream, arg, NULL)))
			return cuda_fail(k, cu, "the K-major copy", e);
		tt[j->kc[i].tensor] = y;
	}
	return PM_RT_L_OK;
}

/* The bytes a launch of choice c needs with the K-major copies (launch.c,
 * kc_need): the split's part where the copies follow it, then theirs. */
static size_t kc_need(const struct pm_rt_jit *j, const struct pm_rt_choice *c,
	const int64_t *s, size_t *at)
{
	*at = j->kc_split ? pm_rt_copy_offset(c) : 0;
	return *at + pm_rt_jit_kc_bytes(j, s, NULL);
}

/* A file with K-major copies (entries.c, pm_emit_kc_entries): every
 * launch takes a workspace, the stream's kept one or the caller's of
 * ws_bytes (16-byte aligned); without room for the split's part, the
 * plan without it. */
static int kc_launch(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	struct pm_rt_module *m, struct pm_rt_choice *c, void *const *t,
	const int64_t *s, void *ws, size_t ws_bytes, int use_kept, int ua,
	pm_CUstream stream, struct pm_rt_own_ws *o)
{
	void *tt[PM_RT_JIT_TENSORS], *w;
	size_t at, need = kc_need(&k->j, c, s, &at);
	int rc;

	w = ws_take(k, cu, m, stream, ws, ws_bytes, use_kept, need, o,
		c->cnt_bytes);
	if (!w && c->ws_bytes) {
		if ((rc = plan(k, cu, m, s, 1, ua, c)))
			return rc;
		need = kc_need(&k->j, c, s, &at);
		w = ws_take(k, cu, m, stream, ws, ws_bytes, use_kept, need, o,
			c->cnt_bytes);
	}
	if ((rc = ws_check(k, w, use_kept, need, "the K-major copies")) ||
	    (rc = copies(k, cu, m, t, s, (char *) w + at, stream, tt)))
		return rc;
	return run(k, cu, m, c, tt, s, w, stream);
}

/* pm_rt_kernel_launch, o: its own workspace in a capture. */
static int launch(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	void *const *tensors, const int64_t *sizes, void *ws, size_t ws_bytes,
	int use_kept, pm_CUstream stream, struct pm_rt_own_ws *o)
{
	struct pm_rt_module *m;
	struct pm_rt_choice c;
	int rc, ua;

	if ((rc = checks(k, tensors, sizes, &ua)) ||
	    (rc = pm_rt_module_current(cu, k, &m)))
		return rc;
	memset(&c, 0, sizeof(c));
	if (!k->j.planned) {
		c.s = 1;
		for (int r = 0; r < PM_RT_MAX_K; ++r)
			c.kc[r] = pm_rt_dim_value(&k->j.k[r], sizes);
	} else if ((rc = plan(k, cu, m, sizes, 0, ua, &c))) {
		return rc;
	}
	if (k->j.red)
		return red_launch(k, cu, m, &c, tensors, sizes, ws, ws_bytes,
			use_kept, stream, o);
	if (k->j.nkc)
		return kc_launch(k, cu, m, &c, tensors, sizes, ws, ws_bytes,
			use_kept, ua, stream, o);
	if (!k->j.planned)
		return run(k, cu, m, &c, tensors, sizes, NULL, stream);
	if (use_kept && c.ws_bytes)
		ws = pm_rt_ws_kept(cu, &k->lock, k->kept, m->ctx, stream,
			c.ws_bytes, o, c.cnt_bytes);
	else if (!use_kept && c.ws_bytes && ws_bytes < c.ws_bytes)
		ws = NULL;
	/* no room for the split: the plan without a workspace */
	if (c.ws_bytes && !ws && (rc = plan(k, cu, m, sizes, 1, ua, &c)))
		return rc;
	return run(k, cu, m, &c, tensors, sizes, ws, stream);
}

int pm_rt_kernel_launch(struct pm_rt_kernel *k, void *const *tensors,
	const int64_t *sizes, void *ws, size_t ws_bytes, int use_kept,
	pm_CUstream stream)
{
	const char *why = NULL;
	const struct pm_cuda *cu = pm_cuda(&why);
	struct pm_rt_own_ws o;
	int rc;

	if (!cu)
		return fail(k, PM_RT_L_ECUDA, "%s", why);
	pm_rt_own_ws_begin(cu, &o, stream, use_kept);
	rc = launch(k, cu, tensors, sizes, ws, ws_bytes, use_kept, stream,
		&o);
	pm_rt_own_ws_done(cu, &o, stream);
	return rc;
}

size_t pm_rt_kernel_ws_size(struct pm_rt_kernel *k, const int64_t *sizes)
{
	const struct pm_cuda *cu = pm_cuda(NULL);
	struct pm_rt_module *m;
	struct pm_rt_choice c;
	void *dummy[PM_RT_JIT_TENSORS] = { 0 };
	int ua;

	size_t cnt, at;

	if (k->j.red)
		return checks(k, dummy, sizes, &ua) ? 0 :
			pm_rt_jit_red_bytes(&k->j, sizes, &cnt);
	memset(&c, 0, sizeof(c));
	if (!cu || checks(k, dummy, sizes, &ua) || (k->j.planned &&
	    (pm_rt_module_current(cu, k, &m) ||
	    plan(k, cu, m, sizes, 0, ua, &c))))
		return 0;
	return k->j.nkc ? kc_need(&k->j, &c, sizes, &at) : c.ws_bytes;
}

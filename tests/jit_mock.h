/* The JIT launcher (runtime/jitlaunch.c) against a mock CUDA driver (an
 * H100-like model: 132 SMs, blocks per SM from the shared memory and the
 * threads), for tests/test_jit.c: what it launches, with which grid,
 * block, shared memory, arguments and tensor maps, against the plan
 * (runtime/plan.c) on the same model and the description (mk_check).
 * Included once, by test_jit.c, after gbr90 (gemm_bias_relu on sm_90a) is
 * filled; the tests that use it: jit_mock_launches.h, jit_mock_shapes.h,
 * jit_mock_capture.h. */

static struct {
	char names[128][96];	/* functions: handle = index + 1 */
	int nnames;
	int launches;
	char fn[96];
	unsigned grid[3], block[3], smem, cluster;
	int pdl;	/* the last launch's programmatic dependency */
	void *t[16];
	int sz[16];
	void *part, *cnt, *rpart, *rcnt;
	int kc[8];
	unsigned tdp;
	int cl;
	uint64_t map_tag[8];
	int nenc;
	struct {
		int dtype, swizzle;
		unsigned rank;
		void *base;
		uint64_t dims[3], stride, bstride;
		unsigned box[3];
	} enc[8];
	size_t alloc;
	void *alloc_p;
	int memset0;
	/* K-major copies launched (pm_kc_kernel), in order, before it */
	int ncopies;
	struct {
		const void *x;
		void *y;
		int64_t r, c, tc;
		unsigned grid, block, smem;
		int after;	/* launched after the kernel */
	} copies[4];
	/* launcher-applied prologues' copies (pm_pre_NAME_X), in order */
	int npres;
	struct {
		char fn[96];
		void *in[16], *y;
		int64_t r, c, sz[16];
		unsigned grid, block;
		int after;
	} pres[4];
} mk;

static const struct pm_rt_jit *mk_j;

static int mk_occ(int threads, long smem)
{
	int o = (int) (233472 / (smem + 1024)), t = 2048 / threads;

	return o < t ? o : t;
}

static int mk_clusters(void *ctx, int s)
{
	(void) ctx;
	return s >= 2 && s <= 8 ? 66 / s : 0;
}

static pm_CUresult mk_ok_ctx(pm_CUcontext *c)
{
	*c = (pm_CUcontext) 0x1;
	return 0;
}

static pm_CUresult mk_dev(pm_CUdevice *d)
{
	*d = 0;
	return 0;
}

static pm_CUresult mk_attr(int *v, int a, pm_CUdevice d)
{
	(void) d;
	*v = a == PM_CU_ATTR_SMS ? 132 : a == PM_CU_ATTR_CC_MAJOR ? 9 : 0;
	return 0;
}

/* A module is its image: an ELF holds every function; else a text, the
 * names of those it holds, one a line (mk_kernel_parts). */
static pm_CUresult mk_load(pm_CUmodule *m, const void *img)
{
	*m = (pm_CUmodule) img;
	return 0;
}

static int mk_holds(pm_CUmodule m, const char *n)
{
	const char *s = (const char *) m;
	size_t l = strlen(n);

	if (!memcmp(s, "\177ELF", 4))
		return 1;
	for (; *s; s = strchr(s, '\n') + 1)
		if (!strncmp(s, n, l) && s[l] == '\n')
			return 1;
	return 0;
}

static pm_CUresult mk_unload(pm_CUmodule m)
{
	(void) m;
	return 0;
}

static pm_CUresult mk_getfn(pm_CUfunction *f, pm_CUmodule m, const char *n)
{
	if (!mk_holds(m, n))
		return 500;	/* CUDA_ERROR_NOT_FOUND */
	snprintf(mk.names[mk.nnames], sizeof(mk.names[0]), "%s", n);
	*f = (pm_CUfunction) (uintptr_t) ++mk.nnames;
	return 0;
}

static pm_CUresult mk_setattr(pm_CUfunction f, int a, int v)
{
	(void) f, (void) a, (void) v;
	return 0;
}

/* the row of function f (its name without pm_kernel_NAME and _x) */
static const struct pm_rt_jit_row *mk_row(pm_CUfunction f, int *threads,
	long *smem)
{
	const char *n = mk.names[(uintptr_t) f - 1];
	size_t base = strlen("pm_kernel_") + strlen(mk_j->name);

	for (int r = 0; r < mk_j->nrows; ++r) {
		const char *x = n + base;
		size_t l = strlen(mk_j->kern[r].suffix);

		if (!strncmp(x, mk_j->kern[r].suffix, l) && (!x[l] ||
		    !strcmp(x + l, "_x"))) {
			*threads = mk_j->kern[r].threads;
			*smem = mk_j->kern[r].smem;
			return &mk_j->kern[r];
		}
	}
	fail_msg("no row for function %s", n);
	return NULL;
}

static pm_CUresult mk_occupancy(int *o, pm_CUfunction f, int threads,
	size_t smem)
{
	int t;
	long s;

	mk_row(f, &t, &s);
	assert_int_equal(t, threads);
	assert_int_equal(s, (long) smem);
	*o = mk_occ(threads, (long) smem);
	return 0;
}

static pm_CUresult mk_occ_cl(int *n, pm_CUfunction f,
	const pm_CUlaunchConfig *c)
{
	(void) f;
	/* no attribute: the kernel's own __cluster_dims__ (two) */
	*n = mk_clusters(NULL, c->nattrs ? (int) c->attrs[0].value.cluster.x :
		(int) c->grid[0]);
	return 0;
}

/* The arguments, in the description's order. */
static void mk_args(pm_CUfunction f, void **p)
{
	int th, i = 0;
	long sm;
	const struct pm_rt_jit_row *w = mk_row(f, &th, &sm);

	snprintf(mk.fn, sizeof(mk.fn), "%s", mk.names[(uintptr_t) f - 1]);
	for (int t = 0; t < mk_j->ntensors; ++t)
		mk.t[t] = *(void **) p[i++];
	for (int s = 0; s < mk_j->nsizes; ++s)
		mk.sz[s] = *(int *) p[i++];
	mk.part = mk.cnt = NULL;
	mk.tdp = 0;
	mk.cl = -1;
	if (w->nsplit) {
		mk.part = *(void **) p[i++];
		mk.cnt = *(void **) p[i++];
		for (int r = 0; r < w->nsplit; ++r)
			mk.kc[r] = *(int *) p[i++];
		if (w->tdp)
			mk.tdp = *(unsigned *) p[i++];
		if (w->cl)
			mk.cl = *(int *) p[i++];
	}
	mk.rpart = mk.rcnt = NULL;
	if (mk_j->red) {
		mk.rpart = *(void **) p[i++];
		mk.rcnt = *(void **) p[i++];
	}
	for (int m = 0; m < w->ntma; ++m) {
		const pm_CUtensorMap *map = p[i++];

		assert_int_equal((uintptr_t) map % 64, 0);
		mk.map_tag[m] = map->opaque[0];
	}
	mk.launches++;
}

static pm_CUresult mk_launch(pm_CUfunction f, unsigned gx, unsigned gy,
	unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
	pm_CUstream s, void **p, void **extra)
{
	(void) s, (void) extra;
	if (!strcmp(mk.names[(uintptr_t) f - 1], "pm_kc_kernel")) {
		assert_true(mk.ncopies < 4);
		mk.copies[mk.ncopies].x = *(const void **) p[0];
		mk.copies[mk.ncopies].y = *(void **) p[1];
		mk.copies[mk.ncopies].r = *(int64_t *) p[2];
		mk.copies[mk.ncopies].c = *(int64_t *) p[3];
		mk.copies[mk.ncopies].tc = *(int64_t *) p[4];
		mk.copies[mk.ncopies].grid = gx * gy * gz;
		mk.copies[mk.ncopies].block = bx * by * bz;
		mk.copies[mk.ncopies].smem = smem;
		mk.copies[mk.ncopies++].after = mk.launches;
		return 0;
	}
	if (!strncmp(mk.names[(uintptr_t) f - 1], "pm_pre_", 7)) {
		int i = 0, n = mk.npres++;

		assert_true(n < 4);
		memcpy(mk.pres[n].fn, mk.names[(uintptr_t) f - 1],
			sizeof(mk.pres[n].fn));
		for (int t = 0; t < mk_j->ninputs; ++t)
			mk.pres[n].in[t] = *(void **) p[i++];
		mk.pres[n].y = *(void **) p[i++];
		mk.pres[n].r = *(int64_t *) p[i++];
		mk.pres[n].c = *(int64_t *) p[i++];
		for (int t = 0; t < mk_j->nsizes; ++t)
			mk.pres[n].sz[t] = *(int64_t *) p[i++];
		mk.pres[n].grid = gx * gy * gz;
		mk.pres[n].block = bx * by * bz;
		mk.pres[n].after = mk.launches;
		return 0;
	}
	mk.grid[0] = gx, mk.grid[1] = gy, mk.grid[2] = gz;
	mk.block[0] = bx, mk.block[1] = by, mk.block[2] = bz;
	mk.smem = smem;
	mk.cluster = 0;
	mk.pdl = 0;
	mk_args(f, p);
	return 0;
}

static pm_CUresult mk_launch_ex(const pm_CUlaunchConfig *c, pm_CUfunction f,
	void **p, void **extra)
{
	const char *name = mk.names[(uintptr_t) f - 1];

	/* the copy and prologue kernels have no wait: plain launches only
	 * (docs/decisions/0068-pdl.md) */
	assert_true(strncmp(name, "pm_kernel_", 10) == 0);
	mk_launch(f, c->grid[0], c->grid[1], c->grid[2], c->block[0],
		c->block[1], c->block[2], c->smem, c->stream, p, extra);
	assert_true(c->nattrs >= 1 && c->nattrs <= 2);
	for (unsigned i = 0; i < c->nattrs; ++i) {
		if (c->attrs[i].id == PM_CU_LAUNCH_ATTR_PROG_SERIAL) {
			assert_int_equal(c->attrs[i].value.prog_serial, 1);
			mk.pdl = 1;
			continue;
		}
		assert_int_equal(c->attrs[i].id, PM_CU_LAUNCH_ATTR_CLUSTER_DIM);
		mk.cluster = c->attrs[i].value.cluster.x;
	}
	return 0;
}

static pm_CUresult mk_encode(pm_CUtensorMap *m, int dtype, unsigned rank,
	void *base, const uint64_t *dims, const uint64_t *strides,
	const unsigned *box, const unsigned *estr, int il, int sw, int l2,
	int oob)
{
	assert_true(rank == 2 || rank == 3);
	for (unsigned d = 0; d < rank; ++d)
		assert_int_equal(estr[d], 1);
	assert_int_equal(il, 0);
	assert_int_equal(l2, PM_CU_TMAP_L2_256B);
	assert_int_equal(oob, 0);
	assert_true(mk.nenc < 8);
	memset(&mk.enc[mk.nenc], 0, sizeof(mk.enc[0]));
	mk.enc[mk.nenc].dtype = dtype;
	mk.enc[mk.nenc].swizzle = sw;
	mk.enc[mk.nenc].rank = rank;
	mk.enc[mk.nenc].base = base;
	memcpy(mk.enc[mk.nenc].dims, dims, rank * sizeof(*dims));
	mk.enc[mk.nenc].stride = strides[0];
	if (rank == 3)
		mk.enc[mk.nenc].bstride = strides[1];
	memcpy(mk.enc[mk.nenc].box, box, rank * sizeof(*box));
	memset(m, 0, sizeof(*m));
	m->opaque[0] = 1000 + (uint64_t) mk.nenc++;
	return 0;
}

static pm_CUresult mk_alloc(pm_CUdeviceptr *p, size_t n, pm_CUstream s)
{
	(void) s;
	*p = (pm_CUdeviceptr) (uintptr_t) malloc(n);
	mk.alloc = n;
	mk.alloc_p = (void *) (uintptr_t) *p;
	return 0;
}

static pm_CUresult mk_free(pm_CUdeviceptr p, pm_CUstream s)
{
	(void) s;
	free((void *) (uintptr_t) p);
	return 0;
}

static pm_CUresult mk_memset(pm_CUdeviceptr p, unsigned char v, size_t n,
	pm_CUstream s)
{
	(void) s;
	memset((void *) (uintptr_t) p, v, n);
	mk.memset0 += v == 0 && n == mk.alloc;
	return 0;
}

static pm_CUresult mk_errstr(pm_CUresult r, const char **s)
{
	(void) r;
	*s = "mock";
	return 0;
}

static const struct pm_cuda mk_cuda = {
	.GetErrorString = mk_errstr, .CtxGetCurrent = mk_ok_ctx,
	.CtxGetDevice = mk_dev, .DeviceGetAttribute = mk_attr,
	.ModuleLoadData = mk_load, .ModuleUnload = mk_unload,
	.ModuleGetFunction = mk_getfn, .FuncSetAttribute = mk_setattr,
	.OccupancyMaxActiveBlocksPerMultiprocessor = mk_occupancy,
	.OccupancyMaxActiveClusters = mk_occ_cl, .LaunchKernel = mk_launch,
	.LaunchKernelEx = mk_launch_ex, .TensorMapEncodeTiled = mk_encode,
	.MemAllocAsync = mk_alloc, .MemFreeAsync = mk_free,
	.MemsetD8Async = mk_memset,
};

/* The plan on the mock's model at sizes (spec order: M, K, N). */
static void mk_expect(const int64_t *s, const char *force, int nows,
	struct pm_rt_choice *c)
{
	struct pm_rt_device d = { 132, { 0 }, mk_clusters, NULL };
	struct pm_rt_problem p = { 0, 0, { 0 }, 0, 0, 0, 0, 0, 0 };
	struct pm_rt_force f;

	for (int i = 0; i < mk_j->nrows; ++i)
		d.occ[i] = mk_occ(mk_j->rows[i].threads, mk_j->rows[i].smem);
	p.m = pm_rt_dim_value(&mk_j->m, s);
	p.n = pm_rt_dim_value(&mk_j->n, s);
	for (int r = 0; r < mk_j->spec.nk; ++r)	/* two contractions: two */
		p.k[r] = pm_rt_dim_value(&mk_j->k[r], s);
	p.mis = pm_rt_jit_mis(mk_j, s);	/* test_jit's check_desc checks it */
	/* batched: the batch count; grouped: the groups (check_desc checks
	 * table.c's lines) */
	if (mk_j->grouped)
		p.grouped = (int) pm_rt_jit_batch(mk_j, s);
	else if (mk_j->nbatch)
		p.batch = pm_rt_jit_batch(mk_j, s);
	/* launcher-applied prologues (table.c, pm_emit_pre_plan): each copy
	 * r x c x esize bytes, 256-aligned; the least reuse */
	if (mk_j->npre)
		p.pre_reuse = INT64_MAX;
	for (int i = 0; i < mk_j->npre; ++i) {
		const int64_t u = pm_rt_dim_value(&mk_j->pre[i].reuse, s);

		const int64_t nb = mk_j->pre[i].batched ?
			pm_rt_jit_batch(mk_j, s) : 1;

		p.pre_bytes += ((size_t) pm_rt_dim_value(&mk_j->pre[i].r, s) *
			(size_t) pm_rt_dim_value(&mk_j->pre[i].c, s) *
			(size_t) mk_j->pre[i].esize * (size_t) nb + 255) / 256 *
			256;
		p.pre_reuse = mk_j->pre[i].per_group ? (u / nb < p.pre_reuse ?
			u / nb : p.pre_reuse) : u < p.pre_reuse ? u : p.pre_reuse;
	}
	assert_int_equal(pm_rt_parse_force(force, mk_j->rows, mk_j->nrows,
		&f), 0);
	assert_int_equal(pm_rt_plan(&mk_j->spec, mk_j->rows, mk_j->nrows, &d,
		&p, &f, c), 0);
	if (nows && c->ws_bytes)
		assert_int_equal(pm_rt_no_workspace(mk_j->rows, mk_j->nrows, &d,
			&p, &mk_j->spec, c), 0);
}

/* The grid launch.c gives row w of choice c at sizes s: x, then z (the
 * split's chunks, or a batched grid's batches); a grouped file's units
 * (group, tile), at most the plan's blocks where persistent
 * (emit/group.h, pm_emit_group_units). */
static void mk_grid(const struct pm_rt_choice *c, const struct
	pm_rt_jit_row *w, const int64_t *s, int64_t *g)
{
	const int64_t m = pm_rt_dim_value(&mk_j->m, s);
	const int64_t n = pm_rt_dim_value(&mk_j->n, s);
	const int64_t nb = pm_rt_jit_batch(mk_j, s);

	g[0] = c->grid;
	g[1] = w->zsplit ? c->s : mk_j->nbatch && !mk_j->grouped &&
		!w->persistent ? nb : 1;
	/* clusters of two (launch.c, mc_grid): pairs of tile rows, at most
	 * the plan's blocks and the clusters resident (the mock's) */
	if (w->mc) {
		int64_t p = (n + w->bn - 1) / w->bn * (((m + w->bm - 1) / w->bm +
			1) / 2);

		p = p < c->grid / 2 ? p : c->grid / 2;
		p = p < mk_clusters(NULL, 2) ? p : mk_clusters(NULL, 2);
		g[0] = 2 * (p > 1 ? p : 1);
	}
	if (mk_j->grouped) {
		int64_t u = ((m + w->bm - 1) / w->bm + nb) *
			((n + w->bn - 1) / w->bn);

		g[0] = w->persistent && c->grid < u ? c->grid : u;
	}
}

/* The launch of choice c at sizes s with tensors t, as recorded. */
static void mk_check(const struct pm_rt_choice *c, const int64_t *s,
	void *const *t)
{
	const struct pm_rt_jit_row *w = &mk_j->kern[c->v];
	char want[96];
	int x = w->twin;
	int64_t gx_gz[2];

	for (int i = 0; i < mk_j->nsyms; ++i)
		if (w->twin_mult[i] && s[i] % w->twin_mult[i])
			x = 0;
	snprintf(want, sizeof(want), "pm_kernel_%s%s%s", mk_j->name, w->suffix,
		x ? "_x" : "");
	assert_string_equal(mk.fn, want);
	/* the kernels wait for the previous grid: launched so (--pdl) */
	assert_int_equal(mk.pdl, mk_j->pdl);
	mk_grid(c, w, s, gx_gz);
	assert_int_equal(mk.grid[0], gx_gz[0]);
	assert_int_equal(mk.grid[1], 1);
	assert_int_equal(mk.grid[2], gx_gz[1]);
	assert_int_equal(mk.block[0], w->threads);
	assert_int_equal(mk.smem, w->smem);
	for (int i = 0; i < mk_j->ntensors; ++i)
		assert_ptr_equal(mk.t[i], t[i]);
	for (int i = 0; i < mk_j->nsizes; ++i)
		assert_int_equal(mk.sz[i], s[mk_j->order[i]]);
	if (w->nsplit)
		assert_int_equal(mk.kc[0], c->kc[0]);
	if (w->tdp)
		assert_int_equal(mk.tdp, c->tdp);
	if (w->cl)
		assert_int_equal(mk.cl, c->cl);
	assert_int_equal(mk.nenc, w->ntma);
	for (int m = 0; m < w->ntma; ++m) {
		const struct pm_rt_tma *tm = &w->tma[m];

		assert_int_equal(mk.map_tag[m], 1000 + m);
		assert_ptr_equal(mk.enc[m].base, t[tm->tensor]);
		assert_int_equal(mk.enc[m].dims[0], pm_rt_dim_value(&tm->cols, s));
		assert_int_equal(mk.enc[m].dims[1], pm_rt_dim_value(&tm->rows, s));
		/* a batched tensor's: the batch outermost, slices of rows x
		 * cols, a box of one (launch.c, pm_tma_map_3d) */
		assert_int_equal(mk.enc[m].rank, tm->batched ? 3 : 2);
		if (tm->batched) {
			assert_int_equal(mk.enc[m].dims[2],
				pm_rt_jit_batch(mk_j, s));
			assert_int_equal(mk.enc[m].bstride, mk.enc[m].dims[0] *
				mk.enc[m].dims[1] * 2);
			assert_int_equal(mk.enc[m].box[2], 1);
		}
		/* a K-major copy's rows padded to 16 (kcopy.cuh) */
		assert_int_equal(mk.enc[m].stride, (tm->kc ?
			(mk.enc[m].dims[0] + 15) / 16 * 16 : mk.enc[m].dims[0]) *
			(uint64_t) tm->esize);
		assert_int_equal(mk.enc[m].box[0], tm->box_cols);
		assert_int_equal(mk.enc[m].box[1], tm->box_rows);
		/* test_jit's check_maps checks the types against launch.c */
		assert_int_equal(mk.enc[m].dtype, tm->dtype);
		/* the row's swizzle: 128 bytes, or 64 and 32 (an i8 operand
		 * widened in the registers, docs/decisions/0062) */
		assert_true(tm->swizzle == 128 || (tm->esize == 1 &&
			(tm->swizzle == 64 || tm->swizzle == 32)));
		assert_int_equal(mk.enc[m].swizzle, tm->swizzle == 128 ? 3 :
			tm->swizzle == 64 ? 2 : 1);
	}
}

/* gbr90 generated once; the mock reset and installed. */
static void mk_fill(void)
{
	if (!gbr90.nrows) {
		int rc;
		char *src = generate("gemm_bias_relu", "sm_90a", &gbr90, &rc);

		assert_int_equal(rc, 0);
		free(src);
	}
	pm_rt_jit_fix(&gbr90);	/* a copy: its suffixes its own */
	mk_j = &gbr90;
	memset(&mk, 0, sizeof(mk));
	pm_cuda_override(&mk_cuda);
}

static struct pm_rt_kernel *mk_kernel(void)
{
	static const unsigned char cubin[4] = { 0x7f, 'E', 'L', 'F' };
	const unsigned char *c = cubin;
	size_t n = sizeof(cubin);

	mk_fill();
	/* one module holds every function (mk_kernel_parts spread them) */
	for (int r = 0; r < gbr90.nrows; ++r)
		gbr90.kern[r].part[0] = gbr90.kern[r].part[1] = 0;
	return pm_rt_kernel_new(&gbr90, 1, &c, &n);
}

/* gbr90's functions over np modules, round robin (api/jitparts.c's
 * cubins; a module's text names its functions). */
static struct pm_rt_kernel *mk_kernel_parts(int np)
{
	static char text[PM_RT_MAX_PARTS][4096];
	const unsigned char *c[PM_RT_MAX_PARTS];
	size_t n[PM_RT_MAX_PARTS];
	int f = 0;

	mk_fill();
	for (int i = 0; i < np; ++i)
		text[i][0] = 0;
	for (int r = 0; r < gbr90.nrows; ++r)
		for (int x = 0; x <= !!gbr90.kern[r].twin; ++x, ++f) {
			char *t = text[f % np];

			gbr90.kern[r].part[x] = f % np;
			snprintf(t + strlen(t), sizeof(text[0]) - strlen(t),
				"pm_kernel_%s%s%s\n", gbr90.name,
				gbr90.kern[r].suffix, x ? "_x" : "");
		}
	for (int i = 0; i < np; ++i) {
		c[i] = (const unsigned char *) text[i];
		n[i] = strlen(text[i]) + 1;
	}
	return pm_rt_kernel_new(&gbr90, np, c, n);
}

/* One launch at s; 0 or the launcher's code. */
static int mk_run(struct pm_rt_kernel *k, const int64_t *s, void *const *t,
	void *ws, size_t n, int kept)
{
	mk.nenc = 0;
	mk.launches = 0;
	mk.ncopies = 0;
	mk.npres = 0;
	return pm_rt_kernel_launch(k, t, s, ws, n, kept, NULL);
}

static char mk_mem[4][256] __attribute__((aligned(256)));
static void *const mk_t[4] = { mk_mem[0], mk_mem[1], mk_mem[2], mk_mem[3] };

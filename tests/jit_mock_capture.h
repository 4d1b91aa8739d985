/* The JIT launcher in a CUDA graph capture (docs/decisions/0060), on the
 * mock driver of jit_mock.h: a stream being captured gets no kept
 * workspace (the driver refuses cuStreamGetId there and invalidates the
 * capture); the launch allocates its own in the capture, zeroes its
 * counters, runs its kernels on it and frees it, in that order. Included
 * by test_jit.c after jit_mock_shapes.h. */

static struct {
	int capturing, invalidated, seq;
	int nalloc, nfree, nlaunch;
	int alloc_at, memset_at, launch_at, free_at;
	void *allocated, *freed;
	size_t memset_n;
} cap;

static pm_CUresult cap_is(pm_CUstream s, int *st)
{
	(void) s;
	*st = cap.capturing ? (cap.invalidated ? 2 : 1) : 0;
	return 0;
}

/* the driver's answer in a capture: not permitted, and the capture is
 * invalidated */
static pm_CUresult cap_id(pm_CUstream s, unsigned long long *id)
{
	*id = (unsigned long long) (uintptr_t) s;
	if (!cap.capturing)
		return 0;
	cap.invalidated = 1;
	return 900;	/* CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED */
}

static pm_CUresult cap_alloc(pm_CUdeviceptr *p, size_t n, pm_CUstream s)
{
	pm_CUresult r = mk_alloc(p, n, s);

	cap.nalloc++;
	cap.alloc_at = ++cap.seq;
	cap.allocated = (void *) (uintptr_t) *p;
	return r;
}

static pm_CUresult cap_free(pm_CUdeviceptr p, pm_CUstream s)
{
	cap.nfree++;
	cap.free_at = ++cap.seq;
	cap.freed = (void *) (uintptr_t) p;
	return mk_free(p, s);
}

static pm_CUresult cap_memset(pm_CUdeviceptr p, unsigned char v, size_t n,
	pm_CUstream s)
{
	cap.memset_at = ++cap.seq;
	cap.memset_n = n;
	return mk_memset(p, v, n, s);
}

static pm_CUresult cap_launch(pm_CUfunction f, unsigned gx, unsigned gy,
	unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem,
	pm_CUstream s, void **p, void **extra)
{
	cap.nlaunch++;
	cap.launch_at = ++cap.seq;
	return mk_launch(f, gx, gy, gz, bx, by, bz, smem, s, p, extra);
}

/* the kernels' launches with attributes (--pdl, clusters) */
static pm_CUresult cap_launch_ex(const pm_CUlaunchConfig *c, pm_CUfunction f,
	void **p, void **extra)
{
	cap.nlaunch++;
	cap.launch_at = ++cap.seq;
	return mk_launch_ex(c, f, p, extra);
}

static struct pm_cuda cap_cuda;

static void cap_install(int capturing)
{
	cap_cuda = mk_cuda;
	cap_cuda.StreamIsCapturing = cap_is;
	cap_cuda.StreamGetId = cap_id;
	cap_cuda.MemAllocAsync = cap_alloc;
	cap_cuda.MemFreeAsync = cap_free;
	cap_cuda.MemsetD8Async = cap_memset;
	cap_cuda.LaunchKernel = cap_launch;
	cap_cuda.LaunchKernelEx = cap_launch_ex;
	memset(&cap, 0, sizeof(cap));
	cap.capturing = capturing;
	pm_cuda_override(&cap_cuda);
}

static int cap_kept(const struct pm_rt_kernel *k)
{
	int n = 0;

	for (int i = 0; i < PM_RT_KEPT; ++i)
		n += !!k->kept[i].p;
	return n;
}

/* One launch at s in a capture: its own workspace of c's bytes, the
 * counters zeroed, the kernels (nk launches) on it, then freed; no kept
 * one taken, the capture intact. */
static void cap_one(struct pm_rt_kernel *k, const int64_t *s, void *const *t,
	const struct pm_rt_choice *c, int nk)
{
	int seq = cap.seq, nalloc = cap.nalloc, nfree = cap.nfree;
	int kept = cap_kept(k);

	cap.nlaunch = 0;
	assert_int_equal(mk_run(k, s, t, NULL, 0, 1), 0);
	assert_false(cap.invalidated);
	assert_int_equal(cap.nalloc, nalloc + 1);
	assert_int_equal(cap.nfree, nfree + 1);
	assert_int_equal(mk.alloc, c->ws_bytes);
	assert_ptr_equal(cap.freed, cap.allocated);
	assert_int_equal(cap.nlaunch, nk);
	assert_true(seq < cap.alloc_at);
	assert_true(cap.alloc_at < cap.launch_at);
	assert_true(cap.launch_at < cap.free_at);
	if (c->cnt_bytes) {
		assert_int_equal(cap.memset_n, c->cnt_bytes);
		assert_true(cap.alloc_at < cap.memset_at);
		assert_true(cap.memset_at < cap.launch_at);
	}
	assert_int_equal(cap_kept(k), kept);
}

static void launch_capture(void **state)
{
	static const int64_t sizes[][3] = {	/* M, K, N */
		{ 128, 8192, 128 }, { 64, 4096, 4096 }, { 200, 576, 328 },
		{ 4096, 4096, 4096 }, { 16, 4096, 4096 }, { 256, 16384, 256 },
		{ 1, 14336, 4096 },
	};
	struct pm_rt_kernel *k = mk_kernel();
	int split = 0;

	(void) state;
	unsetenv("POLYMMA_VARIANT");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); ++i) {
		struct pm_rt_choice c;

		mk_expect(sizes[i], NULL, 0, &c);
		cap_install(1);
		if (!c.ws_bytes) {
			/* nothing to allocate: the kernel alone */
			assert_int_equal(mk_run(k, sizes[i], mk_t, NULL, 0, 1),
				0);
			assert_int_equal(cap.nalloc + cap.nfree, 0);
			assert_false(cap.invalidated);
			mk_check(&c, sizes[i], mk_t);
			continue;
		}
		split++;
		cap_one(k, sizes[i], mk_t, &c, 1);
		mk_check(&c, sizes[i], mk_t);
		assert_ptr_equal(mk.cnt, cap.allocated);
		assert_ptr_equal(mk.part, (char *) mk.cnt + c.cnt_bytes);
		/* each launch its own */
		cap_one(k, sizes[i], mk_t, &c, 1);
		/* out of the capture: the stream's kept one, zeroed once */
		cap_install(0);
		assert_int_equal(mk_run(k, sizes[i], mk_t, NULL, 0, 1), 0);
		assert_int_equal(mk_run(k, sizes[i], mk_t, NULL, 0, 1), 0);
		assert_int_equal(cap.nalloc, 1);
		assert_int_equal(cap.nfree, 0);
		assert_int_equal(cap.memset_n, c.ws_bytes);
		assert_int_equal(cap_kept(k), 1);
		/* a capture after it still takes its own */
		cap_install(1);
		cap_one(k, sizes[i], mk_t, &c, 1);
		assert_ptr_not_equal(cap.allocated, k->kept[0].p);
		pm_rt_kernel_free(k);
		k = mk_kernel();
	}
	assert_true(split >= 2);
	pm_rt_kernel_free(k);
	pm_cuda_override(NULL);
}

/* The launcher-applied prologue's copy in a capture: in the launch's own
 * workspace, before the kernel, freed after it. */
static void launch_capture_pre(void **state)
{
	static char mem[8][1024] __attribute__((aligned(256)));
	static struct pm_rt_jit j;
	struct pm_rt_kernel *k = mk_file("../tests/specs/gemm_w8_zp", &j);
	struct pm_rt_choice c;
	int64_t s[PM_RT_JIT_SYMS];
	void *t[8];

	(void) state;
	for (int i = 0; i < 8; ++i)
		t[i] = mem[i];
	mk_sizes(&j, "M=4096,N=4096,K=4096", s);
	unsetenv("POLYMMA_VARIANT");
	mk_expect(s, NULL, 0, &c);
	assert_true(j.rows[c.v].flags & PM_RT_PRE);
	cap_install(1);
	cap_one(k, s, t, &c, 1 + j.npre);
	assert_int_equal(mk.npres, j.npre);
	assert_ptr_equal(mk.pres[0].y, (char *) cap.allocated + c.pre_off);
	assert_int_equal(mk.pres[0].after, 0);
	pm_rt_kernel_free(k);
	pm_cuda_override(NULL);
}

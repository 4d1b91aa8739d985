/* The JIT launcher's launches against the mock driver (tests/jit_mock.h),
 * for tests/test_jit.c: the plan's launch of every kind, the entry's
 * checks, every row forced (in one module and spread over several), an
 * epilogue reduction's workspace. Included once, after jit_mock.h. */

/* The plan's launch at sizes of every kind: its row, twin, grid and
 * arguments. */
static void launch_plan(void **state)
{
	static const int64_t sizes[][3] = {	/* M, K, N */
		{ 4096, 4096, 4096 }, { 1000, 520, 776 }, { 128, 8192, 128 },
		{ 64, 64, 64 }, { 8192, 1024, 8192 }, { 768, 512, 768 },
		{ 200, 576, 328 },
	};
	struct pm_rt_kernel *k = mk_kernel();

	(void) state;
	unsetenv("POLYMMA_VARIANT");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(*sizes); ++i) {
		struct pm_rt_choice c;

		mk_expect(sizes[i], NULL, 0, &c);
		assert_int_equal(mk_run(k, sizes[i], mk_t, NULL, 0, 1), 0);
		assert_int_equal(mk.launches, 1);
		mk_check(&c, sizes[i], mk_t);
		if (c.ws_bytes) {
			/* the kept workspace: zeroed, counters, then slots */
			assert_int_equal(mk.alloc, c.ws_bytes);
			assert_true(mk.memset0 >= 1);
			assert_non_null(mk.cnt);
			assert_ptr_equal(mk.part, (char *) mk.cnt + c.cnt_bytes);
		}
	}
	pm_rt_kernel_free(k);
	pm_cuda_override(NULL);
}

/* The entry's checks: no launch. */
static void launch_checks(void **state)
{
	struct pm_rt_kernel *k = mk_kernel();
	int64_t ok[3] = { 1000, 520, 776 };
	int64_t badn[3] = { 1000, 520, 777 }, zero[3] = { 0, 520, 776 };
	void *mis_a[4] = { mk_mem[0] + 8, mk_mem[1], mk_mem[2], mk_mem[3] };
	void *mis_bias[4] = { mk_mem[0], mk_mem[1], mk_mem[2] + 2, mk_mem[3] };
	void *odd_a[4] = { mk_mem[0] + 1, mk_mem[1], mk_mem[2], mk_mem[3] };
	void *odd_bias[4] = { mk_mem[0], mk_mem[1], mk_mem[2] + 1, mk_mem[3] };
	void *const *ua[3] = { mk_t, mis_a, mis_bias };
	const int64_t *ua_sz[3] = { badn, ok, ok };

	(void) state;
	unsetenv("POLYMMA_VARIANT");
	/* what only the _unaligned row runs runs it
	 * (docs/decisions/0046-narrow-copies.md) */
	assert_true(mk_j->has_ua);
	for (int i = 0; i < 3; ++i) {
		struct pm_rt_choice c;
		struct pm_rt_device d = { 132, { 0 }, mk_clusters, NULL };
		struct pm_rt_problem p = { 0, 0, { 0 }, 0, 0, 0, 0, 0, 0 };

		assert_int_equal(mk_run(k, ua_sz[i], ua[i], NULL, 0, 1), 0);
		assert_int_equal(mk.launches, 1);
		for (int r = 0; r < mk_j->nrows; ++r)
			d.occ[r] = mk_occ(mk_j->rows[r].threads,
				mk_j->rows[r].smem);
		p.m = pm_rt_dim_value(&mk_j->m, ua_sz[i]);
		p.n = pm_rt_dim_value(&mk_j->n, ua_sz[i]);
		p.k[0] = pm_rt_dim_value(&mk_j->k[0], ua_sz[i]);
		p.unaligned = 1;
		assert_int_equal(pm_rt_plan(&mk_j->spec, mk_j->rows,
			mk_j->nrows, &d, &p, NULL, &c), 0);
		assert_int_equal(mk_j->rows[c.v].role, PM_RT_UNALIGNED);
		mk_check(&c, ua_sz[i], ua[i]);
	}
	/* the other rows, forced, cannot */
	setenv("POLYMMA_VARIANT", "_base", 1);
	assert_int_equal(mk_run(k, badn, mk_t, NULL, 0, 1), PM_RT_L_EINVAL);
	unsetenv("POLYMMA_VARIANT");
	assert_int_equal(mk_run(k, zero, mk_t, NULL, 0, 1), PM_RT_L_EINVAL);
	assert_non_null(strstr(k->err, "M = 0"));
	assert_int_equal(mk_run(k, ok, odd_a, NULL, 0, 1), PM_RT_L_EINVAL);
	assert_non_null(strstr(k->err, "tensor A is not 2-byte"));
	assert_int_equal(mk_run(k, ok, odd_bias, NULL, 0, 1), PM_RT_L_EINVAL);
	assert_non_null(strstr(k->err, "tensor bias is not 2-byte"));
	assert_int_equal(mk.launches, 0);
	setenv("POLYMMA_VARIANT", "_nope", 1);
	assert_int_equal(mk_run(k, ok, mk_t, NULL, 0, 1), PM_RT_L_EINVAL);
	/* the wide row's guarded kernel where its tile does not divide
	 * (docs/decisions/0065) */
	setenv("POLYMMA_VARIANT", "_persist_wide", 1);
	assert_int_equal(mk_run(k, ok, mk_t, NULL, 0, 1), 0);
	assert_int_equal(mk.launches, 1);
	unsetenv("POLYMMA_VARIANT");
	pm_rt_kernel_free(k);
	/* an exact row (an epilogue chain's wide one, 0018) there: refused */
	for (int r = 0; r < gbr90.nrows; ++r)
		if (gbr90.rows[r].role == PM_RT_PERSIST_WIDE) {
			const unsigned flags = gbr90.rows[r].flags;

			gbr90.rows[r].flags = PM_RT_EXACT;
			k = mk_kernel();
			setenv("POLYMMA_VARIANT", "_persist_wide", 1);
			assert_int_equal(mk_run(k, ok, mk_t, NULL, 0, 1),
				PM_RT_L_EINVAL);
			assert_int_equal(mk.launches, 0);
			unsetenv("POLYMMA_VARIANT");
			pm_rt_kernel_free(k);
			gbr90.rows[r].flags = flags;
		}
	pm_cuda_override(NULL);
}

/* Every row of k forced where it runs, split rows with s = 4; the
 * caller's workspace too small: the plan without one. */
static void forced_rows(struct pm_rt_kernel *k)
{
	const int64_t s[3] = { 256, 8192, 384 }, x[3] = { 768, 512, 768 };
	int ran = 0, clusters = 0, z = 0;

	assert_non_null(k);
	for (int r = 0; r < gbr90.nrows; ++r)
		for (int pass = 0; pass < 2; ++pass) {
			const int64_t *sz = pass ? x : s;
			char f[64];
			struct pm_rt_choice c;
			int split = gbr90.kern[r].nsplit && gbr90.rows[r].role !=
				PM_RT_BASE;

			snprintf(f, sizeof(f), "%s%s", *gbr90.kern[r].suffix ?
				gbr90.kern[r].suffix : "_base", split && !pass ?
				",s=4" : "");
			setenv("POLYMMA_VARIANT", f, 1);
			if (mk_run(k, sz, mk_t, NULL, 0, 1))
				continue;	/* the row cannot run sz */
			mk_expect(sz, f, 0, &c);
			assert_int_equal(c.v, r);
			mk_check(&c, sz, mk_t);
			clusters += mk.cluster > 1;
			if (mk.cluster > 1)
				assert_int_equal(mk.cluster, c.cl);
			z += mk.grid[2] == 4;
			ran++;
		}
	assert_true(ran >= gbr90.nrows);
	assert_true(clusters >= 1);
	assert_true(z >= 1);
	/* NAME_ws with a workspace too small: unsplit */
	setenv("POLYMMA_VARIANT", "_split,s=4", 1);
	{
		struct pm_rt_choice c;
		static char ws[64] __attribute__((aligned(256)));

		assert_int_equal(mk_run(k, s, mk_t, ws, sizeof(ws), 0),
			PM_RT_L_EINVAL);	/* forced: no fallback */
		unsetenv("POLYMMA_VARIANT");
		mk_expect(s, NULL, 1, &c);
		assert_int_equal(mk_run(k, s, mk_t, ws, sizeof(ws), 0), 0);
		mk_check(&c, s, mk_t);
		/* no workspace used: unsplit, or split in clusters (this
		 * size since decision 0041) */
		assert_true(c.ws_bytes == 0 || c.cl > 1);
		if (c.cl <= 1)
			assert_null(mk.part);
	}
	pm_rt_kernel_free(k);
	pm_cuda_override(NULL);
}

static void launch_forced(void **state)
{
	(void) state;
	forced_rows(mk_kernel());
}

/* The same from functions spread over 3 modules (api/jitparts.c): each
 * launch finds its function in the module that holds it. */
static void launch_parts(void **state)
{
	const unsigned char *c = (const unsigned char *) "", *c2[2] = { c, c };
	size_t n = 1, n2[2] = { 1, 1 };

	(void) state;
	forced_rows(mk_kernel_parts(3));
	/* no cubin, or more than a kernel holds: none */
	assert_null(pm_rt_kernel_new(&gbr90, 0, &c, &n));
	assert_null(pm_rt_kernel_new(&gbr90, PM_RT_MAX_PARTS + 1, &c, &n));
	/* a row's part past the cubins (a corrupt cache entry): none */
	assert_null(pm_rt_kernel_new(&gbr90, 2, c2, n2));
}

/* An epilogue reduction's file (gemm_rowsum, sm_90a; decisions/0037,
 * 0056): every launch takes its workspace, the partials after the
 * counters; the kept one zeroed, the caller's checked. */
static void launch_red(void **state)
{
	static struct pm_rt_jit rs;
	static const unsigned char cubin[4] = { 0x7f, 'E', 'L', 'F' };
	static char ws[1 << 20] __attribute__((aligned(256)));
	const unsigned char *c = cubin;
	size_t n = sizeof(cubin), cnt, need;
	int64_t s[3];	/* M = 1000, N = 3000, K = 520 in the spec's order */
	static char sums[256] __attribute__((aligned(256)));
	void *t[5] = { mk_mem[0], mk_mem[1], mk_mem[2], mk_mem[3], sums };
	struct pm_rt_kernel *k;
	int rc;
	char *src = generate("../tests/specs/gemm_rowsum", "sm_90a", &rs, &rc);

	(void) state;
	assert_int_equal(rc, 0);
	free(src);
	assert_int_equal(rs.nsyms, 3);
	for (int i = 0; i < 3; ++i)
		s[i] = !strcmp(rs.sym_name[i], "M") ? 1000 :
			!strcmp(rs.sym_name[i], "N") ? 3000 : 520;
	assert_int_equal(rs.red, 1);	/* rows kept */
	assert_int_equal(rs.red_bm, 64);
	assert_int_equal(rs.red_bn, 64);
	pm_rt_jit_fix(&rs);
	mk_j = &rs;
	memset(&mk, 0, sizeof(mk));
	pm_cuda_override(&mk_cuda);
	k = pm_rt_kernel_new(&rs, 1, &c, &n);
	assert_non_null(k);
	need = pm_rt_jit_red_bytes(&rs, s, &cnt);
	/* the counters of 63 panels of 16 rows, then 1000 x 47 partials */
	assert_int_equal(cnt, 256);
	assert_int_equal(need, 256 + 1000 * 47 * 4);
	assert_int_equal(pm_rt_kernel_ws_size(k, s), need);
	assert_int_equal(pm_rt_kernel_launch(k, t, s, NULL, 0, 1, 0), 0);
	assert_int_equal(mk.launches, 1);
	assert_int_equal(mk.alloc, need);
	assert_true(mk.memset0 >= 1);
	assert_ptr_equal(mk.rpart, (char *) mk.rcnt + cnt);
	/* the caller's: too small, misaligned, none: refused */
	assert_int_equal(pm_rt_kernel_launch(k, t, s, ws, need - 1, 0, 0),
		PM_RT_L_EINVAL);
	assert_int_equal(pm_rt_kernel_launch(k, t, s, ws + 8, need, 0, 0),
		PM_RT_L_EINVAL);
	assert_int_equal(pm_rt_kernel_launch(k, t, s, NULL, 0, 0, 0),
		PM_RT_L_EINVAL);
	assert_int_equal(mk.launches, 1);
	assert_int_equal(pm_rt_kernel_launch(k, t, s, ws, need, 0, 0), 0);
	assert_ptr_equal(mk.rcnt, ws);
	assert_ptr_equal(mk.rpart, ws + cnt);
	pm_rt_kernel_free(k);
	pm_cuda_override(NULL);
}

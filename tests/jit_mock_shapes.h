/* The JIT launcher on the mock driver (tests/jit_mock.h) for files of
 * other shapes: batched and grouped specs, K-major copies, clusters of two
 * multicasting blocks, launcher-applied prologues. Included once,
 * by tests/test_jit.c, after jit_mock.h. */

/* s (spec order) from "Bt=3,M=1000,..." */
static void mk_sizes(const struct pm_rt_jit *j, const char *str, int64_t *s)
{
	for (int i = 0; i < j->nsyms; ++i) {
		char pat[80];
		const char *p;

		snprintf(pat, sizeof(pat), "%s=", j->sym_name[i]);
		p = strstr(str, pat);
		while (p && p != str && p[-1] != ',')
			p = strstr(p + 1, pat);
		if (!p)
			fail_msg("%s: no %s in %s", j->name, pat, str);
		s[i] = atoll(p + strlen(pat));
	}
}

/* spec generated for sm_90a into *j, the mock installed: its kernel
 * (one ELF cubin). */
static struct pm_rt_kernel *mk_file(const char *spec, struct pm_rt_jit *j)
{
	static const unsigned char cubin[4] = { 0x7f, 'E', 'L', 'F' };
	const unsigned char *cb = cubin;
	size_t nc = sizeof(cubin);
	struct pm_rt_kernel *k;
	int rc;
	char *src = generate(spec, "sm_90a", j, &rc);

	assert_int_equal(rc, 0);
	free(src);
	pm_rt_jit_fix(j);
	mk_j = j;
	memset(&mk, 0, sizeof(mk));
	pm_cuda_override(&mk_cuda);
	k = pm_rt_kernel_new(j, 1, &cb, &nc);
	assert_non_null(k);
	return k;
}

/* Row r forced at s (the stream's kept workspace): 1 where it ran, c
 * its choice; 0 where it cannot run s. */
static int mk_forced(struct pm_rt_kernel *k, int r, const int64_t *s,
	void *const *t, struct pm_rt_choice *c)
{
	char f[64];

	snprintf(f, sizeof(f), "%s", *mk_j->kern[r].suffix ?
		mk_j->kern[r].suffix : "_base");
	setenv("POLYMMA_VARIANT", f, 1);
	if (mk_run(k, s, t, NULL, 0, 1))
		return 0;
	mk_expect(s, f, 0, c);
	assert_int_equal(c->v, r);
	return 1;
}

/* Batched and grouped files (docs/decisions/0036, 0042, 0045, 0051):
 * the plan's launch and every row forced at each size, their grids (the
 * batch in z or in the units), 3-D maps of the batched tensors; past
 * 65535 batches refused. */
static void launch_batched(void **state)
{
	static const struct {
		const char *spec, *sizes[4];
	} cases[] = {
		{ "../tests/specs/bmm_nn", { "Bt=3,M=1000,N=776,K=520",
		  "Bt=64,M=512,N=512,K=512", "Bt=1,M=4096,N=4096,K=4096",
		  "Bt=16,M=2048,N=2048,K=128" } },
		{ "../tests/specs/bmm_bias", { "Bt=3,M=127,N=264,K=72",
		  "Bt=8,M=1024,N=1024,K=1024", "Bt=2,M=4096,N=4096,K=512",
		  "Bt=1,M=64,N=64,K=64" } },
		{ "../tests/specs/moe_up", { "E=8,T=6208,N=4096,K=4096",
		  "E=3,T=1,N=776,K=520", "E=64,T=4096,N=1024,K=2048",
		  "E=1,T=129,N=128,K=64" } },
	};
	static char mem[8][1024] __attribute__((aligned(256)));
	static struct pm_rt_jit j;
	void *t[8];

	(void) state;
	for (int i = 0; i < 8; ++i)
		t[i] = mem[i];
	for (size_t e = 0; e < sizeof(cases) / sizeof(*cases); ++e) {
		int forced = 0, zs = 0;
		struct pm_rt_kernel *k = mk_file(cases[e].spec, &j);
		int64_t s[PM_RT_JIT_SYMS];

		assert_int_equal(j.nbatch, 1);
		assert_int_equal(j.grouped, e == 2);
		for (int z = 0; z < 4; ++z) {
			struct pm_rt_choice c;

			mk_sizes(&j, cases[e].sizes[z], s);
			unsetenv("POLYMMA_VARIANT");
			mk_expect(s, NULL, 0, &c);
			assert_int_equal(mk_run(k, s, t, NULL, 0, 1), 0);
			assert_int_equal(mk.launches, 1);
			mk_check(&c, s, t);
			for (int r = 0; r < j.nrows; ++r) {
				if (!mk_forced(k, r, s, t, &c))
					continue;	/* cannot run s */
				mk_check(&c, s, t);
				zs += mk.grid[2] > 1;
				forced++;
			}
		}
		unsetenv("POLYMMA_VARIANT");
		assert_true(forced >= j.nrows);
		/* batched: some row ran its batches in z */
		assert_true((zs > 0) == (e < 2));
		/* more batches than gridDim.z holds (units of groups: any) */
		if (e < 2) {
			mk_sizes(&j, "Bt=65536,M=64,N=64,K=64", s);
			assert_int_equal(mk_run(k, s, t, NULL, 0, 1),
				PM_RT_L_EINVAL);
			assert_non_null(strstr(k->err, "65535"));
			assert_int_equal(mk.launches, 0);
		}
		pm_rt_kernel_free(k);
		pm_cuda_override(NULL);
	}
}

/* The K-major copies expected before a launch at s whose workspace is
 * ws (launch.c, pm_kc_run_NAME after pm_rt_copy_offset or at 0), as
 * recorded; tt: t with each copied tensor at its copy. */
static void mk_check_copies(const struct pm_rt_choice *c, const int64_t *s,
	void *const *t, char *ws, void **tt)
{
	size_t off[PM_RT_JIT_KC];
	char *at = ws + (mk_j->kc_split ? pm_rt_copy_offset(c) : 0);

	pm_rt_jit_kc_bytes(mk_j, s, off);
	assert_int_equal(mk.ncopies, mk_j->nkc);
	for (int i = 0; i < mk_j->ntensors; ++i)
		tt[i] = t[i];
	for (int i = 0; i < mk_j->nkc; ++i) {
		const struct pm_rt_jit_kc *k = &mk_j->kc[i];
		const int64_t r = pm_rt_dim_value(&k->r, s);
		const int64_t n = pm_rt_dim_value(&k->c, s);

		assert_ptr_equal(mk.copies[i].x, t[k->tensor]);
		assert_ptr_equal(mk.copies[i].y, at + off[i]);
		assert_int_equal(((char *) mk.copies[i].y - ws) % 256, 0);
		assert_int_equal(mk.copies[i].r, r);
		assert_int_equal(mk.copies[i].c, n);
		/* kcopy.cuh's tiles and block (pm_kcopy) */
		assert_int_equal(mk.copies[i].tc, (n + PM_KC_COLS - 1) /
			PM_KC_COLS);
		assert_int_equal(mk.copies[i].grid, (r + PM_KC_ROWS - 1) /
			PM_KC_ROWS * mk.copies[i].tc);
		assert_int_equal(mk.copies[i].block, PM_KC_THREADS);
		assert_int_equal(mk.copies[i].smem, 0);
		assert_int_equal(mk.copies[i].after, 0);
		/* never over the split's counters or slots */
		if (mk_j->kc_split)
			assert_true((size_t) (at - ws) >= (c->ws_bytes > 4096 ?
				c->ws_bytes : 4096));
		tt[k->tensor] = at + off[i];
	}
}

/* Files with K-major copies (an 8-bit operand declared MN-major,
 * docs/decisions/0033): every launch, the plan's and every row's, runs
 * the copies into the workspace first and the kernel on them; the
 * caller's workspace checked, the split dropped where it lacks room. */
static void launch_kc(void **state)
{
	static const struct {
		const char *spec, *sizes[3];
		int nkc;
	} cases[] = {
		{ "../tests/specs/gemm_f8e4m3_nn", { "M=1000,N=776,K=528",
		  "M=16,N=4096,K=4096", "M=4096,N=4096,K=4096" }, 1 },
		{ "../tests/specs/add_gemm_f8e4m3_mn", { "M=1000,N=776,K=528",
		  "M=129,N=264,K=80", "M=8,N=1024,K=8192" }, 3 },
	};
	static char mem[8][1024] __attribute__((aligned(256)));
	static char ws[1 << 25] __attribute__((aligned(256)));	/* untouched */
	static struct pm_rt_jit j;
	void *t[8], *tt[8];

	(void) state;
	for (int i = 0; i < 8; ++i)
		t[i] = mem[i];
	for (size_t e = 0; e < sizeof(cases) / sizeof(*cases); ++e) {
		int forced = 0, split = 0;
		struct pm_rt_kernel *k = mk_file(cases[e].spec, &j);
		int64_t s[PM_RT_JIT_SYMS];

		assert_int_equal(j.nkc, cases[e].nkc);
		for (int z = 0; z < 3; ++z) {
			struct pm_rt_choice c;
			size_t need;

			mk_sizes(&j, cases[e].sizes[z], s);
			unsetenv("POLYMMA_VARIANT");
			mk_expect(s, NULL, 0, &c);
			need = (j.kc_split ? pm_rt_copy_offset(&c) : 0) +
				pm_rt_jit_kc_bytes(&j, s, NULL);
			assert_int_equal(pm_rt_kernel_ws_size(k, s), need);
			/* the stream's kept workspace */
			assert_int_equal(mk_run(k, s, t, NULL, 0, 1), 0);
			assert_int_equal(mk.launches, 1);
			assert_true(mk.alloc >= need);
			mk_check_copies(&c, s, t, mk.alloc_p, tt);
			mk_check(&c, s, tt);
			/* the caller's: none, or misaligned: refused */
			assert_int_equal(mk_run(k, s, t, NULL, 0, 0),
				PM_RT_L_EINVAL);
			assert_non_null(strstr(k->err, "K-major"));
			assert_int_equal(mk_run(k, s, t, ws + 8, need, 0),
				PM_RT_L_EINVAL);
			assert_int_equal(mk.ncopies + mk.launches, 0);
			assert_true(need <= sizeof(ws));
			assert_int_equal(mk_run(k, s, t, ws, need, 0), 0);
			mk_check_copies(&c, s, t, ws, tt);
			mk_check(&c, s, tt);
			/* room for the copies only: the plan without the
			 * split's part */
			if (c.ws_bytes) {
				size_t kb = pm_rt_jit_kc_bytes(&j, s, NULL);

				split++;
				mk_expect(s, NULL, 1, &c);
				assert_int_equal(mk_run(k, s, t, ws,
					pm_rt_copy_offset(&c) + kb, 0), 0);
				mk_check_copies(&c, s, t, ws, tt);
				mk_check(&c, s, tt);
			}
			for (int r = 0; r < j.nrows; ++r) {
				if (!mk_forced(k, r, s, t, &c))
					continue;	/* cannot run s */
				mk_check_copies(&c, s, t, mk.alloc_p, tt);
				mk_check(&c, s, tt);
				forced++;
			}
		}
		unsetenv("POLYMMA_VARIANT");
		assert_true(forced >= j.nrows);
		assert_true(split > 0);
		pm_rt_kernel_free(k);
		pm_cuda_override(NULL);
	}
}

/* --cluster 2 (docs/decisions/0017): the plan's launch and every row
 * forced, the cluster rows on an even grid of at most the pairs of tile
 * rows, half the plan's blocks and the clusters resident (launch.c,
 * mc_grid), odd plan grids included. */
static void launch_mc(void **state)
{
	static const char *const sizes[] = { "M=1000,N=776,K=520",
		"M=128,N=384,K=64", "M=384,N=128,K=64", "M=4104,N=264,K=4104",
		"M=4096,N=4096,K=4096", "M=256,N=384,K=8192" };
	static char mem[4][1024] __attribute__((aligned(256)));
	static struct pm_rt_jit j;
	void *t[4] = { mem[0], mem[1], mem[2], mem[3] };
	int64_t s[PM_RT_JIT_SYMS];
	struct pm_rt_kernel *k;
	int mc = 0, nmc = 0;

	(void) state;
	gen_opt[0] = "cluster", gen_opt[1] = "2";
	k = mk_file("gemm_nn", &j);
	gen_opt[0] = gen_opt[1] = NULL;
	for (int r = 0; r < j.nrows; ++r)
		nmc += j.kern[r].mc;
	assert_true(nmc >= 3);
	for (size_t z = 0; z < sizeof(sizes) / sizeof(*sizes); ++z) {
		struct pm_rt_choice c;

		mk_sizes(&j, sizes[z], s);
		unsetenv("POLYMMA_VARIANT");
		mk_expect(s, NULL, 0, &c);
		assert_int_equal(mk_run(k, s, t, NULL, 0, 1), 0);
		mk_check(&c, s, t);
		for (int r = 0; r < j.nrows; ++r) {
			if (!mk_forced(k, r, s, t, &c))
				continue;
			mk_check(&c, s, t);
			if (j.kern[r].mc) {
				assert_int_equal(mk.grid[0] % 2, 0);
				mc++;
			}
		}
	}
	unsetenv("POLYMMA_VARIANT");
	assert_true(mc >= 2 * nmc);
	pm_rt_kernel_free(k);
	pm_cuda_override(NULL);
}

/* The launcher-applied prologues' copies expected before a launch of
 * choice c at s (emit/pre.c: after the split's part, pre_off, each
 * 256-aligned) in workspace ws, as recorded; tt: t with each copied
 * tensor at its copy. */
static void mk_check_pres(const struct pm_rt_choice *c, const int64_t *s,
	void *const *t, char *ws, void **tt)
{
	char *at = ws + c->pre_off;

	for (int i = 0; i < mk_j->ntensors; ++i)
		tt[i] = t[i];
	if (!(mk_j->rows[c->v].flags & PM_RT_PRE)) {
		assert_int_equal(mk.npres, 0);
		return;
	}
	assert_int_equal(mk.npres, mk_j->npre);
	assert_true(c->pre_off >= PM_RT_CNT_BYTES);
	assert_int_equal(c->pre_off % 256, 0);
	for (int i = 0; i < mk_j->npre; ++i) {
		const struct pm_rt_jit_pre *p = &mk_j->pre[i];
		const int64_t r = pm_rt_dim_value(&p->r, s);
		const int64_t n = pm_rt_dim_value(&p->c, s);
		char want[96];

		snprintf(want, sizeof(want), "pm_pre_%s_%s", mk_j->name,
			mk_j->tname[p->tensor]);
		assert_string_equal(mk.pres[i].fn, want);
		/* every copy reads the operands as given */
		for (int u = 0; u < mk_j->ninputs; ++u)
			assert_ptr_equal(mk.pres[i].in[u], t[u]);
		assert_ptr_equal(mk.pres[i].y, at);
		assert_int_equal(mk.pres[i].r, r);
		assert_int_equal(mk.pres[i].c, n);
		for (int u = 0; u < mk_j->nsizes; ++u)
			assert_int_equal(mk.pres[i].sz[u], s[mk_j->order[u]]);
		const int64_t nb = p->batched ? pm_rt_jit_batch(mk_j, s) : 1;

		assert_int_equal(mk.pres[i].grid, (r * n / 8 * nb + 255) / 256);
		assert_int_equal(mk.pres[i].block, 256);
		assert_int_equal(mk.pres[i].after, 0);
		tt[p->tensor] = at;
		at += ((size_t) (r * n) * (size_t) p->esize * (size_t) nb +
			255) / 256 * 256;
	}
	assert_true((size_t) (at - ws) <= c->ws_bytes);
}

/* Launcher-applied prologues (docs/decisions/0059): gemm_w8_zp (i8
 * weights, a zero point and a scale), bmm_dequant (batched, a copy of
 * every batch) and moe_w8 (grouped i8 weights): the plan's launch and
 * every row forced, a PM_RT_PRE row after its copy into the workspace
 * with the copy's map; a caller's workspace without room: the plan
 * without those rows. */
static void launch_pre(void **state)
{
	static const struct {
		const char *spec, *sizes[4];
	} cases[] = {
		{ "../tests/specs/gemm_w8_zp", { "M=4096,N=4096,K=4096",
		  "M=16,N=4096,K=4096", "M=1000,N=784,K=520",
		  "M=256,N=11008,K=4096" } },
		{ "../tests/specs/bmm_dequant", { "Bt=2,M=4096,N=4096,K=512",
		  "Bt=3,M=1000,N=784,K=520", "Bt=1,M=64,N=64,K=64",
		  "Bt=5,M=512,N=1024,K=1024" } },
		{ "../tests/specs/moe_w8", { "E=8,T=6208,N=4096,K=4096",
		  "E=3,T=129,N=272,K=80", "E=2,T=8192,N=1024,K=512",
		  "E=64,T=3006,N=2048,K=1024" } },
	};
	static char mem[8][1024] __attribute__((aligned(256)));
	static struct pm_rt_jit j;
	void *t[8], *tt[8];

	(void) state;
	for (int i = 0; i < 8; ++i)
		t[i] = mem[i];
	for (size_t e = 0; e < sizeof(cases) / sizeof(*cases); ++e) {
		struct pm_rt_kernel *k = mk_file(cases[e].spec, &j);
		int npre = 0, plain_pre = 0;

		assert_int_equal(j.npre, 1);
		assert_int_equal(j.pre[0].batched, e > 0);
		assert_int_equal(j.pre[0].per_group, e == 2);
		for (int z = 0; z < 4; ++z) {
			int64_t s[PM_RT_JIT_SYMS];
			struct pm_rt_choice c;

			mk_sizes(&j, cases[e].sizes[z], s);
			unsetenv("POLYMMA_VARIANT");
			mk_expect(s, NULL, 0, &c);
			assert_int_equal(pm_rt_kernel_ws_size(k, s), c.ws_bytes);
			assert_int_equal(mk_run(k, s, t, NULL, 0, 1), 0);
			assert_int_equal(mk.launches, 1);
			mk_check_pres(&c, s, t, mk.alloc_p, tt);
			mk_check(&c, s, tt);
			plain_pre += !!(j.rows[c.v].flags & PM_RT_PRE);
			/* no workspace of the caller's: a row without copies */
			if (j.rows[c.v].flags & PM_RT_PRE) {
				mk_expect(s, NULL, 1, &c);
				assert_int_equal(mk_run(k, s, t, NULL, 0, 0), 0);
				assert_false(j.rows[c.v].flags & PM_RT_PRE);
				mk_check_pres(&c, s, t, NULL, tt);
				mk_check(&c, s, t);
			}
			for (int r = 0; r < j.nrows; ++r) {
				if (!mk_forced(k, r, s, t, &c))
					continue;
				mk_check_pres(&c, s, t, mk.alloc_p, tt);
				mk_check(&c, s, tt);
				npre += !!(j.rows[r].flags & PM_RT_PRE);
			}
		}
		unsetenv("POLYMMA_VARIANT");
		/* the large grids' plan and most forced rows read the copy */
		assert_true(plain_pre >= 1);
		assert_true(npre >= 8);
		pm_rt_kernel_free(k);
		pm_cuda_override(NULL);
	}
}

/* Programmatic dependent launch (docs/decisions/0068-pdl.md): an sm_90a
 * file's kernels are launched with the programmatic dependency (every row
 * forced; mk_check compares mk.pdl with the description's), --pdl off's
 * without it, and a driver without cuLaunchKernelEx launches them plain;
 * sm_80 files have none. */
static void launch_pdl(void **state)
{
	static char mem[4][1 << 16] __attribute__((aligned(256)));
	static struct pm_rt_jit j, off, j80;
	void *t[4] = { mem[0], mem[1], mem[2], mem[3] };
	int64_t s[PM_RT_JIT_SYMS];
	struct pm_rt_kernel *k;
	struct pm_rt_choice c;
	struct pm_cuda no_ex;
	int rc, ran = 0;

	(void) state;
	k = mk_file("gemm_nn", &j);
	assert_int_equal(j.pdl, 1);
	mk_sizes(&j, "M=100,N=136,K=72", s);
	for (int r = 0; r < j.nrows; ++r)
		if (mk_forced(k, r, s, t, &c)) {
			mk_check(&c, s, t);
			assert_int_equal(mk.pdl, 1);
			ran++;
		}
	assert_true(ran >= 3);
	unsetenv("POLYMMA_VARIANT");
	/* no cuLaunchKernelEx: plain launches (the kernels' wait a no-op) */
	no_ex = mk_cuda;
	no_ex.LaunchKernelEx = NULL;
	pm_cuda_override(&no_ex);
	mk_expect(s, NULL, 0, &c);
	assert_int_equal(mk_run(k, s, t, NULL, 0, 1), 0);
	assert_int_equal(mk.launches, 1);
	assert_int_equal(mk.pdl, 0);
	pm_rt_kernel_free(k);
	/* --pdl off */
	gen_opt[0] = "pdl", gen_opt[1] = "off";
	k = mk_file("gemm_nn", &off);
	gen_opt[0] = gen_opt[1] = NULL;
	assert_int_equal(off.pdl, 0);
	mk_expect(s, NULL, 0, &c);
	assert_int_equal(mk_run(k, s, t, NULL, 0, 1), 0);
	mk_check(&c, s, t);
	assert_int_equal(mk.pdl, 0);
	pm_rt_kernel_free(k);
	pm_cuda_override(NULL);
	/* a target without it */
	free(generate("gemm_nn", "sm_80", &j80, &rc));
	assert_int_equal(rc, 0);
	assert_int_equal(j80.pdl, 0);
}

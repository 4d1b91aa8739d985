/* runtime/plan.c over the rows the library builds (tests/plan_util.h's
 * pm_test_rows) on the H100 model: the unaligned rule
 * (docs/decisions/0046) on every target and example, and a grouped file's
 * rules (docs/decisions/0051), the pitch rule (docs/decisions/0053). The
 * hand-written tables' plans are test_rt_plan.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/plan.h"
#include "tests/plan_util.h"

/* The unaligned rule (docs/decisions/0046-narrow-copies.md): a problem
 * that needs narrow copies runs the _unaligned row, unsplit, whatever its
 * size, and nothing else (a forced other row, or a split of it, cannot);
 * an aligned one never runs it unless forced, on the library's rows of
 * every target; a file without the row cannot run such a problem. */
static void test_unaligned(void **state)
{
	static const char *const targets[] = { "sm_70", "sm_80", "sm_90a" };
	static const int64_t sz[] = { 1, 7, 8, 127, 129, 777, 1000, 4095,
		4096, 4097, 16384 };
	const int ns = (int) (sizeof(sz) / sizeof(sz[0]));

	(void) state;
	for (int t = 0; t < 3; ++t)
		for (int e = 0; e < 4; ++e) {
			static const char *const ex[] = { "gemm_nn",
				"gemm_bias_relu", "add_gemm", "relu_gemm" };
			struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
			struct pm_rt_spec f;
			int nv = pm_test_rows(ex[e], targets[t], NULL, v, &f);
			struct pm_rt_device d = pm_test_h100(v, nv);
			int ua = pm_test_row(v, nv, "_unaligned");
			struct pm_rt_force force = { -1, 0 };

			assert_true(nv > 1);
			assert_true(ua >= 0);
			assert_int_equal(v[ua].role, PM_RT_UNALIGNED);
			for (int i = 0; i < ns; ++i)
				for (int j = 0; j < ns; j += 2) {
					struct pm_rt_problem p;
					struct pm_rt_choice c;

					memset(&p, 0, sizeof(p));
					p.m = sz[i], p.n = sz[j];
					for (int r = 0; r < PM_RT_MAX_K; ++r)
						p.k[r] = sz[(i + j) % ns];
					assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p,
						NULL, &c), PM_RT_OK);
					assert_int_not_equal(c.v, ua);
					p.unaligned = 1;
					assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p,
						NULL, &c), PM_RT_OK);
					assert_int_equal(c.v, ua);
					assert_int_equal(c.s, 1);
					assert_int_equal(c.ws_bytes, 0);
					assert_int_equal(c.v_nows, ua);
					assert_int_equal(c.grid, ((sz[i] + v[ua].bm -
						1) / v[ua].bm) * ((sz[j] + v[ua].bn - 1) /
						v[ua].bn));
					assert_int_equal(c.exact, sz[i] % v[ua].bm ==
						0 && sz[j] % v[ua].bn == 0);
					/* forced: itself, not another row, not split */
					force.v = ua, force.s = 0;
					assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p,
						&force, &c), PM_RT_OK);
					assert_int_equal(c.v, ua);
					force.s = 2;
					assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p,
						&force, &c), PM_RT_EILLEGAL);
					force.v = pm_test_row(v, nv, ""), force.s = 0;
					assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p,
						&force, &c), PM_RT_EILLEGAL);
					/* aligned, forced: the row runs it */
					p.unaligned = 0;
					force.v = ua;
					assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p,
						&force, &c), PM_RT_OK);
					assert_int_equal(c.v, ua);
					assert_int_equal(c.s, 1);
					force.v = -1;
				}
			/* without the row: refused */
			{
				struct pm_rt_problem p;
				struct pm_rt_choice c;

				memset(&p, 0, sizeof(p));
				p.m = p.n = 777, p.k[0] = p.k[1] = 777;
				p.unaligned = 1;
				v[ua] = v[nv - 1];
				assert_int_equal(pm_rt_plan(&f, v, nv - 1, &d, &p,
					NULL, &c), PM_RT_EILLEGAL);
			}
		}
}

/* A grouped file (docs/decisions/0051, 0055): at the 15 problems of
 * decision 0055 (E groups, T rows, N; K 4096), the row its grouped rule
 * picks (the measured best or within 3 % of it, but at 1,408 tiles of
 * 1408 x 2048: the base row, 2.5 % behind _persist_mid); every persistent
 * row runs where forced. */
static void test_grouped(void **state)
{
	static const struct {
		int e;
		int64_t t, n;
		int role;
	} want[] = {
		{ 8, 6208, 4096, PM_RT_BASE },
		{ 8, 8192, 14336, PM_RT_PERSIST_MID },
		{ 8, 128, 14336, PM_RT_PERSIST_NARROW },
		{ 64, 3006, 2048, PM_RT_BASE },
		{ 16, 12579, 4096, PM_RT_PERSIST_MID },
		{ 8, 128, 4096, PM_RT_SMALL_TMA },
		{ 8, 256, 14336, PM_RT_PERSIST_NARROW },
		{ 8, 512, 11008, PM_RT_PERSIST_NARROW },
		{ 8, 16384, 4096, PM_RT_PERSIST_MID },
		{ 8, 4096, 14336, PM_RT_PERSIST_MID },
		{ 8, 8192, 11008, PM_RT_PERSIST_MID },
		{ 16, 4096, 4096, PM_RT_BASE },
		{ 64, 4096, 2048, PM_RT_BASE },
		{ 32, 16384, 1408, PM_RT_BASE },
		{ 8, 32768, 14336, PM_RT_PERSIST_MID },
	};
	struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	int nv = pm_test_rows("../bench/specs/group_gemm", "sm_90a", NULL, v,
		&f);
	struct pm_rt_device d = pm_test_h100(v, nv);
	struct pm_rt_force none = { -1, 0 };
	int np = 0;

	(void) state;
	assert_true(nv > 1);
	for (int i = 0; i < nv; ++i)
		np += v[i].role >= PM_RT_PERSIST &&
			v[i].role <= PM_RT_PERSIST_SKINNY;
	assert_int_equal(np, 3);	/* _persist, _mid, _narrow */
	for (size_t i = 0; i < sizeof(want) / sizeof(*want); ++i) {
		struct pm_rt_problem p;
		struct pm_rt_choice c;

		memset(&p, 0, sizeof(p));
		p.m = want[i].t, p.n = want[i].n, p.k[0] = 64;
		p.grouped = want[i].e;
		assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p, &none, &c),
			PM_RT_OK);
		if (v[c.v].role != want[i].role)
			fprintf(stderr, "E %d, %lldx%lld: %s\n", want[i].e,
				(long long) want[i].t, (long long) want[i].n,
				v[c.v].suffix);
		assert_int_equal(v[c.v].role, want[i].role);
		assert_int_equal(c.s, 1);
		for (int r = 0; r < nv; ++r) {
			struct pm_rt_force fr = { r, 0 };

			if (v[r].role < PM_RT_PERSIST ||
			    v[r].role > PM_RT_PERSIST_SKINNY)
				continue;
			assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p, &fr,
				&c), PM_RT_OK);
			assert_int_equal(c.v, r);
		}
	}
}

/* The row gemm_nn (sm_90a) runs at MxNxK with problem.mis = mis. */
static const char *pitch_row(int64_t m, int64_t n, int64_t k, int mis)
{
	static struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
	static struct pm_rt_spec f;
	static int nv;
	struct pm_rt_device d;
	struct pm_rt_problem p;
	struct pm_rt_choice c;

	if (!nv)
		nv = pm_test_rows("gemm_nn", "sm_90a", NULL, v, &f);
	assert_true(nv > 1);
	d = pm_test_h100(v, nv);
	memset(&p, 0, sizeof(p));
	p.m = m, p.n = n, p.k[0] = k, p.mis = mis;
	assert_int_equal(pm_rt_plan(&f, v, nv, &d, &p, NULL, &c), PM_RT_OK);
	return v[c.v].suffix;
}

/* The pitch rule (docs/decisions/0053-misaligned-pitch.md) at grids
 * measured on an H200 (cuBLAS time / ours of the rows named): rows not
 * whole 32-byte sectors in B (mis 2) or both (3) run the persistent row
 * of least rounds x area / flops per byte; in A alone (1) only in place
 * of the 128x128 rows; on one wave or less _persist for more 64x64 tiles
 * than SMs, _small_tma as the small row, no narrow row. */
static void test_pitch(void **state)
{
	static const struct {
		int64_t m, n, k;
		int mis;
		const char *row;
	} cases[] = {
		/* 3000^3: 128x192 0.65x cuBLAS, 192x192 0.78x */
		{ 3000, 3000, 3000, 0, "_persist_mid" },
		{ 3000, 3000, 3000, 3, "_persist_sq" },
		/* the base row 0.64x, 192x192 0.88x */
		{ 4096, 1000, 4096, 0, "" },
		{ 4096, 1000, 4096, 2, "_persist_sq" },
		/* 128 tiles of 128x192 fill a wave (0.86x; 192x192 0.76x) */
		{ 1000, 3000, 1920, 2, "_persist_mid" },
		/* A alone: the base row 0.78x, 192x192 0.89x; the wide row
		 * keeps 4096x4096x4104 (0.96x, 192x192 0.85x) */
		{ 2048, 2048, 2056, 1, "_persist_sq" },
		{ 4096, 4096, 4104, 1, "_persist_wide" },
		/* one wave or less: _small_tma 0.62x, _persist 0.79x (aligned:
		 * the slim row, docs/decisions/0067) */
		{ 1000, 1000, 1000, 0, "_persist_slim" },
		{ 1000, 1000, 1000, 3, "_persist" },
		/* one small tile per SM: _small 0.67x, _small_tma 0.83x */
		{ 1000, 512, 1000, 0, "_persist_slim" },
		{ 1000, 512, 1000, 3, "_small_tma" },
		/* the narrow row 0.61x, _persist 0.83x */
		{ 1256, 1000, 2000, 0, "_persist_narrow" },
		{ 1256, 1000, 2000, 3, "_persist" },
	};

	(void) state;
	/* the flags: 1000 and 4104 halves (2000, 8208 bytes) straddle */
	assert_int_equal(pm_rt_pitch_mis(1000, 2), 1);
	assert_int_equal(pm_rt_pitch_mis(4104, 2), 1);
	assert_int_equal(pm_rt_pitch_mis(1008, 2), 0);
	assert_int_equal(pm_rt_pitch_mis(1004, 4), 1);
	assert_int_equal(pm_rt_pitch_mis(1000, 1), 1);
	assert_int_equal(pm_rt_pitch_mis(0, 2), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		assert_string_equal(pitch_row(cases[i].m, cases[i].n,
			cases[i].k, cases[i].mis), cases[i].row);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unaligned),
		cmocka_unit_test(test_grouped),
		cmocka_unit_test(test_pitch),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

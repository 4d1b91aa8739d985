#define _POSIX_C_SOURCE 200809L
/* The TMA pipeline as generated for sm_90a (promote/tma.c, emit/tma.c):
 * the k loop's structure, the tensor maps, the small variant's twin, the
 * refusals of --tma on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"
#include "tests/plan_util.h"

/* Main kernel of a generated file (up to the next kernel or the host
 * code). */
static char *main_kernel(const char *s)
{
	const char *a = strstr(s, "__global__"), *e;
	char *k;

	assert_non_null(a);
	e = strstr(a + 1, "__global__");
	if (!e)
		e = a + strlen(a);
	k = strndup(a, (size_t) (e - a));
	assert_non_null(k);
	return k;
}

/* sm_90a default: TMA copies. One thread issues a tile's boxes after
 * arming the stage's full barrier; the k loop waits on mbarriers, has no
 * __syncthreads and no cp.async; the warps release a stage after their
 * MMAs drained; the launcher builds one tensor map per buffer. */
static void test_sm90a_tma(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	const char *tn[] = { "target", "sm_90a", NULL };
	const char *bpro = "def p(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		"    C(i, j) +=! A(i, k) * relu(B(k, j))\n}\n";
	char *s = gen("nn", opts, NULL, NULL), *k, *loop;

	(void) state;
	k = main_kernel(s);
	assert_non_null(strstr(k, "int K, const __grid_constant__ CUtensorMap "
		"pm_tm0, const __grid_constant__ CUtensorMap pm_tm1)"));
	assert_null(strstr(k, "pm_cp_async"));
	/* 2 prologue tiles and the loop's: A one box, B two 64-wide ones */
	assert_int_equal(count(k, "pm_tma_load_2d("), 9);
	assert_int_equal(count(k, "pm_mbar_arrive_tx("), 3);
	assert_non_null(strstr(k, "uint64_t *pm_bar = (uint64_t *) (pm_smem + "
		"98304);"));
	assert_non_null(strstr(k, "pm_mbar_init(&pm_bar[pm_i], pm_i % 6 < 3 ? "
		"1 : 8);"));
	/* both tensor maps' descriptors prefetched by the thread that
	 * initialises the barriers, before the fence */
	assert_non_null(strstr(k, "1 : 8);\n\t\tpm_tma_prefetch(&pm_tm0);\n"
		"\t\tpm_tma_prefetch(&pm_tm1);\n\t\tpm_mbar_init_fence();\n"));
	loop = strstr(k, "// red");
	assert_non_null(loop);
	assert_null(strstr(loop, "__syncthreads();\n\t\t\t\t\t\t"));
	/* wait, MMAs issued, next copies (stage of tile kt - 1 released),
	 * drain, release: in this order */
	{
		const char *w = strstr(loop, "pm_mbar_wait(&pm_bar[0 + ((c2)) % "
			"3], (((c2)) / 3) & 1);");
		const char *m = strstr(loop, "pm_sm90_mma_tile<");
		const char *c = strstr(loop, "if (threadIdx.x == 0 && pm_p1) { "
			"if ((c2 + 2) >= 3) pm_mbar_wait(&pm_bar[3 + ((c2 + 2) % "
			"3)], (((c2 + 2)) / 3 + 1) & 1); pm_mbar_arrive_tx(&pm_bar"
			"[0 + ((c2 + 2) % 3)], 32768); pm_tma_load_2d(&A_shared["
			"((c2 + 2) % 3) * 8192 + 0], &pm_tm0, &pm_bar[0 + ((c2 + 2) "
			"% 3)], (64 * c2 + 128) + 0, (128 * c0)); }");
		const char *dr = strstr(loop, "pm_sm90_drain<64>((float *) "
			"pm_acc);");
		const char *r = strstr(loop, "if (pm_lane_id() == 0) pm_mbar_"
			"arrive(&pm_bar[3 + ((c2)) % 3]);");

		assert_true(w && m && c && dr && r);
		assert_true(w < m && m < c && c < dr && dr < r);
	}
	free(k);
	/* the maps: A rows of 64 (128-byte swizzle), B 64-wide blocks */
	assert_non_null(strstr(s, "pm_tma_map_2d(&pm_tm0, A, M, K, K, 128, 64, "
		"128)"));
	assert_non_null(strstr(s, "pm_tma_map_2d(&pm_tm1, B, K, N, N, 64, 64, "
		"128)"));
	assert_non_null(strstr(s, ", (int) K, pm_tm0, pm_tm1);"));
	free(s);
	/* the small variant: cp.async, and a TMA twin the launcher runs from
	 * 3/2 blocks per SM on; none with --tma off, the small variant
	 * itself with --tma on */
	{
		const char *sv[] = { "target", "sm_90a", "small-variant", "auto",
			NULL };
		const char *sva[] = { "target", "sm_90a", "small-variant", "auto",
			"split-k", "auto", NULL };
		const char *sv1[] = { "target", "sm_90a", "small-variant", "auto",
			"split-k", "1", NULL };
		const char *sv2[] = { "target", "sm_90a", "small-variant", "auto",
			"split-k", "2", NULL };
		const char *off[] = { "target", "sm_90a", "small-variant", "auto",
			"tma", "off", NULL };
		const char *on[] = { "target", "sm_90a", "small-variant", "auto",
			"tma", "on", NULL };
		char *t = gen("nn", sv, NULL, NULL);
		const char *sm = strstr(t, "pm_kernel_gemm_nn_small("),
			*tw = strstr(t, "pm_kernel_gemm_nn_small_tma(");

		assert_true(sm && tw && sm < tw);
		assert_non_null(strstr(sm, "pm_cp_async16"));
		assert_true(strstr(sm, "pm_cp_async16") < tw);
		assert_non_null(strstr(tw, "pm_tma_load_2d(&"));
		free(t);
		/* (H100 model: 132 SMs) from 198 blocks of 64x64 on (200:
		 * 640x1280; 196: 896x896) */
		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", sv1,
			640, 1280, 1024), "_small_tma");
		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", sv1,
			896, 896, 1024), "_small");
		/* no split-K, no persistent kernels: no medium variant (and
		 * the _unaligned row, docs/decisions/0046) */
		assert_int_equal(pm_test_roles("gemm_nn", "sm_90a", sv1),
			1u << PM_RT_BASE | 1u << PM_RT_SMALL |
			1u << PM_RT_SMALL_TMA | 1u << PM_RT_UNALIGNED);
		/* the medium variant (64x128, one warpgroup), chosen by the
		 * split-K launch plan when its grid fills the waves 5/4 as
		 * well as the big kernel's */
		t = gen("nn", sva, NULL, NULL);
		assert_non_null(strstr(t, "__launch_bounds__(128, 1) "
			"pm_kernel_gemm_nn_medium("));
		{
			struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
			struct pm_rt_spec f;
			const int nv = pm_test_rows("gemm_nn", "sm_90a", sva, rows,
				&f);
			const int i = pm_test_role(rows, nv, PM_RT_MEDIUM);
			char *l = launch_case(t, i);
			struct pm_rt_choice c;

			assert_string_equal(rows[i].suffix, "_medium");
			assert_true(rows[i].bm == 64 && rows[i].bn == 128 &&
				rows[i].threads == 128);
			assert_non_null(l);
			assert_non_null(find_launch(l, "pm_kernel_gemm_nn_medium",
				"128, "));
			free(l);
			/* its blocks per SM asked with the others' */
			assert_non_null(strstr(t, "\t(const void *) "
				"pm_kernel_gemm_nn_medium,\n"));
			assert_non_null(strstr(t, "cudaOccupancyMaxActiveBlocksPer"
				"Multiprocessor(&o, pm_kernels_gemm_nn[i], v->threads, "
				"(size_t) v->smem)"));
			/* (H100 model) one partial wave of big blocks (133 to
			 * 263 tiles; 132: the persistent kernel, fewer: small)
			 * whose medium grid fills its waves more than 5/4 as well:
			 * 255 of 396 against 135 of 264 (1.26), not 136 (1.25);
			 * unsplit only (--split-k 2: where there is no
			 * workspace) */
			assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", sva,
				1088, 1920, 512), "_medium");
			assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", sva,
				960, 2176, 512), "_base");
			assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", sva,
				17024, 128, 512), "_medium");
			assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", sva,
				16896, 128, 512), "_persist");
			assert_string_equal(pm_test_plan_suffix("gemm_nn", "sm_90a",
				sv2, 1088, 1920, 512, &c), "_split");
			assert_int_equal(c.s, 2);
			assert_int_equal(c.v_nows, pm_test_row(rows, nv,
				"_medium"));
		}
		free(t);
		/* (runtime/plan.h, embedded, names the roles) */
		t = gen("nn", off, NULL, NULL);
		assert_null(strstr(t, "pm_kernel_gemm_nn_small_tma"));
		assert_null(strstr(t, "pm_tma_load_2d(&"));
		assert_false(pm_test_roles("gemm_nn", "sm_90a", off) &
			1u << PM_RT_SMALL_TMA);
		free(t);
		t = gen("nn", on, NULL, NULL);
		assert_null(strstr(t, "pm_kernel_gemm_nn_small_tma"));
		assert_false(pm_test_roles("gemm_nn", "sm_90a", on) &
			1u << PM_RT_SMALL_TMA);
		sm = strstr(t, "pm_kernel_gemm_nn_small(");
		assert_non_null(sm);
		assert_non_null(strstr(sm, "pm_tma_load_2d(&"));
		free(t);
	}
	/* A as [k][m]: two boxes per tile */
	s = gen("tn", tn, NULL, NULL);
	assert_non_null(strstr(s, "pm_tma_map_2d(&pm_tm0, A, K, M, M, 64, 64, "
		"128)"));
	free(s);
	/* a prologue on B in shared memory: that contraction keeps cp.async */
	s = gen(bpro, opts, NULL, NULL);
	assert_null(strstr(s, "pm_tma_load_2d(&"));
	assert_non_null(strstr(s, "pm_cp_async16"));
	free(s);
	/* --tma on where it cannot be */
	{
		static const char *const bad[][5] = {
			{ "sm_80", "stages", "3", "the target has no TMA" },
			{ "sm_90a", "mma-inflight", "on", "--mma-inflight on" },
			{ "sm_90a", "stages", "1", "--stages 2 or more" },
		};
		char *text = pm_test_read("examples/gemm_nn.tc");

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
			polymma_ctx *ctx = polymma_ctx_alloc();
			polymma_options *o = polymma_options_alloc();
			polymma_result *r = NULL;

			assert_int_equal(polymma_options_set(o, "target",
				bad[i][0], NULL), POLYMMA_OK);
			assert_int_equal(polymma_options_set(o, bad[i][1],
				bad[i][2], NULL), POLYMMA_OK);
			assert_int_equal(polymma_options_set(o, "tma", "on",
				NULL), POLYMMA_OK);
			assert_int_equal(polymma_generate(ctx, text, "g.tc", o,
				&r), POLYMMA_ERR_SPEC);
			assert_non_null(strstr(polymma_diagnostics(ctx),
				"--tma on: not possible here"));
			assert_non_null(strstr(polymma_diagnostics(ctx),
				bad[i][3]));
			polymma_options_free(o);
			polymma_ctx_free(ctx);
		}
		free(text);
	}
	{
		polymma_options *o = polymma_options_alloc();

		assert_int_equal(polymma_options_set(o, "tma", "maybe", NULL),
			POLYMMA_ERR_USAGE);
		polymma_options_free(o);
	}
}

/* B tiles of 96 and 80 columns (wgmma n = 96 / 80), N-major: blocks of
 * 32 / 16 columns in the 64- / 32-byte swizzles (SWZ 3 / 4), one box per
 * block, the stage exactly the tile; K-major (tt): rows of 64, one box. */
static void test_narrow_b(void **state)
{
	const char *n96[] = { "target", "sm_90a", "block", "128x96x64", "warp",
		"64x96", "mma", "64x96x64", NULL };
	const char *n80[] = { "target", "sm_90a", "block", "128x80x64", "warp",
		"64x80", "mma", "64x80x64", NULL };
	char *s, *k;

	(void) state;
	s = gen("nn", n96, NULL, NULL);
	k = main_kernel(s);
	assert_non_null(strstr(k, "pm_sm90_mma_tile<64, 96, 64, 1, 64, 1, 1, "
		"96, 3, 128, 64>("));
	/* A 16 KB + B 12 KB a k tile; B's three 32-column boxes */
	assert_non_null(strstr(k, "pm_mbar_arrive_tx(&pm_bar[0 + (0)], "
		"28672);"));
	assert_non_null(strstr(k, "pm_tma_load_2d(&B_shared[(0) * 6144 + 4096], "
		"&pm_tm1, &pm_bar[0 + (0)], (96 * c1) + 64, (0));"));
	assert_null(strstr(k, "B_shared[(0) * 6144 + 6144]"));
	free(k);
	assert_non_null(strstr(s, "pm_tma_map_2d(&pm_tm1, B, K, N, N, 64, 32, "
		"64)"));
	free(s);
	s = gen("nn", n80, NULL, NULL);
	k = main_kernel(s);
	assert_non_null(strstr(k, "pm_sm90_mma_tile<64, 80, 64, 1, 64, 1, 1, "
		"80, 4, 128, 64>("));
	assert_non_null(strstr(k, "pm_mbar_arrive_tx(&pm_bar[0 + (0)], "
		"26624);"));
	assert_int_equal(count(k, "&pm_tm1, &pm_bar[0 + (0)], (80 * c1) +"), 5);
	free(k);
	assert_non_null(strstr(s, "pm_tma_map_2d(&pm_tm1, B, K, N, N, 64, 16, "
		"32)"));
	free(s);
	s = gen("tt", n96, NULL, NULL);
	k = main_kernel(s);
	assert_non_null(strstr(k, "pm_sm90_mma_tile<64, 96, 64, 0, 128, 2, 0, "
		"64, 1, 64, 96>("));
	free(k);
	free(s);
	/* two 64x96 macro-MMAs in a 64x192 warp tile: the second would start
	 * inside B's second 64-column swizzled block (N-major; refused), not
	 * so with B K-major (its n offsets are rows) */
	{
		const char *two[] = { "target", "sm_90a", "block", "64x192x64",
			"warp", "64x192", "mma", "64x96x64", "split-k", "1",
			NULL };
		char *diag;

		s = try_gen("gemm_nn", two, &diag);
		assert_null(s);
		assert_non_null(strstr(diag, "reads 'B' N-major in swizzled "
			"blocks of 64 columns: the macro-MMA's n (96) and the warp "
			"tile's (192) must be multiples of 64"));
		free(diag);
		s = try_gen("gemm_tt", two, &diag);
		assert_non_null(s);
		free(s);
		free(diag);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sm90a_tma),
		cmocka_unit_test(test_narrow_b),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#define _POSIX_C_SOURCE 200809L
/* The persistent variants of other block shapes than 128x128 (api/
 * pipeline.c persist_variant, emit/plan.c): the tall (256x128), mid
 * (128x192), sq (192x192) and narrow (64x192, MMAs in flight) kernels,
 * their launch rules, and the refusals of --mma-inflight on in persistent
 * kernels. The 128x128 one: tests/test_persist.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"
#include "tests/plan_util.h"

/* The launcher's case of examples/NAME.tc's row sfx in its source s
 * launches its kernel with the configuration what (find_launch). */
static void launches(const char *s, const char *name, const char *sfx,
	const char *what)
{
	char name_sfx[96];
	struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	const int nv = pm_test_rows(name, "sm_90a", NULL, rows, &f);
	char *l = launch_case(s, pm_test_row(rows, nv, sfx));

	snprintf(name_sfx, sizeof(name_sfx), "pm_kernel_%s%s", name, sfx);
	assert_non_null(l);
	assert_non_null(find_launch(l, name_sfx, what));
	free(l);
}

/* The tall variant: 256x128 blocks (two warpgroups of 128x128, two
 * 64x128 wgmma each per k step), 3 stages of 48 KB and its own 256 x 136
 * C tile; launched on grids of several waves whose M it divides and N not
 * the wide variant's, where it fills its waves to 85 %; the tail rule
 * leaves it alone. */
static void test_tall(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	char *diag, *s = try_gen("gemm_bias_relu", opts, &diag), *k;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_bias_relu_persist_tall(");
	assert_int_equal(count(k, "pm_tma_load_2d("), 3);
	assert_int_equal(count(k, "pm_sm90_mma_tile<64, 128, 64, 1, 64, 1, 1, "
		"128, 2, 256, 64>("), 2);
	assert_non_null(strstr(k, "float pm_acc[2][64];"));
	assert_non_null(strstr(k, "pm_mbar_arrive_tx(&pm_bar[0 + pm_s], "
		"49152);"));
	assert_non_null(strstr(k, "__half *pm_cst = (__half *) (pm_smem + "
		"147456);"));
	assert_null(strstr(k, "__cluster_dims__"));
	free(k);
	/* the plan (H100 model): after the wide rule (which it would equal
	 * where both fill), on its terms: its waves 85 % full in elements
	 * (2560x2944: 230 tiles of 264, 87 %; 2432x2944 (ragged M): 230
	 * tiles, 2432 x 2944 / (264 x 256 x 128) = 83 %; 2560x2816: 220,
	 * 83 %; docs/decisions/0065-ragged-wide-tall.md); the tail rule
	 * leaves it alone (450 tiles, 54 in the last wave); without the mid
	 * row, which the rule among the big rows takes there (0066) */
#define NO_WM "_persist_wide _persist_mid"
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 2560, 2944, 512, NO_WM), "_persist_tall");
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 2432, 2944, 512, NO_WM), "_base");
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 2560, 2816, 512, NO_WM), "_base");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		2048, 4096, 512), "_persist_wide");
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 2048, 4096, 512, NO_WM), "_persist_tall");
	/* a ragged N: the wide rows' guarded kernel first, then the tall
	 * ones' exact one */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		2304, 3200, 2176), "_persist_wide");
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 2304, 3200, 2176, NO_WM), "_persist_tall");
#undef NO_WM
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		const int nv = pm_test_rows("gemm_bias_relu", "sm_90a", opts,
			rows, &f);
		const int i = pm_test_role(rows, nv, PM_RT_PERSIST_TALL);
		char *l = launch_case(s, i);

		assert_string_equal(rows[i].suffix, "_persist_tall");
		assert_true(rows[i].bm == 256 && rows[i].bn == 128 &&
			rows[i].threads == 288 && rows[i].smem == 217136);
		assert_int_equal(rows[i].flags, PM_RT_TWIN);
		assert_non_null(l);
		assert_non_null(find_launch(l, "pm_kernel_gemm_bias_relu_persist_"
			"tall", "288, 217136, stream"));
		free(l);
	}
	free(s);
	free(diag);
	/* a register prologue: a producer warpgroup (test_fused) */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist_tall("));
	free(s);
	free(diag);
	/* ... and the cost model's term (at 1000 per mille: the base's cost
	 * where the tall tile divides, which it keeps; a better rate shows
	 * the term, from 16 k tiles) */
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		const int nv = pm_test_rows("relu_gemm", "sm_90a", opts, rows,
			&f);
		int rc;
		struct pm_rt_choice c;

		assert_int_equal(f.ra.tall, 1000);
		assert_true(rows[pm_test_role(rows, nv, PM_RT_PERSIST_TALL)].flags
			& PM_RT_PRO_REGS);
		/* the wide term off: its guarded kernel takes these ragged
		 * sizes (docs/decisions/0065-ragged-wide-tall.md) */
		assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts,
			2560, 2944, 1024), "_persist_wide");
		f.ra.wide = 0;
		c = pm_test_plan(&f, rows, nv, 2560, 2944, 1024, NULL, &rc);
		assert_string_equal(rows[c.v].suffix, "");
		f.ra.tall = 1200;
		c = pm_test_plan(&f, rows, nv, 2560, 2944, 1024, NULL, &rc);
		assert_string_equal(rows[c.v].suffix, "_persist_tall");
		c = pm_test_plan(&f, rows, nv, 2560, 2944, 960, NULL, &rc);
		assert_string_equal(rows[c.v].suffix, "");
	}
}

/* The mid variant: 128x192 blocks (one m64n192k16 wgmma per warpgroup and
 * k step, 96 accumulators), the staged store's rows of 24 units on 32
 * lanes, ragged guards (its exact twin: test_emit); launched by the
 * plan's last rule on grids of more than one wave that its grid fills to
 * 75 % and at least as well; not with --persistent off. */
static void test_mid(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	const char *off[] = { "target", "sm_90a", "persistent", "off", NULL };
	char *diag, *s = try_gen("gemm_bias_relu", opts, &diag), *k;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_bias_relu_persist_mid(");
	assert_int_equal(count(k, "pm_sm90_mma_tile<64, 192, 64, 1, 64, 1, 1, "
		"192, 2, 128, 64>("), 1);
	assert_non_null(strstr(k, "float pm_acc[1][96];"));
	/* A's box and B's three 64-column boxes */
	assert_int_equal(count(k, "pm_tma_load_2d("), 4);
	assert_non_null(strstr(k, "pm_mbar_arrive_tx(&pm_bar[0 + pm_s], "
		"40960);"));
	/* the staged store: three 64-column blocks, TMA stores (0048) */
	assert_int_equal(count(k, "pm_sm90_store_swz<64, 192, __half>("), 1);
	assert_int_equal(count(k, "pm_tma_store_2d(&pm_tm2, "), 3);
	assert_int_equal(count(k, "pm_copy16_s2g("), 0);
	/* ragged: TMA's stores clip the tile at M and N, no guard */
	assert_int_equal(count(k, "pm_tma_store_2d(&pm_tm2, "), 3);
	assert_int_equal(count(k, "pm_copy16_s2g("), 0);
	free(k);
	/* the plan (H100 model): the last rule, after the tail split (300
	 * tiles, 36 in the last wave), where its grid fills its waves to
	 * 75 % (198 of 264 tiles; 195: 74 %) and at least as well as the
	 * tiles fill waves of SMs (299 of 396 against 442 of 528: no) */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1280, 3840, 1664), "_persist_mid");
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 1280, 3840, 1664, "_persist_mid"), "_persist_split,s=3");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1408, 3328, 1664), "_persist_mid");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1664, 2816, 1664), "_persist_split,s=6");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1664, 4352, 1664), "_persist_split,s=2");
	launches(s, "gemm_bias_relu", "_persist_mid", "288, 215104, stream");
	free(s);
	free(diag);
	/* a register prologue: a producer warpgroup */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist_mid("));
	free(s);
	free(diag);
	/* ... the cost model's term (1060 per mille), not the mid rule
	 * (the 74 % above) */
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;

		pm_test_rows("relu_gemm", "sm_90a", opts, rows, &f);
		assert_int_equal(f.ra.mid, 1060);
		assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts,
			1664, 2816, 2432), "_persist_mid");
	}
	/* an epilogue of several statements: exact, where its tile divides
	 * M and N */
	s = try_gen("gemm_epilogue_chain", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, " pm_kernel_gemm_epilogue_chain_persist_mid(");
	assert_null(strstr(k, "< N) pm_copy16_s2g("));
	assert_null(strstr(k, "pm_tM"));
	free(k);
	free(s);
	free(diag);
	assert_string_equal(pm_test_launch("gemm_epilogue_chain", "sm_90a",
		opts, 1280, 3840, 1664), "_persist_mid");
	assert_string_equal(pm_test_launch("gemm_epilogue_chain", "sm_90a",
		opts, 1280, 3712, 1664), "_persist_split,s=5");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a",
		opts, 1280, 3712, 1664), "_persist_mid");
	/* no persistent kernels, no mid variant */
	s = try_gen("gemm_bias_relu", off, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_mid"));
	assert_int_equal(pm_test_roles("gemm_bias_relu", "sm_90a", off) &
		PM_TEST_PERSIST_ROLES, 0);
	free(s);
	free(diag);
}

/* The sq variant: 192x192 blocks (three consumer warps of one m64n192k16
 * wgmma per k step, 96 accumulators each; a producer warp), 3 stages;
 * launched by the plan's last rule where its modelled time is 1100/1000
 * of the best other variant's or less; with a register prologue a producer
 * warpgroup and setmaxnreg.inc 152; exact with an epilogue of several
 * statements; not with --persistent off. */
static void test_sq(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	const char *off[] = { "target", "sm_90a", "persistent", "off", NULL };
	char *diag, *s = try_gen("gemm_bias_relu", opts, &diag), *k;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(416, 1) "
		"pm_kernel_gemm_bias_relu_persist_sq(");
	assert_int_equal(count(k, "pm_sm90_mma_tile<64, 192, 64, 1, 64, 1, 1, "
		"192, 2, 192, 64>("), 1);
	assert_non_null(strstr(k, "float pm_acc[1][96];"));
	/* A's 192x64 box and B's three 64-column boxes, 3 stages */
	assert_non_null(strstr(k, "pm_mbar_arrive_tx(&pm_bar[0 + pm_s], "
		"49152);"));
	assert_non_null(strstr(k, "pm_s = pm_q % 3;"));
	/* ragged: TMA's stores clip the tile at M and N, no guard */
	assert_int_equal(count(k, "pm_tma_store_2d(&pm_tm2, "), 3);
	assert_int_equal(count(k, "pm_copy16_s2g("), 0);
	free(k);
	/* the plan (H100 model): last, the best other variant's modelled
	 * time (the spec's rates per mille) against its own: 1.13 x sq's
	 * (2944x4608) takes it, 1.03 (1920x4608) not; it replaces the mid
	 * and tail rules' choices */
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;

		pm_test_rows("gemm_bias_relu", "sm_90a", opts, rows, &f);
		assert_true(f.sq.gain == 1100 && f.sq.mid == 1060 &&
			f.sq.wide == 1090 && f.sq.tall == 1000 && f.sq.sq == 1090);
	}
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		2944, 4608, 1664), "_persist_sq");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1920, 4608, 1664), "_persist_mid");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		2304, 2048, 1664), "_persist_sq");
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 2304, 2048, 1664, "_persist_sq"), "_persist_mid");
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 2944, 4608, 1664, "_persist_sq"), "_persist_split,s=3");
	launches(s, "gemm_bias_relu", "_persist_sq", "416, 224304, stream");
	free(s);
	free(diag);
	/* a register prologue: a producer warpgroup, three consumer ones at
	 * 152 registers; the rule after the cost model's pick */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(512, 1) "
		"pm_kernel_relu_gemm_persist_sq(");
	assert_non_null(strstr(k, "pm_setmaxnreg_inc<152>();"));
	free(k);
	free(s);
	free(diag);
	assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts, 3968,
		1152, 1408), "_persist_sq");
	assert_string_equal(pm_test_launch_without("relu_gemm", "sm_90a", opts,
		3968, 1152, 1408, "_persist_sq"), "_persist_mid");
	/* an epilogue of several statements: exact, where its tile divides
	 * M and N */
	s = try_gen("gemm_epilogue_chain", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, " pm_kernel_gemm_epilogue_chain_persist_sq(");
	assert_null(strstr(k, "pm_tM"));
	free(k);
	free(s);
	free(diag);
	assert_string_equal(pm_test_launch("gemm_epilogue_chain", "sm_90a",
		opts, 2304, 1920, 1664), "_persist_sq");
	assert_string_equal(pm_test_launch("gemm_epilogue_chain", "sm_90a",
		opts, 2304, 2048, 1664), "_persist_split,s=5");
	s = try_gen("gemm_bias_relu", off, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_sq"));
	free(s);
	free(diag);
}

/* The narrow variant: 64x192 blocks (one consumer warpgroup of one
 * m64n192k16 wgmma per k step, a producer warp), 6 stages, one k tile of
 * MMAs in flight (wait<1>, the previous stage released; all drained and
 * the own stage released after the last tile); launched where the plan
 * runs the unsplit 128x128 persistent kernel on one wave and the 64x192
 * grid is one wave too; not with a register prologue (MMAs in flight read
 * A's registers), not with --persistent off. */
static void test_narrow(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	const char *off[] = { "target", "sm_90a", "persistent", "off", NULL };
	char *diag, *s = try_gen("gemm_bias_relu", opts, &diag), *k;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(160, 1) "
		"pm_kernel_gemm_bias_relu_persist_narrow(");
	assert_int_equal(count(k, "pm_sm90_mma_tile<64, 192, 64, 1, 64, 1, 1, "
		"192, 2, 64, 64>("), 1);
	assert_non_null(strstr(k, "float pm_acc[1][96];"));
	assert_non_null(strstr(k, "pm_s = pm_q % 6;"));
	assert_non_null(strstr(k, "if ((unsigned) ((c2)) + 1u < ((unsigned) K "
		"+ 63u) / 64u) pm_wgmma_wait<1>(); else pm_sm90_drain<96>((float "
		"*) pm_acc);\n"));
	assert_non_null(strstr(k, "if (pm_lane_id() == 0) { if (((c2)) >= 1) "
		"pm_mbar_arrive(&pm_bar[6 + ((pm_qc + ((c2 - 1))) % 6)]); if "
		"((unsigned) ((c2)) + 1u >= ((unsigned) K + 63u) / 64u) "
		"pm_mbar_arrive(&pm_bar[6 + ((pm_qc + ((c2))) % 6)]); }\n"));
	free(k);
	/* the 128x128 persistent kernel waits for its MMAs in every k tile */
	k = kernel_text(s, " pm_kernel_gemm_bias_relu_persist(");
	assert_null(strstr(k, "pm_wgmma_wait<1>();"));
	free(k);
	/* the plan (H100 model): after the unsplit 128x128 persistent
	 * kernel's one wave (84 tiles), where the 64x192 grid is one wave too
	 * (114 blocks; 10240x128: 160), not on several waves */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		384, 3584, 2944), "_persist_narrow");
	assert_string_equal(pm_test_launch_without("gemm_bias_relu", "sm_90a",
		opts, 384, 3584, 2944, "_persist_narrow"), "_persist");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		10240, 128, 512), "_persist");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		2560, 3840, 3968), "_persist");
	launches(s, "gemm_bias_relu", "_persist_narrow", "160, ");
	free(s);
	free(diag);
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "pm_kernel_relu_gemm_persist_narrow"));
	assert_false(pm_test_roles("relu_gemm", "sm_90a", opts) &
		(1u << PM_RT_PERSIST_NARROW));
	free(s);
	free(diag);
	s = try_gen("gemm_bias_relu", off, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_narrow"));
	free(s);
	free(diag);
}

/* --mma-inflight on in a persistent kernel: only unsplit, 3+ stages. */
static void test_inflight_refusals(void **state)
{
	const char *split[] = { "target", "sm_90a", "persistent", "on",
		"mma-inflight", "on", "split-k", "2", NULL };
	const char *st2[] = { "target", "sm_90a", "persistent", "on",
		"mma-inflight", "on", "split-k", "1", "stages", "2", NULL };
	char *diag, *s;

	(void) state;
	s = try_gen("gemm_bias_relu", split, &diag);
	assert_null(s);
	assert_non_null(strstr(diag, "--persistent on"));
	free(diag);
	s = try_gen("gemm_bias_relu", st2, &diag);
	assert_null(s);
	assert_non_null(strstr(diag, "--mma-inflight on in a persistent "
		"kernel: not possible here (it needs --stages 3 or more)"));
	free(diag);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tall),
		cmocka_unit_test(test_mid),
		cmocka_unit_test(test_sq),
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_inflight_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

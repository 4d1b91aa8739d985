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
	/* the plan: after the wide rule, on its terms */
	assert_non_null(strstr(s, "\t\tif (!p->persist && oc[5] > 0 && M % 256 "
		"== 0 && N % 128 == 0) {\n\t\t\tconst int64_t t2 = (M / 256) * "
		"(N / 128), bw = (int64_t) sms * oc[5];\n\t\t\tif (t2 * 100 >= 85 "
		"* ((t2 + bw - 1) / bw) * bw)\n\t\t\t\tp->persist = 4, p->pblocks "
		"= bw;\n"));
	assert_true(strstr(s, "p->persist = 4") > strstr(s, "p->persist = 2"));
	assert_true(strstr(s, "p->persist = 4") < strstr(s, "p->persist = 1, "
		"p->pblocks = bp;"));
	assert_non_null(strstr(s, "if (oc[4] > 0 && p->persist != 2 && "
		"p->persist != 4 && tiles > (int64_t) sms * oc[4]) {"));
	assert_non_null(strstr(s, "pm_occ[5] = o > 0 ? o : 1;"));
	assert_non_null(strstr(s, "\tif (p.persist == 4) {\n"));
	assert_non_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_tall<<<"
		"grid, 288, 217136, stream>>>("));
	free(s);
	free(diag);
	/* a register prologue: a producer warpgroup (test_fused) */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist_tall("));
	assert_non_null(strstr(s, "\t\tif (oc[5] > 0 && M % 256 == 0 && N % "
		"128 == 0 && kt[0] >= 16) {\n"));
	assert_non_null(strstr(s, "best = c, pick = 4;"));
	free(s);
	free(diag);
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
	/* the staged store: 24 16-byte units per row, lanes 24-31 idle */
	assert_int_equal(count(k, "if (c3 <= 23) {"), 1);
	assert_non_null(strstr(k, "((int) threadIdx.x % 32)"));
	assert_non_null(strstr(k, "&pm_cst[((c2)) * 200 + (8 * c3)]"));
	/* ragged: the stores guarded */
	assert_non_null(strstr(k, "(192 * c1 + 8 * c3) < N) pm_copy16_s2g("));
	free(k);
	/* the plan: the last rule, after the tail split */
	assert_non_null(strstr(s, "\tif (oc[6] > 0 && tiles > (int64_t) sms) "
		"{\n\t\tconst int64_t t2 = ((M + 128 - 1) / 128) * ((N + 192 - 1) "
		"/ 192), b2 = (int64_t) sms * oc[6];\n\t\tconst int64_t w1 = "
		"(tiles + sms - 1) / sms, w2 = (t2 + b2 - 1) / b2;\n\t\tif (t2 * "
		"100 >= 75 * w2 * b2 && t2 * w1 * sms >= tiles * w2 * b2) {\n"
		"\t\t\tp->persist = 5, p->pblocks = b2, p->tdp = 0, p->s = 1;\n"));
	assert_true(strstr(s, "p->persist = 5") > strstr(s, "p->persist = 3, "
		"p->pblocks = pb, p->tdp = tiles - rt"));
	assert_non_null(strstr(s, "pm_occ[6] = o > 0 ? o : 1;"));
	assert_non_null(strstr(s, "\tif (p.persist == 5) {\n"));
	assert_non_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_mid<<<"
		"grid, 288, 215104, stream>>>("));
	free(s);
	free(diag);
	/* a register prologue: a producer warpgroup */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist_mid("));
	assert_non_null(strstr(s, "\t\tif (oc[6] > 0) {\n"));
	assert_non_null(strstr(s, "* oc[6] * 24576.0 * 1000.0 / 1060.0;\n"
		"\t\t\tif (c < best)\n\t\t\t\tbest = c, pick = 5;\n"));
	assert_null(strstr(s, "p->persist = 5, p->pblocks = b2"));
	free(s);
	free(diag);
	/* an epilogue of several statements: exact, where its tile divides
	 * M and N */
	s = try_gen("gemm_epilogue_chain", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, " pm_kernel_gemm_epilogue_chain_persist_mid(");
	assert_null(strstr(k, "< N) pm_copy16_s2g("));
	assert_null(strstr(k, "pm_tM"));
	free(k);
	assert_non_null(strstr(s, "\tif (oc[6] > 0 && tiles > (int64_t) sms "
		"&& M % 128 == 0 && N % 192 == 0) {\n"));
	free(s);
	free(diag);
	/* no persistent kernels, no mid variant */
	s = try_gen("gemm_bias_relu", off, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "persist_mid"));
	assert_null(strstr(s, "p->persist = 5"));
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
	/* ragged: the stores guarded */
	assert_non_null(strstr(k, "(192 * c1 + 8 * c3) < N) pm_copy16_s2g("));
	free(k);
	/* the plan: last, the best other variant's modelled time against
	 * its own */
	assert_non_null(strstr(s, "\tif (oc[7] > 0 && tiles > (int64_t) sms) "
		"{\n"));
	assert_non_null(strstr(s, "* oc[6] * 24576.0 * 1000.0 / 1060.0;\n"
		"\t\t\tif (c < best)\n\t\t\t\tbest = c;\n"));
	assert_non_null(strstr(s, "\t\tconst double c3 = (double) ((t3 + b3 - "
		"1) / b3) * oc[7] * 36864.0 * 1000.0 / 1090.0;\n\t\tif (best * "
		"1000.0 >= c3 * 1100.0) {\n\t\t\tp->persist = 6, p->pblocks = "
		"b3, p->tdp = 0, p->s = 1;\n"));
	assert_true(strstr(s, "p->persist = 6") > strstr(s, "p->persist = 5, "
		"p->pblocks = b2"));
	assert_non_null(strstr(s, "pm_occ[7] = o > 0 ? o : 1;"));
	assert_non_null(strstr(s, "\tif (p.persist == 6) {\n"));
	assert_non_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_sq<<<"
		"grid, 416, 224304, stream>>>("));
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
	assert_true(strstr(s, "p->persist = 6") > strstr(s, "best = c, pick "
		"= 5;"));
	free(s);
	free(diag);
	/* an epilogue of several statements: exact, where its tile divides
	 * M and N */
	s = try_gen("gemm_epilogue_chain", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, " pm_kernel_gemm_epilogue_chain_persist_sq(");
	assert_null(strstr(k, "pm_tM"));
	free(k);
	assert_non_null(strstr(s, "\tif (oc[7] > 0 && tiles > (int64_t) sms "
		"&& M % 192 == 0 && N % 192 == 0) {\n"));
	free(s);
	free(diag);
	s = try_gen("gemm_bias_relu", off, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "persist_sq"));
	assert_null(strstr(s, "p->persist = 6"));
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
	/* the plan: after the unsplit 128x128 persistent kernel's one wave,
	 * where the 64x192 grid is one wave too */
	assert_non_null(strstr(s, "\tif (oc[8] > 0 && p->persist == 1 && "
		"p->s == 1 && !p->tdp && tiles <= (int64_t) sms) {\n\t\tconst "
		"int64_t t2 = ((M + 64 - 1) / 64) * ((N + 192 - 1) / 192), b2 = "
		"(int64_t) sms * oc[8];\n\t\tif (t2 <= b2)\n\t\t\tp->persist = 7, "
		"p->pblocks = b2;\n"));
	assert_true(strstr(s, "p->persist = 7") > strstr(s, "p->persist = 6"));
	assert_non_null(strstr(s, "pm_occ[8] = o > 0 ? o : 1;"));
	assert_non_null(strstr(s, "\tif (p.persist == 7) {\n"));
	assert_non_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_narrow<<<"
		"grid, 160, "));
	free(s);
	free(diag);
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "persist_narrow"));
	assert_null(strstr(s, "p->persist = 7"));
	free(s);
	free(diag);
	s = try_gen("gemm_bias_relu", off, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "persist_narrow"));
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

#define _POSIX_C_SOURCE 200809L
/* The persistent warp-specialized kernel (promote/tma.c
 * pm_tma_ws_pipeline, emit/): its producer warp and its loop over tiles,
 * the ring position carried across tiles, the consumers' named barriers,
 * its own C tile, the launcher's grid and the variant's launch rule, the
 * split variant (reduce-scatter of a tile's chunks), and the refusals of
 * --persistent on. Clusters: tests/test_cluster.c; the variants of other
 * block shapes: tests/test_shapes.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"
#include "tests/plan_util.h"

/* --persistent on: one kernel of 288 threads (a producer warp after the 8
 * consumer warps), one block per SM; the block loops over tiles and the
 * ring position pm_qc advances by the k tiles of each. */
static void test_structure(void **state)
{
	const char *opts[] = { "target", "sm_90a", "persistent", "on", NULL };
	char *meta, *s = gen("nn", opts, NULL, &meta), *k, *prod, *cons;

	(void) state;
	assert_non_null(strstr(meta, "\"threads\": 288,"));
	assert_non_null(strstr(meta, "\"stages\": 4,"));
	assert_non_null(strstr(meta, "\"persistent\": \"on\","));
	free(meta);
	assert_int_equal(count(s, "__global__"), 1);
	k = kernel_text(s, "__launch_bounds__(288, 1) pm_kernel_gemm_nn(");
	assert_non_null(strstr(k, "unsigned pm_qc = 0;\n\tfor (unsigned pm_t = "
		"blockIdx.x; pm_t < pm_tx * pm_ty; pm_t += gridDim.x, pm_qc += "
		"((unsigned) K + 63u) / 64u) {"));
	/* 4 stages of 32 KB, the C tile after them, then the barriers */
	assert_non_null(strstr(k, "__half *pm_cst = (__half *) (pm_smem + "
		"131072);"));
	assert_non_null(strstr(k, "uint64_t *pm_bar = (uint64_t *) (pm_smem + "
		"165888);"));
	assert_non_null(strstr(k, "pm_mbar_init(&pm_bar[pm_i], pm_i % 8 < 4 ? "
		"1 : 8);"));
	/* the producer: thread 256 alone, every k tile's boxes, then on to
	 * the next tile */
	prod = strstr(k, "if (threadIdx.x >= 256) {");
	assert_non_null(prod);
	cons = strstr(prod, "continue;\n");
	assert_non_null(cons);
	assert_non_null(strstr(prod, "if (threadIdx.x == 256) {"));
	assert_true(strstr(prod, "// producer") < cons);
	assert_true(strstr(prod, "{ const unsigned pm_q = pm_qc + ((c2)), pm_s "
		"= pm_q % 4; if (pm_q >= 4) pm_mbar_wait(&pm_bar[4 + pm_s], (pm_q "
		"/ 4 + 1) & 1); pm_mbar_arrive_tx(&pm_bar[0 + pm_s], 32768); "
		"pm_tma_load_2d(&A_shared[pm_s * 8192 + 0], &pm_tm0, &pm_bar[0 + "
		"pm_s], (64 * c2) + 0, (128 * c0)); }") < cons);
	/* all 3 boxes in the producer's loop, none in the consumers' */
	assert_int_equal(count(k, "pm_tma_load_2d("), 3);
	assert_null(strstr(cons, "pm_tma_load_2d("));
	assert_null(strstr(cons, "pm_mbar_arrive_tx("));
	/* the consumers: wait, MMA, drain, release at ring position pm_qc +
	 * kt; barriers among themselves only */
	{
		const char *w = strstr(cons, "pm_mbar_wait(&pm_bar[0 + ((pm_qc + "
			"((c2))) % 4)], (((pm_qc + ((c2))) / 4) & 1));");
		const char *m = strstr(cons, "pm_sm90_mma_tile<64, 128, 64, 1, "
			"64, 1, 1, 128, 2, 128, 64>(pm_acc[(0)], A_shared + ((pm_qc + "
			"((c2))) % 4) * 8192,");
		const char *dr = strstr(cons, "pm_sm90_drain<64>((float *) "
			"pm_acc);");
		const char *r = strstr(cons, "if (pm_lane_id() == 0) "
			"pm_mbar_arrive(&pm_bar[4 + ((pm_qc + ((c2))) % 4)]);");

		assert_true(w && m && dr && r);
		assert_true(w < m && m < dr && dr < r);
	}
	assert_null(strstr(prod, "__syncthreads"));
	assert_int_equal(count(k, "pm_bar_sync_n<256>();"), 2);
	free(k);
	/* the launcher: SMs x blocks per SM asked once, at most that many
	 * blocks */
	assert_non_null(strstr(s, "pm_pblocks = (int64_t) n * (o > 0 ? o : 1);"));
	assert_non_null(strstr(s, "< (int64_t) (pm_pblocks) ? "));
	assert_non_null(find_launch(s, "pm_kernel_gemm_nn", "288, 165952, "
		"stream"));
	free(s);
}

/* A prologue on A through the MMA's registers: the producer is a
 * warpgroup that gives its registers to the consumers (384 threads, the
 * roles in the two branches of one if/else, each with its own loop over
 * the tiles: setmaxnreg needs that shape); an epilogue chain: the
 * persistent kernel is the same around it. */
static void test_fused(void **state)
{
	const char *opts[] = { "target", "sm_90a", "persistent", "on", NULL };
	char *diag, *s = try_gen("relu_gemm", opts, &diag), *k;
	const char *dec, *inc, *prod, *mma;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(384, 1) pm_kernel_relu_gemm(");
	assert_non_null(strstr(k, "pm_sm90_mma_tile_ra<"));
	assert_non_null(strstr(k, "((pm_qc + ((c2))) % 4) * 8192"));
	assert_int_equal(count(k, "continue;"), 0);
	assert_int_equal(count(k, "for (unsigned pm_t = blockIdx.x;"), 2);
	dec = strstr(k, "\tif (threadIdx.x >= 256) {\n\t\tpm_setmaxnreg_dec<40>"
		"();\n\t\tif (threadIdx.x == 256) {\n\t\t\tunsigned pm_qc = 0;\n");
	inc = strstr(k, "\t} else {\n\t\tpm_setmaxnreg_inc<232>();\n\t\t"
		"unsigned pm_qc = 0;\n");
	prod = strstr(k, "// producer");
	mma = strstr(k, "pm_sm90_mma_tile_ra<");
	assert_non_null(dec);
	assert_non_null(inc);
	assert_true(dec < prod && prod < inc && inc < mma);
	assert_int_equal(count(k, "// producer"), 1);
	assert_int_equal(count(k, "pm_tma_load_2d("), 3);
	free(k);
	assert_non_null(find_launch(s, "pm_kernel_relu_gemm", "384, "));
	assert_non_null(strstr(s, "(&o, pm_kernel_relu_gemm, 384, "));
	free(s);
	free(diag);
	/* three consumer warpgroups (192x128 blocks): setmaxnreg.inc asks
	 * only what the register file leaves beside the producer's 128 x 40
	 * ((65536 - 5120) / 384, in eights: 152; 232 would wait forever) */
	{
		const char *o3[] = { "target", "sm_90a", "persistent", "on",
			"block", "192x128x64", "warp", "64x128", NULL };

		s = try_gen("relu_gemm", o3, &diag);
		assert_non_null(s);
		k = kernel_text(s, "__launch_bounds__(512, 1) "
			"pm_kernel_relu_gemm(");
		assert_non_null(strstr(k, "\tif (threadIdx.x >= 384) {\n\t\t"
			"pm_setmaxnreg_dec<40>();\n"));
		assert_non_null(strstr(k, "\t} else {\n\t\t"
			"pm_setmaxnreg_inc<152>();\n"));
		assert_null(strstr(k, "pm_setmaxnreg_inc<232>"));
		free(k);
		free(s);
		free(diag);
	}
	/* three contractions of different k extents: each one's tiles start
	 * in the ring after every earlier one's, in the producer's copies and
	 * the consumers' waits alike (a third contraction started after the
	 * first's only reused the second's ring positions) */
	{
		static const char g3[] =
			"def g3(f16(M, K) A, f16(K, N) B, f16(M, L) E, "
			"f16(N, L) F, f16(M, P) G, f16(P, N) H) -> "
			"(f16(M, N) O) {\n"
			"  C(i, j) +=! A(i, k) * B(k, j)\n"
			"  D(i, j) +=! E(i, l) * F(j, l)\n"
			"  X(i, j) +=! G(i, p) * H(p, j)\n"
			"  O(i, j) = C(i, j) + D(i, j) + X(i, j)\n}\n";
		const char *kt = "((unsigned) K + 63u) / 64u + ((unsigned) L + "
			"63u) / 64u + ((c2))";

		s = try_gen(g3, opts, &diag);
		assert_non_null(s);
		k = kernel_text(s, "__launch_bounds__(384, 1) pm_kernel_g3(");
		assert_non_null(k);
		/* the producer's two copies of G and H; the consumers' wait
		 * (its barrier and parity), two stage bases and release */
		assert_int_equal(count(k, kt), 7);
		assert_int_equal(count(k, "pm_q = pm_qc + ((unsigned) K + 63u) "
			"/ 64u + ((c2))"), 2);
		free(k);
		free(s);
		free(diag);
	}
	s = try_gen("gemm_epilogue_chain", opts, &diag);
	assert_non_null(s);
	assert_int_equal(count(s, "__launch_bounds__(288, 1)"), 1);
	free(s);
	free(diag);
}

/* The default: _persist and _persist_wide variants in files with the
 * split-K launch plan, launched on grids of more than one wave of the big
 * kernel whose waves they fill better, and on 3/5 to 1 tile per SM;
 * none for sm_80 or off. */
static void test_variant(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	const char *off[] = { "target", "sm_90a", "persistent", "off", NULL };
	const char *sm80[] = { "target", "sm_80", NULL };
	char *diag, *s = try_gen("gemm_bias_relu", opts, &diag), *k;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_bias_relu_persist(");
	assert_int_equal(count(k, "pm_tma_load_2d("), 3);
	free(k);
	/* the wide variant: 128x256 blocks, 3 stages of 48 KB and its own
	 * 128 x 264 C tile */
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_bias_relu_persist_wide(");
	assert_int_equal(count(k, "pm_tma_load_2d("), 5);
	assert_non_null(strstr(k, "pm_sm90_mma_tile<64, 256, 64,"));
	assert_non_null(strstr(k, "__half *pm_cst = (__half *) (pm_smem + "
		"147456);"));
	free(k);
	/* the launcher raises every kernel's (and exact twin's) shared-memory
	 * limit once per device (not a driver call in every launch), for
	 * the kernels that need more than 48 KB: pm_attrs_NAME, called first
	 * by pm_launch_NAME */
	{
		const char *l = strstr(s, "cudaError_t pm_launch_gemm_bias_relu(");
		const char *a = strstr(s, "static cudaError_t "
			"pm_attrs_gemm_bias_relu(void)\n{\n\tstatic int "
			"pm_set[64];\n");

		assert_non_null(l);
		assert_non_null(a);
		assert_non_null(strstr(l, "{\n\tcudaError_t e = "
			"pm_attrs_gemm_bias_relu();\n"));
		assert_non_null(strstr(a, "\t\tif (s <= 48 * 1024)\n\t\t\t"
			"continue;\n\t\tif (cudaFuncSetAttribute("
			"pm_kernels_gemm_bias_relu[i], "
			"cudaFuncAttributeMaxDynamicSharedMemorySize, s)"));
		assert_non_null(strstr(a, "(pm_kernels_x_gemm_bias_relu[i] && "
			"cudaFuncSetAttribute(pm_kernels_x_gemm_bias_relu[i], "));
		assert_non_null(strstr(a, "\tif (dev >= 0 && dev < 64)\n\t\t"
			"pm_set[dev] = 1;\n"));
		/* no launch case sets it again */
		assert_int_equal(count(l, "cudaFuncSetAttribute("), 0);
		/* the twins' table: a kernel where the row has one, 0 else */
		assert_non_null(strstr(s, "static const void *const "
			"pm_kernels_x_gemm_bias_relu[] = {\n\t(const void *) "
			"pm_kernel_gemm_bias_relu_x,\n"));
	}
	/* the plan (the H100 model: 132 SMs, 2 big blocks per SM): only on
	 * grids of more than one wave of the big kernel; the wide kernel
	 * where it fills its waves to 85 %, else the
	 * 128x128 one where its waves are fuller */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1920, 3840, 1664), "_persist_wide");		/* 225 / 264 */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1792, 3840, 1664), "_persist_split,s=5");	/* 210 / 264 */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1920, 3712, 1664), "_persist_split,s=3");	/* N % 256 */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		1536, 2816, 1664), "_base");			/* one wave */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		2560, 3840, 3968), "_persist");		/* 5 x 132 < 3 x 264 */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		3968, 2176, 512), "_base");		/* 4 x 132 = 2 x 264 */
	/* 3/5 to 1 block per SM (80 to 132 tiles; from 67 with 16 k tiles):
	 * the persistent kernel, unsplit, neither the small (79 tiles) nor
	 * the medium (133) variant */
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		10240, 128, 512), "_persist");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		10112, 128, 512), "_small_tma");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		10112, 128, 1024), "_persist");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		16896, 128, 512), "_persist");
	assert_string_equal(pm_test_launch("gemm_bias_relu", "sm_90a", opts,
		17024, 128, 512), "_medium");
	/* the launcher: each row's case, every row's blocks per SM asked */
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		const int nv = pm_test_rows("gemm_bias_relu", "sm_90a", opts, rows,
			&f);
		char *l = launch_case(s, pm_test_row(rows, nv, "_persist"));

		assert_non_null(l);
		assert_non_null(find_launch(l, "pm_kernel_gemm_bias_relu_persist",
			"288, 165952, stream"));
		free(l);
		l = launch_case(s, pm_test_row(rows, nv, "_persist_wide"));
		assert_non_null(l);
		assert_non_null(find_launch(l, "pm_kernel_gemm_bias_relu_"
			"persist_wide", "288, 215088, stream"));
		free(l);
	}
	assert_non_null(strstr(s, "\t\tfor (int i = 0; i < "
		"PM_NV_gemm_bias_relu; ++i) {\n"));
	assert_non_null(strstr(s, "\t\t\tt.occ[i] = o > 0 ? o : 1;\n"));
	free(s);
	free(diag);
	/* Add(GEMM, GEMM): both contractions' tiles through one ring */
	s = try_gen("add_gemm", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_add_gemm_persist(");
	assert_int_equal(count(k, "// producer"), 2);
	assert_non_null(strstr(k, "pm_qc += ((unsigned) K + 63u) / 64u + "
		"((unsigned) K + 63u) / 64u) {"));
	assert_non_null(strstr(k, "{ const unsigned pm_q = pm_qc + ((unsigned) "
		"K + 63u) / 64u + ((c2)), pm_s = pm_q % 4; if (pm_q >= 4) "
		"pm_mbar_wait(&pm_bar[4 + pm_s], (pm_q / 4 + 1) & 1); "
		"pm_mbar_arrive_tx(&pm_bar[0 + pm_s], 32768); pm_tma_load_2d("
		"&E_shared[pm_s * 8192 + 0]"));
	assert_non_null(strstr(k, "pm_mbar_wait(&pm_bar[0 + ((pm_qc + "
		"((unsigned) K + 63u) / 64u + ((c2))) % 4)], (((pm_qc + "
		"((unsigned) K + 63u) / 64u + ((c2))) / 4) & 1));"));
	assert_non_null(strstr(k, "pm_mbar_init(&pm_bar[pm_i], pm_i % 8 < 4 ? "
		"1 : 8);"));
	assert_null(strstr(k, "__syncthreads();\n\t\t"));
	free(k);
	free(s);
	free(diag);
	/* a prologue through the MMA's registers: the 128x128 variant for
	 * 3/5 to 1 tile per SM only (measured slower on several waves), on
	 * more than one tile per SM the variant of least modelled time (the
	 * target's ra_cost; the plans themselves: test_plan) among the big,
	 * medium, wide, tall and mid kernels (a producer warpgroup) */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist("));
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist_wide("));
	free(s);
	free(diag);
	/* the 128x128 one on 3/5 to 1 tile per SM; on more, the cost
	 * model's wide kernel where the fill rule has the big kernel (one
	 * wave of it) or _persist (the wide one 76 % full), no tail split */
	assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts,
		10240, 128, 512), "_persist");
	assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts,
		1536, 2816, 1664), "_persist_wide");
	assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts,
		2560, 3840, 3968), "_persist_wide");
	/* ragged N (3712 = 14.5 x 256): the wide row's guarded kernel
	 * (docs/decisions/0065-ragged-wide-tall.md) */
	assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts,
		1920, 3712, 1664), "_persist_wide");
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		const int nv = pm_test_rows("relu_gemm", "sm_90a", opts, rows,
			&f);
		const int w = pm_test_role(rows, nv, PM_RT_PERSIST_WIDE);

		assert_true(rows[pm_test_role(rows, nv, PM_RT_PERSIST)].flags &
			PM_RT_PRO_REGS);
		/* the wide kernel's 128x256 tiles (and its exact twin) at
		 * 1090 / 1000 */
		assert_true(w >= 0 && (rows[w].flags & PM_RT_TWIN));
		assert_true(rows[w].bm == 128 && rows[w].bn == 256);
		assert_int_equal(f.ra.wide, 1090);
		assert_int_equal(f.ra.partial, 500);
	}
	/* (runtime/plan.h, embedded, names the roles) */
	s = try_gen("gemm_bias_relu", off, &diag);
	assert_null(strstr(s, "pm_kernel_gemm_bias_relu_persist"));
	assert_int_equal(pm_test_roles("gemm_bias_relu", "sm_90a", off) &
		PM_TEST_PERSIST_ROLES, 0);
	free(s);
	free(diag);
	s = try_gen("gemm_bias_relu", sm80, &diag);
	assert_null(strstr(s, "pm_kernel_gemm_bias_relu_persist"));
	assert_int_equal(pm_test_roles("gemm_bias_relu", "sm_80", sm80) &
		PM_TEST_PERSIST_ROLES, 0);
	assert_true(pm_test_roles("gemm_bias_relu", "sm_90a", opts) &
		(1u << PM_RT_PERSIST));
	free(s);
	free(diag);
}

/* Grids under 3/5 tile per SM: split-K in the persistent kernel. Its loop
 * runs over units (chunk pm_z, tile pm_t), the ring advancing by the
 * unit's chunk; the units of a tile reduce-scatter their partials (each
 * puts the other warps' rows, waits for the tile's units, adds its own
 * rows' partials and stores only them); grids of several waves run the
 * full waves' tiles whole and split the tail's; the plan's rules and the
 * launch. */
/* The split rules' choice for gemm_nn without the slim row. */
#define NO_SLIM "_persist_slim"
static const char *split_launch(const char *const *opts, int64_t m,
	int64_t n, int64_t k)
{
	return pm_test_launch_without("gemm_nn", "sm_90a", opts, m, n, k,
		NO_SLIM);
}

static void test_split(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	const char *fixed[] = { "target", "sm_90a", "split-k", "3", NULL };
	const char *never[] = { "target", "sm_90a", "split-k", "1", NULL };
	char *diag, *s = try_gen("gemm_nn", opts, &diag), *k;
	const char *fix, *st;
	struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	int nv;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_nn_persist_split(");
	assert_non_null(strstr(k, "int K, float *__restrict__ pm_ws, unsigned "
		"*__restrict__ pm_cnt, int pm_kc0, unsigned pm_tdp, "
		"const __grid_constant__"));
	/* its cluster twin's path is not here (test_cluster.c) */
	assert_null(strstr(k, "pm_cl"));
	/* the whole tiles first, then the tail's in chunks */
	assert_non_null(strstr(k, "\tconst unsigned pm_nt = pm_tx * pm_ty, "
		"pm_nr = pm_nt - pm_tdp;\n\tconst int pm_ns = (K + pm_kc0 - 1) / "
		"pm_kc0;\n"));
	assert_non_null(strstr(k, "for (unsigned pm_u = blockIdx.x; pm_u < "
		"pm_tdp + pm_nr * (unsigned) pm_ns; pm_u += gridDim.x, pm_qc += "
		"pm_qn) {"));
	assert_non_null(strstr(k, "const unsigned pm_ts = pm_whole ? 0u : "
		"(pm_u - pm_tdp) % pm_nr;"));
	assert_non_null(strstr(k, "const int pm_z = pm_whole ? 0 : (int) ((pm_u "
		"- pm_tdp) / pm_nr), pm_nz = pm_whole ? 1 : pm_ns;"));
	/* chunks of whole k tiles of the padded extent (a ragged K) */
	assert_non_null(strstr(k, "const int pm_k0_0 = pm_z * pm_kc0, pm_kn_0 "
		"= pm_whole ? pm_tK : min(pm_kc0, pm_tK - pm_k0_0);"));
	assert_non_null(strstr(k, "pm_qn = ((unsigned) pm_kn_0 + 63u) / 64u;"));
	assert_non_null(strstr(k, "const int pm_w0 = 8 * pm_z / pm_nz, pm_w1 = "
		"8 * (pm_z + 1) / pm_nz;"));
	/* the producer's and the consumers' k loops: the chunk */
	assert_int_equal(count(k, "c2 < pm_kn_0 / 64); c2 += (1)) {"), 2);
	assert_non_null(strstr(k, "(pm_k0_0 + 64 * c2) + 0, (128 * c0));"));
	fix = strstr(k, "if (pm_nz > 1) { pm_rs_put<64, 256>((const float *) "
		"pm_acc, pm_ws + ((int64_t) pm_ts * pm_nz + pm_z) * 16384 + 0, "
		"pm_w0, pm_w1); pm_rs_sync<256>(pm_cnt + pm_ts, (unsigned) pm_nz);"
		" for (int pm_q = 0; pm_q < pm_nz; ++pm_q) if (pm_q != pm_z) { "
		"pm_rs_add<64, 256>((float *) pm_acc, pm_ws + ((int64_t) pm_ts * "
		"pm_nz + pm_q) * 16384 + 0, pm_w0, pm_w1); } pm_rs_done(pm_cnt + "
		"pm_ts, (unsigned) pm_nz); }\n");
	assert_non_null(fix);
	st = strstr(k, "pm_sm90_store<64, 128>(");
	assert_non_null(st);
	assert_true(strstr(k, "pm_sm90_drain<64>") < fix);
	assert_true(fix < st);
	/* every row of C stored under the strip's predicate */
	assert_int_equal(count(k, "if (pm_nz == 1 || ("), 8);
	assert_non_null(strstr(k, "if (pm_nz == 1 || ((c2 + 16) / 16 >= pm_w0 "
		"&& (c2 + 16) / 16 < pm_w1)) if ((128 * c0 + c2 + 16) < M && (128 * "
		"c1 + 8 * c3) < N) pm_copy16_s2g(&C["));
	free(k);
	/* the others do not reduce-scatter: the swapped rows of 16 and 32
	 * columns' last chunk to arrive sums (docs/decisions/0058), the 64
	 * column one reduce-scatters */
	assert_int_equal(count(s, "pm_rs_sync<256>(pm_cnt"), 1);
	assert_int_equal(count(s, "pm_rs_sync<128>(pm_cnt"), 2);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_nn_persist_swap(");
	assert_int_equal(count(k, "pm_rs_sync"), 0);
	/* the units as _persist_split's */
	assert_non_null(strstr(k, "for (unsigned pm_u = blockIdx.x; pm_u < "
		"pm_tdp + pm_nr * (unsigned) pm_ns; pm_u += gridDim.x, pm_qc += "
		"pm_qn) {"));
	/* the unit's whole accumulators, the last to arrive sums them all
	 * and stores the whole tile; the others go on to their next unit
	 * (no loop but the units' around the fixup: continue is its) */
	fix = strstr(k, "if (pm_nz > 1) { pm_splitk_put<8, 256>((const float "
		"*) pm_acc, pm_ws + ((int64_t) pm_ts * pm_nz + pm_z) * 2048 + 0);"
		" if (!pm_la_last<256>(pm_cnt + pm_ts, pm_nz, (volatile int *) "
		"&pm_bar[12])) continue; pm_la_sum<8, 256>((float *) pm_acc, "
		"pm_ws + (int64_t) pm_ts * pm_nz * 2048 + 0, 2048, pm_nz); }\n");
	assert_non_null(fix);
	assert_int_equal(count(k, "for ("), 4);
	{
		const char *l = strstr(k, "c2 < pm_kn_0 / 64); c2 += (1)) {");
		int depth = 0;

		l = l ? strstr(l + 1, "c2 < pm_kn_0 / 64); c2 += (1)) {") : NULL;
		assert_non_null(l);
		assert_true(l < fix);
		/* the consumers' k loop is closed before the fixup */
		for (const char *c = strchr(l, '{'); c < fix; ++c)
			depth += *c == '{' ? 1 : *c == '}' ? -1 : 0;
		assert_true(depth <= 0);
	}
	assert_int_equal(count(k, "if (pm_nz == 1 || ("), 0);
	/* the flag past the 12 mbarriers (6 stages, docs/decisions/0063) */
	assert_non_null(strstr(k, "for (int pm_i = 0; pm_i < 12; ++pm_i)"));
	free(k);
	/* the counter as CUTLASS's barriers: one thread's release after the
	 * warps' barrier (no per-thread fence), the second arrival after the
	 * adds */
	{
		const char *h = strstr(s, "void pm_rs_sync(unsigned *cnt");
		const char *e = h ? strstr(h, "pm_rs_done(unsigned *cnt") : NULL;

		assert_non_null(e);
		assert_non_null(strstr(h, "\"fence.acq_rel.gpu;\\n\"\n"
			"                 \"red.relaxed.gpu.global.add.u32 [%0], "
			"1;\\n\""));
		assert_true(strstr(h, "fence.acq_rel.gpu") < e);
		assert_true(!strstr(h, "__threadfence") ||
			strstr(h, "__threadfence") > e);
		assert_non_null(strstr(e, "atomicAdd(cnt, 1u) == 2 * nz - 1"));
	}
	/* the launch: the plan's grid, chunk and whole tiles */
	nv = pm_test_rows("gemm_nn", "sm_90a", opts, rows, &f);
	{
		char *l = launch_case(s, pm_test_role(rows, nv,
			PM_RT_PERSIST_SPLIT));

		assert_non_null(l);
		assert_non_null(strstr(l, "\t\tdim3 grid((unsigned) (c->grid), "
			"1);\n"));
		assert_non_null(find_launch(l, "pm_kernel_gemm_nn_persist_split",
			"288, 165952, stream"));
		assert_non_null(strstr(l, ", (int) c->kc[0], (unsigned) c->tdp, "
			"pm_tm0, pm_tm1);"));
		free(l);
	}
	free(s);
	free(diag);
	/* the plan (H100 model) without the slim row (which takes grids of
	 * at most one wave of 64x128 tiles the split runs in two chunks:
	 * 8448x128x2048, 132 of them; docs/decisions/0067): under 3/5 tile
	 * per SM, not on 1/2 to 3/5 with 16 k tiles (67 tiles: _persist),
	 * chunks of 16 k tiles or more (40 tiles: 47 k tiles 2, 48 3), whole
	 * (50: 3 of 17), at most 8 (one strip per consumer warp), units
	 * filling half the SMs (33 tiles x 2 chunks, not 32); the grid the
	 * units, at most one block per SM; no workspace: unsplit, not this
	 * kernel */
	{
		struct pm_rt_variant r2[PM_RT_MAX_VARIANTS];
		struct pm_rt_choice c;

		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", opts,
			8448, 128, 2048), "_persist_slim");
		assert_string_equal(split_launch(opts, 8448, 128, 2048),
			"_persist_split,s=2");
		pm_test_plan_suffix_without("gemm_nn", "sm_90a", opts, 8448,
			128, 2048, NO_SLIM, &c);
		assert_true(c.grid == 132 && c.kc[0] == 1024 && c.tdp == 0);
		assert_int_equal(c.ws_bytes, 4096 + 66 * 2 * 65536);
		memcpy(r2, rows, sizeof(rows));
		assert_int_equal(c.v_nows, pm_test_row(r2,
			pm_test_drop_rows(r2, nv, NO_SLIM), "_small_tma"));
		assert_string_equal(split_launch(opts, 8576, 128, 2048),
			"_persist");
		assert_string_equal(split_launch(opts, 1280, 512, 3008),
			"_persist_split,s=2");
		assert_string_equal(split_launch(opts, 1280, 512, 3072),
			"_persist_split,s=3");
		pm_test_plan_suffix_without("gemm_nn", "sm_90a", opts, 1280,
			512, 3200, NO_SLIM, &c);
		assert_true(c.s == 3 && c.kc[0] == 17 * 64 && c.grid == 120);
		pm_test_plan_suffix_without("gemm_nn", "sm_90a", opts, 1280,
			128, 16384, NO_SLIM, &c);
		assert_true(c.s == 8 && c.grid == 80);
		assert_string_equal(split_launch(opts, 4224, 128, 2048),
			"_persist_split,s=2");
		assert_string_equal(split_launch(opts, 4096, 128, 2048),
			"_small");
	}
	/* several waves whose last is at most half full (594 tiles: 66 of
	 * 132; 595: 67), k of 16 tiles or more: the full waves' tiles whole,
	 * the tail's split (chunks of 4 k tiles or more, whole: 25 k tiles
	 * in 5 of 5, not 6), the workspace the tail's; none after the wide
	 * rule (450 tiles); no workspace: _persist */
	{
		struct pm_rt_choice c;

		pm_test_plan_suffix("gemm_nn", "sm_90a", opts, 3456, 2816, 1664,
			&c);
		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", opts,
			3456, 2816, 1664), "_persist_split,s=2");
		assert_true(c.tdp == 528 && c.grid == 132 && c.kc[0] == 832);
		assert_int_equal(c.ws_bytes, 4096 + 66 * 2 * 65536);
		assert_int_equal(c.v_nows, pm_test_row(rows, nv, "_persist"));
		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", opts,
			2176, 4480, 1664), "_persist");
		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", opts,
			3456, 2816, 1024), "_persist_split,s=2");
		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", opts,
			3456, 2816, 960), "_persist");
		pm_test_plan_suffix("gemm_nn", "sm_90a", opts, 1664, 2816, 1600,
			&c);
		assert_true(c.s == 5 && c.tdp == 264 && c.kc[0] == 5 * 64);
		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", opts,
			1664, 2816, 2432), "_persist_split,s=6");
		assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", opts,
			1920, 3840, 1664), "_persist_wide");
	}
	/* Add(GEMM, GEMM): the unit's chunks of both contractions */
	s = try_gen("add_gemm", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, "pm_kernel_add_gemm_persist_split(");
	assert_non_null(strstr(k, "pm_qn = ((unsigned) pm_kn_0 + 63u) / 64u + "
		"((unsigned) pm_kn_1 + 63u) / 64u;"));
	assert_non_null(strstr(k, "const unsigned pm_q = pm_qc + ((unsigned) "
		"pm_kn_0 + 63u) / 64u + ((c2))"));
	free(k);
	free(s);
	free(diag);
	/* a prologue through the MMA's registers has it too, for small grids
	 * only (no tail rule: its persistent kernels lose on several waves) */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "pm_kernel_relu_gemm_persist_split("));
	free(s);
	free(diag);
	assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts, 640,
		512, 2048), "_persist_split,s=4");
	assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts, 3456,
		2816, 1664), "_persist_wide");
	assert_string_equal(pm_test_launch("relu_gemm", "sm_90a", opts, 1664,
		2816, 2432), "_persist_mid");
	/* only with --split-k auto (runtime/plan.h, embedded, names the
	 * roles) */
	for (int i = 0; i < 2; ++i) {
		const unsigned split = 1u << PM_RT_PERSIST_SPLIT |
			1u << PM_RT_PERSIST_SPLIT_CL;

		s = try_gen("gemm_nn", i ? never : fixed, &diag);
		assert_non_null(s);
		assert_null(strstr(s, "pm_kernel_gemm_nn_persist_split"));
		assert_int_equal(pm_test_roles("gemm_nn", "sm_90a", i ? never :
			fixed) & split, 0);
		assert_true(pm_test_roles("gemm_nn", "sm_90a", opts) & split);
		free(s);
		free(diag);
	}
}

/* --persistent on where it cannot be: clear errors, no output. */
static void test_refusals(void **state)
{
	static const struct {
		const char *spec, *opt[8], *msg;
	} cases[] = {
		{ "def p(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		  "    C(i, j) +=! A(i, k) * tanh(B(k, j))\n}\n",
		  { "target", "sm_90a", "persistent", "on" },
		  "--persistent on: not possible here (it needs TMA copies, and "
		  "a prologue applied in shared memory reads the units each "
		  "thread copied)" },
		{ "gemm_nn", { "target", "sm_80", "persistent", "on" },
		  "--persistent on: it needs TMA copies (--target sm_90a, --tma "
		  "not off); target sm_80" },
		{ "gemm_nn", { "target", "sm_90a", "persistent", "on", "tma",
		  "off" }, "with --tma off" },
		{ "gemm_nn", { "target", "sm_90a", "persistent", "on",
		  "split-k", "2" }, "--persistent on: the persistent kernel does "
		  "not split k (--split-k 2)" },
	};
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		char *diag, *s = try_gen(cases[i].spec, cases[i].opt, &diag);

		assert_null(s);
		if (!strstr(diag, cases[i].msg))
			fprintf(stderr, "case %zu: %s\n", i, diag);
		assert_non_null(strstr(diag, cases[i].msg));
		free(diag);
	}
	assert_int_equal(polymma_options_set(o, "persistent", "yes", &err),
		POLYMMA_ERR_USAGE);
	assert_string_equal(err, "--persistent expects auto, on or off");
	polymma_options_free(o);
}

/* TMA stores (decision 0048): the staged tile leaves by one thread's TMA
 * stores of its 64-column swizzled blocks through the output's map,
 * waited for (reads) before the next tile is staged and (complete) before
 * the block leaves; --tma-store off, split rows and f32 outputs keep the
 * threads' 16-byte copies. */
static void test_tma_store(void **state)
{
	const char *on[] = { "target", "sm_90a", "persistent", "on", NULL };
	const char *off[] = { "target", "sm_90a", "persistent", "on",
		"tma-store", "off", NULL };
	const char *split[] = { "target", "sm_90a", NULL };
	const char *bf[] = { "target", "sm_90a", "persistent", "on", NULL };
	char *s = gen("nn", on, NULL, NULL), *k, *w, *st, *t, *diag;

	(void) state;
	k = kernel_text(s, "__launch_bounds__(288, 1) pm_kernel_gemm_nn(");
	assert_non_null(strstr(k, "const __grid_constant__ CUtensorMap pm_tm1, "
		"const __grid_constant__ CUtensorMap pm_tm2)"));
	assert_int_equal(count(k, "pm_copy16_s2g("), 0);
	assert_int_equal(count(k, "pm_sm90_store_swz<64, 128, __half>("), 1);
	assert_int_equal(count(k, "pm_tma_store_2d(&pm_tm2, "), 2);
	assert_non_null(strstr(k, "if (threadIdx.x == 0) { pm_tma_store_2d("
		"&pm_tm2, (unsigned char *) pm_cst + ((1)) * 16384, (128 * c1 + "
		"64), (128 * c0)); pm_bulk_commit(); }"));
	/* the wait, then the barrier, then the staging, then the stores */
	w = strstr(k, "if (threadIdx.x == 0) pm_bulk_wait_read();\n");
	st = strstr(k, "pm_sm90_store_swz<");
	t = strstr(k, "pm_tma_store_2d(");
	assert_true(w && st && t && w < st && st < t);
	assert_non_null(strstr(w, "pm_fence_proxy_async(); pm_bar_sync_n<256>();"));
	assert_non_null(strstr(k, "\t}\n\tif (threadIdx.x == 0)\n\t\t"
		"pm_bulk_wait();\n}\n"));
	assert_non_null(strstr(s, "if (pm_tma_map_2d_ty(&pm_tm2, C, "
		"CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, M, N, N, 128, 64, 128) != "
		"cudaSuccess)"));
	free(k);
	free(s);
	s = gen("nn", off, NULL, NULL);
	assert_int_equal(count(s, "pm_tma_store_2d(&"), 0);
	assert_int_equal(count(s, "if (threadIdx.x == 0) pm_bulk_wait"), 0);
	assert_true(count(s, "pm_copy16_s2g(&C[") > 0);
	free(s);
	/* the whole file: every unsplit persistent row, no split row */
	s = try_gen("gemm_nn", split, &diag);
	assert_non_null(s);
	free(diag);
	k = kernel_text(s, "pm_kernel_gemm_nn_persist_split(");
	assert_int_equal(count(k, "pm_tma_store_2d(&"), 0);
	free(k);
	k = kernel_text(s, "pm_kernel_gemm_nn_persist_wide(");
	assert_int_equal(count(k, "pm_tma_store_2d(&pm_tm2, "), 4);
	free(k);
	k = kernel_text(s, "pm_kernel_gemm_nn_persist_sq(");
	assert_int_equal(count(k, "pm_tma_store_2d(&pm_tm2, "), 3);
	free(k);
	free(s);
	s = gen("def f(bf16(M, K) A, bf16(K, N) B) -> (bf16(M, N) C) {\n"
		"    C(i, j) +=! A(i, k) * B(k, j)\n}\n", bf, NULL, NULL);
	assert_non_null(strstr(s, "pm_sm90_store_swz<64, 128, __nv_bfloat16>("));
	assert_non_null(strstr(s, "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, M, N, "
		"N, 128, 64, 128)"));
	free(s);
	/* a batched output: a 3-D map, the unit's batch its coordinate */
	s = gen("def f(f16(Bt, M, K) A, f16(K, N) B) -> (f16(Bt, M, N) C) {\n"
		"    C(b, i, j) +=! A(b, i, k) * B(k, j)\n}\n", bf, NULL, NULL);
	assert_int_equal(count(s, "if (threadIdx.x == 0) { pm_tma_store_3d("
		"&pm_tm2, (unsigned char *) pm_cst + ((1)) * 16384, (128 * c1 + "
		"64), (128 * c0), (int) pm_bz); pm_bulk_commit(); }"), 1);
	assert_non_null(strstr(s, "pm_tma_map_3d_ty(&pm_tm2, C, "
		"CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, M, N, N, (int64_t) (Bt), "
		"(int64_t) (M) * (N), 128, 64, 128)"));
	free(s);
	s = gen("def f(f16(M, K) A, f16(K, N) B) -> (f32(M, N) C) {\n"
		"    C(i, j) +=! A(i, k) * B(k, j)\n}\n", bf, NULL, NULL);
	assert_int_equal(count(s, "pm_tma_store_2d(&"), 0);
	free(s);
}

/* --dump-schedule shows the producer's subtree under its mark, in front
 * of the k loop. */
static void test_dump(void **state)
{
	const char *opts[] = { "target", "sm_90a", "persistent", "on",
		"dump-schedule", "promote", NULL };
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *text = pm_test_read("examples/gemm_nn.tc"), *dump = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&dump, &len);

	(void) state;
	assert_non_null(f);
	for (int i = 0; opts[i]; i += 2)
		assert_int_equal(polymma_options_set(o, opts[i], opts[i + 1],
			NULL), POLYMMA_OK);
	polymma_options_set_dump_stream(o, f);
	assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o, &r),
		POLYMMA_OK);
	fclose(f);
	p = strstr(dump, "mark: \"producer\"");
	assert_non_null(p);
	assert_non_null(strstr(p, "mark: \"red\""));
	free(dump);
	free(text);
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_fused),
		cmocka_unit_test(test_variant),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_tma_store),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

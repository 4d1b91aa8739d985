#define _POSIX_C_SOURCE 200809L
/* emit and the library API: the generated file, launcher, header, meta. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"
#include "tests/plan_util.h"

static void test_sm80_kernel(void **state)
{
	const char *opts[] = { "frag-pipeline", "off", "staged-store", "off",
		NULL };
	char *h, *m, *s = gen("nn", opts, &h, &m);

	(void) state;
	assert_non_null(strstr(s, "extern \"C\" cudaError_t gemm_nn(const void "
		"*A, const void *B, void *C, int64_t M, int64_t N, int64_t K, "
		"cudaStream_t stream)"));
	assert_non_null(strstr(s, "__launch_bounds__(128, 1)"));
	/* 2 k-steps x 2 x 2 macro tiles of 32x32x16 per warp, unrolled */
	assert_int_equal(count(s, "pm_sm80_mma_tile<32, 32, 16, 1, 32, 1, 1, "
		"128, 1>(pm_acc[("), 8);
	assert_int_equal(count(s, "pm_sm80_store<32, 32>(pm_acc[("), 4);
	assert_int_equal(count(s, "pm_fill_zero(pm_acc[("), 4);
	/* 3 stages: a prologue of 2 k tiles, then one k tile per iteration;
	 * the copies of tiles that may not exist are predicated, not
	 * branched around */
	assert_int_equal(count(s, "\tpm_cp_async_wait<1>(); __syncthreads();"), 1);
	assert_int_equal(count(s, "\tpm_cp_async16(&A_shared["), 4);
	assert_int_equal(count(s, "\tpm_cp_async16_if(&A_shared["), 8);
	/* units past M, N (a ragged last tile) copy the last one inside */
	assert_non_null(strstr(s, "&A[(int64_t) ((128 * c0 + c3) < M - 1 ? "
		"(128 * c0 + c3) : M - 1) * (int64_t) K + (int64_t) (8 * c4)]"));
	assert_non_null(strstr(s, "(int64_t) ((128 * c1 + 8 * c4) < N - 8 ? "
		"(128 * c1 + 8 * c4) : N - 8)]"));
	assert_int_equal(count(s, "\tpm_cp_async_commit();"), 3);
	assert_null(strstr(s, "pm_fa["));
	assert_non_null(strstr(s, "pm_smem_off<32, 1>("));
	assert_non_null(strstr(s, "<<<grid, 128, 49152, stream>>>"));
	/* tile blockIdx.x of the raster order: groups of 8 tile rows */
	assert_non_null(strstr(s, "\tconst unsigned pm_tx = ((unsigned) N + "
		"127u) / 128u, pm_ty = ((unsigned) M + 127u) / 128u, pm_gw = 8u * "
		"pm_tx;\n\tconst unsigned pm_t = blockIdx.x, pm_r0 = pm_t / pm_gw "
		"* 8u;\n"));
	assert_non_null(strstr(s, "const int c0 = (0) + pm_by;"));
	assert_non_null(strstr(s, "const int c1 = (0) + pm_bx;"));
	assert_non_null(strstr(s, "dim3 grid((unsigned) ((int64_t) ((M + 128 - "
		"1) / 128) * ((N + 128 - 1) / 128)), 1);"));
	/* M, N ragged: the loops over whole tiles (the padded extents), the
	 * launcher asks N for rows of 16-byte units, K for whole k tiles */
	assert_non_null(strstr(s, "\tconst int pm_tM = (M + 127) / 128 * 128;\n"));
	assert_non_null(strstr(s, "if (c0 < pm_tM / 128)"));
	assert_non_null(strstr(s, "\tif (M < 1 || M > 0x7fffff00)\n"));
	assert_non_null(strstr(s, "N % 8"));
	/* where 128x128 tiles divide M and N, the exact twin runs (the
	 * kernel without guards) */
	assert_non_null(strstr(s, "\tif ((M % 128 == 0 && N % 128 == 0))\n"
		"\t\tpm_kernel_gemm_nn_x<<<grid, 128, 49152, stream>>>("));
	assert_non_null(strstr(s, "\telse\n\t\tpm_kernel_gemm_nn<<<grid, 128, "
		"49152, stream>>>("));
	assert_non_null(strstr(s, "K % 32"));
	assert_non_null(strstr(s, "cudaErrorMisalignedAddress"));
	/* the original statements are gone: only macro statements remain */
	assert_null(strstr(s, "S_0"));
	assert_non_null(strstr(s, " * block    128x128x32"));
	assert_non_null(strstr(h, "cudaError_t gemm_nn("));
	assert_non_null(strstr(h, "extern \"C\""));
	assert_non_null(strstr(m, "\"target\": \"sm_80\""));
	assert_non_null(strstr(m, "\"mma\": [32, 32, 16]"));
	assert_non_null(strstr(m, "\"sizes\": [\"M\", \"N\", \"K\"]"));
	free(s);
	free(h);
	free(m);
}

/* The default sm_80 kernel loads its fragments one k-step ahead, across k
 * tiles (promote/fragments.c): S tiles in the prologue, waited for down to
 * S-1 pending groups, then LDF(0, 0); per tile one LDF inside (k-step 1 of
 * 2) and one for the next tile after the barrier; every macro-MMA reads
 * fragment registers; no branch around warp code. */
static void test_sm80_frag_pipeline(void **state)
{
	char *s = gen("nn", NULL, NULL, NULL);
	const char *ldf = "pm_sm80_ldf<64, 64, 1, 32, 1, 1, 128, 1>(pm_fa[(";

	(void) state;
	assert_non_null(strstr(s, "uint32_t pm_fa[2][4][4], pm_fb[2][8][2];"));
	assert_int_equal(count(s, ldf), 3);
	assert_non_null(strstr(s, "pm_sm80_ldf<64, 64, 1, 32, 1, 1, 128, 1>("
		"pm_fa[(0)], pm_fb[(0)], A_shared + (0) * 4096"));
	assert_non_null(strstr(s, "pm_fa[(0)], pm_fb[(0)], A_shared + "
		"((c2 + 1) % 3) * 4096"));
	assert_int_equal(count(s, "pm_sm80_mma_frag<32, 32>(pm_acc[("), 8);
	assert_int_equal(count(s, "pm_sm80_mma_frag<32, 32>(pm_acc[(3)], "
		"pm_fa[(1)], pm_fb[(1)], ((32)) / 16, ((32)) / 8);"), 1);
	assert_null(strstr(s, "_mma_tile<"));
	assert_int_equal(count(s, "\tpm_cp_async_wait<2>(); __syncthreads();"), 1);
	assert_int_equal(count(s, "\tpm_cp_async_wait<1>(); __syncthreads();"), 1);
	/* prologue tiles 0, 1, 2 (1 and 2 predicated), the loop's tile kt+3 */
	assert_int_equal(count(s, "\tpm_cp_async16(&A_shared["), 4);
	assert_int_equal(count(s, "\tpm_cp_async16_if(&A_shared["), 12);
	assert_non_null(strstr(s, "(32 * c2 + 8 * c4 + 96)"));
	assert_int_equal(count(s, "\tpm_cp_async_commit();"), 4);
	/* warps are exactly the block's threads: no guard on them */
	assert_null(strstr(s, "if (c3 <= 1)"));
	free(s);
}

/* The default store goes through shared memory (promote/store.c): the
 * macro tiles into a C tile with rows padded by 16 bytes between two
 * barriers, then 16-byte units, rows of 16 threads x 8 halves. */
static void test_staged_store(void **state)
{
	char *s = gen("nn", NULL, NULL, NULL);

	(void) state;
	assert_non_null(strstr(s, "__half *pm_cst = (__half *) pm_smem;"));
	assert_int_equal(count(s, "pm_sm80_store<32, 32>(pm_acc[("), 4);
	assert_non_null(strstr(s, "pm_sm80_store<32, 32>(pm_acc[(3)], pm_cst + "
		"((64 * c2 + 32)) * 136 + (64 * c3 + 32), 136, 1);"));
	/* not past M, N (a ragged last tile) */
	assert_int_equal(count(s, "\tif ((128 * c0 + c2) < M && (128 * c1 + 8 * "
		"c3) < N) pm_copy16_s2g(&C["), 1);
	assert_int_equal(count(s, " < N) pm_copy16_s2g(&C["), 16);
	assert_non_null(strstr(s, "pm_copy16_s2g(&C[(int64_t) (128 * c0 + c2 + "
		"120) * (int64_t) N + (int64_t) (128 * c1 + 8 * c3)], "
		"&pm_cst[((c2 + 120)) * 136 + (8 * c3)]);"));
	/* the loop's barrier, then the two around the C tile */
	assert_int_equal(count(s, "\t__syncthreads();"), 2);
	/* C (128 x 136 halves = 34816 bytes) fits in the operands' 48 KB */
	assert_non_null(strstr(s, "<<<grid, 128, 49152, stream>>>"));
	free(s);
}

/* With the default block tile the file also holds a 64x64-tile kernel
 * (warps 32x32, 4 stages) that the launcher runs when the 128x128 grid has
 * fewer blocks than the device has SMs; the size checks stay those of the
 * 128x128 kernel, whose tiles the small ones divide. */
static void test_small_variant(void **state)
{
	const char *opts[] = { "small-variant", "auto", "split-k", "auto",
		NULL };
	const char *blk[] = { "small-variant", "auto", "block", "128x128x32",
		NULL };
	char *s = gen("nn", opts, NULL, NULL);

	(void) state;
	assert_non_null(strstr(s, "extern \"C\" __global__ "
		"void __launch_bounds__(128, 1) pm_kernel_gemm_nn_small("));
	assert_non_null(strstr(s, "pm_sm80_ldf<32, 32, 1, 32, 1, 1, 64, 1>("));
	assert_non_null(strstr(s, "cudaDevAttrMultiProcessorCount"));
	/* when the plan does not split k (the H100 model: 132 SMs): 130
	 * tiles of 128x128 unsplit (4 k tiles), not 132 nor split (where
	 * there is no workspace, small) */
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		struct pm_rt_choice c;
		const int nv = pm_test_rows("gemm_nn", "sm_80", opts, rows, &f);
		const int sm = pm_test_role(rows, nv, PM_RT_SMALL);
		char *l = launch_case(s, sm);

		assert_int_equal(nv, 3);
		assert_string_equal(rows[sm].suffix, "_small");
		assert_true(rows[sm].bm == 64 && rows[sm].bn == 64 && rows[sm].bk
			== 32 && rows[sm].threads == 128 && rows[sm].smem == 32768);
		assert_string_equal(pm_test_launch("gemm_nn", "sm_80", opts,
			1280, 1664, 128), "_small");
		assert_string_equal(pm_test_launch("gemm_nn", "sm_80", opts,
			1408, 1536, 128), "_base");
		pm_test_plan_suffix("gemm_nn", "sm_80", opts, 1280, 1664, 4096,
			&c);
		assert_int_equal(c.v, pm_test_role(rows, nv, PM_RT_SPLIT));
		assert_int_equal(c.v_nows, sm);
		assert_non_null(strstr(l, "pm_kernel_gemm_nn_small<<<grid, 128, "
			"32768, stream>>>"));
		free(l);
		assert_non_null(strstr(s, "pm_kernel_gemm_nn<<<grid, 128, 49152, "
			"stream>>>"));
		/* sm_80 has no medium variant: the plan never picks one */
		assert_int_equal(pm_test_role(rows, nv, PM_RT_MEDIUM), -1);
		assert_null(strstr(s, "pm_kernel_gemm_nn_medium"));
	}
	/* once in each entry point: M, N ragged (N's rows of 16-byte units),
	 * K a multiple of the k tile */
	assert_int_equal(count(s, "if (M < 1 || M > 0x7fffff00)\n"), 3);
	assert_int_equal(count(s, "if (N < 1 || N > 0x7fffff00 || N % 8)\n"), 3);
	assert_int_equal(count(s, "if (K < 1 || K > 0x7fffff00 || K % 32)\n"), 3);
	assert_non_null(strstr(s, " *   _small             64x64x32, warp 32x32, 4 "
		"stages (+ _x): 64x64 blocks for grids smaller than the GPU\n"));
	free(s);
	/* a block tile given by the user is the only one */
	s = gen("nn", blk, NULL, NULL);
	assert_null(strstr(s, "pm_kernel_gemm_nn_small"));
	assert_non_null(strstr(s, " *   _small             not built: --block "
		"given\n"));
	free(s);
}

static void test_sm70_and_defines(void **state)
{
	const char *opts[] = { "target", "sm_70", "mma", "16x16x8", "define",
		"M=256", "define", "K=64", NULL };
	char *h, *m, *s = gen("tt", opts, &h, &m);

	(void) state;
	assert_non_null(strstr(s, "extern \"C\" cudaError_t gemm_tt(const void "
		"*A, const void *B, void *C, int64_t N, cudaStream_t stream)"));
	assert_non_null(strstr(s, "pm_sm70_mma_tile<16, 16, 8, 0, 136, 0, 0, "
		"40, 0>("));
	/* register-staged prefetch: tile kt+1 into registers before the
	 * MMAs, into shared memory after them */
	assert_non_null(strstr(s, "\tuint4 pm_rs0[4];"));
	assert_non_null(strstr(s, "pm_rs0[(3)] = *(const uint4 *) &A["));
	assert_non_null(strstr(s, "] = pm_rs1[(3)];"));
	assert_true(strstr(s, "pm_rs0[(0)] = *(const uint4 *)") <
		strstr(s, "pm_sm70_mma_tile<16, 16, 8, 0, 136, 0, 0, 40, 0>(pm_acc"));
	assert_true(strstr(s, "pm_sm70_mma_tile<16, 16, 8, 0, 136, 0, 0, 40, "
		"0>(pm_acc") < strstr(s, "] = pm_rs0[(0)];"));
	assert_non_null(strstr(s, "mma.sync.aligned.m8n8k4"));
	assert_non_null(strstr(m, "\"defines\": {\"M\": 256, \"K\": 64}"));
	assert_non_null(strstr(s, "__restrict__ C, int N)"));
	free(s);
	free(h);
	free(m);
}

/* Split-K (the default "auto"): each contraction's k is a chunk of
 * blockIdx.z (pm_k0_0, pm_kn_0) and FIXUP sums the chunks after the k
 * loop, before the epilogue; three entry points; --split-k 1 is the
 * unsplit kernel of before; --split-k N fixes the number of chunks. */
static void test_split_k(void **state)
{
	const char *one[] = { "split-k", "1", NULL };
	const char *three[] = { "split-k", "3", NULL };
	const char *aut[] = { "split-k", "auto", NULL };
	const char *sm90[] = { "target", "sm_90a", "split-k", "auto", NULL };
	const char *fixk[] = { "split-k", "auto", "define", "K=64", NULL };
	char *h, *m, *s = gen("nn", aut, &h, &m);
	const char *fix, *epi, *split;

	(void) state;
	/* two kernels: the one launched unsplit is the --split-k 1 kernel
	 * (no chunk parameters, no fixup code), and _split */
	split = strstr(s, "__global__ void __launch_bounds__(128, 1) "
		"pm_kernel_gemm_nn_split(");
	assert_non_null(split);
	assert_non_null(strstr(s, "pm_kernel_gemm_nn(const __half *__restrict__ "
		"A, const __half *__restrict__ B, __half *__restrict__ C, int M, "
		"int N, int K)\n"));
	assert_true(strstr(s, "pm_k0_0") > split);
	assert_non_null(strstr(s, "pm_kernel_gemm_nn_split<<<grid, 128, "));
	assert_non_null(strstr(s, "cudaMallocFromPoolAsync("));
	assert_non_null(strstr(s, "\tconst int pm_z = blockIdx.z, pm_nz = "
		"gridDim.z;\n\t(void) pm_nz;\n\tconst int pm_k0_0 = pm_z * pm_kc0, "
		"pm_kn_0 = min(pm_kc0, K - pm_k0_0);\n"));
	assert_non_null(strstr(s, "for (int c2 = (0); (c2 < pm_kn_0 / 32); "));
	fix = strstr(s, "if (pm_nz > 1) { pm_splitk_put<128, 128>((const float *)"
		" pm_acc, pm_ws + ");
	assert_non_null(fix);
	/* the workspace and counters of the launch's tiles */
	assert_non_null(strstr(fix, "if (!pm_splitk_arrive(pm_cnt + "
		"((int64_t) blockIdx.x), pm_nz, (int *) pm_smem)) return; "
		"pm_splitk_sum<128, 128>((float *) pm_acc, "));
	/* the plan's grid (the tiles) and s chunks over gridDim.z */
	assert_non_null(strstr(s, "\t\tdim3 grid((unsigned) (c->grid), 1, "
		"(unsigned) c->s);\n"));
	/* after the loop, before the store */
	assert_true(split < fix);
	assert_true(strstr(split, "pm_sm80_mma_frag") < fix);
	assert_true(fix < strstr(split, "pm_sm80_store<"));
	assert_int_equal(count(s, "if (pm_nz > 1)"), 1);
	assert_non_null(strstr(s, "extern \"C\" size_t gemm_nn_workspace_size("
		"int64_t M, int64_t N, int64_t K)"));
	assert_non_null(strstr(s, "extern \"C\" cudaError_t gemm_nn_ws(const "
		"void *A, const void *B, void *C, int64_t M, int64_t N, int64_t "
		"K, void *workspace, size_t workspace_bytes, cudaStream_t "
		"stream)"));
	assert_non_null(strstr(s, "pm_ws_alloc_gemm_nn(&ws, c.ws_bytes, "
		"stream)"));
	/* the plain entry: the stream's kept workspace first; the counters'
	 * area is fixed (one workspace serves every size) */
	assert_non_null(strstr(s, "pm_ws_get_gemm_nn(&ws, c.ws_bytes, stream) "
		"== cudaSuccess)\n\t\treturn pm_launch_gemm_nn(&c, A, B, C, M, N, "
		"K, ws, c.ws_bytes, stream);"));
	assert_non_null(strstr(s, "cudaStreamGetId(stream, &id)"));
	assert_non_null(strstr(s, "cudaFreeAsync(ws, stream)"));
	/* the plan (the H100 model: 132 SMs x 4 blocks): s = SMs x blocks
	 * per SM / tiles where the tiles are fewer, at most a chunk per 4 k
	 * tiles; the counters' 4096 bytes in front of the partials */
	{
		const char *a2[] = { "small-variant", "off", "split-k", "auto",
			NULL };
		struct pm_rt_choice c;

		pm_test_plan_suffix("gemm_nn", "sm_80", a2, 1280, 1280, 4096, &c);
		assert_true(c.s == 528 / 100 && c.grid == 100 && c.kc[0] == 832);
		assert_true(c.cnt_bytes == 4096 && c.ws_bytes == 4096 + 100 * 5 *
			128 * 128 * 4);
		assert_string_equal(pm_test_launch("gemm_nn", "sm_80", a2, 2048,
			2048, 4096), "_split,s=2");
		assert_string_equal(pm_test_launch("gemm_nn", "sm_80", a2, 1280,
			1280, 256), "_split,s=2");
		pm_test_plan_suffix("gemm_nn", "sm_80", a2, 2944, 2944, 4096, &c);
		assert_true(c.s == 1 && c.cnt_bytes == 0 && c.ws_bytes == 0);
	}
	assert_non_null(strstr(h, "size_t gemm_nn_workspace_size(int64_t M, "
		"int64_t N, int64_t K);"));
	assert_non_null(strstr(m, "\"split_k\": \"auto\""));
	free(s);
	free(h);
	free(m);
	/* unsplit on request: no chunk parameters, one entry point */
	s = gen("nn", one, &h, &m);
	assert_null(strstr(s, "pm_k0_"));
	assert_null(strstr(s, "pm_nz"));
	assert_null(strstr(s, "_ws("));
	assert_null(strstr(h, "workspace"));
	assert_non_null(strstr(m, "\"split_k\": 1,"));
	free(s);
	free(h);
	free(m);
	/* a fixed number of chunks, whatever the grid, up to the counters'
	 * 1024 tiles */
	s = gen("nn", three, NULL, &m);
	assert_non_null(strstr(m, "\"split_k\": 3,"));
	free(s);
	free(m);
	{
		const char *t3[] = { "small-variant", "off", "split-k", "3", NULL };

		assert_string_equal(pm_test_launch("gemm_nn", "sm_80", t3, 1280,
			1280, 4096), "_split,s=3");
		assert_string_equal(pm_test_launch("gemm_nn", "sm_80", t3, 4096,
			4096, 4096), "_split,s=3");
		assert_string_equal(pm_test_launch("gemm_nn", "sm_80", t3, 4096,
			4224, 4096), "_base");
	}
	/* K fixed: the chunk of k is still the kernel's */
	s = gen("nn", fixk, NULL, NULL);
	assert_non_null(strstr(s, "__restrict__ C, int M, int N, float "
		"*__restrict__ pm_ws, unsigned *__restrict__ pm_cnt, int pm_kc0"));
	assert_non_null(strstr(s, "pm_kn_0 = min(pm_kc0, 64 - pm_k0_0);"));
	free(s);
	/* an epilogue runs after the fixup, in the block that sums */
	{
		char *text = pm_test_read("examples/gemm_bias_relu.tc");

		assert_non_null(text);
		s = gen(text, sm90, NULL, NULL);
		free(text);
	}
	fix = strstr(s, "if (pm_nz > 1) { pm_splitk_put<64, 256>(");
	assert_non_null(fix);
	epi = strstr(fix, "pm_relu((pm_v + pm_x0[pm_e]))");
	assert_non_null(epi);
	assert_true(fix < epi);
	/* the bias in the accumulators' distribution, two columns per load
	 * (registers r, r + 1: columns n, n + 1), its alignment checked */
	assert_non_null(strstr(s, "for (int pm_r = 0; pm_r < 64; pm_r += 2) "
		"{ int pm_m, pm_n; pm_sm90_acc_coord<64, 128>(pm_r, "
		"pm_wg_thread(), &pm_m, &pm_n); const int64_t pm_i = "));
	/* a macro tile inside M, N reads at its own indices; one past them
	 * (a ragged last tile) at the column clamped to N - 2, on a path of
	 * its own */
	assert_non_null(strstr(s, "if ((int) (128 * c0 + 64 * c2) + 64 <= M && "
		"(int) (128 * c1) + 128 <= N) { _Pragma(\"unroll\") for (int "
		"pm_r = 0;"));
	assert_non_null(strstr(s, "} else { _Pragma(\"unroll\") for (int pm_r"));
	assert_non_null(strstr(s, "const int64_t pm_jc0 = (int) pm_j0 < N ? "
		"pm_j0 : N - 2;"));
	assert_non_null(strstr(s, "pm_ld2f(&bias[(int64_t) pm_jc0], "));
	assert_non_null(strstr(s, "float pm_x0[2]; pm_ld2f(&bias[(int64_t) "
		"pm_j0], &pm_x0[0], &pm_x0[1]); _Pragma(\"unroll\") for (int "
		"pm_e = 0; pm_e < 2; ++pm_e) { float *pm_p = &pm_acc[(0)][pm_r "
		"+ pm_e]; const int64_t pm_j = pm_j0 + pm_e;"));
	assert_null(strstr(s, "pm_f(bias["));
	assert_non_null(strstr(s, "\tif ((uintptr_t) bias % 4)\n\t\treturn "
		"cudaErrorMisalignedAddress;\n"));
	free(s);
}

/* Prologues overlapped with the asynchronous MMAs (sm_90a default): the
 * loop's barrier first, the MMAs issued without waiting, then tile kt+1's
 * prologue (its copies waited for, no barrier), then the wait for the
 * MMAs; tile 0's prologue before the loop. --pro-overlap off: the prologue
 * of tile kt between its wait and a barrier, MMAs waited at issue. */
static void test_pro_overlap(void **state)
{
	const char *relu = "def r(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) "
		"{\n  C(i, j) +=! relu(A(i, k)) * B(k, j)\n}\n";
	const char *on[] = { "target", "sm_90a", "pro-regs", "off", NULL };
	const char *off[] = { "target", "sm_90a", "pro-overlap", "off",
		"pro-regs", "off", NULL };
	char *s = gen(relu, on, NULL, NULL);
	const char *loop, *mma, *wait, *pro, *drain;

	(void) state;
	loop = strstr(s, "for (int c2 = (0); (c2 < K / 64); c2 += (1)) {\n"
		"\t\t\t\t\t\tpm_fence_proxy_async(); __syncthreads();\n");
	assert_non_null(loop);
	mma = strstr(loop, "pm_sm90_mma_tile<64, 128, 64, 1, 64, 1, 1, 128, 2, "
		"128, 64>(pm_acc[(0)], A_shared + (c2 % 3) * 8192, (64 * c3), "
		"(0), B_shared + (c2 % 3) * 8192, (0), (0));\n");
	assert_non_null(mma);
	wait = strstr(mma, "pm_cp_async_wait<1>();\n");
	pro = strstr(mma, "__half *pm_q = &A_shared[((c2 + 1) % 3) * 8192");
	drain = strstr(mma, "pm_sm90_drain<64>((float *) pm_acc);\n");
	assert_non_null(wait);
	assert_non_null(pro);
	assert_non_null(drain);
	assert_true(wait < pro && pro < drain);
	/* tile 0: waited for and transformed before the loop */
	assert_non_null(strstr(s, "pm_cp_async_wait<1>();\n"));
	assert_true(strstr(s, "__half *pm_q = &A_shared[(0) * 8192") < loop);
	free(s);
	s = gen(relu, off, NULL, NULL);
	assert_non_null(strstr(s, "pm_cp_async_wait<1>();\n"));
	assert_non_null(strstr(s, "__half *pm_q = &A_shared[(c2 % 3) * 8192"));
	assert_non_null(strstr(s, "(0), (0)); pm_sm90_drain<64>(pm_acc[(0)]);"));
	assert_null(strstr(s, "((c2 + 1) % 3) * 8192 + pm_smem_off"));
	free(s);
	/* required where it cannot be: refused with a message */
	{
		polymma_ctx *ctx = polymma_ctx_alloc();
		polymma_options *o = polymma_options_alloc();
		polymma_result *r = NULL;

		assert_int_equal(polymma_options_set(o, "target", "sm_90a",
			NULL), POLYMMA_OK);
		assert_int_equal(polymma_options_set(o, "stages", "4", NULL),
			POLYMMA_OK);
		assert_int_equal(polymma_options_set(o, "mma-inflight", "on",
			NULL), POLYMMA_OK);
		assert_int_equal(polymma_options_set(o, "pro-overlap", "on",
			NULL), POLYMMA_OK);
		assert_int_equal(polymma_generate(ctx, relu, "r.tc", o, &r),
			POLYMMA_ERR_SPEC);
		assert_non_null(strstr(polymma_diagnostics(ctx),
			"--pro-overlap on: not possible here"));
		assert_int_equal(polymma_options_set(o, "pro-overlap", "maybe",
			NULL), POLYMMA_ERR_USAGE);
		polymma_options_free(o);
		polymma_ctx_free(ctx);
	}
}

/* Layouts reach the macro-MMA as the orientation of its shared tiles:
 * A(K, M) is stored [k][m] (A_KC = 0), B(N, K) [n][k] (B_NC = 0). */
static void test_layout_orientation(void **state)
{
	const char *opts[] = { "smem", "pad", "stages", "1", NULL };
	char *s = gen("tn", NULL, NULL, NULL);

	(void) state;
	assert_non_null(strstr(s, "_ldf<64, 64, 0, 128, 1, 1, 128, 1>"));
	free(s);
	s = gen("nt", opts, NULL, NULL);
	assert_non_null(strstr(s, "_mma_tile<32, 32, 16, 1, 40, 0, 0, 40, 0>"));
	/* one stage: copy, commit, wait for everything, compute, sync; then
	 * the two barriers of the staged store */
	assert_non_null(strstr(s, "pm_cp_async_wait<0>(); __syncthreads();"));
	assert_int_equal(count(s, "\t__syncthreads();"), 3);
	free(s);
}

/* sm_90a: warpgroups of 128 threads issue wgmma on descriptors of the
 * canonical swizzled tiles; B ([k][n], 128 wide) in 64-wide blocks. */
static void test_sm90a_kernel(void **state)
{
	const char *opts[] = { "target", "sm_90a", "tma", "off", NULL };
	const char *inflight[] = { "target", "sm_90a", "mma-inflight", "on",
		"stages", "4", NULL };
	char *s = gen("nn", opts, NULL, NULL), *t;

	(void) state;
	/* 2 warpgroups of 64x128, 3 stages of 32 KB, 1024-byte aligned */
	assert_non_null(strstr(s, "__launch_bounds__(256, 1)"));
	assert_non_null(strstr(s, "extern __shared__ __align__(1024)"));
	assert_non_null(strstr(s, "__half *B_shared = (__half *) (pm_smem + "
		"49152);"));
	assert_non_null(strstr(s, "float pm_acc[1][64];"));
	assert_non_null(strstr(s, "const int c3 = (0) + ((int) threadIdx.x / "
		"128);"));
	/* A [m][k] rows of 64 swizzled in place; B in 64-wide blocks of 64
	 * rows: the tiles' row counts follow the layouts */
	assert_non_null(strstr(s, "pm_sm90_mma_tile<64, 128, 64, 1, 64, 1, 1, "
		"128, 2, 128, 64>(pm_acc[(0)], A_shared + (c2 % 3) * 8192, "
		"(64 * c3), (0), B_shared + (c2 % 3) * 8192, (0), (0)); "
		"pm_sm90_drain<64>(pm_acc[(0)]);"));
	assert_non_null(strstr(s, "pm_smem_off<128, 2, 64>("));
	assert_non_null(strstr(s, "pm_smem_off<64, 1>("));
	/* every barrier of the kernel publishes shared data to the async
	 * proxy */
	t = strstr(s, "__global__");
	assert_non_null(t);
	assert_int_equal(count(t, "__syncthreads();"),
		count(t, "pm_fence_proxy_async(); __syncthreads();"));
	assert_non_null(strstr(s, "pm_cp_async_wait<1>(); "
		"pm_fence_proxy_async(); __syncthreads();"));
	assert_null(strstr(s, "__builtin_unreachable"));
	assert_non_null(strstr(s, "pm_sm90_store<64, 128>(pm_acc[(0)], pm_cst"));
	assert_non_null(strstr(s, "<<<grid, 256, 98304, stream>>>"));
	free(s);

	/* tt: A stored [k][m] is MN-major, in 64-wide blocks of 64 rows */
	s = gen("tt", opts, NULL, NULL);
	assert_non_null(strstr(s, "pm_sm90_mma_tile<64, 128, 64, 0, 128, 2, 0, "
		"64, 1, 64, 128>("));
	free(s);

	/* one k tile of MMAs in flight: copies 2 tiles ahead of 4 stages,
	 * all but the last MMA group waited for before the barrier, every
	 * accumulator drained before it is read */
	s = gen("nn", inflight, NULL, NULL);
	assert_non_null(strstr(s, "pm_wgmma_wait<1>(); pm_cp_async_wait<1>(); "
		"pm_fence_proxy_async(); __syncthreads();"));
	assert_null(strstr(s, "pm_sm90_drain<64>(pm_acc[(0)]);"));
	assert_non_null(strstr(s, "__builtin_unreachable"));
	t = strstr(s, "pm_sm90_store<64, 128>(");
	assert_non_null(t);
	while (t > s && t[-1] != '\n')
		--t;
	assert_non_null(strstr(t, "pm_sm90_drain<64>((float *) pm_acc); "
		"pm_sm90_store<64, 128>("));
	/* the prologue holds 2 tiles: 2 commits before the loop */
	t = strstr(s, "_Pragma(\"unroll 1\")");
	assert_non_null(t);
	*t = '\0';
	assert_int_equal(count(strstr(s, "__global__"),
		"pm_cp_async_commit();"), 2);
	free(s);
}

/* Prologues whose fp32 result is one of their f16 inputs (relu, abs, max,
 * min, negation, f16 constants) run on pairs of halves; others in fp32. */
static void test_prologue_half2(void **state)
{
	const char *fmt = "def p(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		"    C(i, j) +=! %s * B(k, j)\n}\n";
	const char *opts[] = { "target", "sm_90a", "pro-regs", "off", NULL };
	const char *regs[] = { "target", "sm_90a", "tma", "off", NULL };
	char spec[256], *s;

	(void) state;
	/* sm_90a default: on A's registers, in a lambda the MMA applies */
	snprintf(spec, sizeof(spec), fmt, "-max(abs(A(i, k)), 0.25)");
	s = gen(spec, regs, NULL, NULL);
	assert_non_null(strstr(s, "\tconst auto pm_pro0 = [](uint32_t pm_w) -> "
		"uint32_t { const __half2 pm_x = *reinterpret_cast<const __half2 "
		"*>(&pm_w); (void) pm_x; const __half2 pm_y = __hneg2(__hmax2("
		"__habs2(pm_x), __float2half2_rn(0.25f))); return "
		"*reinterpret_cast<const uint32_t *>(&pm_y); };\n"));
	assert_non_null(strstr(s, "pm_sm90_mma_tile_ra<64, 128, 64, "));
	assert_non_null(strstr(s, ", (0), (0), pm_pro0); pm_sm90_drain<64>("));
	/* no shared-memory pass for A */
	assert_null(strstr(s, "__half *pm_q = &A_shared["));
	free(s);
	snprintf(spec, sizeof(spec), fmt, "sigmoid(A(i, k))");
	s = gen(spec, regs, NULL, NULL);
	assert_non_null(strstr(s, "for (int pm_e = 0; pm_e < 2; ++pm_e) { const "
		"float pm_v = pm_f(pm_h[pm_e]); pm_h[pm_e] = __float2half_rn("
		"pm_sigmoid(pm_v)); } return pm_w; };"));
	free(s);
	snprintf(spec, sizeof(spec), fmt, "relu(A(i, k))");
	s = gen(spec, NULL, NULL, NULL);
	assert_non_null(strstr(s, "pm_h2[pm_e] = __hmax2(pm_x, "
		"__float2half2_rn(0.0f));"));
	free(s);
	snprintf(spec, sizeof(spec), fmt, "-max(abs(A(i, k)), 0.25)");
	s = gen(spec, opts, NULL, NULL);
	assert_non_null(strstr(s, "pm_h2[pm_e] = __hneg2(__hmax2(__habs2(pm_x), "
		"__float2half2_rn(0.25f)));"));
	free(s);
	/* 0.1 is no f16 value; sigmoid and arithmetic round differently */
	snprintf(spec, sizeof(spec), fmt, "max(A(i, k), 0.1)");
	s = gen(spec, NULL, NULL, NULL);
	assert_null(strstr(s, "pm_h2"));
	assert_non_null(strstr(s, "pm_max_f(pm_v, 0.1f)"));
	free(s);
	snprintf(spec, sizeof(spec), fmt, "sigmoid(A(i, k))");
	s = gen(spec, NULL, NULL, NULL);
	assert_null(strstr(s, "pm_h2"));
	free(s);
}

static void test_bad_options(void **state)
{
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;

	(void) state;
	assert_int_equal(polymma_options_set(o, "target", "sm_99", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(err);
	assert_int_equal(polymma_options_set(o, "target", "host", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "sm_90a"));
	assert_int_equal(polymma_options_set(o, "mma-inflight", "1", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--mma-inflight expects on or off"));
	assert_int_equal(polymma_options_set(o, "block", "128x128", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define", "M", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define", "M=-3", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "smem", "fancy", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "frag-pipeline", "yes", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--frag-pipeline expects on or off"));
	assert_int_equal(polymma_options_set(o, "staged-store", "1", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--staged-store expects on or off"));
	assert_int_equal(polymma_options_set(o, "reg-stage", "2", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--reg-stage expects on or off"));
	assert_int_equal(polymma_options_set(o, "small-variant", "on", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--small-variant expects auto or off"));
	assert_int_equal(polymma_options_set(o, "nonsense", "1", &err),
		POLYMMA_ERR_USAGE);
	polymma_options_free(o);
}

/* Requests the generator cannot do are POLYMMA_ERR_SPEC with a message. */
static void test_refused_configs(void **state)
{
	/* the fragment pipeline required where it cannot be built: one
	 * stage, a macro k of 32, an odd number of k-steps per tile */
	const char *fp = "--frag-pipeline on: not possible here";
	const char *cases[][5] = {
		{ "mma", "8x8x4" }, { "split-k", "65" }, { "stages", "9" },
		{ "warp", "48x64" },
		{ "frag-pipeline", "on", "stages", "1", fp },
		{ "frag-pipeline", "on", "mma", "32x32x32", fp },
		{ "frag-pipeline", "on", "block", "128x128x48", fp },
		{ "mma-inflight", "on", NULL, NULL, "--mma-inflight on: target "
		  "sm_80 has no asynchronous MMAs" },
		{ "target", "sm_90a", "smem", "pad", "needs --smem swizzle" },
		{ "target", "sm_90a", "block", "128x128x48", "rows of 16, 32, "
		  "64 or more than 64 elements in multiples of 16" },
	};
	char *text = pm_test_read("examples/gemm_nn.tc");

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		polymma_ctx *ctx = polymma_ctx_alloc();
		polymma_options *o = polymma_options_alloc();
		polymma_result *r = (polymma_result *) 1;

		assert_int_equal(polymma_options_set(o, cases[i][0],
			cases[i][1], NULL), POLYMMA_OK);
		if (cases[i][2])
			assert_int_equal(polymma_options_set(o, cases[i][2],
				cases[i][3], NULL), POLYMMA_OK);
		assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o,
			&r), POLYMMA_ERR_SPEC);
		assert_null(r);
		assert_true(strlen(polymma_diagnostics(ctx)) > 0);
		if (cases[i][4])
			assert_non_null(strstr(polymma_diagnostics(ctx),
				cases[i][4]));
		polymma_options_free(o);
		polymma_ctx_free(ctx);
	}
	free(text);
}

/* --mma-inflight on keeps one k tile of MMAs in flight: 3 stages at least */
static void test_inflight_needs_stages(void **state)
{
	char *text = pm_test_read("examples/gemm_nn.tc");
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = (polymma_result *) 1;

	(void) state;
	assert_int_equal(polymma_options_set(o, "target", "sm_90a", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "mma-inflight", "on", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "stages", "2", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o, &r),
		POLYMMA_ERR_SPEC);
	assert_null(r);
	assert_non_null(strstr(polymma_diagnostics(ctx),
		"it needs --stages 3 or more"));
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
}

static void test_spec_error_diagnostic(void **state)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *report = NULL;
	const char *bad = "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * Bias(k, j)\n}\n";

	(void) state;
	assert_int_equal(polymma_generate(ctx, bad, "bad.tc", o, &r),
		POLYMMA_ERR_SPEC);
	assert_non_null(strstr(polymma_diagnostics(ctx), "bad.tc:2:"));
	assert_int_equal(polymma_check(ctx, bad, "bad.tc", o, &report),
		POLYMMA_ERR_SPEC);
	assert_null(report);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

/* Epilogues are fused; temporaries never reach global memory: only the
 * live-out tensor is stored, and temporaries are not even parameters. */
static void test_epilogue_no_temporary_stores(void **state)
{
	const char *text =
		"def g(f16(M, K) A, f16(K, N) B, f16(M) s, f16(M, N) R) -> "
		"(f16(M, N) O) {\n"
		"  T(i, j) +=! A(i, k) * B(k, j)\n"
		"  U(i, j) = T(i, j) * s(i) + R(i, j)\n"
		"  O(i, j) = relu(U(i, j))\n}\n";
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *src;

	(void) state;
	assert_int_equal(polymma_options_set(o, "small-variant", "off", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_generate(ctx, text, "g.tc", o, &r), POLYMMA_OK);
	src = strip_twins(strdup(polymma_result_source(r)));
	assert_non_null(strstr(src, "cudaError_t g(const void *A, const void *B, "
		"const void *s, const void *R, void *O, int64_t M, int64_t N, "
		"int64_t K, cudaStream_t stream)"));
	assert_null(strstr(src, "T["));
	assert_null(strstr(src, "U["));
	assert_null(strstr(src, " *T"));
	/* 4 macro tiles in each of the two kernels (unsplit, _split) */
	assert_int_equal(count(src, "_store<32, 32>(pm_acc[("), 8);
	assert_non_null(strstr(src, "pm_copy16_s2g(&O[(int64_t)"));
	/* each epilogue on the two paths of a macro tile (inside M, N, or
	 * past them: a ragged last tile) */
	assert_int_equal(count(src, "*pm_p = pm_relu(pm_v);"), 16);
	/* a per-row input: one load for both columns of a pair (past M, at
	 * the row clamped to M - 1) */
	assert_non_null(strstr(src, "pm_f(s[(int64_t) pm_i])"));
	assert_non_null(strstr(src, "pm_f(s[(int64_t) pm_ic])"));
	assert_non_null(strstr(src, "const int64_t pm_ic = (int) pm_i < M ? "
		"pm_i : M - 1;"));
	assert_null(strstr(src, "pm_ld2f(&s["));
	assert_non_null(strstr(src, "pm_ld2f(&R[(int64_t) pm_i * (int64_t) N + "
		"(int64_t) pm_j0], &pm_x0[0], &pm_x0[1]);"));
	assert_non_null(strstr(src, "pm_ld2f(&R[(int64_t) pm_ic * (int64_t) N + "
		"(int64_t) pm_jc0], &pm_x0[0], &pm_x0[1]);"));
	assert_non_null(strstr(src, "if ((uintptr_t) R % 4)"));
	assert_null(strstr(src, "if ((uintptr_t) s % "));
	free(src);
	polymma_result_free(r);
	/* a heavier epilogue (three input reads and gelu) gets half the
	 * default warp tile in n, to stay clear of register spills */
	{
		char *chain = pm_test_read("examples/gemm_epilogue_chain.tc");

		assert_int_equal(polymma_generate(ctx, chain, "c.tc", o, &r),
			POLYMMA_OK);
		assert_non_null(strstr(polymma_result_source(r),
			" * warp     64x32 (8 warps, 256 threads)"));
		polymma_result_free(r);
		assert_int_equal(polymma_options_set(o, "warp", "64x64", NULL),
			POLYMMA_OK);
		assert_int_equal(polymma_generate(ctx, chain, "c.tc", o, &r),
			POLYMMA_OK);
		assert_non_null(strstr(polymma_result_source(r),
			" * warp     64x64 (4 warps, 128 threads)"));
		polymma_result_free(r);
		free(chain);
	}
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sm80_kernel),
		cmocka_unit_test(test_sm80_frag_pipeline),
		cmocka_unit_test(test_staged_store),
		cmocka_unit_test(test_small_variant),
		cmocka_unit_test(test_split_k),
		cmocka_unit_test(test_pro_overlap),
		cmocka_unit_test(test_sm70_and_defines),
		cmocka_unit_test(test_layout_orientation),
		cmocka_unit_test(test_sm90a_kernel),
		cmocka_unit_test(test_prologue_half2),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_refused_configs),
		cmocka_unit_test(test_inflight_needs_stages),
		cmocka_unit_test(test_spec_error_diagnostic),
		cmocka_unit_test(test_epilogue_no_temporary_stores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#define _POSIX_C_SOURCE 200809L
/* emit and the library API, the kernels: the generated file, launcher,
 * header and meta per target (sm_80, sm_70, sm_90a), the fragment
 * pipeline, the staged store, the small variant, layouts; fused idioms:
 * tests/test_emit_fused.c; refusals: tests/test_emit_errors.c. */
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
	assert_int_equal(count(s, "\tpm_cp_async16_z(&A_shared["), 4);
	assert_int_equal(count(s, "\tpm_cp_async16_if_z(&A_shared["), 8);
	/* units past M, N (a ragged last tile) copy the last one inside;
	 * past K (a ragged last k tile), zeros from the last one inside
	 * (docs/decisions/0030-ragged-k.md) */
	assert_non_null(strstr(s, "&A[(int64_t) ((128 * c0 + c3) < M - 1 ? "
		"(128 * c0 + c3) : M - 1) * (int64_t) K + (int64_t) ((8 * c4) < "
		"K - 8 ? (8 * c4) : K - 8)], (8 * c4) < K);"));
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
	/* with the _unaligned row, two kernels: the plan's grid
	 * (docs/decisions/0046-narrow-copies.md) */
	assert_non_null(strstr(s, "dim3 grid((unsigned) (c->grid), 1);"));
	/* M, N, K ragged: the loops over whole tiles (the padded extents),
	 * the launcher asks N and K for rows of 16-byte units */
	assert_non_null(strstr(s, "\tconst int pm_tM = (M + 127) / 128 * 128;\n"));
	assert_non_null(strstr(s, "\tconst int pm_tK = (K + 31) / 32 * 32;\n"));
	assert_non_null(strstr(s, "(c2 < pm_tK / 32)"));
	assert_non_null(strstr(s, "if (c0 < pm_tM / 128)"));
	assert_non_null(strstr(s, "\tif (M < 1 || M > 0x7fffff00)\n"));
	assert_non_null(strstr(s, "N % 8"));
	/* where 128x128 tiles divide M and N, the exact twin runs (the
	 * kernel without guards) */
	assert_non_null(strstr(s, "\tif ((M % 128 == 0 && K % 32 == 0 && N % "
		"128 == 0))\n\t\t\tpm_kernel_gemm_nn_x<<<grid, 128, 49152, "
		"stream>>>("));
	assert_non_null(strstr(s, "\telse\n\t\t\tpm_kernel_gemm_nn<<<grid, 128, "
		"49152, stream>>>("));
	/* not multiples of 8: the _unaligned row */
	assert_non_null(strstr(s, "\tif (K < 1 || K > 0x7fffff00)\n\t\treturn "
		"cudaErrorInvalidValue;\n\tif (K % 8)\n\t\tpm_ua = 1;\n"));
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
	assert_int_equal(count(s, "\tpm_cp_async16_z(&A_shared["), 4);
	assert_int_equal(count(s, "\tpm_cp_async16_if_z(&A_shared["), 12);
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

		/* base, split, small, unaligned */
		assert_int_equal(nv, 4);
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
	/* once in each entry point: M, N, K ragged (N's and K's rows of
	 * 16-byte units, else the _unaligned row) */
	assert_int_equal(count(s, "if (M < 1 || M > 0x7fffff00)\n"), 3);
	assert_int_equal(count(s, "if (N < 1 || N > 0x7fffff00)\n"), 3);
	assert_int_equal(count(s, "if (N % 8)\n\t\tpm_ua = 1;\n"), 3);
	assert_int_equal(count(s, "if (K < 1 || K > 0x7fffff00)\n"), 3);
	assert_int_equal(count(s, "if (K % 8)\n\t\tpm_ua = 1;\n"), 3);
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
	assert_non_null(strstr(s, ", grid, 256, 98304, stream, "));
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

/* The rows printed in parallel (emit/rows.h): the file with 4 threads
 * equals the file with 1, every row of sm_90a (main kernel split: the
 * _split row borrows its context) and of sm_80 */
static void test_rows_threads(void **state)
{
	static const char *const t90[] = { "target", "sm_90a", NULL };
	static const char *const t80[] = { "target", "sm_80", NULL };
	const char *const *t[2] = { t90, t80 };
	char *diag = NULL;

	(void) state;
	for (int i = 0; i < 2; ++i) {
		char *one, *four;

		setenv("POLYMMA_THREADS", "1", 1);
		one = try_gen("gemm_bias_relu", t[i], &diag);
		free(diag);
		setenv("POLYMMA_THREADS", "4", 1);
		four = try_gen("gemm_bias_relu", t[i], &diag);
		free(diag);
		unsetenv("POLYMMA_THREADS");
		assert_non_null(one);
		assert_non_null(four);
		assert_true(count(one, "__global__") >= (i ? 3 : 10));
		assert_string_equal(one, four);
		free(one);
		free(four);
	}
}

/* The pm_kernel_* definitions in src whose first statement is the
 * grid-dependency wait (docs/decisions/0068-pdl.md); *kernels: all of
 * them (the copy and prologue kernels not counted). */
static int waits_first(const char *src, int *kernels)
{
	int n = 0;

	*kernels = 0;
	for (const char *p = strstr(src, "__global__"); p;
	    p = strstr(p + 1, "__global__")) {
		const char *body = strstr(p, ")\n{\n");

		if (!strstr(p, " pm_kernel_") || strstr(p, " pm_kernel_") > body)
			continue;	/* a prologue or copy kernel */
		(*kernels)++;
		n += !strncmp(body, ")\n{\n\tpm_pdl_wait();\n", 19);
	}
	return n;
}

/* Lines launching a pm_kernel by <<<>>> (the copy and prologue kernels'
 * launches are not counted). */
static int plain_launches(const char *src)
{
	int n = 0;

	for (const char *p = strstr(src, "<<<"); p; p = strstr(p + 1, "<<<")) {
		const char *l = p;

		while (l > src && l[-1] != '\n')
			l--;
		n += strstr(l, "pm_kernel_") && strstr(l, "pm_kernel_") < p;
	}
	return n;
}

/* --pdl: on sm_90a every pm_kernel of every example waits for the previous
 * grid first and every launch of one asks for the programmatic dependency
 * (pm_launch_pdl, or the cluster launch's second attribute), none by
 * <<<>>>; --pdl off and sm_80: no wait, no attribute. */
static void test_pdl(void **state)
{
	static const char *const ex[] = { "gemm_nn", "gemm_tt",
		"gemm_bias_relu", "add_gemm", "relu_gemm",
		"gemm_epilogue_chain" };
	static const char *const on[] = { "target", "sm_90a", NULL };
	static const char *const off[] = { "target", "sm_90a", "pdl", "off",
		NULL };
	static const char *const t80[] = { "target", "sm_80", NULL };
	char *diag = NULL;

	(void) state;
	for (size_t i = 0; i < sizeof(ex) / sizeof(*ex); ++i) {
		char *s = try_gen(ex[i], on, &diag), *o, *e;
		int nk, nw;

		free(diag);
		assert_non_null(s);
		nw = waits_first(s, &nk);
		assert_true(nk >= 10);
		assert_int_equal(nw, nk);
		assert_int_equal(count(s, "pm_pdl_wait();"), nk);
		assert_int_equal(plain_launches(s), 0);
		assert_true(count(s, "return pm_launch_pdl(") >= nk / 2);
		assert_int_equal(count(s, "cudaLaunchKernelEx(&pm_lc"),
			count(s, "pm_la[1].id = "
			"cudaLaunchAttributeProgrammaticStreamSerialization;"));
		o = try_gen(ex[i], off, &diag);
		free(diag);
		e = try_gen(ex[i], t80, &diag);
		free(diag);
		assert_non_null(o);
		assert_non_null(e);
		assert_int_equal(waits_first(o, &nk), 0);
		assert_true(nk >= 10);
		assert_int_equal(count(o, "pm_pdl_wait();"), 0);
		assert_int_equal(count(o, "return pm_launch_pdl("), 0);
		assert_int_equal(count(o, "pm_la[1].id = "), 0);
		assert_true(plain_launches(o) >= nk);
		assert_int_equal(count(e, "pm_pdl_wait"), 0);
		assert_int_equal(count(e, "pm_launch_pdl"), 0);
		free(s);
		free(o);
		free(e);
	}
	/* the JSON meta names it (sm_90a, --pdl off, sm_80) */
	for (int i = 0; i < 3; ++i) {
		static const char *const o90[] = { "target", "sm_90a", NULL };
		static const char *const o90off[] = { "target", "sm_90a", "pdl",
			"off", NULL };
		static const char *const *const o[3] = { o90, o90off, NULL };
		char *meta, *t = gen("nn", o[i], NULL, &meta);

		assert_non_null(strstr(meta, i ? "\"pdl\": \"off\",\n" :
			"\"pdl\": \"on\",\n"));
		free(meta);
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sm80_kernel),
		cmocka_unit_test(test_sm80_frag_pipeline),
		cmocka_unit_test(test_staged_store),
		cmocka_unit_test(test_small_variant),
		cmocka_unit_test(test_sm70_and_defines),
		cmocka_unit_test(test_layout_orientation),
		cmocka_unit_test(test_sm90a_kernel),
		cmocka_unit_test(test_rows_threads),
		cmocka_unit_test(test_pdl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

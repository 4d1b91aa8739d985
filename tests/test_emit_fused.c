#define _POSIX_C_SOURCE 200809L
/* emit, the fused kernels: split-K (its fixup), prologues overlapped
 * with the MMAs and on pairs of halves, epilogues without temporary
 * stores. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"
#include "tests/plan_util.h"

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
	/* chunks of whole k tiles of the padded extent (a ragged K) */
	assert_non_null(strstr(s, "\tconst int pm_tK = (K + 31) / 32 * 32;\n"
		"\t(void) pm_tK;\n\tconst int pm_z = blockIdx.z, pm_nz = "
		"gridDim.z;\n\t(void) pm_nz;\n\tconst int pm_k0_0 = pm_z * pm_kc0, "
		"pm_kn_0 = min(pm_kc0, pm_tK - pm_k0_0);\n"));
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
	 * (a ragged last tile), on a path of its own, only its pairs inside
	 * M, N load and compute, at the same indices (docs/decisions/0034) */
	assert_non_null(strstr(s, "if ((int) (128 * c0 + 64 * c2) + 64 <= M && "
		"(int) (128 * c1) + 128 <= N) { _Pragma(\"unroll\") for (int "
		"pm_r = 0;"));
	assert_non_null(strstr(s, "} else { _Pragma(\"unroll\") for (int pm_r"));
	assert_non_null(strstr(s, "(void) pm_i; if ((int) pm_i < M && (int) "
		"pm_j0 < N) { float pm_x0[2]; pm_ld2f(&bias[(int64_t) pm_j0], "));
	assert_null(strstr(s, "pm_jc0"));
	assert_non_null(strstr(s, "float pm_x0[2]; pm_ld2f(&bias[(int64_t) "
		"pm_j0], &pm_x0[0], &pm_x0[1]); _Pragma(\"unroll\") for (int "
		"pm_e = 0; pm_e < 2; ++pm_e) { float *pm_p = &pm_acc[(0)][pm_r "
		"+ pm_e]; const int64_t pm_j = pm_j0 + pm_e;"));
	/* element loads of the bias only in the swapped rows, where it is
	 * per row (docs/decisions/0057) */
	for (const char *b = strstr(s, "pm_f(bias["); b;
	     b = strstr(b + 1, "pm_f(bias[")) {
		const char *k = NULL;

		for (const char *g = strstr(s, "pm_kernel_"); g && g < b;
		     g = strstr(g + 1, "pm_kernel_"))
			if (strstr(g, "(") == strpbrk(g, "(,; "))
				k = g;	/* a kernel's name, then '(' */
		assert_non_null(k);
		assert_true(strstr(k, "_persist_swap") != NULL &&
			strstr(k, "_persist_swap") < strchr(k, '('));
	}
	/* bias not 4-byte aligned: the _unaligned row (its pair loads
	 * element by element, pm_ld2f_n); not 2-byte aligned: refused
	 * (docs/decisions/0046-narrow-copies.md) */
	assert_non_null(strstr(s, "\tif ((uintptr_t) bias % 2)\n\t\treturn "
		"cudaErrorMisalignedAddress;\n\tif ((uintptr_t) bias % 4)\n"
		"\t\tpm_ua = 1;\n"));
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
	loop = strstr(s, "for (int c2 = (0); (c2 < pm_tK / 64); c2 += (1)) {\n"
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
	/* a per-row input: one load for both columns of a pair (past M,
	 * only the pairs inside M, N: docs/decisions/0034) */
	assert_non_null(strstr(src, "pm_f(s[(int64_t) pm_i])"));
	assert_null(strstr(src, "pm_ic"));
	assert_null(strstr(src, "pm_ld2f(&s["));
	assert_non_null(strstr(src, "pm_ld2f(&R[(int64_t) pm_i * (int64_t) N + "
		"(int64_t) pm_j0], &pm_x0[0], &pm_x0[1]);"));
	assert_non_null(strstr(src, "if ((int) pm_i < M && (int) pm_j0 < N) { "
		"float pm_x0[2]; pm_ld2f(&R[(int64_t) pm_i * (int64_t) N + "
		"(int64_t) pm_j0], &pm_x0[0], &pm_x0[1]);"));
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
		cmocka_unit_test(test_split_k),
		cmocka_unit_test(test_pro_overlap),
		cmocka_unit_test(test_prologue_half2),
		cmocka_unit_test(test_epilogue_no_temporary_stores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

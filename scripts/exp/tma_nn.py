#!/usr/bin/env python3
"""tma_nn.py IN.cu OUT.cu EMPTY: hand-edited TMA variant of the generated
sm_90a gemm_nn kernel (128x128x64, 3 stages) -- the experiment in front of
the --copy tma pipeline (docs/PERF.md). EMPTY=1: stage reuse through
"empty" mbarriers instead of the loop's __syncthreads."""
import sys, re
src, dst, empty = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = open(src).read()
a = s.index('extern "C" __global__ void __launch_bounds__(256) pm_kernel_gemm_nn(')
b = s.index('extern "C" __global__ void __launch_bounds__(128) pm_kernel_gemm_nn_small(')
body = s[a:b]
epi = body[body.index('\t\t\t\t\tpm_fence_proxy_async(); __syncthreads();'):]
# epilogue: everything from the first fence after the loop to the end
kern = r'''extern "C" __global__ void __launch_bounds__(256) pm_kernel_gemm_nn(const __half *__restrict__ A, const __half *__restrict__ B, __half *__restrict__ C, int M, int N, int K, const __grid_constant__ CUtensorMap pm_tm_A, const __grid_constant__ CUtensorMap pm_tm_B)
{
	extern __shared__ __align__(1024) unsigned char pm_smem[];
	__half *A_shared = (__half *) (pm_smem + 0);
	__half *B_shared = (__half *) (pm_smem + 49152);
	__half *pm_cst = (__half *) pm_smem;
	uint64_t *pm_full = (uint64_t *) (pm_smem + 98304);
	uint64_t *pm_empty = pm_full + 3;
	float pm_acc[1][64];
	if (threadIdx.x == 0) {
		for (int i = 0; i < 3; ++i) { pm_mbar_init(&pm_full[i], 1); pm_mbar_init(&pm_empty[i], 8); }
		pm_mbar_init_fence();
	}
	__syncthreads();
	{
		const int c0 = blockIdx.y;
		if (c0 < M / 128) {
			{
				const int c1 = blockIdx.x;
				if (c1 < N / 128) {
					pm_fill_zero(pm_acc[(0)], 64);
					const int KT = K / 64;
#define PM_ISSUE(q) do { uint64_t *pm_b = &pm_full[(q) % 3]; pm_mbar_arrive_tx(pm_b, 32768); \
	pm_tma_load_2d(A_shared + ((q) % 3) * 8192, &pm_tm_A, pm_b, 64 * (q), 128 * c0); \
	pm_tma_load_2d(B_shared + ((q) % 3) * 8192, &pm_tm_B, pm_b, 128 * c1, 64 * (q)); \
	pm_tma_load_2d(B_shared + ((q) % 3) * 8192 + 4096, &pm_tm_B, pm_b, 128 * c1 + 64, 64 * (q)); } while (0)
					if (threadIdx.x == 0) {
						PM_ISSUE(0);
						if (KT > 1) PM_ISSUE(1);
					}
					_Pragma("unroll 1") for (int c2 = 0; c2 < KT; ++c2) {
						pm_mbar_wait(&pm_full[c2 % 3], (c2 / 3) & 1);
						const int c3 = ((int) threadIdx.x / 128);
#if !PM_EMPTY
						__syncthreads();
						if (threadIdx.x == 0 && c2 + 2 < KT) PM_ISSUE(c2 + 2);
						pm_sm90_mma_tile<64, 128, 64, 1, 64, 1, 1, 128, 2, 128, 64>(pm_acc[(0)], A_shared + (c2 % 3) * 8192, (64 * c3), (0), B_shared + (c2 % 3) * 8192, (0), (0)); pm_sm90_drain<64>(pm_acc[(0)]);
#else
						pm_sm90_mma_tile<64, 128, 64, 1, 64, 1, 1, 128, 2, 128, 64>(pm_acc[(0)], A_shared + (c2 % 3) * 8192, (64 * c3), (0), B_shared + (c2 % 3) * 8192, (0), (0));
						if (threadIdx.x == 0 && c2 + 2 < KT) {
							if (c2 >= 1) pm_mbar_wait(&pm_empty[(c2 + 2) % 3], (((c2 + 2) / 3) + 1) & 1);
							PM_ISSUE(c2 + 2);
						}
						pm_sm90_drain<64>(pm_acc[(0)]);
						if ((threadIdx.x & 31) == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(pm_smem_addr(&pm_empty[c2 % 3])) : "memory");
#endif
					}
'''
kern = kern.replace('#if !PM_EMPTY', '#if !%d' % empty)
# epi starts with 5 tabs and closes 3 ifs + kernel; our kernel has the same nesting
s = s[:a] + kern + epi + s[b:]
old = '''	if (cudaFuncSetAttribute(pm_kernel_gemm_nn, cudaFuncAttributeMaxDynamicSharedMemorySize, 98304) != cudaSuccess)
		return cudaGetLastError();
	pm_kernel_gemm_nn<<<grid, 256, 98304, stream>>>((const __half *) A, (const __half *) B, (__half *) C, (int) M, (int) N, (int) K);'''
new = '''	if (cudaFuncSetAttribute(pm_kernel_gemm_nn, cudaFuncAttributeMaxDynamicSharedMemorySize, 98304 + 64) != cudaSuccess)
		return cudaGetLastError();
	CUtensorMap pm_tm_A, pm_tm_B;
	cudaError_t pm_e = pm_tma_map_2d(&pm_tm_A, A, M, K, K, 128, 64, 128);
	if (pm_e == cudaSuccess) pm_e = pm_tma_map_2d(&pm_tm_B, B, K, N, N, 64, 64, 128);
	if (pm_e != cudaSuccess) return pm_e;
	pm_kernel_gemm_nn<<<grid, 256, 98304 + 64, stream>>>((const __half *) A, (const __half *) B, (__half *) C, (int) M, (int) N, (int) K, pm_tm_A, pm_tm_B);'''
assert old in s
s = s.replace(old, new)
open(dst, 'w').write(s)

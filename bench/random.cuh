// bench/random.cuh — the random f16 inputs of the benchmark and the GPU
// checkers (tests/gpu/check_gemm.cu): element i of a fill with seed s is
// uniform in [-1, 1], from a splitmix64-style hash of s and i (the host
// generator of tests/gpu/check_fused.cu uses the same hash).
#ifndef PM_BENCH_RANDOM_CUH
#define PM_BENCH_RANDOM_CUH

#include <cstdint>
#include <cuda_fp16.h>

__global__ void fill_kernel(__half *p, int64_t n, uint64_t seed) {
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x) {
		uint64_t z = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(i + 1));
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		z ^= z >> 31;
		float u = (float)(z >> 40) * (1.0f / 16777216.0f);	// [0, 1)
		p[i] = __float2half_rn(2.0f * u - 1.0f);		// [-1, 1]
	}
}

#endif

// bench/random.cuh — the random inputs of the benchmark and the GPU
// checkers (tests/gpu/check_gemm.cu): element i of a fill with seed s comes
// from a splitmix64-style hash of s and i (the host generator of
// tests/gpu/check_fused.cu uses the same hash); fill_kernel's f16 values
// are uniform in [-1, 1].
#ifndef PM_BENCH_RANDOM_CUH
#define PM_BENCH_RANDOM_CUH

#include <cstdint>
#include <cuda_fp16.h>

// The 64 random bits of element i of a fill with seed s.
__device__ __forceinline__ uint64_t bench_rand_bits(uint64_t seed, int64_t i) {
	uint64_t z = seed ^ (0xD1B54A32D192ED03ull * (uint64_t)(i + 1));
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
// ... as a float uniform in [-1, 1] (24 random bits)
__device__ __forceinline__ float bench_rand_pm1(uint64_t seed, int64_t i) {
	float u = (float)(bench_rand_bits(seed, i) >> 40) * (1.0f / 16777216.0f);	// [0, 1)
	return 2.0f * u - 1.0f;
}

__global__ void fill_kernel(__half *p, int64_t n, uint64_t seed) {
	for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
	     i += (int64_t)gridDim.x * blockDim.x)
		p[i] = __float2half_rn(bench_rand_pm1(seed, i));	// [-1, 1]
}

#endif

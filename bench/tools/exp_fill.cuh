// exp_fill.cuh: the experiment timers' input filler (bench_time, ops_time,
// relu_time, var_time): n fp16 values uniform in [-1, 1), hashed from the
// index and seed, grid-stride.
#ifndef EXP_FILL_CUH
#define EXP_FILL_CUH
#include <cuda_fp16.h>
__global__ void exp_fill(__half *p, long long n, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
       i += (long long)gridDim.x * blockDim.x) {
    unsigned x = (unsigned)i * 2654435761u ^ seed;
    x ^= x >> 13; x *= 0x5bd1e995u; x ^= x >> 15;
    p[i] = __float2half((x & 0xffff) / 32768.0f - 1.0f);
  }
}
#endif

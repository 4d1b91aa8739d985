// clock_probe.cu (session 11): runs a generated gemm_nn file (KERNEL_FILE,
// its plan forceable: force_tdp.py's PM_FORCE) at MxNxK back to back for
// SECONDS on random fp16 inputs in [-1, 1], printing the launches' mean
// time; nvidia-smi beside it samples the SM clock and the power. GEMM_FN:
// the launcher (default gemm_nn; any with gemm_nn's arguments; with -DBIAS
// one with a bias of N elements after B, as gemm_bias_relu's).
#include KERNEL_FILE
#ifndef GEMM_FN
#define GEMM_FN gemm_nn
#endif
#include <cstdio>
#include <cstdlib>
#include <chrono>
__global__ void fill(__half *p, long n, unsigned seed) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
       i += (long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed;
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    p[i] = __float2half((float)(h & 0xffff) / 32768.0f - 1.0f);
  }
}
int main(int argc, char **argv) {
  long long M, N, K;
  double secs = argc > 2 ? atof(argv[2]) : 2.0;
  if (argc < 2 || sscanf(argv[1], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
  __half *A, *B, *C;
  cudaMalloc(&A, M * K * 2); cudaMalloc(&B, K * N * 2); cudaMalloc(&C, M * N * 2);
  fill<<<512, 256>>>(A, M * K, 1u); fill<<<512, 256>>>(B, K * N, 2u);
#ifdef BIAS
  __half *bias;
  cudaMalloc(&bias, N * 2);
  fill<<<512, 256>>>(bias, N, 3u);
#define PM_ARGS A, B, bias, C
#else
#define PM_ARGS A, B, C
#endif
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  long n = 0; float ms = 0;
  auto t0 = std::chrono::steady_clock::now();
  cudaEventRecord(e0);
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < secs) {
    for (int i = 0; i < 200; ++i) GEMM_FN(PM_ARGS, M, N, K, 0);
    n += 200;
    cudaEventRecord(e1); cudaEventSynchronize(e1);
  }
  cudaEventElapsedTime(&ms, e0, e1);
  printf("%s %ld launches, %.2f us each, %.1f TFLOP/s\n", argv[1], n, ms * 1000.0 / n,
         2.0 * M * N * K * n / (ms * 1e-3) / 1e12);
  return cudaGetLastError() != cudaSuccess;
}

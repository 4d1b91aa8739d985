// bench_time.cu (session 15): GPU time per call of a generated entry with
// the gemm_nn signature, timed nearly as bench/bench.cu times it (unlike
// relu_time.cu's 200 calls back to back on one input set, which overrated
// small-grid splits and tall blocks in session 15): input sets rotated, as
// many as cover 2x the L2 (at most 16), each call between its own pair of
// CUDA events, 30 warm-up calls, the median of 60 timed ones. Unlike the
// benchmark it synchronizes after each call, so each time includes the
// host's launch of the call (session 16, ops_time.cu): good for comparing
// our own variants (one launch path), not for ratios to cuBLAS. Built
// against a generated file (KERNEL_FILE, entry KFN); plans forceable with
// force_var.py's PM_VAR. Prints "TIME tag MxNxK ms nsets".
#include KERNEL_FILE
#include <algorithm>
#include <cstdio>
#include <vector>
#include "exp_fill.cuh"
int main(int argc, char **argv) {
  const char *tag = argc > 1 ? argv[1] : "?";
  int dev = 0, l2 = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
  for (int a = 2; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    const long long set = (M * K + K * N) * 2;
    int ns = (int)std::min(16LL, std::max(2LL, 2LL * l2 / set + 1));
    std::vector<__half *> A(ns), B(ns);
    __half *C;
    for (int i = 0; i < ns; ++i) {
      if (cudaMalloc(&A[i], M * K * 2) != cudaSuccess || cudaMalloc(&B[i], K * N * 2) != cudaSuccess) {
        printf("FAIL %s %s (memory)\n", tag, argv[a]);
        return 1;
      }
      exp_fill<<<1024, 256>>>(A[i], M * K, 1u + 2 * i);
      exp_fill<<<1024, 256>>>(B[i], K * N, 2u + 2 * i);
    }
    cudaMalloc(&C, M * N * 2);
    cudaStream_t s; cudaStreamCreate(&s);
    for (int i = 0; i < 30; ++i)
      if (KFN(A[i % ns], B[i % ns], C, M, N, K, s) != cudaSuccess) { printf("FAIL %s %s\n", tag, argv[a]); return 1; }
    cudaStreamSynchronize(s);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    std::vector<float> t(60);
    for (int r = 0; r < 60; ++r) {
      cudaEventRecord(e0, s);
      KFN(A[r % ns], B[r % ns], C, M, N, K, s);
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&t[r], e0, e1);
    }
    std::sort(t.begin(), t.end());
    printf("TIME %s %s %.5f %d\n", tag, argv[a], t[30], ns);
    for (int i = 0; i < ns; ++i) { cudaFree(A[i]); cudaFree(B[i]); }
    cudaFree(C); cudaEventDestroy(e0); cudaEventDestroy(e1); cudaStreamDestroy(s);
  }
  return 0;
}

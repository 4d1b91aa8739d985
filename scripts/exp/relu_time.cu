// relu_time.cu: GPU time per call of a generated entry with the gemm_nn
// signature (relu_gemm: C = relu(A) * B), back-to-back (events around 200
// calls, median of 5 such runs), inputs uniform in [-1, 1]. Built against a
// generated file (KERNEL_FILE, entry KFN). Prints "TIME tag MxNxK ms".
#include KERNEL_FILE
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "exp_fill.cuh"
int main(int argc, char **argv) {
  const char *tag = argc > 1 ? argv[1] : "?";
  for (int a = 2; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    __half *A, *B, *C;
    cudaMalloc(&A, M * K * 2); cudaMalloc(&B, K * N * 2); cudaMalloc(&C, M * N * 2);
    exp_fill<<<1024, 256>>>(A, M * K, 1u); exp_fill<<<1024, 256>>>(B, K * N, 2u);
    cudaStream_t s; cudaStreamCreate(&s);
    for (int i = 0; i < 20; ++i)
      if (KFN(A, B, C, M, N, K, s) != cudaSuccess) { printf("FAIL %s %s\n", tag, argv[a]); return 1; }
    cudaStreamSynchronize(s);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    float t[5];
    for (int r = 0; r < 5; ++r) {
      cudaEventRecord(e0, s);
      for (int i = 0; i < 200; ++i) KFN(A, B, C, M, N, K, s);
      cudaEventRecord(e1, s);
      cudaEventSynchronize(e1);
      cudaEventElapsedTime(&t[r], e0, e1);
    }
    std::sort(t, t + 5);
    printf("TIME %s %s %.4f\n", tag, argv[a], t[2] / 200);
    cudaFree(A); cudaFree(B); cudaFree(C);
  }
  return 0;
}

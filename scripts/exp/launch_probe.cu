// launch_probe.cu: where single-launch event timing (the benchmark's) and
// back-to-back timing differ. For a generated gemm_nn file (KERNEL_FILE)
// and cublasGemmEx at each MxNxK: host microseconds per call (100 calls
// issued, queue not full), GPU microseconds per call back to back (events
// around 100 calls), and the median of 50 single calls between events.
#include KERNEL_FILE
#include <cublas_v2.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
static cublasHandle_t blas;
static cudaError_t run_cublas(const void *A, const void *B, void *C, long long M, long long N, long long K) {
  const float one = 1, zero = 0;
  return cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one, B, CUDA_R_16F, (int)N,
                      A, CUDA_R_16F, (int)K, &zero, C, CUDA_R_16F, (int)N, CUBLAS_COMPUTE_32F,
                      CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}
int main(int argc, char **argv) {
  cublasCreate(&blas);
  for (int a = 1; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    __half *A, *B, *C;
    cudaMalloc(&A, M * K * 2); cudaMalloc(&B, K * N * 2); cudaMalloc(&C, M * N * 2);
    cudaMemset(A, 0x3c, M * K * 2); cudaMemset(B, 0x3c, K * N * 2);
    for (int v = 0; v < 2; ++v) {
      auto call = [&]() { return v ? run_cublas(A, B, C, M, N, K) : gemm_nn(A, B, C, M, N, K, 0); };
      for (int i = 0; i < 20; ++i) call();
      cudaDeviceSynchronize();
      auto h0 = std::chrono::steady_clock::now();
      cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
      cudaEventRecord(e0, 0);
      for (int i = 0; i < 100; ++i) call();
      auto h1 = std::chrono::steady_clock::now();
      cudaEventRecord(e1, 0); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1);
      double host = std::chrono::duration<double, std::micro>(h1 - h0).count() / 100;
      std::vector<float> t;
      for (int i = 0; i < 50; ++i) {
        cudaEventRecord(e0, 0); call(); cudaEventRecord(e1, 0); cudaEventSynchronize(e1);
        float x; cudaEventElapsedTime(&x, e0, e1); t.push_back(x * 1000);
      }
      std::sort(t.begin(), t.end());
      printf("%s %s host %.2f us/call, back-to-back %.2f us, single %.2f us\n", v ? "cublas " : "polymma",
             argv[a], host, ms * 10, t[25]);
    }
    cudaFree(A); cudaFree(B); cudaFree(C);
  }
  return 0;
}

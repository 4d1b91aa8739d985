// prof_one.cu: one generated GEMM entry (gemm_nn signature, KERNEL_FILE and
// KFN as in bench_time.cu) and cublasGemmEx, each called twice per size, for
// Nsight Compute: `ncu --set full ./prof_one 4096x4096x4096` profiles all
// four launches (take the second of each; the fill kernels run first).
// POLYMMA_VARIANT forces our row as usual. Prints nothing on success.
#include KERNEL_FILE
#include <cublas_v2.h>
#include <cstdio>
#include "exp_fill.cuh"
int main(int argc, char **argv) {
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  for (int a = 1; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    __half *A, *B, *C;
    if (cudaMalloc(&A, M * K * 2) || cudaMalloc(&B, K * N * 2) || cudaMalloc(&C, M * N * 2)) return 1;
    exp_fill<<<1024, 256>>>(A, M * K, 1u);
    exp_fill<<<1024, 256>>>(B, K * N, 2u);
    cudaDeviceSynchronize();
    const float one = 1.f, zero = 0.f;
    for (int r = 0; r < 2; ++r)
      if (KFN(A, B, C, M, N, K, 0) != cudaSuccess) { printf("FAIL %s\n", argv[a]); return 1; }
    for (int r = 0; r < 2; ++r)  // row-major C = A B as column-major C^T = B^T A^T
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int) N, (int) M, (int) K, &one, B, CUDA_R_16F, (int) N,
                   A, CUDA_R_16F, (int) K, &zero, C, CUDA_R_16F, (int) N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    if (cudaDeviceSynchronize() != cudaSuccess) return 1;
    cudaFree(A); cudaFree(B); cudaFree(C);
  }
  cublasDestroy(h);
  return 0;
}

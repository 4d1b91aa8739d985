// bmm_time.cu: a batched GEMM (tests/specs/bmm_nn.tc: C(b) = A(b) B(b), fp16
// in, fp32 accumulation, fp16 out, row-major) against
// cublasGemmStridedBatchedEx, timed as bench/bench.cu times (input sets
// rotated past 2x the L2, interleaved rounds, CUDA events, the median of
// 100 after 20 warm-up rounds); outputs compared first (max |d| / (1 + |y|)
// <= 0.004, no NaN; poisoned before). Prints
// "BMM BtxMxNxK cublas_ms polymma_ms speedup TFLOP/s(polymma) nsets".
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
//     -DKERNEL_FILE='"/abs/bmm.cu"' bench/tools/bmm_time.cu -lcublas -lcuda
//   ./a.out 64x512x512x512 16x2048x2048x128
#include KERNEL_FILE
#include <cublas_v2.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>
#include "exp_fill.cuh"
#include "exp_setup.cuh"

int main(int argc, char **argv) {
  int l2 = 0, bad = 0;
  cublasHandle_t h;
  cudaStream_t s;
  if (exp_setup("bmm_time", &l2, &h, &s)) return 1;
  for (int a = 1; a < argc; ++a) {
    long long Bt, M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lldx%lld", &Bt, &M, &N, &K) != 4) return 2;
    const long long set = Bt * (M * K + K * N + M * N) * 2;
    const int ns = (int)std::min(16LL, std::max(2LL, 2LL * l2 / set + 1));
    std::vector<__half *> A(ns), B(ns), C(ns);
    for (int i = 0; i < ns; ++i) {
      if (cudaMalloc(&A[i], Bt * M * K * 2) || cudaMalloc(&B[i], Bt * K * N * 2) ||
          cudaMalloc(&C[i], Bt * M * N * 2)) {
        printf("FAIL %s (memory)\n", argv[a]);
        return 1;
      }
      exp_fill<<<1024, 256, 0, s>>>(A[i], Bt * M * K, 1u + 3 * i);
      exp_fill<<<1024, 256, 0, s>>>(B[i], Bt * K * N, 2u + 3 * i);
    }
    const float one = 1.0f, zero = 0.0f;
    auto run = [&](int v, int i) -> cudaError_t {
      if (v == 0) {	// row-major C = A B as column-major C^T = B^T A^T
        return cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M,
            (int)K, &one, B[i], CUDA_R_16F, (int)N, K * N, A[i], CUDA_R_16F, (int)K,
            M * K, &zero, C[i], CUDA_R_16F, (int)N, M * N, (int)Bt, CUBLAS_COMPUTE_32F,
            CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
      }
      return bmm_nn(A[i], B[i], C[i], Bt, M, N, K, s);
    };
    const long long n = Bt * M * N;
    std::vector<__half> ref(n), out(n);
    cudaMemsetAsync(C[0], 0xff, n * 2, s);
    run(0, 0);
    cudaMemcpyAsync(ref.data(), C[0], n * 2, cudaMemcpyDeviceToHost, s);
    cudaMemsetAsync(C[0], 0xff, n * 2, s);
    cudaError_t le = run(1, 0);
    cudaMemcpyAsync(out.data(), C[0], n * 2, cudaMemcpyDeviceToHost, s);
    cudaError_t e = cudaStreamSynchronize(s);
    double md = 0;
    for (long long q = 0; q < n; ++q) {
      float x = __half2float(out[q]), y = __half2float(ref[q]);
      md = std::max(md, std::isfinite(x) && std::isfinite(y) ?
          std::fabs(x - y) / (1.0 + std::fabs(y)) : 1e9);
    }
    if (le != cudaSuccess || e != cudaSuccess || md > 0.004) {
      printf("FAIL %s %s %s max|diff|/(1+|y|) %.3g\n", argv[a], cudaGetErrorString(le),
             cudaGetErrorString(e), md);
      bad++;
      continue;
    }
    const int R = 100;
    std::vector<cudaEvent_t> ev(4 * R);
    for (auto &x : ev) cudaEventCreate(&x);
    for (int r = 0; r < 20; ++r)
      for (int v = 0; v < 2; ++v) run(v, r % ns);
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < 2; ++q) {
        const int v = (q + r) % 2;
        cudaEventRecord(ev[4 * r + 2 * v], s);
        run(v, (r * 2 + q) % ns);
        cudaEventRecord(ev[4 * r + 2 * v + 1], s);
      }
    cudaStreamSynchronize(s);
    std::vector<float> t[2];
    for (int v = 0; v < 2; ++v)
      for (int r = 0; r < R; ++r) {
        float ms;
        cudaEventElapsedTime(&ms, ev[4 * r + 2 * v], ev[4 * r + 2 * v + 1]);
        t[v].push_back(ms);
      }
    for (int v = 0; v < 2; ++v) std::sort(t[v].begin(), t[v].end());
    const double cb = t[0][R / 2], pm = t[1][R / 2];
    printf("BMM %s %.5f %.5f %.3f %.1f %d\n", argv[a], cb, pm, cb / pm,
           2.0 * Bt * M * N * K / (pm * 1e-3) / 1e12, ns);
    fflush(stdout);
    for (auto &x : ev) cudaEventDestroy(x);
    for (int i = 0; i < ns; ++i) { cudaFree(A[i]); cudaFree(B[i]); cudaFree(C[i]); }
  }
  cublasDestroy(h);
  return bad ? 1 : 0;
}

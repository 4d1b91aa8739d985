// var_time.cu (session 17): GEMM variants (generated files compiled apart,
// their specs renamed pm_gemm_v0 .. so that the entries differ) against
// cuBLAS, timed as bench/bench.cu times: input sets rotated to cover 2x the
// L2, one event pair per call, all calls of a round queued before one
// synchronization, cuBLAS and the variants interleaved and rotated round by
// round; 30 warm-up rounds, the median of 100. Every variant's output
// (poisoned first) is checked against cuBLAS's first (max |diff| / (1 +
// |y|) <= 0.004, no NaN); a variant that fails prints FAIL and is not timed.
// VARS_H: a header defining `static const pm_var vars[]` (name, entry).
// Prints "VAR MxNxK cublas_ms name=ms .. nsets".
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

typedef cudaError_t (*pm_entry)(const void *, const void *, void *, int64_t,
                                int64_t, int64_t, cudaStream_t);
struct pm_var {
  const char *name;
  pm_entry f;
};
#include VARS_H

static const int NV = (int)(sizeof(vars) / sizeof(vars[0]));

#include "exp_fill.cuh"

int main(int argc, char **argv) {
  int dev = 0, l2 = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
  cublasHandle_t h;
  cudaStream_t s;
  cudaStreamCreate(&s);
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasSetStream(h, s);
  int bad = 0;
  for (int a = 1; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    const long long set = (M * K + K * N + M * N) * 2;
    int ns = (int)std::min(16LL, std::max(2LL, 2LL * l2 / set + 1));
    std::vector<__half *> A(ns), B(ns), C(ns);
    for (int i = 0; i < ns; ++i) {
      if (cudaMalloc(&A[i], M * K * 2) || cudaMalloc(&B[i], K * N * 2) ||
          cudaMalloc(&C[i], M * N * 2)) {
        printf("FAIL %s (memory)\n", argv[a]);
        return 1;
      }
      exp_fill<<<1024, 256, 0, s>>>(A[i], M * K, 1u + 3 * i);
      exp_fill<<<1024, 256, 0, s>>>(B[i], K * N, 2u + 3 * i);
    }
    const float one = 1.0f, zero = 0.0f;
    auto run = [&](int v, int i) {
      if (v == 0)
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one,
                     B[i], CUDA_R_16F, (int)N, A[i], CUDA_R_16F, (int)K, &zero,
                     C[i], CUDA_R_16F, (int)N, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
      else
        vars[v - 1].f(A[i], B[i], C[i], M, N, K, s);
    };
    const long long mn = M * N;
    std::vector<__half> ref(mn), out(mn);
    cudaMemsetAsync(C[0], 0xff, mn * 2, s);
    run(0, 0);
    cudaMemcpyAsync(ref.data(), C[0], mn * 2, cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    std::vector<int> ok(NV + 1, 1);
    for (int v = 1; v <= NV; ++v) {
      cudaMemsetAsync(C[0], 0xff, mn * 2, s);	// NaN poison
      run(v, 0);
      cudaMemcpyAsync(out.data(), C[0], mn * 2, cudaMemcpyDeviceToHost, s);
      cudaError_t e = cudaStreamSynchronize(s);
      double md = 0;
      for (long long q = 0; q < mn && e == cudaSuccess; ++q) {
        float x = __half2float(out[q]), y = __half2float(ref[q]);
        double d = std::isfinite(x) && std::isfinite(y) ?
            std::fabs(x - y) / (1.0 + std::fabs(y)) : 1e9;
        md = std::max(md, d);
      }
      if (e != cudaSuccess || md > 0.004) {
        printf("FAIL %s %s %s max|diff|/(1+|y|) %.3g\n", argv[a],
               vars[v - 1].name, cudaGetErrorString(e), md);
        ok[v] = 0;
        bad++;
        if (e != cudaSuccess) return 1;	// the context is gone
      }
    }
    const int R = 100, V = NV + 1;
    std::vector<std::vector<cudaEvent_t>> ev(V, std::vector<cudaEvent_t>(2 * R));
    for (auto &x : ev)
      for (auto &e : x) cudaEventCreate(&e);
    std::vector<std::vector<float>> t(V, std::vector<float>(R));
    for (int r = 0; r < 30; ++r)
      for (int v = 0; v < V; ++v)
        if (ok[v]) run(v, r % ns);
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < V; ++q) {
        const int v = (q + r) % V;
        if (!ok[v]) continue;
        cudaEventRecord(ev[v][2 * r], s);
        run(v, (r * V + q) % ns);
        cudaEventRecord(ev[v][2 * r + 1], s);
      }
    cudaStreamSynchronize(s);
    printf("VAR %s", argv[a]);
    for (int v = 0; v < V; ++v) {
      float m = -1;
      if (ok[v]) {
        for (int r = 0; r < R; ++r)
          cudaEventElapsedTime(&t[v][r], ev[v][2 * r], ev[v][2 * r + 1]);
        std::sort(t[v].begin(), t[v].end());
        m = t[v][R / 2];
      }
      printf(" %s=%.5f", v ? vars[v - 1].name : "cublas", m);
    }
    printf(" %d\n", ns);
    fflush(stdout);
    for (int i = 0; i < ns; ++i) {
      cudaFree(A[i]); cudaFree(B[i]); cudaFree(C[i]);
    }
    for (auto &x : ev)
      for (auto &e : x) cudaEventDestroy(e);
  }
  cublasDestroy(h);
  return bad ? 1 : 0;
}

// var_time.cu (session 17): GEMM variants (generated files compiled apart,
// their specs renamed pm_gemm_v0 .. so that the entries differ) against
// cuBLAS, timed as bench/bench.cu times: input sets rotated to cover 2x the
// L2, one event pair per call, all calls of a round queued before one
// synchronization, cuBLAS and the variants interleaved and rotated round by
// round; 30 warm-up rounds, the median of 100. Every variant's output
// (poisoned first) is checked against cuBLAS's first (max |diff| / (1 +
// |y|) <= 0.004, no NaN); a variant that fails prints FAIL and is not timed.
// VARS_H: a header defining `static const pm_var vars[]` (name, entry).
// -DRELU_A: the variants compute relu(A) * B (ReLU+GEMM); cuBLAS's side is
// then the paper's unfused baseline, a relu kernel on A and the product.
// VT_FORCE="f1;f2;..": each entry runs once per forcing, POLYMMA_VARIANT set
// to it before each call (the launcher reads it per call; "" the plan's own
// choice), named name/f: e.g. VT_FORCE=";_persist_split,s=4;_small".
// VT_GRAPH=N (session 38): each variant's N consecutive calls (inputs
// rotated) captured into one CUDA graph, each round times one replay, the
// time per call = replay / N: back to back as in a model's graph, the
// host's launch cost out of both sides (cuBLAS's too), our kernels'
// programmatic dependencies captured as graph edges
// (docs/decisions/0068-pdl.md). Without it, one event pair per call.
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

static const int NE = (int)(sizeof(vars) / sizeof(vars[0]));
#include <cstdlib>
#include <string>
static std::vector<std::string> forces(1, "");
static int NV = NE;
static std::string vname(int v) {	// v from 0: entry v % NE, forcing v / NE
  const std::string &f = forces[v / NE];
  return f.empty() && forces.size() == 1 ? vars[v % NE].name
                                         : std::string(vars[v % NE].name) + "/" + f;
}

#include "exp_fill.cuh"
#include "exp_setup.cuh"

#ifdef RELU_A
__global__ void vt_relu(const __half *x, __half *y, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n / 8;
       i += (long long)gridDim.x * blockDim.x) {
    uint4 v = reinterpret_cast<const uint4 *>(x)[i];
    __half2 *h = reinterpret_cast<__half2 *>(&v);
    for (int q = 0; q < 4; ++q) h[q] = __hmax2(h[q], __float2half2_rn(0.0f));
    reinterpret_cast<uint4 *>(y)[i] = v;
  }
}
#endif

int main(int argc, char **argv) {
  int l2 = 0;
  if (const char *fl = getenv("VT_FORCE")) {
    forces.clear();
    std::string l(fl);
    for (size_t p = 0;;) {
      size_t q = l.find(';', p);
      forces.push_back(l.substr(p, q == std::string::npos ? q : q - p));
      if (q == std::string::npos) break;
      p = q + 1;
    }
    NV = NE * (int)forces.size();
  }
  cublasHandle_t h;
  cudaStream_t s;
  if (exp_setup("var_time", &l2, &h, &s)) return 1;
  int bad = 0;
  for (int a = 1; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    const long long set = (M * K + K * N + M * N) * 2;
    int ns = (int)std::min(16LL, std::max(2LL, 2LL * l2 / set + 1));
    std::vector<__half *> A(ns), B(ns), C(ns), Ar(ns);
    for (int i = 0; i < ns; ++i) {
      if (cudaMalloc(&A[i], M * K * 2) || cudaMalloc(&B[i], K * N * 2) ||
          cudaMalloc(&C[i], M * N * 2)) {
        printf("FAIL %s (memory)\n", argv[a]);
        return 1;
      }
#ifdef RELU_A
      if (cudaMalloc(&Ar[i], M * K * 2)) return 1;
#else
      Ar[i] = A[i];
#endif
      exp_fill<<<1024, 256, 0, s>>>(A[i], M * K, 1u + 3 * i);
      exp_fill<<<1024, 256, 0, s>>>(B[i], K * N, 2u + 3 * i);
    }
    const float one = 1.0f, zero = 0.0f;
    auto run = [&](int v, int i) -> cudaError_t {
      if (v == 0) {
#ifdef RELU_A
        vt_relu<<<(unsigned)std::min(2112LL, (M * K / 8 + 255) / 256), 256, 0, s>>>(
            A[i], Ar[i], M * K);
#endif
        cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one,
                     B[i], CUDA_R_16F, (int)N, Ar[i], CUDA_R_16F, (int)K, &zero,
                     C[i], CUDA_R_16F, (int)N, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
        return cudaSuccess;
      } else {
        setenv("POLYMMA_VARIANT", forces[(v - 1) / NE].c_str(), 1);
        return vars[(v - 1) % NE].f(A[i], B[i], C[i], M, N, K, s);
      }
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
      const cudaError_t le = run(v, 0);
      cudaMemcpyAsync(out.data(), C[0], mn * 2, cudaMemcpyDeviceToHost, s);
      cudaError_t e = cudaStreamSynchronize(s);
      if (le != cudaSuccess) {	// refused by the launcher: not timed
        printf("SKIP %s %s %s\n", argv[a], vname(v - 1).c_str(), cudaGetErrorString(le));
        ok[v] = 0;
        continue;
      }
      double md = 0;
      for (long long q = 0; q < mn && e == cudaSuccess; ++q) {
        float x = __half2float(out[q]), y = __half2float(ref[q]);
        double d = std::isfinite(x) && std::isfinite(y) ?
            std::fabs(x - y) / (1.0 + std::fabs(y)) : 1e9;
        md = std::max(md, d);
      }
      if (e != cudaSuccess || md > 0.004) {
        printf("FAIL %s %s %s max|diff|/(1+|y|) %.3g\n", argv[a],
               vname(v - 1).c_str(), cudaGetErrorString(e), md);
        ok[v] = 0;
        bad++;
        if (e != cudaSuccess) return 1;	// the context is gone
      }
    }
    const int R = 100, V = NV + 1;
    const int G = getenv("VT_GRAPH") ? atoi(getenv("VT_GRAPH")) : 0;
    std::vector<std::vector<cudaEvent_t>> ev(V, std::vector<cudaEvent_t>(2 * R));
    for (auto &x : ev)
      for (auto &e : x) cudaEventCreate(&e);
    std::vector<std::vector<float>> t(V, std::vector<float>(R));
    std::vector<cudaGraphExec_t> gx(V, nullptr);
    for (int v = 0; v < V && G > 0; ++v) {  // VT_GRAPH: G calls a graph
      cudaGraph_t g = nullptr;
      if (!ok[v]) continue;
      cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal);
      for (int c = 0; c < G; ++c) run(v, c % ns);
      if (cudaStreamEndCapture(s, &g) != cudaSuccess ||
          cudaGraphInstantiate(&gx[v], g, 0) != cudaSuccess) {
        printf("SKIP %s %s no graph (%s)\n", argv[a],
               v ? vname(v - 1).c_str() : "cublas",
               cudaGetErrorString(cudaGetLastError()));
        ok[v] = 0;
      }
      if (g) cudaGraphDestroy(g);
    }
    auto call = [&](int v, int i) {
      if (G > 0) cudaGraphLaunch(gx[v], s);
      else run(v, i);
    };
    for (int r = 0; r < 30; ++r)
      for (int v = 0; v < V; ++v)
        if (ok[v]) call(v, r % ns);
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < V; ++q) {
        const int v = (q + r) % V;
        if (!ok[v]) continue;
        cudaEventRecord(ev[v][2 * r], s);
        call(v, (r * V + q) % ns);
        cudaEventRecord(ev[v][2 * r + 1], s);
      }
    cudaStreamSynchronize(s);
    for (auto &x : gx)
      if (x) cudaGraphExecDestroy(x);
    printf("VAR %s", argv[a]);
    for (int v = 0; v < V; ++v) {
      float m = -1;
      if (ok[v]) {
        for (int r = 0; r < R; ++r)
          cudaEventElapsedTime(&t[v][r], ev[v][2 * r], ev[v][2 * r + 1]);
        std::sort(t[v].begin(), t[v].end());
        m = t[v][R / 2] / (G > 0 ? G : 1);  // VT_GRAPH: per call
      }
      printf(" %s=%.5f", v ? vname(v - 1).c_str() : "cublas", m);
    }
    printf(" %d\n", ns);
    fflush(stdout);
    for (int i = 0; i < ns; ++i) {
      cudaFree(A[i]); cudaFree(B[i]); cudaFree(C[i]);
      if (Ar[i] != A[i]) cudaFree(Ar[i]);
    }
    for (auto &x : ev)
      for (auto &e : x) cudaEventDestroy(e);
  }
  cublasDestroy(h);
  return bad ? 1 : 0;
}

// ops_time.cu (session 16): what "unfused cuBLAS" costs for GEMM+bias+ReLU,
// two ways, against polymma's fused kernel, timed as bench/bench.cu times
// (input sets rotated to cover 2x the L2, one event pair per call sequence,
// all queued before one synchronization, the variants interleaved round by
// round; 30 warm-up rounds, the median of 100):
//   fused  bench_gemm_bias_relu (KERNEL_FILE)
//   gemm   cublasGemmEx alone
//   one    cublasGemmEx + one bias_relu kernel (bench.cu's baseline)
//   ops    cublasGemmEx + a bias kernel + a relu kernel (one kernel per
//          pointwise operation, as a framework without fusion runs it)
// The pointwise kernels are bench/baselines.cuh's style (16-byte vectors,
// fp32 arithmetic, grid-stride). Outputs are checked: fused, one and ops
// against each other (max |diff| / (1 + |y|) <= 0.004).
// Prints "OPS MxNxK fused gemm one ops nsets" (ms).
#include KERNEL_FILE
#include <cublas_v2.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "exp_fill.cuh"
#include "exp_setup.cuh"

// op 0: relu(C + bias); 1: C + bias; 2: relu(C). In place, 8 halves a
// thread (M * N and N multiples of 8 here).
template <int OP>
__global__ void ot_pointwise(__half *C, const __half *bias, long long n, long long N) {
  long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  long long stride = (long long)gridDim.x * blockDim.x;
  for (long long v = t; v < n / 8; v += stride) {
    uint4 x = reinterpret_cast<const uint4 *>(C)[v];
    __half2 *h = reinterpret_cast<__half2 *>(&x);
    uint4 b = make_uint4(0, 0, 0, 0);
    if (OP != 2)
      b = *reinterpret_cast<const uint4 *>(bias + (v * 8) % N);
    const __half2 *hb = reinterpret_cast<const __half2 *>(&b);
    for (int q = 0; q < 4; ++q) {
      float2 c = __half22float2(h[q]), d = __half22float2(hb[q]);
      if (OP != 2) c.x += d.x, c.y += d.y;
      if (OP != 1) c.x = fmaxf(c.x, 0.0f), c.y = fmaxf(c.y, 0.0f);
      h[q] = __floats2half2_rn(c.x, c.y);
    }
    reinterpret_cast<uint4 *>(C)[v] = x;
  }
}

static unsigned grid_for(long long n) {
  long long b = (n / 8 + 255) / 256;
  return (unsigned)std::max(1LL, std::min(b, 132LL * 16));
}

int main(int argc, char **argv) {
  int l2 = 0;
  cublasHandle_t h;
  cudaStream_t s;
  if (exp_setup("ops_time", &l2, &h, &s)) return 1;
  int bad = 0;
  for (int a = 1; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    const long long set = (M * K + K * N + N + M * N) * 2;
    int ns = (int)std::min(16LL, std::max(2LL, 2LL * l2 / set + 1));
    std::vector<__half *> A(ns), B(ns), bias(ns), C(ns);
    for (int i = 0; i < ns; ++i) {
      if (cudaMalloc(&A[i], M * K * 2) || cudaMalloc(&B[i], K * N * 2) ||
          cudaMalloc(&bias[i], N * 2) || cudaMalloc(&C[i], M * N * 2)) {
        printf("FAIL %s (memory)\n", argv[a]);
        return 1;
      }
      exp_fill<<<1024, 256, 0, s>>>(A[i], M * K, 1u + 3 * i);
      exp_fill<<<1024, 256, 0, s>>>(B[i], K * N, 2u + 3 * i);
      exp_fill<<<1024, 256, 0, s>>>(bias[i], N, 3u + 3 * i);
    }
    const float one = 1.0f, zero = 0.0f;
    auto gemm = [&](int i) {
      cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &one,
                   B[i], CUDA_R_16F, (int)N, A[i], CUDA_R_16F, (int)K, &zero,
                   C[i], CUDA_R_16F, (int)N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    const long long mn = M * N;
    auto run = [&](int v, int i) {
      switch (v) {
      case 0: bench_gemm_bias_relu(A[i], B[i], bias[i], C[i], M, N, K, s); break;
      case 1: gemm(i); break;
      case 2: gemm(i); ot_pointwise<0><<<grid_for(mn), 256, 0, s>>>(C[i], bias[i], mn, N); break;
      case 3: gemm(i); ot_pointwise<1><<<grid_for(mn), 256, 0, s>>>(C[i], bias[i], mn, N);
              ot_pointwise<2><<<grid_for(mn), 256, 0, s>>>(C[i], bias[i], mn, N); break;
      }
    };
    // check: fused, one and ops agree on set 0
    std::vector<std::vector<__half>> out(3, std::vector<__half>(mn));
    int vs[3] = {0, 2, 3};
    for (int q = 0; q < 3; ++q) {
      cudaMemsetAsync(C[0], 0xff, mn * 2, s);	// NaN poison
      run(vs[q], 0);
      cudaMemcpyAsync(out[q].data(), C[0], mn * 2, cudaMemcpyDeviceToHost, s);
      cudaStreamSynchronize(s);
    }
    double md = 0;
    for (long long e = 0; e < mn; ++e)
      for (int q = 1; q < 3; ++q) {
        float x = __half2float(out[0][e]), y = __half2float(out[q][e]);
        // relative: the fused kernel sums k in another order (fp16
        // outputs of magnitude ~30 differ by an ulp or two, 0.03-0.06)
        double d = std::isfinite(x) && std::isfinite(y) ?
            std::fabs(x - y) / (1.0 + std::fabs(y)) : 1e9;
        md = std::max(md, d);
      }
    if (md > 0.004 || cudaGetLastError() != cudaSuccess) {
      printf("FAIL %s max|diff|/(1+|y|) %.3g\n", argv[a], md);
      bad++;
      continue;
    }
    // the benchmark's way: every round's calls queued with their events,
    // one synchronization at the end (so the host's launch time never
    // shows between a call's events)
    const int R = 100;
    std::vector<std::vector<cudaEvent_t>> ev(4, std::vector<cudaEvent_t>(2 * R));
    for (auto &x : ev)
      for (auto &e : x) cudaEventCreate(&e);
    std::vector<std::vector<float>> t(4, std::vector<float>(R));
    for (int r = 0; r < 30; ++r)
      for (int v = 0; v < 4; ++v) run(v, r % ns);
    for (int r = 0; r < R; ++r)
      for (int q = 0; q < 4; ++q) {	// interleaved, rotated round by round
        const int v = (q + r) % 4;
        cudaEventRecord(ev[v][2 * r], s);
        run(v, (r * 4 + q) % ns);
        cudaEventRecord(ev[v][2 * r + 1], s);
      }
    cudaStreamSynchronize(s);
    for (int v = 0; v < 4; ++v)
      for (int r = 0; r < R; ++r)
        cudaEventElapsedTime(&t[v][r], ev[v][2 * r], ev[v][2 * r + 1]);
    printf("OPS %s", argv[a]);
    for (int v = 0; v < 4; ++v) {
      std::sort(t[v].begin(), t[v].end());
      printf(" %.5f", t[v][R / 2]);
    }
    printf(" %d\n", ns);
    for (int i = 0; i < ns; ++i) {
      cudaFree(A[i]); cudaFree(B[i]); cudaFree(bias[i]); cudaFree(C[i]);
    }
    for (auto &x : ev)
      for (auto &e : x) cudaEventDestroy(e);
  }
  cublasDestroy(h);
  return bad ? 1 : 0;
}

// group_time.cu: a grouped GEMM (bench/specs/group_gemm.tc: rows
// [offs(e - 1), offs(e)) of X times expert e's W, fp16 in, fp32
// accumulation, fp16 out, row-major) against the faster-to-call cuBLAS
// forms of the same work: one cublasGemmEx per non-empty group (a loop of
// GEMMs) and cublasGemmGroupedBatchedEx (one call; reported "n/a" where
// this cuBLAS refuses it). Timed as bench/bench.cu times: input sets
// rotated past 2x the L2, interleaved rounds, CUDA events, the median of
// 50 after 10 warm-up rounds; outputs compared first (max |d| / (1 + |y|)
// <= 0.004 against the loop, no NaN; the rows past the last group must
// keep their poison). Prints
// "GRP name E T N K loop_ms grouped_ms polymma_ms speedup(best) TFLOP/s nsets".
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
//     -DKERNEL_FILE='"/abs/group_gemm.cu"' -Ibench/tools \
//     bench/tools/group_time.cu -lcublas -lcuda -o group_time
//   ./group_time NAME:N:K:m0,m1,...   (the rows of each group, in order)
#include KERNEL_FILE
#include <cublas_v2.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include "exp_fill.cuh"
#include "exp_setup.cuh"

struct problem {
  std::string name;
  long long N, K, T;
  std::vector<long long> rows;
};

static bool parse(const char *s, problem *p) {
  const char *c1 = strchr(s, ':');
  if (!c1) return false;
  p->name.assign(s, c1 - s);
  char *end;
  p->N = strtoll(c1 + 1, &end, 10);
  if (*end != ':') return false;
  p->K = strtoll(end + 1, &end, 10);
  if (*end != ':') return false;
  p->T = 0;
  for (const char *q = end + 1; *q;) {
    long long m = strtoll(q, &end, 10);
    if (end == q || m < 0) return false;
    p->rows.push_back(m);
    p->T += m;
    q = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return false;
  }
  return !p->rows.empty() && p->N > 0 && p->K > 0 && p->T > 0;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  int l2 = 0, bad = 0;
  cublasHandle_t h;
  cudaStream_t s;
  if (exp_setup("group_time", &l2, &h, &s)) return 1;
  for (int a = 1; a < argc; ++a) {
    problem p;
    if (!parse(argv[a], &p)) {
      fprintf(stderr, "group_time: bad problem '%s' (NAME:N:K:m0,m1,...)\n", argv[a]);
      return 2;
    }
    const long long E = (long long)p.rows.size(), T = p.T, N = p.N, K = p.K;
    const size_t xb = T * K * 2, wb = E * K * N * 2, yb = (T + 1) * N * 2;
    const size_t per = xb + wb + yb;
    const int nsets = (int)std::max<size_t>(1, std::min<size_t>(8, (2 * (size_t)l2) / per + 1));
    std::vector<__half *> X(nsets), W(nsets), Y(nsets);
    std::vector<int> offs(E);
    long long acc = 0;
    for (long long e = 0; e < E; ++e) offs[e] = (int)(acc += p.rows[e]);
    int *doffs;
    cudaMalloc(&doffs, E * sizeof(int));
    cudaMemcpy(doffs, offs.data(), E * sizeof(int), cudaMemcpyHostToDevice);
    for (int i = 0; i < nsets; ++i) {
      if (cudaMalloc(&X[i], xb) || cudaMalloc(&W[i], wb) || cudaMalloc(&Y[i], yb)) {
        fprintf(stderr, "group_time: out of memory at %s\n", argv[a]);
        return 1;
      }
      exp_fill<<<1024, 256, 0, s>>>(X[i], T * K, 1u + 3 * i);
      exp_fill<<<1024, 256, 0, s>>>(W[i], E * K * N, 2u + 3 * i);
    }
    // cublasGemmGroupedBatchedEx's arrays: one problem per group (the
    // column-major C^T = W_e^T X_e^T of each group), pointers on the device
    std::vector<cublasOperation_t> tr(E, CUBLAS_OP_N);
    std::vector<int> gm(E), gn(E), gk(E), gl_a(E), gl_b(E), gl_c(E), gsz(E, 1);
    std::vector<float> one(E, 1.0f), zero(E, 0.0f);
    std::vector<std::vector<const void *>> hA(nsets), hB(nsets);
    std::vector<std::vector<void *>> hC(nsets);
    std::vector<const void **> dA(nsets), dB(nsets);
    std::vector<void **> dC(nsets);
    long long ne = 0;
    for (long long e = 0, r0 = 0; e < E; r0 += p.rows[e], ++e) {
      if (!p.rows[e]) continue;
      gm[ne] = (int)N, gn[ne] = (int)p.rows[e], gk[ne] = (int)K;
      gl_a[ne] = (int)N, gl_b[ne] = (int)K, gl_c[ne] = (int)N;
      for (int i = 0; i < nsets; ++i) {
        hA[i].push_back(W[i] + e * K * N);
        hB[i].push_back(X[i] + r0 * K);
        hC[i].push_back(Y[i] + r0 * N);
      }
      ++ne;
    }
    for (int i = 0; i < nsets; ++i) {
      cudaMalloc(&dA[i], ne * sizeof(void *));
      cudaMalloc(&dB[i], ne * sizeof(void *));
      cudaMalloc(&dC[i], ne * sizeof(void *));
      cudaMemcpy(dA[i], hA[i].data(), ne * sizeof(void *), cudaMemcpyHostToDevice);
      cudaMemcpy(dB[i], hB[i].data(), ne * sizeof(void *), cudaMemcpyHostToDevice);
      cudaMemcpy(dC[i], hC[i].data(), ne * sizeof(void *), cudaMemcpyHostToDevice);
    }
    const float fone = 1.0f, fzero = 0.0f;
    auto run = [&](int v, int i) -> cudaError_t {
      if (v == 0) {
        for (long long e = 0, r0 = 0; e < E; r0 += p.rows[e], ++e)
          if (p.rows[e] &&
              cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)p.rows[e], (int)K, &fone,
                           W[i] + e * K * N, CUDA_R_16F, (int)N, X[i] + r0 * K, CUDA_R_16F,
                           (int)K, &fzero, Y[i] + r0 * N, CUDA_R_16F, (int)N,
                           CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS)
            return cudaErrorUnknown;
        return cudaSuccess;
      }
      if (v == 1)
        return cublasGemmGroupedBatchedEx(h, tr.data(), tr.data(), gm.data(), gn.data(),
                                          gk.data(), one.data(), dA[i], CUDA_R_16F,
                                          gl_a.data(), dB[i], CUDA_R_16F, gl_b.data(),
                                          zero.data(), dC[i], CUDA_R_16F, gl_c.data(),
                                          (int)ne, gsz.data(), CUBLAS_COMPUTE_32F) ==
                       CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorNotSupported;
      return group_gemm(X[i], W[i], doffs, Y[i], E, T, N, K, s);
    };
    // correctness: the loop is the reference; poison everything first
    const long long tn = (T + 1) * N;
    std::vector<__half> ref(tn), out(tn);
    bool ok[3] = {true, true, true};
    for (int v = 0; v < 3; ++v) {
      cudaMemsetAsync(Y[0], 0xff, yb, s);
      const cudaError_t le = run(v, 0);
      cudaMemcpyAsync(v ? out.data() : ref.data(), Y[0], yb, cudaMemcpyDeviceToHost, s);
      const cudaError_t e = cudaStreamSynchronize(s);
      if (le != cudaSuccess || e != cudaSuccess) {
        printf("SKIP %s %s: %s\n", p.name.c_str(), v == 0 ? "loop" : v == 1 ? "grouped" : "polymma",
               cudaGetErrorString(le != cudaSuccess ? le : e));
        ok[v] = false;
        (void)cudaGetLastError();
        if (v == 0 || v == 2) bad++;
        continue;
      }
      if (v == 0) continue;
      double md = 0;
      for (long long q = 0; q < T * N; ++q) {
        const float x = __half2float(out[q]), y = __half2float(ref[q]);
        md = std::max(md, std::isfinite(x) && std::isfinite(y) ?
                              std::fabs(x - y) / (1.0 + std::fabs(y)) : 1e9);
      }
      // the row past the last group keeps its poison (NaN: 0xffff)
      for (long long q = T * N; q < tn; ++q)
        if (!std::isnan(__half2float(out[q]))) md = 1e9;
      if (md > 0.004) {
        printf("FAIL %s %s max|diff|/(1+|y|) %.3g\n", p.name.c_str(),
               v == 1 ? "grouped" : "polymma", md);
        ok[v] = false;
        bad++;
      }
    }
    const int R = 50, WU = 10;
    std::vector<float> ms[3];
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    for (int r = 0; r < R + WU; ++r)
      for (int v = 0; v < 3; ++v) {
        if (!ok[v]) continue;
        cudaEventRecord(e0, s);
        run(v, r % nsets);
        cudaEventRecord(e1, s);
        cudaEventSynchronize(e1);
        float t = 0;
        cudaEventElapsedTime(&t, e0, e1);
        if (r >= WU) ms[v].push_back(t);
      }
    const float tl = ok[0] ? median(ms[0]) : -1, tg = ok[1] ? median(ms[1]) : -1,
                tp = ok[2] ? median(ms[2]) : -1;
    const float best = tg > 0 && tg < tl ? tg : tl;
    const double flop = 2.0 * T * N * K;
    printf("GRP %s %lld %lld %lld %lld loop=%.4f grouped=%.4f polymma=%.4f %.3f %.1f %d\n",
           p.name.c_str(), E, T, N, K, tl, tg, tp, tp > 0 && best > 0 ? best / tp : 0.0,
           tp > 0 ? flop / (tp * 1e-3) / 1e12 : 0.0, nsets);
    fflush(stdout);
    for (int i = 0; i < nsets; ++i) {
      cudaFree(X[i]), cudaFree(W[i]), cudaFree(Y[i]);
      cudaFree(dA[i]), cudaFree(dB[i]), cudaFree(dC[i]);
    }
    cudaFree(doffs);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
  }
  return bad ? 1 : 0;
}

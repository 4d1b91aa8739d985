// pdl_check.cu: programmatic dependent launch (--pdl,
// docs/decisions/0068-pdl.md) on the GPU, for one generated GEMM file (the
// gemm_nn signature) built three ways by tests/gpu/pdl_check.sh:
//   pdl_on    the file as generated (every kernel waits first, launched with
//             the programmatic dependency),
//   pdl_cut   the same with its waits cut out (the control: launched early,
//             it must read stale inputs here, or the check proves nothing),
//   pdl_off   generated with --pdl off (plain launches).
// For every row of ROWS (POLYMMA_VARIANT suffixes, comma-separated) and size:
//   1. a producer kernel that lets its dependents launch at once
//      (griddepcontrol.launch_dependents), spins ~2 ms and then writes A;
//      the GEMM right behind it in the stream must see the new A (pdl_on:
//      checked against a double-precision reference; pdl_cut: counted, one
//      stale read at least over the run is required);
//   2. a chain C1 = A B, C2 = C1 B' (square sizes), each launched right after
//      the previous: checked against the reference.
// Then, with --time, the time per launch of 20 back-to-back launches (no
// event between them, inputs rotated past the L2), pdl_on against pdl_off,
// the median of 31 rounds. Prints PASS/FAIL/SKIP/TIME lines and
// "N passed, M failed"; exits 1 when anything failed or the control never
// read stale data.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#define ENTRY(n)                                                            \
  extern "C" cudaError_t n(const void *, const void *, void *, int64_t,     \
                           int64_t, int64_t, cudaStream_t)
ENTRY(pdl_on);
ENTRY(pdl_cut);
ENTRY(pdl_off);
typedef cudaError_t (*gemm_fn)(const void *, const void *, void *, int64_t,
                               int64_t, int64_t, cudaStream_t);

// Fills x[0..n) with small values of seed s (exact in f16).
__global__ void fill(__half *x, int64_t n, unsigned s) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ s * 40503u;
    h ^= h >> 13;
    x[i] = __float2half((float)((int)(h % 9u) - 4) / 8.f);
  }
}

// Lets its dependents launch, spins ~us microseconds, then writes A.
__global__ void producer(__half *x, int64_t n, unsigned s, unsigned us) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const unsigned long long t0 = clock64();
  while (clock64() - t0 < 2000ull * us)
    ;
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ s * 40503u;
    h ^= h >> 13;
    x[i] = __float2half((float)((int)(h % 9u) - 4) / 8.f);
  }
}

static std::vector<double> ref_gemm(const std::vector<__half> &a,
                                    const std::vector<__half> &b, int64_t M,
                                    int64_t N, int64_t K) {
  std::vector<double> c((size_t)(M * N), 0.0);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t k = 0; k < K; ++k) {
      const double x = __half2float(a[(size_t)(i * K + k)]);
      if (x == 0) continue;
      for (int64_t j = 0; j < N; ++j)
        c[(size_t)(i * N + j)] += x * __half2float(b[(size_t)(k * N + j)]);
    }
  return c;
}

// max |got - ref| / (1 + |ref|); 1e9 for a non-finite value.
static double err(const std::vector<__half> &got, const std::vector<double> &r) {
  double e = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    const double x = __half2float(got[i]);
    e = std::max(e, std::isfinite(x) ? std::fabs(x - r[i]) / (1 + std::fabs(r[i]))
                                     : 1e9);
  }
  return e;
}

static std::vector<__half> host(const __half *d, int64_t n) {
  std::vector<__half> h((size_t)n);
  cudaMemcpy(h.data(), d, (size_t)n * 2, cudaMemcpyDeviceToHost);
  return h;
}

static int passed, failed, stale;

// The reference of (A, B) at a size, computed once (the producer's A and
// the chain's inputs are the same for every row).
static const std::vector<double> &cached(int which, const std::vector<__half> &a,
                                         const std::vector<__half> &b,
                                         int64_t M, int64_t N, int64_t K) {
  static std::map<std::tuple<int, int64_t, int64_t, int64_t>,
                  std::vector<double>> memo;
  auto key = std::make_tuple(which, M, N, K);
  auto it = memo.find(key);
  if (it == memo.end()) it = memo.emplace(key, ref_gemm(a, b, M, N, K)).first;
  return it->second;
}

// One row at one size: the producer test, then the chain where M = N = K.
static void check(const char *row, int64_t M, int64_t N, int64_t K,
                  cudaStream_t st) {
  __half *A, *B, *C, *D;
  cudaMalloc(&A, (size_t)(M * K) * 2);
  cudaMalloc(&B, (size_t)(K * N) * 2);
  cudaMalloc(&C, (size_t)(M * N) * 2);
  cudaMalloc(&D, (size_t)(M * N) * 2);
  fill<<<256, 256, 0, st>>>(B, K * N, 7u);
  fill<<<256, 256, 0, st>>>(A, M * K, 1u);  // the old A
  cudaStreamSynchronize(st);
  const std::vector<__half> hb = host(B, K * N);
  for (int v = 0; v < 2; ++v) {
    const gemm_fn f = v ? pdl_cut : pdl_on;
    const char *tag = v ? "cut" : "on";
    cudaMemsetAsync(C, 0xff, (size_t)(M * N) * 2, st);
    fill<<<256, 256, 0, st>>>(A, M * K, 1u);
    // the new A, 2 ms on: the launcher's host work (plan, tensor maps)
    // is done before the producer ends, the GEMM launched while it spins
    producer<<<132, 256, 0, st>>>(A, M * K, 2u, 2000);
    const cudaError_t e = f(A, B, C, M, N, K, st);
    const cudaError_t s = cudaStreamSynchronize(st);
    if (e == cudaErrorInvalidValue) {
      printf("SKIP %s %s %lldx%lldx%lld\n", tag, row, (long long)M,
             (long long)N, (long long)K);
      cudaGetLastError();
      continue;
    }
    if (e != cudaSuccess || s != cudaSuccess) {
      printf("FAIL %s %s %lldx%lldx%lld %s\n", tag, row, (long long)M,
             (long long)N, (long long)K, cudaGetErrorString(e ? e : s));
      failed++;
      exit(1);  // the context is gone
    }
    const double d = err(host(C, M * N), cached(0, host(A, M * K), hb, M, N, K));
    if (v) {
      stale += d > 0.01;
      continue;
    }
    printf("%s on %s %lldx%lldx%lld producer err %.2g\n",
           d <= 0.01 ? "PASS" : "FAIL", row, (long long)M, (long long)N,
           (long long)K, d);
    d <= 0.01 ? passed++ : failed++;
  }
  if (M == N && N == K) {  // C = A B; D = C B; C = D B: each reads the last
    cudaMemsetAsync(D, 0xff, (size_t)(M * N) * 2, st);
    pdl_on(A, B, C, M, N, K, st);
    pdl_on(C, B, D, M, N, K, st);
    const cudaError_t e = pdl_on(D, B, C, M, N, K, st);
    if (e == cudaSuccess && cudaStreamSynchronize(st) == cudaSuccess) {
      // each step's output is rounded to f16 before the next reads it
      std::vector<__half> h = host(A, M * K);
      for (int step = 0; step < 2; ++step) {
        const std::vector<double> &r = cached(1 + step, h, hb, M, N, K);
        for (size_t i = 0; i < r.size(); ++i) h[i] = __float2half((float)r[i]);
      }
      const double d = err(host(C, M * N), cached(3, h, hb, M, N, K));
      printf("%s on %s %lldx%lldx%lld chain err %.2g\n",
             d <= 0.02 ? "PASS" : "FAIL", row, (long long)M, (long long)N,
             (long long)K, d);
      d <= 0.02 ? passed++ : failed++;
    }
  }
  cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(D);
}

// Time per launch of 20 back-to-back launches of f (no event in between),
// inputs rotated past the L2; the median of 31 rounds, alternating the
// entries. us[0]: pdl_on, us[1]: pdl_off.
static void timing(int64_t M, int64_t N, int64_t K, cudaStream_t st) {
  int l2 = 0, dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
  const int64_t set = (M * K + K * N) * 2;
  const int ns = (int)std::min<int64_t>(32, std::max<int64_t>(2, 3 * l2 / set + 1));
  std::vector<__half *> A(ns), B(ns);
  __half *C;
  for (int i = 0; i < ns; ++i) {
    cudaMalloc(&A[i], (size_t)(M * K) * 2);
    cudaMalloc(&B[i], (size_t)(K * N) * 2);
    fill<<<256, 256, 0, st>>>(A[i], M * K, 1u + i);
    fill<<<256, 256, 0, st>>>(B[i], K * N, 99u + i);
  }
  cudaMalloc(&C, (size_t)(M * N) * 2);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const gemm_fn f[2] = {pdl_on, pdl_off};
  std::vector<float> t[2];
  int q = 0;
  for (int r = 0; r < 36; ++r)
    for (int vv = 0; vv < 2; ++vv) {
      const int v = (vv + r) % 2;
      cudaEventRecord(e0, st);
      for (int c = 0; c < 20; ++c, ++q) f[v](A[q % ns], B[q % ns], C, M, N, K, st);
      cudaEventRecord(e1, st);
      cudaEventSynchronize(e1);
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      if (r >= 5) t[v].push_back(ms * 1000.f / 20.f);  // 5 warm-up rounds
    }
  for (auto &x : t) std::sort(x.begin(), x.end());
  printf("TIME %lldx%lldx%lld pdl_on %.2f us pdl_off %.2f us per launch "
         "(x%.3f) sets %d\n",
         (long long)M, (long long)N, (long long)K, t[0][15], t[1][15],
         t[1][15] / t[0][15], ns);
  for (int i = 0; i < ns; ++i) cudaFree(A[i]), cudaFree(B[i]);
  cudaFree(C);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

int main(int argc, char **argv) {
  cudaStream_t st;
  cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
  int a = 1, time = 0;
  if (a < argc && !strcmp(argv[a], "--time")) time = 1, a++;
  if (time) {
    unsetenv("POLYMMA_VARIANT");
    for (; a < argc; ++a) {
      long long M, N, K;
      if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) == 3) timing(M, N, K, st);
    }
    return 0;
  }
  const char *rows = getenv("ROWS") ? getenv("ROWS") : "";
  std::vector<std::string> rs(1, "");
  for (const char *p = rows; *p;) {
    const char *e = strchr(p, ',');
    rs.push_back(std::string(p, e ? (size_t)(e - p) : strlen(p)));
    p = e ? e + 1 : p + strlen(p);
  }
  for (const std::string &r : rs) {
    if (r.empty()) unsetenv("POLYMMA_VARIANT");
    else setenv("POLYMMA_VARIANT", r.c_str(), 1);
    for (int i = a; i < argc; ++i) {
      long long M, N, K;
      if (sscanf(argv[i], "%lldx%lldx%lld", &M, &N, &K) == 3)
        check(r.empty() ? "plan" : r.c_str(), M, N, K, st);
    }
  }
  printf("control (waits cut): %d stale reads\n", stale);
  printf("%d passed, %d failed\n", passed, failed);
  return failed || !stale ? 1 : 0;
}

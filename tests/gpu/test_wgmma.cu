// Standalone GPU test of the sm_90a helpers (runtime/device/sm90.cuh).
//
// Build (from the repository root) and run on a Hopper GPU:
//   nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I. \
//        tests/gpu/test_wgmma.cu -o test_wgmma && ./test_wgmma
//
// For each configuration (A as [m][k] or [k][m], B as [k][n] or [n][k]; tile
// widths giving the 32-, 64- and 128-byte swizzles and the 64-wide block
// layout SWZ = 2; N = 64, 128, 256) the host builds the shared images of a
// BM x BK A tile and a BK x BN B tile through pm_smem_off, a block of
// BM / 64 warpgroups copies them to shared memory, fences them for the async
// proxy, and each warpgroup runs pm_sm90_mma_tile on its 64 rows (twice where
// BK >= 32, the second call on the second half of k, as a pipeline would),
// drains (pm_sm90_drain) and stores with
// pm_sm90_store into a NaN-poisoned buffer; the host compares with a double
// reference. "N passed, M failed" last; exit 1 on a failure.
#include "runtime/device/common.cuh"
#include "runtime/device/sm90.cuh"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

static int g_pass = 0, g_fail = 0;

#define CK(call)                                                              \
  do {                                                                        \
    cudaError_t e_ = (call);                                                  \
    if (e_ != cudaSuccess) {                                                  \
      printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__,    \
             __LINE__);                                                       \
      exit(2);                                                                \
    }                                                                         \
  } while (0)

template <int BM, int BN, int BK, int A_KC, int PA, int SWZA, int B_NC,
          int PB, int SWZB, int HA, int HB>
__global__ void k_wg(const __half *ga, int na, const __half *gb, int nb,
                     float *c) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __half *As = (__half *)smem;
  __half *Bs = As + ((na + 511) / 512) * 512;
  for (int i = threadIdx.x; i < na; i += blockDim.x) As[i] = ga[i];
  for (int i = threadIdx.x; i < nb; i += blockDim.x) Bs[i] = gb[i];
  pm_fence_proxy_async();
  __syncthreads();
  constexpr int R = 64 * BN / 128;
  float acc[R];
  pm_fill_zero(acc, R);
  const int m0 = 64 * (threadIdx.x / 128);
  constexpr int H = BK >= 32 ? 2 : 1;
  for (int h = 0; h < H; ++h) {
    const int k0 = h * (BK / H);
    pm_sm90_mma_tile<64, BN, BK / H, A_KC, PA, SWZA, B_NC, PB, SWZB, HA, HB>(
        acc, As, A_KC ? m0 : k0, A_KC ? k0 : m0, Bs, B_NC ? k0 : 0,
        B_NC ? 0 : k0);
  }
  pm_sm90_drain<R>(acc);
  pm_sm90_store<64, BN, float>(acc, c + (long long)m0 * BN, BN, 1);
}

template <int BM, int BN, int BK, int A_KC, int SWZA, int B_NC, int SWZB>
static void run(const char *name) {
  // tile shapes as stored: rows x pitch
  constexpr int AR = A_KC ? BM : BK, AP = A_KC ? BK : BM;
  constexpr int BR = B_NC ? BK : BN, BP = B_NC ? BN : BK;
  const int na = AR * AP, nb = BR * BP;
  std::vector<float> a(BM * BK), b(BK * BN);
  std::vector<__half> ia(na, __float2half(1000.f)), ib(nb, __float2half(1000.f));
  srand(1234 + BM + 7 * BN + 13 * BK + A_KC + 2 * B_NC + 4 * SWZA);
  for (int m = 0; m < BM; ++m)
    for (int k = 0; k < BK; ++k) {
      float v = (float)(rand() % 17 - 8) / 8.f;
      a[m * BK + k] = v;
      int off = A_KC ? pm_smem_off<AP, SWZA, AR>(m, k)
                     : pm_smem_off<AP, SWZA, AR>(k, m);
      ia[off] = __float2half(v);
    }
  for (int k = 0; k < BK; ++k)
    for (int n = 0; n < BN; ++n) {
      float v = (float)(rand() % 17 - 8) / 8.f;
      b[k * BN + n] = v;
      int off = B_NC ? pm_smem_off<BP, SWZB, BR>(k, n)
                     : pm_smem_off<BP, SWZB, BR>(n, k);
      ib[off] = __float2half(v);
    }
  __half *da, *db;
  float *dc;
  CK(cudaMalloc(&da, na * 2));
  CK(cudaMalloc(&db, nb * 2));
  CK(cudaMalloc(&dc, BM * BN * 4));
  CK(cudaMemcpy(da, ia.data(), na * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, ib.data(), nb * 2, cudaMemcpyHostToDevice));
  CK(cudaMemset(dc, 0xFF, BM * BN * 4));
  auto kern = k_wg<BM, BN, BK, A_KC, AP, SWZA, B_NC, BP, SWZB, AR, BR>;
  const int smem = ((na + 511) / 512) * 1024 + nb * 2;
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                          smem));
  kern<<<1, BM / 64 * 128, smem>>>(da, na, db, nb, dc);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<float> c(BM * BN);
  CK(cudaMemcpy(c.data(), dc, BM * BN * 4, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int m = 0; m < BM; ++m)
    for (int n = 0; n < BN; ++n) {
      double r = 0;
      for (int k = 0; k < BK; ++k) r += (double)a[m * BK + k] * b[k * BN + n];
      if (!(fabs(c[m * BN + n] - r) <= 1e-3 * (1 + fabs(r)))) {
        if (bad < 3)
          printf("  %s: C[%d][%d] = %g, want %g\n", name, m, n, c[m * BN + n],
                 r);
        ++bad;
      }
    }
  printf("%s %s\n", bad ? "FAIL" : "PASS", name);
  bad ? ++g_fail : ++g_pass;
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

int main() {
  // K-major A and B, 128/64/32-byte swizzles
  run<128, 128, 64, 1, 1, 0, 1>("tn 128x128x64 sw128");
  run<128, 128, 32, 1, 1, 0, 1>("tn 128x128x32 sw64");
  run<64, 64, 16, 1, 1, 0, 1>("tn 64x64x16 sw32");
  run<128, 256, 64, 1, 1, 0, 1>("tn 128x256x64 sw128");
  run<128, 128, 128, 1, 2, 0, 2>("tn 128x128x128 k blocks");
  // MN-major B ([k][n]): nn
  run<128, 128, 64, 1, 1, 1, 2>("nn 128x128x64");
  run<128, 64, 64, 1, 1, 1, 1>("nn 128x64x64");
  run<128, 256, 32, 1, 1, 1, 2>("nn 128x256x32");
  // MN-major A ([k][m]): tt and nt
  run<128, 128, 64, 0, 2, 0, 1>("tt 128x128x64");
  run<64, 128, 64, 0, 1, 0, 1>("tt 64x128x64");
  run<128, 128, 64, 0, 2, 1, 2>("nt 128x128x64");
  run<128, 128, 32, 0, 2, 1, 2>("nt 128x128x32");
  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}

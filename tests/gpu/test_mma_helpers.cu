// Standalone GPU test of the polymma tensor-core helper files
//   runtime/device/common.cuh, runtime/device/sm70.cuh, runtime/device/sm80.cuh
//
// Build (from the repository root) and run on a GPU machine:
//   nvcc -O2 -arch=sm_90 -I. tests/gpu/test_mma_helpers.cu -o test_mma_helpers
//   ./test_mma_helpers
//
// For every macro shape of both targets, both A layouts (MxK row-major or
// stored KxM), both B layouts (KxN row-major or stored NxK), unpadded and
// padded leading dimensions, and row-/column-major output: a one-warp kernel
// copies A and B for two k-steps into shared memory (pm_copy16_g2s), runs
// pm_fill_zero + two macro-MMA calls (the second with pointers advanced by MK
// along k), stores into a NaN-poisoned global buffer (float and __half), and
// the host compares against a double reference and checks that nothing
// outside the tile was written.  Also checks that acc_coord is a bijection
// from (lane, register) onto the MMxMN tile.
//
// Tile-aware macro-MMAs (pm_sm80_mma_tile, pm_sm70_mma_tile): for every
// macro shape, all four A/B orientations and several (pitch, swizzle)
// configurations of the A and B shared tiles (pitches 32, 64, 128 with
// SWZ 0/1, padded pitch 40 with SWZ 0), the operands are placed at a non-zero
// (r0, c0) inside a bigger shared tile image built on the host through
// pm_smem_off (everything else is garbage 1000), copied to shared memory
// (pm_cp_async16 + commit + wait<0> for sm80, pm_copy16_g2s for sm70), two
// k-steps are accumulated and stored into a NaN-poisoned buffer, compared
// against a double reference.  A cp.async test copies swizzled / plain tiles
// global -> shared in two commit groups (wait<1>, then wait<0>) and reads
// them back through pm_smem_off.
#include "runtime/device/common.cuh"
#include "runtime/device/sm70.cuh"
#include "runtime/device/sm80.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                              \
  do {                                                                        \
    cudaError_t err_ = (call);                                                \
    if (err_ != cudaSuccess) {                                                \
      fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorName(err_), \
              __FILE__, __LINE__, cudaGetErrorString(err_));                  \
      exit(2);                                                                \
    }                                                                         \
  } while (0)

static int g_pass = 0, g_fail = 0;

// ---------------------------------------------------------------------------
// Device side
// ---------------------------------------------------------------------------
template <int TGT, int MM, int MN, int MK, typename T>
__global__ void k_mma(const __half *gA, int a_elems, const __half *gB,
                      int b_elems, int a_sm, int a_sk, int b_sk, int b_sn,
                      T *c, long long c_sm, long long c_sn) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __half *sA = reinterpret_cast<__half *>(smem_raw);
  __half *sB = sA + a_elems;  // a_elems is a multiple of 8 (16 bytes)
  for (int i = threadIdx.x; i < a_elems / 8; i += blockDim.x)
    pm_copy16_g2s(sA + 8 * i, gA + 8 * i);
  for (int i = threadIdx.x; i < b_elems / 8; i += blockDim.x)
    pm_copy16_g2s(sB + 8 * i, gB + 8 * i);
  __syncthreads();

  float acc[MM * MN / 32];
  pm_fill_zero(acc, MM * MN / 32);
  if constexpr (TGT == 70) {
    pm_sm70_mma<MM, MN, MK>(acc, sA, a_sm, a_sk, sB, b_sk, b_sn);
    pm_sm70_mma<MM, MN, MK>(acc, sA + MK * a_sk, a_sm, a_sk, sB + MK * b_sk,
                            b_sk, b_sn);
    pm_sm70_store<MM, MN, T>(acc, c, c_sm, c_sn);
  } else {
    pm_sm80_mma<MM, MN, MK>(acc, sA, a_sm, a_sk, sB, b_sk, b_sn);
    pm_sm80_mma<MM, MN, MK>(acc, sA + MK * a_sk, a_sm, a_sk, sB + MK * b_sk,
                            b_sk, b_sn);
    pm_sm80_store<MM, MN, T>(acc, c, c_sm, c_sn);
  }
}

template <int TGT, int MM, int MN>
__global__ void k_coord(int *out) {
  constexpr int R = MM * MN / 32;
  const int lane = threadIdx.x;
  for (int r = 0; r < R; ++r) {
    int m = -1, n = -1;
    if constexpr (TGT == 70)
      pm_sm70_acc_coord<MM, MN>(r, lane, &m, &n);
    else
      pm_sm80_acc_coord<MM, MN>(r, lane, &m, &n);
    out[2 * (lane * R + r) + 0] = m;
    out[2 * (lane * R + r) + 1] = n;
  }
}

// Tile-aware macro-MMA: operands in shared tile images (A then B, each a
// multiple of 8 halves) copied verbatim from global memory.
template <int TGT, int MM, int MN, int MK, int A_KC, int PA, int SWZA,
          int B_NC, int PB, int SWZB>
__global__ void k_mma_tile(const __half *gA, int a_elems, const __half *gB,
                           int b_elems, int a_r0, int a_c0, int b_r0,
                           int b_c0, float *c, int ldc) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __half *sA = reinterpret_cast<__half *>(smem_raw);
  __half *sB = sA + a_elems;
  if constexpr (TGT == 80) {
    for (int i = threadIdx.x; i < a_elems / 8; i += blockDim.x)
      pm_cp_async16(sA + 8 * i, gA + 8 * i);
    for (int i = threadIdx.x; i < b_elems / 8; i += blockDim.x)
      pm_cp_async16(sB + 8 * i, gB + 8 * i);
    pm_cp_async_commit();
    pm_cp_async_wait<0>();
  } else {
    for (int i = threadIdx.x; i < a_elems / 8; i += blockDim.x)
      pm_copy16_g2s(sA + 8 * i, gA + 8 * i);
    for (int i = threadIdx.x; i < b_elems / 8; i += blockDim.x)
      pm_copy16_g2s(sB + 8 * i, gB + 8 * i);
  }
  __syncthreads();

  float acc[MM * MN / 32];
  pm_fill_zero(acc, MM * MN / 32);
  // second k-step: advance along k (a column of A when A_KC, else a row;
  // a row of B when B_NC, else a column)
  const int a_r1 = A_KC ? a_r0 : a_r0 + MK, a_c1 = A_KC ? a_c0 + MK : a_c0;
  const int b_r1 = B_NC ? b_r0 + MK : b_r0, b_c1 = B_NC ? b_c0 : b_c0 + MK;
  if constexpr (TGT == 70) {
    pm_sm70_mma_tile<MM, MN, MK, A_KC, PA, SWZA, B_NC, PB, SWZB>(
        acc, sA, a_r0, a_c0, sB, b_r0, b_c0);
    pm_sm70_mma_tile<MM, MN, MK, A_KC, PA, SWZA, B_NC, PB, SWZB>(
        acc, sA, a_r1, a_c1, sB, b_r1, b_c1);
    pm_sm70_store<MM, MN, float>(acc, c, ldc, 1);
  } else {
    pm_sm80_mma_tile<MM, MN, MK, A_KC, PA, SWZA, B_NC, PB, SWZB>(
        acc, sA, a_r0, a_c0, sB, b_r0, b_c0);
    pm_sm80_mma_tile<MM, MN, MK, A_KC, PA, SWZA, B_NC, PB, SWZB>(
        acc, sA, a_r1, a_c1, sB, b_r1, b_c1);
    pm_sm80_store<MM, MN, float>(acc, c, ldc, 1);
  }
}

// cp.async: a ROWS x P tile (global row-major, pitch P) -> shared (pitch P,
// swizzle SWZ) with the generator's copy pattern (thread t: 16-byte unit
// v = t % (P/8) of row t / (P/8) + pass * rows_per_pass), rows [0, ROWS/2)
// in commit group 0, the rest in group 1; read back through pm_smem_off.
template <int P, int SWZ, int ROWS>
__global__ void k_cp_async(const __half *g, __half *out) {
  __shared__ __align__(16) __half s[ROWS * P];
  constexpr int UPR = P / 8;
  const int t = threadIdx.x, nt = blockDim.x;
  const int rpp = nt / UPR;  // rows per pass
  for (int grp = 0; grp < 2; ++grp) {
    for (int pass = 0; pass * rpp < ROWS / 2; ++pass) {
      const int l0 = grp * (ROWS / 2) + t / UPR + pass * rpp, v = t % UPR;
      if (t / UPR < rpp && l0 < (grp + 1) * (ROWS / 2))
        pm_cp_async16(s + pm_smem_off<P, SWZ>(l0, 8 * v), g + l0 * P + 8 * v);
    }
    pm_cp_async_commit();
  }
  pm_cp_async_wait<1>();
  __syncthreads();
  for (int i = t; i < ROWS / 2 * P; i += nt)
    out[i] = s[pm_smem_off<P, SWZ>(i / P, i % P)];
  pm_cp_async_wait<0>();
  __syncthreads();
  for (int i = ROWS / 2 * P + t; i < ROWS * P; i += nt)
    out[i] = s[pm_smem_off<P, SWZ>(i / P, i % P)];
}

// pm_smem_off is usable in constant expressions (values checked against the
// formula by hand: P=32: CH=4, x = (r/2)%4; P=64/128: x = r%8).
static_assert(pm_smem_off<32, 0>(3, 5) == 101, "pm_smem_off plain");
static_assert(pm_smem_off<32, 1>(3, 5) == 3 * 32 + 1 * 8 + 5, "pm_smem_off");
static_assert(pm_smem_off<64, 1>(5, 17) == 5 * 64 + (2 ^ 5) * 8 + 1, "");
static_assert(pm_smem_off<128, 1>(11, 70) == 11 * 128 + (8 ^ 3) * 8 + 6, "");

// ---------------------------------------------------------------------------
// Host side
// ---------------------------------------------------------------------------
static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static float rnd_pm1() {  // uniform in [-1, 1]
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return (float)((g_rng >> 11) * (1.0 / 9007199254740992.0)) * 2.0f - 1.0f;
}

static int round8(int x) { return (x + 7) / 8 * 8; }

static float out_to_float(float v) { return v; }
static float out_to_float(__half v) { return __half2float(v); }

template <typename T> static T poison_value() {
  T v;
  memset(&v, 0xFF, sizeof(T));  // all-ones: NaN for float and __half
  return v;
}

template <int TGT, int MM, int MN, int MK, typename T>
static double run_one(const std::vector<__half> &hA, int a_elems,
                      const std::vector<__half> &hB, int b_elems, int a_sm,
                      int a_sk, int b_sk, int b_sn, bool c_colmajor, int pad,
                      const std::vector<double> &ref, bool *untouched_ok,
                      bool *launch_ok) {
  const int ldc = c_colmajor ? MM + pad : MN + pad;
  const long long c_sm = c_colmajor ? 1 : ldc;
  const long long c_sn = c_colmajor ? ldc : 1;
  const size_t c_elems = (size_t)(c_colmajor ? MN : MM) * ldc;

  __half *dA = nullptr, *dB = nullptr;
  T *dC = nullptr;
  CK(cudaMalloc(&dA, a_elems * sizeof(__half)));
  CK(cudaMalloc(&dB, b_elems * sizeof(__half)));
  CK(cudaMalloc(&dC, c_elems * sizeof(T)));
  CK(cudaMemcpy(dA, hA.data(), a_elems * sizeof(__half),
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, hB.data(), b_elems * sizeof(__half),
                cudaMemcpyHostToDevice));
  CK(cudaMemset(dC, 0xFF, c_elems * sizeof(T)));  // poison (NaN)

  const size_t smem = (size_t)(a_elems + b_elems) * sizeof(__half);
  k_mma<TGT, MM, MN, MK, T><<<1, 32, smem>>>(dA, a_elems, dB, b_elems, a_sm,
                                             a_sk, b_sk, b_sn, dC, c_sm, c_sn);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  *launch_ok = true;

  std::vector<T> hC(c_elems);
  CK(cudaMemcpy(hC.data(), dC, c_elems * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));

  std::vector<char> in_tile(c_elems, 0);
  double max_err = 0.0;
  bool any_nan = false;
  for (int m = 0; m < MM; ++m)
    for (int n = 0; n < MN; ++n) {
      const size_t idx = (size_t)(m * c_sm + n * c_sn);
      in_tile[idx] = 1;
      const double got = (double)out_to_float(hC[idx]);
      const double err = fabs(got - ref[(size_t)m * MN + n]);
      if (!std::isfinite(err)) any_nan = true;  // unwritten (poison) or inf
      else if (err > max_err) max_err = err;
    }
  if (any_nan) max_err = NAN;
  const T pv = poison_value<T>();
  bool ok = true;
  for (size_t i = 0; i < c_elems; ++i)
    if (!in_tile[i] && memcmp(&hC[i], &pv, sizeof(T)) != 0) ok = false;
  *untouched_ok = ok;
  return max_err;
}

template <int TGT, int MM, int MN, int MK>
static void test_shape() {
  constexpr int KT = 2 * MK;  // two k-steps
  const char *tname = TGT == 70 ? "sm70" : "sm80";

  // ---- acc_coord bijection ----
  {
    constexpr int R = MM * MN / 32;
    int *dOut = nullptr;
    CK(cudaMalloc(&dOut, 32 * R * 2 * sizeof(int)));
    CK(cudaMemset(dOut, 0xFF, 32 * R * 2 * sizeof(int)));
    k_coord<TGT, MM, MN><<<1, 32>>>(dOut);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<int> h(32 * R * 2);
    CK(cudaMemcpy(h.data(), dOut, h.size() * sizeof(int),
                  cudaMemcpyDeviceToHost));
    CK(cudaFree(dOut));
    std::vector<int> hits(MM * MN, 0);
    bool ok = true;
    for (int i = 0; i < 32 * R; ++i) {
      const int m = h[2 * i], n = h[2 * i + 1];
      if (m < 0 || m >= MM || n < 0 || n >= MN) {
        ok = false;
        continue;
      }
      hits[m * MN + n]++;
    }
    for (int v : hits)
      if (v != 1) ok = false;
    printf("%s %s acc_coord %dx%d bijection\n", ok ? "PASS" : "FAIL", tname,
           MM, MN);
    (ok ? g_pass : g_fail)++;
  }

  // ---- mma + store, all layouts ----
  for (int pad_i = 0; pad_i < 2; ++pad_i) {
    const int pad = pad_i ? 3 : 0;
    for (int a_kxm = 0; a_kxm < 2; ++a_kxm)
      for (int b_nxk = 0; b_nxk < 2; ++b_nxk)
        for (int c_col = 0; c_col < 2; ++c_col) {
          // logical operands, fresh random values
          std::vector<__half> A((size_t)MM * KT), B((size_t)KT * MN);
          for (auto &x : A) x = __float2half(rnd_pm1());
          for (auto &x : B) x = __float2half(rnd_pm1());

          // shared-memory images
          int a_sm, a_sk, b_sk, b_sn, a_elems, b_elems;
          if (!a_kxm) {  // A as MxK row-major
            const int lda = KT + pad;
            a_sm = lda; a_sk = 1;
            a_elems = round8(MM * lda);
          } else {       // A stored KxM (row-major), i.e. column-major MxK
            const int lda = MM + pad;
            a_sm = 1; a_sk = lda;
            a_elems = round8(KT * lda);
          }
          if (!b_nxk) {  // B as KxN row-major
            const int ldb = MN + pad;
            b_sk = ldb; b_sn = 1;
            b_elems = round8(KT * ldb);
          } else {       // B stored NxK (row-major)
            const int ldb = KT + pad;
            b_sk = 1; b_sn = ldb;
            b_elems = round8(MN * ldb);
          }
          // fill padding with large garbage so reading it shows up
          std::vector<__half> hA(a_elems, __float2half(1000.0f));
          std::vector<__half> hB(b_elems, __float2half(1000.0f));
          for (int m = 0; m < MM; ++m)
            for (int k = 0; k < KT; ++k)
              hA[(size_t)m * a_sm + (size_t)k * a_sk] = A[(size_t)m * KT + k];
          for (int k = 0; k < KT; ++k)
            for (int n = 0; n < MN; ++n)
              hB[(size_t)k * b_sk + (size_t)n * b_sn] = B[(size_t)k * MN + n];

          std::vector<double> ref((size_t)MM * MN, 0.0);
          for (int m = 0; m < MM; ++m)
            for (int n = 0; n < MN; ++n) {
              double s = 0.0;
              for (int k = 0; k < KT; ++k)
                s += (double)__half2float(A[(size_t)m * KT + k]) *
                     (double)__half2float(B[(size_t)k * MN + n]);
              ref[(size_t)m * MN + n] = s;
            }

          bool untouched_f = false, untouched_h = false, lf = false,
               lh = false;
          const double err_f = run_one<TGT, MM, MN, MK, float>(
              hA, a_elems, hB, b_elems, a_sm, a_sk, b_sk, b_sn, c_col != 0,
              pad, ref, &untouched_f, &lf);
          const double err_h = run_one<TGT, MM, MN, MK, __half>(
              hA, a_elems, hB, b_elems, a_sm, a_sk, b_sk, b_sn, c_col != 0,
              pad, ref, &untouched_h, &lh);
          const bool ok = lf && lh && err_f < 1e-3 && err_h < 1e-2 &&
                          untouched_f && untouched_h;
          printf("%s %s mma<%d,%d,%d> A=%s B=%s C=%s pad=%d  "
                 "err_f32=%.3g err_f16=%.3g%s\n",
                 ok ? "PASS" : "FAIL", tname, MM, MN, MK,
                 a_kxm ? "KxM" : "MxK", b_nxk ? "NxK" : "KxN",
                 c_col ? "col" : "row", pad, err_f, err_h,
                 (untouched_f && untouched_h) ? ""
                                              : "  (wrote outside the tile)");
          (ok ? g_pass : g_fail)++;
        }
  }
}

// ---- tile-aware macro-MMA cases ----
static int g_skipped = 0;

template <int TGT, int MM, int MN, int MK, int A_KC, int PA, int SWZA,
          int B_NC, int PB, int SWZB>
static void tile_case() {
  constexpr int KT = 2 * MK;  // two k-steps
  // stored extents of the used region
  constexpr int A_ROWS = A_KC ? MM : KT, A_COLS = A_KC ? KT : MM;
  constexpr int B_ROWS = B_NC ? KT : MN, B_COLS = B_NC ? MN : KT;
  if constexpr (A_COLS > PA || B_COLS > PB) {
    ++g_skipped;  // the operand does not fit into one row of this pitch
  } else {
    const char *tname = TGT == 70 ? "sm70" : "sm80";
    auto origin_c = [](int room) {  // a non-zero multiple of 8 if room
      const int r = room < 16 ? room : 16;
      return r / 8 * 8;
    };
    const int a_c0 = origin_c(PA - A_COLS), b_c0 = origin_c(PB - B_COLS) / 2 / 8 * 8;
    const int a_r0 = TGT == 80 ? 8 : 5, b_r0 = TGT == 80 ? 16 : 3;
    const int a_rows = a_r0 + A_ROWS + 3, b_rows = b_r0 + B_ROWS + 3;
    const int a_elems = a_rows * PA, b_elems = b_rows * PB;

    std::vector<__half> A((size_t)MM * KT), B((size_t)KT * MN);
    for (auto &x : A) x = __float2half(rnd_pm1());
    for (auto &x : B) x = __float2half(rnd_pm1());
    std::vector<__half> hA(a_elems, __float2half(1000.0f));
    std::vector<__half> hB(b_elems, __float2half(1000.0f));
    for (int m = 0; m < MM; ++m)
      for (int k = 0; k < KT; ++k) {
        const int o = A_KC ? pm_smem_off<PA, SWZA>(a_r0 + m, a_c0 + k)
                           : pm_smem_off<PA, SWZA>(a_r0 + k, a_c0 + m);
        hA[o] = A[(size_t)m * KT + k];
      }
    for (int k = 0; k < KT; ++k)
      for (int n = 0; n < MN; ++n) {
        const int o = B_NC ? pm_smem_off<PB, SWZB>(b_r0 + k, b_c0 + n)
                           : pm_smem_off<PB, SWZB>(b_r0 + n, b_c0 + k);
        hB[o] = B[(size_t)k * MN + n];
      }
    std::vector<double> ref((size_t)MM * MN, 0.0);
    for (int m = 0; m < MM; ++m)
      for (int n = 0; n < MN; ++n) {
        double acc = 0.0;
        for (int k = 0; k < KT; ++k)
          acc += (double)__half2float(A[(size_t)m * KT + k]) *
                 (double)__half2float(B[(size_t)k * MN + n]);
        ref[(size_t)m * MN + n] = acc;
      }

    const int ldc = MN + 3;
    const size_t c_elems = (size_t)MM * ldc;
    __half *dA = nullptr, *dB = nullptr;
    float *dC = nullptr;
    CK(cudaMalloc(&dA, a_elems * sizeof(__half)));
    CK(cudaMalloc(&dB, b_elems * sizeof(__half)));
    CK(cudaMalloc(&dC, c_elems * sizeof(float)));
    CK(cudaMemcpy(dA, hA.data(), a_elems * sizeof(__half),
                  cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB.data(), b_elems * sizeof(__half),
                  cudaMemcpyHostToDevice));
    CK(cudaMemset(dC, 0xFF, c_elems * sizeof(float)));  // poison (NaN)
    const size_t smem = (size_t)(a_elems + b_elems) * sizeof(__half);
    auto kern = k_mma_tile<TGT, MM, MN, MK, A_KC, PA, SWZA, B_NC, PB, SWZB>;
    CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                            (int)smem));
    kern<<<1, 32, smem>>>(dA, a_elems, dB, b_elems, a_r0, a_c0, b_r0, b_c0,
                          dC, ldc);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> hC(c_elems);
    CK(cudaMemcpy(hC.data(), dC, c_elems * sizeof(float),
                  cudaMemcpyDeviceToHost));
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));

    double max_err = 0.0;
    bool finite = true, untouched = true;
    for (int m = 0; m < MM; ++m)
      for (int j = 0; j < ldc; ++j) {
        const float v = hC[(size_t)m * ldc + j];
        if (j >= MN) {
          if (!std::isnan(v)) untouched = false;
          continue;
        }
        const double err = fabs((double)v - ref[(size_t)m * MN + j]);
        if (!std::isfinite(err)) finite = false;
        else if (err > max_err) max_err = err;
      }
    const bool ok = finite && untouched && max_err < 1e-3;
    printf("%s %s mma_tile<%d,%d,%d> A=%s P=%d swz=%d (r0,c0)=(%d,%d)  "
           "B=%s P=%d swz=%d (r0,c0)=(%d,%d)  err=%.3g%s%s\n",
           ok ? "PASS" : "FAIL", tname, MM, MN, MK, A_KC ? "[m][k]" : "[k][m]",
           PA, SWZA, a_r0, a_c0, B_NC ? "[k][n]" : "[n][k]", PB, SWZB, b_r0,
           b_c0, max_err, finite ? "" : "  (non-finite)",
           untouched ? "" : "  (wrote outside the tile)");
    (ok ? g_pass : g_fail)++;
  }
}

// (pitch, swizzle) configurations of A and B: every one of 32/64/128 x SWZ
// 0/1 and the padded pitch 40 (SWZ 0) appears for both operands.
template <int TGT, int MM, int MN, int MK, int A_KC, int B_NC>
static void tile_orient() {
  tile_case<TGT, MM, MN, MK, A_KC, 32, 1, B_NC, 64, 1>();
  tile_case<TGT, MM, MN, MK, A_KC, 64, 1, B_NC, 128, 1>();
  tile_case<TGT, MM, MN, MK, A_KC, 128, 1, B_NC, 32, 1>();
  tile_case<TGT, MM, MN, MK, A_KC, 40, 0, B_NC, 32, 0>();
  tile_case<TGT, MM, MN, MK, A_KC, 64, 0, B_NC, 40, 0>();
  tile_case<TGT, MM, MN, MK, A_KC, 128, 0, B_NC, 128, 0>();
  tile_case<TGT, MM, MN, MK, A_KC, 32, 0, B_NC, 64, 0>();
}

template <int TGT, int MM, int MN, int MK>
static void test_tile_shape() {
  tile_orient<TGT, MM, MN, MK, 1, 1>();
  tile_orient<TGT, MM, MN, MK, 1, 0>();
  tile_orient<TGT, MM, MN, MK, 0, 1>();
  tile_orient<TGT, MM, MN, MK, 0, 0>();
}

template <int P, int SWZ>
static void test_cp_async() {
  constexpr int ROWS = 32, N = ROWS * P;
  std::vector<__half> h(N);
  for (int i = 0; i < N; ++i) h[i] = __ushort_as_half((unsigned short)(i * 7 + 1));
  __half *dIn = nullptr, *dOut = nullptr;
  CK(cudaMalloc(&dIn, N * sizeof(__half)));
  CK(cudaMalloc(&dOut, N * sizeof(__half)));
  CK(cudaMemcpy(dIn, h.data(), N * sizeof(__half), cudaMemcpyHostToDevice));
  CK(cudaMemset(dOut, 0xFF, N * sizeof(__half)));
  k_cp_async<P, SWZ, ROWS><<<1, 128>>>(dIn, dOut);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<__half> o(N);
  CK(cudaMemcpy(o.data(), dOut, N * sizeof(__half), cudaMemcpyDeviceToHost));
  CK(cudaFree(dIn));
  CK(cudaFree(dOut));
  int bad = 0;
  for (int i = 0; i < N; ++i)
    if (__half_as_ushort(o[i]) != __half_as_ushort(h[i])) ++bad;
  printf("%s cp_async16 %dx%d P=%d swz=%d (2 groups, wait<1>/wait<0>)  "
         "mismatches=%d\n",
         bad ? "FAIL" : "PASS", ROWS, P, P, SWZ, bad);
  (bad ? g_fail : g_pass)++;
}

int main() {
  int dev = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  printf("device %d: %s (sm_%d%d)\n", dev, prop.name, prop.major, prop.minor);

  // sm70 target: m8n8k4 macro-MMAs (required shapes + generic extras)
  test_shape<70, 16, 16, 8>();
  test_shape<70, 32, 32, 8>();
  test_shape<70, 16, 32, 4>();
  test_shape<70, 32, 16, 12>();
  // sm80 target: m16n8k16 macro-MMAs (required shapes + generic extras)
  test_shape<80, 16, 8, 16>();
  test_shape<80, 16, 16, 16>();
  test_shape<80, 32, 32, 16>();
  test_shape<80, 48, 24, 32>();
  test_shape<80, 64, 8, 16>();

  // cp.async
  test_cp_async<32, 1>();
  test_cp_async<64, 1>();
  test_cp_async<128, 1>();
  test_cp_async<64, 0>();

  // tile-aware macro-MMAs
  test_tile_shape<70, 16, 16, 8>();
  test_tile_shape<70, 32, 32, 8>();
  test_tile_shape<80, 16, 8, 16>();
  test_tile_shape<80, 16, 16, 16>();
  test_tile_shape<80, 32, 32, 16>();
  test_tile_shape<80, 64, 32, 16>();
  printf("(%d tile cases skipped: operand wider than the pitch)\n", g_skipped);

  printf("%d passed, %d failed\n", g_pass, g_fail);
  return g_fail ? 1 : 0;
}

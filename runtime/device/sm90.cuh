// polymma target helpers: "sm90" (Hopper, sm_90a) warpgroup macro-MMAs built
// from
//   wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16   (N = 64, 128, 256)
//   (or .bf16.bf16, or m64nNk32 .e4m3.e4m3 / .e5m2.e5m2 from K-major tiles:
//   the operand type PM_AB_T / PM_AB_PTX / PM_AB_K, common.cuh)
//
// Embedded verbatim into generated kernels AFTER common.cuh.  Header-only;
// the code must be compiled for sm_90a
// (nvcc -gencode=arch=compute_90a,code=sm_90a).
//
// The MMA unit is a warpgroup: 4 consecutive warps, 128 threads, starting at
// a warp index divisible by 4 (threadIdx.x / 128 is the warpgroup, 1-D
// blocks).  A macro-MMA MM x MN x MK has MM = 64 and is issued by the whole
// warpgroup; both operands are read from shared memory by the tensor cores
// (the async proxy) through 64-bit matrix descriptors.
//
// Accumulator distribution (PTX ISA, "wgmma .m64nNk16 register fragment D"):
//   t = threadIdx.x % 128, w = t / 32, g = (t % 32) / 4, q = t % 4
//   acc register r of the 64 x MN tile:
//     row = 16 w + g + 8 ((r >> 1) & 1),  col = 8 (r >> 2) + 2 q + (r & 1)
//   (the mma.sync m16n8 C fragment, one per 8 columns, warp w owning rows
//   16w .. 16w + 15); MN / 2 registers per thread.
//
// Shared tiles (pm_smem_off, common.cuh) map onto the canonical layouts of
// the descriptors ("Shared Memory Matrix Layout" of wgmma):
//   K-major operand (A as [m][k], B as [n][k]): rows of P halves, SWZ = 1
//     with P in {16, 32, 64} is exactly the 32/64/128-byte swizzle
//     (chunk ^ key(r) equals byte-address bits [4..] ^ bits [7..]); SWZ = 2
//     (P a multiple of 64) stores 64-wide k blocks, each a 128-byte swizzled
//     [rows][64] block.  Stride byte offset (SBO) = 8 rows x row bytes;
//     a k16 step advances the start address by 32 bytes inside the row.
//   MN-major operand (A as [k][m], B as [k][n]; the .trans immediate): the
//     tile is 64-wide MN blocks (SWZ = 1 with P = 64, or SWZ = 2), each a
//     column of 8 (k) x 64 (mn) atoms of 1024 bytes.  SBO = 1024 (the next 8
//     k rows), leading byte offset (LBO) = the stride between 64-wide MN
//     blocks (H x 128 bytes).  SWZ = 3 and 4 (MN blocks of 32 and 16, the
//     64- and 32-byte swizzles; an MN of 96 or 80 in whole blocks): atoms
//     of 8 x 32 (16), SBO 512 (256), LBO H x 64 (32) bytes.
// Tile bases must be 1024-byte aligned (the swizzle is a function of the
// address bits); the generator aligns every stage of every tile.
#ifndef POLYMMA_TARGETS_SM90_CUH
#define POLYMMA_TARGETS_SM90_CUH

#include <cuda.h>
#include <cuda_fp16.h>
#include <stdint.h>

#ifndef POLYMMA_TARGETS_COMMON_CUH
#error "polymma: runtime/device/common.cuh must be included before sm90.cuh"
#endif

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "polymma: sm_90a kernels need -gencode=arch=compute_90a,code=sm_90a"
#endif

// This thread's index inside its warpgroup (0..127).
__device__ __forceinline__ int pm_wg_thread() {
  return (int)(threadIdx.x & 127u);
}

// Shared memory written by the generic proxy (cp.async, st.shared) and read
// next by wgmma (the async proxy): each writing thread fences before the
// barrier that publishes it.
__device__ __forceinline__ void pm_fence_proxy_async() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

// Named barrier 1 over the first N threads of the block: the consumer
// warps of a warp-specialized kernel (the producer warp never joins it).
template <int N> __device__ __forceinline__ void pm_bar_sync_n() {
  asm volatile("bar.sync 1, %0;\n" ::"n"(N) : "memory");
}

__device__ __forceinline__ void pm_wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void pm_wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}

// At most N of this warpgroup's committed wgmma groups still pending.
template <int N> __device__ __forceinline__ void pm_wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Keep the compiler from moving accesses of the R accumulator registers
// across an asynchronous MMA's issue or wait.
template <int R> __device__ __forceinline__ void pm_wg_fence_regs(float *acc) {
#pragma unroll
  for (int i = 0; i < R; ++i)
    asm volatile("" : "+f"(acc[i])::"memory");
}

// Matrix descriptor: start address, LBO and SBO in bytes (16-byte units in
// the descriptor), swizzle of SWB bytes (128, 64 or 32).
template <int SWB>
__device__ __forceinline__ uint64_t pm_wg_desc(unsigned saddr, unsigned lbo,
                                               unsigned sbo) {
  static_assert(SWB == 128 || SWB == 64 || SWB == 32,
                "pm_wg_desc: swizzle of 32, 64 or 128 bytes");
  constexpr uint64_t mode = SWB == 128 ? 1 : SWB == 64 ? 2 : 3;
  return (uint64_t)((saddr & 0x3FFFFu) >> 4) |
         ((uint64_t)((lbo & 0x3FFFFu) >> 4) << 16) |
         ((uint64_t)((sbo & 0x3FFFFu) >> 4) << 32) | (mode << 62);
}

// The wgmma wrappers and pm_wgmma<N> / pm_wgmma_ra<N>: sm90_wgmma.cuh
// (generated by scripts/gen-wgmma.py, embedded before this file).

// The element offset of (r0, c0) in a tile of pitch P, swizzle SWZ, H rows
// (the unswizzled address: the hardware swizzles).
template <int P, int SWZ, int H>
__device__ __forceinline__ int pm_sm90_off(int r0, int c0) {
  constexpr int W = SWZ >= 2 ? pm_swz_block<SWZ>() : P;  // elements a row
  return SWZ >= 2 ? (((c0 >> pm_swz_shift<SWZ>()) * H + r0)
                     << pm_swz_shift<SWZ>()) + (c0 & (W - 1))
                  : r0 * P + c0;
}

// The descriptor of element (r0 + dr, c0 + dc) of a tile from d0, that of
// (r0, c0): the offset's 16-byte units added to the start address field,
// which cannot carry (shared memory is below 2^18 bytes). The k steps of
// one tile from its first step's descriptor: one 32-bit add each, not the
// address's mask and shifts again.
template <int P, int SWZ, int H>
__device__ __forceinline__ uint64_t pm_sm90_step(uint64_t d0, int r0, int c0,
                                                 int dr, int dc) {
  const int bytes = (int)sizeof(PM_AB_T) *
                    (pm_sm90_off<P, SWZ, H>(r0 + dr, c0 + dc) -
                     pm_sm90_off<P, SWZ, H>(r0, c0));
  const unsigned lo = (unsigned)d0 + ((unsigned)bytes >> 4);
  return (d0 & 0xFFFFFFFF00000000ull) | lo;
}

// Descriptor of the operand tile X (pitch P, swizzle SWZ, H rows) at
// element (r0, c0) (the unswizzled address: the hardware swizzles), as a
// K-major (KM = 1: rows are MN, columns K) or MN-major (KM = 0: rows are K,
// columns MN) operand.
template <int KM, int P, int SWZ, int H>
__device__ __forceinline__ uint64_t pm_sm90_operand(const PM_AB_T *x, int r0,
                                                    int c0) {
  constexpr int B = (int)sizeof(PM_AB_T);  // element bytes: 2, or 1 (8-bit)
  static_assert((SWZ >= 2 && SWZ <= 4 && B == 2) ||
                    (SWZ == 1 && (KM ? (P * B == 32 || P * B == 64 ||
                                        P * B == 128)
                                     : P == 64 && B == 2)),
                "pm_sm90: shared tiles must be swizzled with rows of 32, 64 "
                "or 128 bytes (K-major), 64 halves (MN-major), or in 64-, "
                "32- or 16-wide blocks of halves");
  constexpr int W = SWZ >= 2 ? pm_swz_block<SWZ>() : P;  // elements a row
  const unsigned a = pm_smem_addr(x) +
                     (unsigned)B * (unsigned)pm_sm90_off<P, SWZ, H>(r0, c0);
  if (KM)
    return pm_wg_desc<B * W>(a, 16u, 8u * B * W);
  return pm_wg_desc<B * W>(a, SWZ >= 2 ? (unsigned)B * W * H : 16u,
                           8u * B * W);
}

// acc (MM x MN, the distribution above) += A(MM x MK) * B(MK x MN), the
// tiles addressed as pm_sm80_mma_tile's (A_KC = 1: A as [m][k]; B_NC = 1:
// B as [k][n]), HA / HB the tiles' row counts (SWZ = 2 layouts).  Issues
// MK / PM_AB_K wgmma (k16, or k32 for 8-bit operands: 32 bytes of each row
// either way; those are K-major, A_KC = 1 and B_NC = 0) as one commit group and returns while they run: call
// pm_sm90_drain before reading or writing the accumulators otherwise, and
// wait (pm_wgmma_wait<1> keeps the last group running) before a barrier
// after which an operand tile still read may be overwritten.  The
// accumulators may still be in flight from the previous call (the same
// registers chain in hardware).
template <int MM, int MN, int MK, int A_KC, int PA, int SWZA, int B_NC,
          int PB, int SWZB, int HA, int HB>
__device__ __forceinline__ void pm_sm90_mma_tile(float *acc, const PM_AB_T *As,
                                                 int a_r0, int a_c0,
                                                 const PM_AB_T *Bs, int b_r0,
                                                 int b_c0) {
  static_assert(MM == 64 && MK % PM_AB_K == 0,
                "pm_sm90_mma_tile: MM must be 64, MK a multiple of the "
                "instruction's k");
  const uint64_t da0 = pm_sm90_operand<A_KC, PA, SWZA, HA>(As, a_r0, a_c0);
  const uint64_t db0 = pm_sm90_operand<B_NC ? 0 : 1, PB, SWZB, HB>(Bs, b_r0,
                                                                   b_c0);
  pm_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < MK; kk += PM_AB_K)
    pm_wgmma<MN, A_KC ? 0 : 1, B_NC ? 1 : 0>(
        acc,
        pm_sm90_step<PA, SWZA, HA>(da0, a_r0, a_c0, A_KC ? 0 : kk,
                                   A_KC ? kk : 0),
        pm_sm90_step<PB, SWZB, HB>(db0, b_r0, b_c0, B_NC ? kk : 0,
                                   B_NC ? 0 : kk));
  pm_wgmma_commit();
}

// One k16 step of A from registers x: B's descriptor at step kk (step 0's
// moved: the steps of one tile share it), the fence ordering x's writes,
// the wgmma.
template <int MN, int B_NC, int PB, int SWZB, int HB>
__device__ __forceinline__ void pm_sm90_ra_step(float *acc, const uint32_t *x,
                                                const PM_AB_T *Bs, int b_r0,
                                                int b_c0, int kk) {
  const uint64_t db = pm_sm90_step<PB, SWZB, HB>(
      pm_sm90_operand<B_NC ? 0 : 1, PB, SWZB, HB>(Bs, b_r0, b_c0), b_r0, b_c0,
      B_NC ? kk : 0, B_NC ? 0 : kk);
  pm_wgmma_fence();
  pm_wgmma_ra<MN, B_NC ? 1 : 0>(acc, x, db);
}

// pm_sm90_mma_tile with A from registers, through f: each thread's warp
// loads its 16 rows of every k16 step of A with ldmatrix (.trans for an
// [k][m] tile), f maps every .f16x2 register (a pointwise prologue on A),
// then the wgmma reads A from the registers and B through its descriptor.
// One k16 step at a time: step kk + 16's ldmatrix and f run while step
// kk's wgmma does (a wgmma.fence before each wgmma orders its A registers'
// writes; 1.5 % faster on the paper set than all loads before the first
// wgmma, run156).
// The A fragment of warp w of the warpgroup (rows 16w .. 16w + 15) is the
// mma.m16n8k16 one: a0 (row g, k 2q..), a1 (row g + 8), a2 (k + 8), a3.
template <int MM, int MN, int MK, int A_KC, int PA, int SWZA, int B_NC,
          int PB, int SWZB, int HA, int HB, typename F>
__device__ __forceinline__ void pm_sm90_mma_tile_ra(float *acc,
                                                    const PM_AB_T *As,
                                                    int a_r0, int a_c0,
                                                    const PM_AB_T *Bs, int b_r0,
                                                    int b_c0, F f) {
  static_assert(MM == 64 && MK % 16 == 0,
                "pm_sm90_mma_tile_ra: MM must be 64, MK a multiple of 16");
  const int w = pm_wg_thread() >> 5, l = pm_lane_id();
  uint32_t a[MK / 16][4];
#pragma unroll
  for (int kk = 0; kk < MK; kk += 16) {
    uint32_t *x = a[kk / 16];
    if constexpr (A_KC) {
      // lanes 0-15: rows 0-15 at k, lanes 16-31: rows 0-15 at k + 8
      const int r = a_r0 + 16 * w + (l & 15);
      const int c = a_c0 + kk + ((l >> 4) << 3);
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                   "{%0, %1, %2, %3}, [%4];\n"
                   : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3])
                   : "r"(pm_smem_addr(As + pm_smem_off<PA, SWZA, HA>(r, c))));
    } else {
      // [k][m]: matrix j = lane / 8 holds k rows 8 (j / 2) .., m columns
      // 8 (j % 2) .., transposed on the way
      const int j = l >> 3;
      const int r = a_r0 + kk + (l & 7) + ((j >> 1) << 3);
      const int c = a_c0 + 16 * w + ((j & 1) << 3);
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 "
                   "{%0, %1, %2, %3}, [%4];\n"
                   : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3])
                   : "r"(pm_smem_addr(As + pm_smem_off<PA, SWZA, HA>(r, c))));
    }
#pragma unroll
    for (int e = 0; e < 4; ++e)
      x[e] = f(x[e]);
    pm_sm90_ra_step<MN, B_NC, PB, SWZB, HB>(acc, x, Bs, b_r0, b_c0, kk);
  }
  pm_wgmma_commit();
}

// pm_sm90_mma_tile_ra with A stored in another type than the MMA's (an
// 8-bit integer R, docs/decisions/0062): the tile holds R elements as TMA
// lands them (rows of PA elements, swizzled in place, SWZA 1); each thread
// reads its fragment's elements (pairs along k: one 16-bit load where the
// tile is [m][k], two bytes where it is [k][m]), widens each exactly to
// the MMA's type and feeds the wgmma from the registers. f, where given,
// maps each element (its value in fp32, its row's values c[]) before the
// rounding: a prologue reading vectors along the rows (a zero point); g
// loads a row's values (its global row: row0 + the row in the macro
// tile), twice a call: a thread's elements lie on two rows.
struct pm_cv_none {
  __device__ __forceinline__ float operator()(float v, const float *) const {
    return v;
  }
  __device__ __forceinline__ void operator()(int, float *) const {}
};
// The most row values (schedule_tree/tree.h's PM_CONV_READS).
enum { PM_CV_READS = 4 };

// Stored i8 bytes (as unsigned, b + 256 below 0) widened without the
// conversion unit (I2F and F2F issue at a sixteenth of the FP32 rate:
// they bound the decode rows, docs/decisions/0062), exactly: b + 128 in
// a float's mantissa at 2^23, minus 2^23 + 128.
__device__ __forceinline__ float pm_s8_f32(uint32_t u) {
  return __uint_as_float(0x4B000000u | ((u ^ 0x80u) & 0xffu)) - 8388736.0f;
}
// ... two of them as a pair of the MMA's type: f16 by the same trick at
// 2^10 (1024 + b + 128 - 1152), bf16 as the floats' upper halves (b has
// at most 8 significant bits: the truncation is exact).
template <typename T>
__device__ __forceinline__ uint32_t pm_s8x2(uint32_t lo, uint32_t hi);
template <>
__device__ __forceinline__ uint32_t pm_s8x2<__half>(uint32_t lo, uint32_t hi) {
  const uint32_t w = ((lo ^ 0x80u) & 0xffu) | (((hi ^ 0x80u) & 0xffu) << 16) |
                     0x64006400u;
  const __half2 m = __halves2half2(__ushort_as_half((unsigned short)0x6480u),
                                   __ushort_as_half((unsigned short)0x6480u));
  const __half2 r = __hsub2(*reinterpret_cast<const __half2 *>(&w), m);
  return *reinterpret_cast<const uint32_t *>(&r);
}
template <>
__device__ __forceinline__ uint32_t pm_s8x2<__nv_bfloat16>(uint32_t lo,
                                                          uint32_t hi) {
  return __byte_perm(__float_as_uint(pm_s8_f32(lo)),
                     __float_as_uint(pm_s8_f32(hi)), 0x7632);
}
// Two floats rounded once each into a pair of the MMA's type (one
// instruction).
template <typename T>
__device__ __forceinline__ uint32_t pm_f32x2(float lo, float hi);
template <>
__device__ __forceinline__ uint32_t pm_f32x2<__half>(float lo, float hi) {
  const __half2 r = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const uint32_t *>(&r);
}
template <>
__device__ __forceinline__ uint32_t pm_f32x2<__nv_bfloat16>(float lo,
                                                           float hi) {
  const __nv_bfloat162 r = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t *>(&r);
}
// A pair of elements (k, k + 1) of a row of values c through f, rounded
// once; without a prologue, exact and without the conversion unit.
template <typename F>
__device__ __forceinline__ uint32_t pm_rc_pair(F f, uint32_t u0, uint32_t u1,
                                               const float *c) {
  return pm_f32x2<PM_AB_T>(f(pm_s8_f32(u0), c), f(pm_s8_f32(u1), c));
}
// (a template: files of other MMA types never instantiate it)
template <typename T = PM_AB_T>
__device__ __forceinline__ uint32_t pm_rc_pair(pm_cv_none, uint32_t u0,
                                               uint32_t u1, const float *) {
  return pm_s8x2<T>(u0, u1);
}
template <int MM, int MN, int MK, int A_KC, int PA, int SWZA, int B_NC,
          int PB, int SWZB, int HA, int HB, typename R,
          typename F = pm_cv_none, typename G = pm_cv_none>
__device__ __forceinline__ void pm_sm90_mma_tile_rc(float *acc, const R *As,
                                                    int a_r0, int a_c0,
                                                    const PM_AB_T *Bs, int b_r0,
                                                    int b_c0, int row0 = 0,
                                                    F f = F(), G g = G()) {
  static_assert(MM == 64 && MK % 16 == 0 && sizeof(R) == 1 && SWZA <= 1 &&
                    (R)(-1) < (R)0,
                "pm_sm90_mma_tile_rc: MM must be 64, MK a multiple of 16, "
                "A signed 8-bit integers, rows swizzled in place");
  const unsigned char *Au = reinterpret_cast<const unsigned char *>(As);
  const int w = pm_wg_thread() >> 5, l = pm_lane_id();
  const int m = 16 * w + (l >> 2), q = 2 * (l & 3);
  uint32_t a[MK / 16][4];
  float c[2][PM_CV_READS];
  g(row0 + m, c[0]);
  g(row0 + m + 8, c[1]);
#pragma unroll
  for (int kk = 0; kk < MK; kk += 16) {
    uint32_t *x = a[kk / 16];
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      // e: rows m (+ 8 for e odd), k pair q (+ 8 for e >= 2)
      const int mr = m + ((e & 1) << 3), kc = kk + q + ((e >> 1) << 3);
      uint32_t v0, v1;
      if constexpr (A_KC) {
        const unsigned char *p =
            Au + pm_smem_off<PA, SWZA, 0, 16>(a_r0 + mr, a_c0 + kc);
        v0 = p[0];
        v1 = p[1];
      } else {
        v0 = Au[pm_smem_off<PA, SWZA, 0, 16>(a_r0 + kc, a_c0 + mr)];
        v1 = Au[pm_smem_off<PA, SWZA, 0, 16>(a_r0 + kc + 1, a_c0 + mr)];
      }
      x[e] = pm_rc_pair(f, v0, v1, c[e & 1]);
    }
  }
  // the wgmma after every fragment
#pragma unroll
  for (int kk = 0; kk < MK; kk += 16)
    pm_sm90_ra_step<MN, B_NC, PB, SWZB, HB>(acc, a[kk / 16], Bs, b_r0, b_c0,
                                            kk);
  pm_wgmma_commit();
}

// Wait for all of this warpgroup's wgmma; the N accumulator registers at acc
// are final after it.  A no-op when none is pending.
template <int N> __device__ __forceinline__ void pm_sm90_drain(float *acc) {
  pm_wgmma_wait<0>();
  pm_wg_fence_regs<N>(acc);
}

// (row, col) inside the MM x MN tile of accumulator register r of thread t
// of the warpgroup.
template <int MM, int MN>
__device__ __forceinline__ void pm_sm90_acc_coord(int r, int t, int *m,
                                                  int *n) {
  static_assert(MM == 64 && MN % 8 == 0,
                "pm_sm90_acc_coord: MM must be 64, MN a multiple of 8");
  const int w = t >> 5, g = (t & 31) >> 2, q = t & 3;
  *m = 16 * w + g + (((r >> 1) & 1) << 3);
  *n = 8 * (r >> 2) + 2 * q + (r & 1);
}

template <int MM, int MN> struct pm_sm90_acc {
  static __device__ __forceinline__ void coord(int r, int t, int *m, int *n) {
    pm_sm90_acc_coord<MM, MN>(r, t, m, n);
  }
};

// Store the warpgroup's MM x MN tile: element (m, n) -> c[m*c_sm + n*c_sn],
// those at m < rows, n < cols (pm_store_acc, common.cuh: pair stores with
// c_sn == 1).
template <int MM, int MN, typename T>
__device__ __forceinline__ void pm_sm90_store(const float *acc, T *c,
                                              long long c_sm, long long c_sn,
                                              long long rows = 1LL << 40,
                                              long long cols = 1LL << 40) {
  pm_store_acc<MM * MN / 128, pm_sm90_acc<MM, MN>>(acc, pm_wg_thread(), c,
                                                   c_sm, c_sn, rows, cols);
}

// pm_sm90_store for the _unaligned row (docs/decisions/0046-narrow-copies.md):
// pairs only where whole and aligned (pm_store_acc_n, common.cuh).
template <int MM, int MN, typename T>
__device__ __forceinline__ void pm_sm90_store_n(const float *acc, T *c,
                                                long long c_sm, long long c_sn,
                                                long long rows = 1LL << 40,
                                                long long cols = 1LL << 40) {
  (void)c_sn;
  pm_store_acc_n<MM * MN / 128, pm_sm90_acc<MM, MN>>(acc, pm_wg_thread(), c, c_sm, rows,
                                                   cols);
}

// ---------------------------------------------------------------------------
// TMA copies and mbarriers (the --copy tma pipeline, promote/ and emit/).
//
// One thread issues a k tile's copies: pm_mbar_arrive_tx arms the stage's
// "full" barrier with the tile's bytes (all operands of the contraction),
// each pm_tma_load_2d box completes its bytes on it, and every thread of the
// block waits for the phase with pm_mbar_wait(bar, (kt / S) & 1).  The
// barriers live in dynamic shared memory (8 bytes each, after the tiles),
// initialised with a count of 1 by pm_mbar_init before the first barrier.
// The boxes land in the layouts of pm_smem_off: a box of R rows x W halves
// (W * 2 bytes = the swizzle span, 32, 64 or 128) with the matching
// CU_TENSOR_MAP_SWIZZLE_* is exactly SWZ = 1 with P = W, and SWZ = 2 tiles
// are one 64-wide box per column block.  Out-of-bounds boxes read zeros.
// ---------------------------------------------------------------------------
__device__ __forceinline__ void pm_mbar_init(uint64_t *bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(
                   pm_smem_addr(bar)),
               "r"(count)
               : "memory");
}

// After the initialisations, before the barrier that publishes them.
__device__ __forceinline__ void pm_mbar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

__device__ __forceinline__ void pm_mbar_arrive_tx(uint64_t *bar,
                                                  unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(
                   pm_smem_addr(bar)),
               "r"(bytes)
               : "memory");
}

// One arrival on bar (no transaction bytes).
__device__ __forceinline__ void pm_mbar_arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(
                   pm_smem_addr(bar))
               : "memory");
}

// Wait until the phase of parity `parity` of bar has completed.
__device__ __forceinline__ void pm_mbar_wait(uint64_t *bar, unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(pm_smem_addr(bar)), "r"(parity)
                 : "memory");
  } while (!done);
}

// Programmatic dependent launch (--pdl, docs/decisions/0068-pdl.md): the
// first statement of every kernel; it returns once the stream's previous
// grid has completed and its memory is visible (at once where the launch
// did not ask for a programmatic dependency). No kernel signals early
// (griddepcontrol.launch_dependents): the next grid starts as this one's
// blocks exit.
__device__ __forceinline__ void pm_pdl_wait() {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
}

// The tensor map's descriptor fetched ahead of the block's first copy (at
// the kernel's start, beside the barriers' initialisation).
__device__ __forceinline__ void pm_tma_prefetch(const CUtensorMap *map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"((uint64_t)map) : "memory");
}

// The box of map at (x = column, y = row) into dst, completing its bytes on
// bar.
__device__ __forceinline__ void pm_tma_load_2d(void *dst, const CUtensorMap *map,
                                               uint64_t *bar, int x, int y) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
               ".mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];\n" ::"r"(
                   pm_smem_addr(dst)),
               "l"((uint64_t)map), "r"(pm_smem_addr(bar)), "r"(x), "r"(y)
               : "memory");
}

// The registers of this warpgroup's threads, down to N (a producer that
// gives them away) or up to N: the roles of a persistent kernel with a
// producer warpgroup (emit/persist.c), each one branch of one if/else.
template <int N> __device__ __forceinline__ void pm_setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(N));
}
template <int N> __device__ __forceinline__ void pm_setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(N));
}

// ---------------------------------------------------------------------------
// Clusters of two blocks (the persistent kernels' --cluster 2, emit/): the
// blocks of a cluster run vertically adjacent output tiles, and each copies
// half of the shared B tile into both blocks' shared memory by multicast.
// A stage is free for a copy when both blocks' consumer warps released it:
// each warp arrives on its own block's "empty" barrier and on the other's.
// ---------------------------------------------------------------------------
// This block's rank in its cluster.
__device__ __forceinline__ unsigned pm_cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}

// Every thread of both blocks: the barriers' initialisation published
// before the first copy (start), no block gone while the other may still
// copy into its shared memory or arrive on its barriers (end).
__device__ __forceinline__ void pm_cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

// Every thread of the cluster, no memory ordering: no block leaves before
// the others got here (the end of a kernel split in clusters, emit/).
__device__ __forceinline__ void pm_cluster_sync_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n"
               "barrier.cluster.wait.aligned;\n" ::: "memory");
}

// One arrival on the barrier at bar's offset in block `rank` of the cluster
// (the default .release.cta: the stage's reads, by wgmma, are complete; a
// .release.cluster arrival measured 2.5x slower kernels,
// docs/decisions/0017-multicast-off-by-default.md).
__device__ __forceinline__ void pm_mbar_arrive_peer(uint64_t *bar,
                                                    unsigned rank) {
  unsigned a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(a)
               : "r"(pm_smem_addr(bar)), "r"(rank));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(a)
               : "memory");
}

// pm_tma_load_2d into dst of every block of the cluster in mask, each
// completing the box's bytes on its own barrier at bar's offset.
__device__ __forceinline__ void pm_tma_load_2d_mc(void *dst,
                                                  const CUtensorMap *map,
                                                  uint64_t *bar, int x, int y,
                                                  unsigned short mask) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile"
               ".mbarrier::complete_tx::bytes.multicast::cluster"
               " [%0], [%1, {%3, %4}], [%2], %5;\n" ::"r"(pm_smem_addr(dst)),
               "l"((uint64_t)map), "r"(pm_smem_addr(bar)), "r"(x), "r"(y),
               "h"(mask)
               : "memory");
}

#endif // POLYMMA_TARGETS_SM90_CUH

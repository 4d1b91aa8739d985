// polymma target helpers: "sm70" (Volta-style) warp macro-MMAs built from
//   mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32  (f16 only: sm_70's
//   operand table has one row, so PM_AB_T is __half here)
// (the approach of "Automatic Kernel Generation for Volta Tensor Cores").
//
// Embedded verbatim into generated kernels AFTER common.cuh (uses
// pm_from_f32, pm_lane_id, pm_pack2 from there).  Header-only.
//
// Fragment layouts (PTX ISA, section "Matrix Fragments for mma.m8n8k4 with
// .f16 floating point type", 9.7.14.5.1 in current numbering):
//   One m8n8k4 instruction = 4 independent 8x8x4 MMAs, one per quad-pair:
//     quad-pair q (0..3) = lanes 4q..4q+3 ("low group") and 16+4q..16+4q+3
//     ("high group"), i.e. q = (lane >> 2) & 3.
//   Within a quad-pair let t = lane % 4, hi = (lane >= 16).
//   A (.row, 8x4): a0..a3 -> row = t + 4*hi, col(k) = i.
//   B (.col, 4x8): b0..b3 -> row(k) = i,     col     = t + 4*hi.
//   C/D (.f32, 8x8): c0..c7 ->
//     row = (t % 2) + (i & 2) + 4*hi
//     col = (i & 4) + (t & 2) + (i & 1)
//   (identical to CUTLASS/CuTe SM70_8x4_Row and SM70_8x8_32b with the
//    SM70_QuadPair thread map.)
//
// Macro tile mapping chosen here (MM, MN multiples of 16, MK multiple of 4):
//   The warp's MMxMN tile is split 2x2 into quad-pair tiles of size
//   (MM/2)x(MN/2); quad-pair q owns rows  qm*(MM/2) .. and cols qn*(MN/2) ..
//   with qm = q >> 1, qn = q & 1.  Each quad-pair tile is covered by
//   (MM/16)x(MN/16) 8x8 sub-tiles (sm, sn); per 4-deep k-step one mma.sync per
//   sub-tile (all four quad-pairs work on their own sub-tile (sm, sn)).
//   acc register r: sub-tile s = r / 8 (sm = s / (MN/16), sn = s % (MN/16)),
//   element i = r % 8 of that sub-tile's .f32 C fragment.
//   16x16x8: 2 mma.sync, 8 floats/thread; 32x32x8: 8 mma.sync, 32 floats.
#ifndef POLYMMA_TARGETS_SM70_CUH
#define POLYMMA_TARGETS_SM70_CUH

#include <cuda_fp16.h>
#include <stdint.h>

#ifndef POLYMMA_TARGETS_COMMON_CUH
#error "polymma: runtime/device/common.cuh must be included before sm70.cuh"
#endif

// One m8n8k4 instruction, .row.col, f32 accumulate in place (d == c).
__device__ __forceinline__ void pm_sm70_mma_m8n8k4(float *c, uint32_t a0,
                                                   uint32_t a1, uint32_t b0,
                                                   uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m8n8k4.row.col.f32." PM_AB_PTX "." PM_AB_PTX ".f32 "
      "{%0, %1, %2, %3, %4, %5, %6, %7}, "
      "{%8, %9}, {%10, %11}, "
      "{%0, %1, %2, %3, %4, %5, %6, %7};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]),
        "+f"(c[5]), "+f"(c[6]), "+f"(c[7])
      : "r"(a0), "r"(a1), "r"(b0), "r"(b1));
}

// acc (MM*MN/32 floats per thread) += A(MMxMK) * B(MKxN)
//   A(m,k) = a[m*a_sm + k*a_sk], B(k,n) = b[k*b_sk + n*b_sn]  (shared memory)
template <int MM, int MN, int MK>
__device__ __forceinline__ void pm_sm70_mma(float *acc, const PM_AB_T *a,
                                            int a_sm, int a_sk,
                                            const PM_AB_T *b, int b_sk,
                                            int b_sn) {
  static_assert(MM % 16 == 0 && MN % 16 == 0 && MK % 4 == 0,
                "pm_sm70_mma: MM, MN must be multiples of 16, MK of 4");
  constexpr int TM = MM / 2, TN = MN / 2;  // quad-pair tile
  constexpr int SM = TM / 8, SN = TN / 8;  // 8x8 sub-tiles per quad-pair
  const int lane = pm_lane_id();
  const int qp = (lane >> 2) & 3;
  const int qm = qp >> 1, qn = qp & 1;
  // row of A (= col of B) held by this lane inside an 8x8x4 MMA
  const int r8 = (lane & 3) | ((lane >> 2) & 4);
  const PM_AB_T *ap = a + (qm * TM + r8) * a_sm;
  const PM_AB_T *bp = b + (qn * TN + r8) * b_sn;
#pragma unroll
  for (int kk = 0; kk < MK; kk += 4) {
    uint32_t af[SM][2];
    uint32_t bf[SN][2];
#pragma unroll
    for (int sm = 0; sm < SM; ++sm) {
      const PM_AB_T *p = ap + (sm * 8) * a_sm + kk * a_sk;
      af[sm][0] = pm_pack2(p[0], p[a_sk]);
      af[sm][1] = pm_pack2(p[2 * a_sk], p[3 * a_sk]);
    }
#pragma unroll
    for (int sn = 0; sn < SN; ++sn) {
      const PM_AB_T *p = bp + (sn * 8) * b_sn + kk * b_sk;
      bf[sn][0] = pm_pack2(p[0], p[b_sk]);
      bf[sn][1] = pm_pack2(p[2 * b_sk], p[3 * b_sk]);
    }
#pragma unroll
    for (int sm = 0; sm < SM; ++sm)
#pragma unroll
      for (int sn = 0; sn < SN; ++sn)
        pm_sm70_mma_m8n8k4(acc + (sm * SN + sn) * 8, af[sm][0], af[sm][1],
                           bf[sn][0], bf[sn][1]);
  }
}

// (row, col) inside the MMxMN tile of accumulator register r of lane `lane`.
template <int MM, int MN>
__device__ __forceinline__ void pm_sm70_acc_coord(int r, int lane, int *m,
                                                  int *n) {
  static_assert(MM % 16 == 0 && MN % 16 == 0,
                "pm_sm70_acc_coord: MM, MN must be multiples of 16");
  constexpr int TM = MM / 2, TN = MN / 2;
  constexpr int SN = TN / 8;
  const int qp = (lane >> 2) & 3;
  const int qm = qp >> 1, qn = qp & 1;
  const int i = r & 7;
  const int s = r >> 3;
  const int sm = s / SN, sn = s % SN;
  *m = qm * TM + sm * 8 + (lane & 1) + (i & 2) + ((lane >> 2) & 4);
  *n = qn * TN + sn * 8 + (i & 1) + (lane & 2) + (i & 4);
}

// Store the warp's MMxMN tile: element (m,n) -> c[m*c_sm + n*c_sn].
template <int MM, int MN, typename T>
__device__ __forceinline__ void pm_sm70_store(const float *acc, T *c,
                                              long long c_sm, long long c_sn,
                                              long long rows = 1LL << 40,
                                              long long cols = 1LL << 40) {
  constexpr int R = MM * MN / 32;
  const int lane = pm_lane_id();
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int m, n;
    pm_sm70_acc_coord<MM, MN>(r, lane, &m, &n);
    if (m >= rows || n >= cols)
      continue;
    c[(long long)m * c_sm + (long long)n * c_sn] = pm_from_f32<T>(acc[r]);
  }
}

// pm_sm70_store for the _unaligned row: its stores are of one element
// already (docs/decisions/0046-narrow-copies.md).
template <int MM, int MN, typename T>
__device__ __forceinline__ void pm_sm70_store_n(const float *acc, T *c,
                                                long long c_sm, long long c_sn,
                                                long long rows = 1LL << 40,
                                                long long cols = 1LL << 40) {
  pm_sm70_store<MM, MN>(acc, c, c_sm, c_sn, rows, cols);
}

// acc (MM*MN/32 floats per thread, same distribution as pm_sm70_mma<MM,MN,MK>)
//   += A(MMxMK) * B(MKxMN), operands in shared tiles addressed through
//   pm_smem_off (common.cuh), same interface as pm_sm80_mma_tile (sm80.cuh):
//   A(m,k) = As[pm_smem_off<PA,SWZA>(a_r0 + m, a_c0 + k)]   A_KC = 1 ([m][k])
//          = As[pm_smem_off<PA,SWZA>(a_r0 + k, a_c0 + m)]   A_KC = 0 ([k][m])
//   B(k,n) = Bs[pm_smem_off<PB,SWZB>(b_r0 + k, b_c0 + n)]   B_NC = 1 ([k][n])
//          = Bs[pm_smem_off<PB,SWZB>(b_r0 + n, b_c0 + k)]   B_NC = 0 ([n][k])
// Requirements: As, Bs 16-byte aligned pointers into shared memory; column
// origins a_c0, b_c0 multiples of 8 (multiples of 4 suffice here); rows
// arbitrary.  When k is the contiguous dimension (A_KC = 1, B_NC = 0) a
// lane's 4 k-values are one aligned 8-byte load (the 4 halves at k..k+3,
// k % 4 == 0, stay contiguous under the 16-byte-chunk swizzle); otherwise 4
// scalar loads.
template <int MM, int MN, int MK, int A_KC, int PA, int SWZA, int B_NC,
          int PB, int SWZB>
__device__ __forceinline__ void pm_sm70_mma_tile(float *acc, const PM_AB_T *As,
                                                 int a_r0, int a_c0,
                                                 const PM_AB_T *Bs, int b_r0,
                                                 int b_c0) {
  static_assert(MM % 16 == 0 && MN % 16 == 0 && MK % 4 == 0,
                "pm_sm70_mma_tile: MM, MN must be multiples of 16, MK of 4");
  static_assert((A_KC == 0 || A_KC == 1) && (B_NC == 0 || B_NC == 1),
                "pm_sm70_mma_tile: A_KC and B_NC must be 0 or 1");
  constexpr int TM = MM / 2, TN = MN / 2;  // quad-pair tile
  constexpr int SM = TM / 8, SN = TN / 8;  // 8x8 sub-tiles per quad-pair
  const int lane = pm_lane_id();
  const int qp = (lane >> 2) & 3;
  const int qm = qp >> 1, qn = qp & 1;
  // row of A (= col of B) held by this lane inside an 8x8x4 MMA
  const int r8 = (lane & 3) | ((lane >> 2) & 4);
  const int am0 = qm * TM + r8, bn0 = qn * TN + r8;
#pragma unroll
  for (int kk = 0; kk < MK; kk += 4) {
    uint32_t af[SM][2];
    uint32_t bf[SN][2];
#pragma unroll
    for (int sm = 0; sm < SM; ++sm) {
      const int m = am0 + sm * 8;
      if (A_KC) {
        const uint2 v = *reinterpret_cast<const uint2 *>(
            As + pm_smem_off<PA, SWZA>(a_r0 + m, a_c0 + kk));
        af[sm][0] = v.x;
        af[sm][1] = v.y;
      } else {
        af[sm][0] =
            pm_pack2(As[pm_smem_off<PA, SWZA>(a_r0 + kk, a_c0 + m)],
                          As[pm_smem_off<PA, SWZA>(a_r0 + kk + 1, a_c0 + m)]);
        af[sm][1] =
            pm_pack2(As[pm_smem_off<PA, SWZA>(a_r0 + kk + 2, a_c0 + m)],
                          As[pm_smem_off<PA, SWZA>(a_r0 + kk + 3, a_c0 + m)]);
      }
    }
#pragma unroll
    for (int sn = 0; sn < SN; ++sn) {
      const int n = bn0 + sn * 8;
      if (!B_NC) {
        const uint2 v = *reinterpret_cast<const uint2 *>(
            Bs + pm_smem_off<PB, SWZB>(b_r0 + n, b_c0 + kk));
        bf[sn][0] = v.x;
        bf[sn][1] = v.y;
      } else {
        bf[sn][0] =
            pm_pack2(Bs[pm_smem_off<PB, SWZB>(b_r0 + kk, b_c0 + n)],
                          Bs[pm_smem_off<PB, SWZB>(b_r0 + kk + 1, b_c0 + n)]);
        bf[sn][1] =
            pm_pack2(Bs[pm_smem_off<PB, SWZB>(b_r0 + kk + 2, b_c0 + n)],
                          Bs[pm_smem_off<PB, SWZB>(b_r0 + kk + 3, b_c0 + n)]);
      }
    }
#pragma unroll
    for (int sm = 0; sm < SM; ++sm)
#pragma unroll
      for (int sn = 0; sn < SN; ++sn)
        pm_sm70_mma_m8n8k4(acc + (sm * SN + sn) * 8, af[sm][0], af[sm][1],
                           bf[sn][0], bf[sn][1]);
  }
}

#endif // POLYMMA_TARGETS_SM70_CUH

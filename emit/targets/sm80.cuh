// polymma target helpers: "sm80" (Ampere/Hopper mma.sync) warp macro-MMAs
// built from
//   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
//
// Embedded verbatim into generated kernels AFTER common.cuh (uses
// pm_from_f32, pm_lane_id, pm_pack_half2 from there).  Header-only.
//
// Fragment layouts (PTX ISA, section "Matrix Fragments for mma.m16n8k16 with
// floating point type", 9.7.14.5.8 in current numbering):
//   g = lane >> 2 (groupID), t = lane % 4 (threadID_in_group)
//   A (16x16, .row), a0..a7 in 4 .f16x2 regs:
//     row = g      for a0,a1,a4,a5;  g + 8 for a2,a3,a6,a7
//     col = 2t + (i & 1) for i < 4;  2t + (i & 1) + 8 for i >= 4
//   B (16x8, .col), b0..b3 in 2 .f16x2 regs:
//     row(k) = 2t + (i & 1) for i < 2;  2t + (i & 1) + 8 for i >= 2
//     col    = g
//   C/D (16x8, .f32), c0..c3:
//     row = g for c0,c1;  g + 8 for c2,c3
//     col = 2t + (i & 1)
//
// Macro tile mapping (MM multiple of 16, MN of 8, MK of 16):
//   the whole warp computes every 16x8 instruction tile (im, in),
//   im < MM/16, in < MN/8.  acc register r: tile s = r / 4
//   (im = s / (MN/8), in = s % (MN/8)), element i = r % 4 of its C fragment.
//   Per 16-deep k-step each A fragment (im) is loaded once and reused for all
//   in, each B fragment (in) once and reused for all im.
#ifndef POLYMMA_TARGETS_SM80_CUH
#define POLYMMA_TARGETS_SM80_CUH

#include <cuda_fp16.h>
#include <stdint.h>

#ifndef POLYMMA_TARGETS_COMMON_CUH
#error "polymma: emit/targets/common.cuh must be included before sm80.cuh"
#endif

// One m16n8k16 instruction, .row.col, f32 accumulate in place (d == c).
__device__ __forceinline__ void pm_sm80_mma_m16n8k16(float *c,
                                                     const uint32_t *a,
                                                     const uint32_t *b) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// acc (MM*MN/32 floats per thread) += A(MMxMK) * B(MKxMN)
//   A(m,k) = a[m*a_sm + k*a_sk], B(k,n) = b[k*b_sk + n*b_sn]  (shared memory)
template <int MM, int MN, int MK>
__device__ __forceinline__ void pm_sm80_mma(float *acc, const __half *a,
                                            int a_sm, int a_sk,
                                            const __half *b, int b_sk,
                                            int b_sn) {
  static_assert(MM % 16 == 0 && MN % 8 == 0 && MK % 16 == 0,
                "pm_sm80_mma: MM must be a multiple of 16, MN of 8, MK of 16");
  constexpr int IM = MM / 16, IN = MN / 8;
  const int lane = pm_lane_id();
  const int g = lane >> 2, t = lane & 3;
  // this lane's A rows g / g+8 at k = 2t; B column g at k = 2t
  const __half *ap0 = a + g * a_sm + (2 * t) * a_sk;
  const __half *ap1 = ap0 + 8 * a_sm;
  const __half *bp = b + g * b_sn + (2 * t) * b_sk;
#pragma unroll
  for (int kk = 0; kk < MK; kk += 16) {
    uint32_t af[IM][4];
    uint32_t bf[IN][2];
#pragma unroll
    for (int im = 0; im < IM; ++im) {
      const __half *p0 = ap0 + (im * 16) * a_sm + kk * a_sk;
      const __half *p1 = ap1 + (im * 16) * a_sm + kk * a_sk;
      af[im][0] = pm_pack_half2(p0[0], p0[a_sk]);                  // a0,a1
      af[im][1] = pm_pack_half2(p1[0], p1[a_sk]);                  // a2,a3
      af[im][2] = pm_pack_half2(p0[8 * a_sk], p0[9 * a_sk]);       // a4,a5
      af[im][3] = pm_pack_half2(p1[8 * a_sk], p1[9 * a_sk]);       // a6,a7
    }
#pragma unroll
    for (int in = 0; in < IN; ++in) {
      const __half *p = bp + (in * 8) * b_sn + kk * b_sk;
      bf[in][0] = pm_pack_half2(p[0], p[b_sk]);                    // b0,b1
      bf[in][1] = pm_pack_half2(p[8 * b_sk], p[9 * b_sk]);         // b2,b3
    }
#pragma unroll
    for (int im = 0; im < IM; ++im)
#pragma unroll
      for (int in = 0; in < IN; ++in)
        pm_sm80_mma_m16n8k16(acc + (im * IN + in) * 4, af[im], bf[in]);
  }
}

// (row, col) inside the MMxMN tile of accumulator register r of lane `lane`.
template <int MM, int MN>
__device__ __forceinline__ void pm_sm80_acc_coord(int r, int lane, int *m,
                                                  int *n) {
  static_assert(MM % 16 == 0 && MN % 8 == 0,
                "pm_sm80_acc_coord: MM must be a multiple of 16, MN of 8");
  constexpr int IN = MN / 8;
  const int g = lane >> 2, t = lane & 3;
  const int i = r & 3;
  const int s = r >> 2;
  const int im = s / IN, in = s % IN;
  *m = im * 16 + g + ((i >> 1) << 3);
  *n = in * 8 + 2 * t + (i & 1);
}

// Store the warp's MMxMN tile: element (m,n) -> c[m*c_sm + n*c_sn].
template <int MM, int MN, typename T>
__device__ __forceinline__ void pm_sm80_store(const float *acc, T *c,
                                              long long c_sm, long long c_sn) {
  constexpr int R = MM * MN / 32;
  const int lane = pm_lane_id();
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int m, n;
    pm_sm80_acc_coord<MM, MN>(r, lane, &m, &n);
    c[(long long)m * c_sm + (long long)n * c_sn] = pm_from_f32<T>(acc[r]);
  }
}

#endif // POLYMMA_TARGETS_SM80_CUH

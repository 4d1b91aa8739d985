// polymma target helpers: "sm80" (Ampere/Hopper mma.sync) warp macro-MMAs
// built from
//   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32  (or .bf16.bf16: the
//   operand type PM_AB_T / PM_AB_PTX, common.cuh)
//   mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32    (i8: PM_AB_K 32, the
//   s32 accumulators' bits in the float registers, PM_ACC_OUT)
//
// Embedded verbatim into generated kernels AFTER common.cuh (uses
// pm_from_f32, pm_lane_id, pm_pack2, PM_AB_T from there).  Header-only.
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
// m16n8k32 with .s8 (PTX ISA, "Matrix Fragments for mma.m16n8k32"): the same
// registers over bytes.  A reg q holds 4 bytes k = 4t..4t+3 (+16 for q >= 2)
// of row g (+8 for odd q); B reg q the bytes k = 4t..4t+3 (+16 for q = 1) of
// column g; C/D as above, s32.  In bytes of a K-major row that is exactly the
// f16 layout (2t halves = 4t bytes), so the ldmatrix loads below are the
// 16-bit ones with k counted in 16-byte chunks of PM_SM80_E elements; only
// K-major tiles (A [m][k], B [n][k]): ldmatrix .trans moves 16-bit units.
//
// Macro tile mapping (MM multiple of 16, MN of 8, MK of PM_AB_K):
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
#error "polymma: runtime/device/common.cuh must be included before sm80.cuh"
#endif

// The elements of one 16-byte chunk (an ldmatrix row): 8, or 16 of i8.
#define PM_SM80_E ((int)(16 / sizeof(PM_AB_T)))

// One m16n8k16 (m16n8k32: i8) instruction, .row.col, accumulating in place
// (d == c): f32, or s32 in the float registers' bits.
__device__ __forceinline__ void pm_sm80_mma_m16n8k16(float *c,
                                                     const uint32_t *a,
                                                     const uint32_t *b) {
  asm volatile(
      "mma.sync.aligned.m16n8k" PM_AB_KS ".row.col." PM_ACC_PTX "." PM_AB_PTX
      "." PM_AB_PTX "." PM_ACC_PTX " "
      "{%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : PM_ACC_OUT(c[0]), PM_ACC_OUT(c[1]), PM_ACC_OUT(c[2]),
        PM_ACC_OUT(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// acc (MM*MN/32 floats per thread) += A(MMxMK) * B(MKxMN)
//   A(m,k) = a[m*a_sm + k*a_sk], B(k,n) = b[k*b_sk + n*b_sn]  (shared memory)
// 16-bit operands only (tests/gpu; kernels use the tile helpers below).
template <int MM, int MN, int MK>
__device__ __forceinline__ void pm_sm80_mma(float *acc, const PM_AB_T *a,
                                            int a_sm, int a_sk,
                                            const PM_AB_T *b, int b_sk,
                                            int b_sn) {
  static_assert(MM % 16 == 0 && MN % 8 == 0 && MK % 16 == 0,
                "pm_sm80_mma: MM must be a multiple of 16, MN of 8, MK of 16");
  static_assert(sizeof(PM_AB_T) == 2 || MK < 0,
                "pm_sm80_mma: 16-bit operands (pm_pack2)");
  constexpr int IM = MM / 16, IN = MN / 8;
  const int lane = pm_lane_id();
  const int g = lane >> 2, t = lane & 3;
  // this lane's A rows g / g+8 at k = 2t; B column g at k = 2t
  const PM_AB_T *ap0 = a + g * a_sm + (2 * t) * a_sk;
  const PM_AB_T *ap1 = ap0 + 8 * a_sm;
  const PM_AB_T *bp = b + g * b_sn + (2 * t) * b_sk;
#pragma unroll
  for (int kk = 0; kk < MK; kk += 16) {
    uint32_t af[IM][4];
    uint32_t bf[IN][2];
#pragma unroll
    for (int im = 0; im < IM; ++im) {
      const PM_AB_T *p0 = ap0 + (im * 16) * a_sm + kk * a_sk;
      const PM_AB_T *p1 = ap1 + (im * 16) * a_sm + kk * a_sk;
      af[im][0] = pm_pack2(p0[0], p0[a_sk]);                  // a0,a1
      af[im][1] = pm_pack2(p1[0], p1[a_sk]);                  // a2,a3
      af[im][2] = pm_pack2(p0[8 * a_sk], p0[9 * a_sk]);       // a4,a5
      af[im][3] = pm_pack2(p1[8 * a_sk], p1[9 * a_sk]);       // a6,a7
    }
#pragma unroll
    for (int in = 0; in < IN; ++in) {
      const PM_AB_T *p = bp + (in * 8) * b_sn + kk * b_sk;
      bf[in][0] = pm_pack2(p[0], p[b_sk]);                    // b0,b1
      bf[in][1] = pm_pack2(p[8 * b_sk], p[9 * b_sk]);         // b2,b3
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

template <int MM, int MN> struct pm_sm80_acc {
  static __device__ __forceinline__ void coord(int r, int t, int *m, int *n) {
    pm_sm80_acc_coord<MM, MN>(r, t, m, n);
  }
};

// Store the warp's MMxMN tile: element (m,n) -> c[m*c_sm + n*c_sn], those
// at m < rows, n < cols (pm_store_acc, common.cuh: pair stores with c_sn == 1).
template <int MM, int MN, typename T>
__device__ __forceinline__ void pm_sm80_store(const float *acc, T *c,
                                              long long c_sm, long long c_sn,
                                              long long rows = 1LL << 40,
                                              long long cols = 1LL << 40) {
  pm_store_acc<MM * MN / 32, pm_sm80_acc<MM, MN>>(acc, pm_lane_id(), c,
                                                   c_sm, c_sn, rows, cols);
}

// pm_sm80_store for the _unaligned row (docs/decisions/0046-narrow-copies.md):
// pairs only where whole and aligned (pm_store_acc_n, common.cuh).
template <int MM, int MN, typename T>
__device__ __forceinline__ void pm_sm80_store_n(const float *acc, T *c,
                                                long long c_sm, long long c_sn,
                                                long long rows = 1LL << 40,
                                                long long cols = 1LL << 40) {
  (void)c_sn;
  pm_store_acc_n<MM * MN / 32, pm_sm80_acc<MM, MN>>(acc, pm_lane_id(), c, c_sm, rows,
                                                   cols);
}

// ---------------------------------------------------------------------------
// Tile-aware macro-MMA: operands read from shared tiles addressed through
// pm_smem_off (common.cuh), fragments loaded with ldmatrix.
// ---------------------------------------------------------------------------

// ldmatrix .m8n8 .b16, 4 or 2 matrices, optionally .trans.  addr: 32-bit
// shared address of this lane's matrix row (lanes 8j..8j+7 give the 8 rows of
// matrix j; for .x2 only lanes 0..15 are read).  Without .trans lane l gets
// d[j] = matrix j (row l/4, cols 2(l%4), 2(l%4)+1); with .trans
// d[j] = matrix j (rows 2(l%4), 2(l%4)+1, col l/4).
template <int TRANS>
__device__ __forceinline__ void pm_ldsm_x4(uint32_t *d, unsigned addr) {
  if (TRANS)
    asm volatile(
        "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, "
        "[%4];\n"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(addr));
  else
    asm volatile(
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
        : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
        : "r"(addr));
}

template <int TRANS>
__device__ __forceinline__ void pm_ldsm_x2(uint32_t *d, unsigned addr) {
  if (TRANS)
    asm volatile(
        "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
        : "=r"(d[0]), "=r"(d[1])
        : "r"(addr));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(addr));
}

// One PM_AB_K-deep k-step (32 bytes of k) of a warp tile's fragments: A
// fragments of the IM = WM/16 m16 tiles into fa[0..IM), B fragments of the
// IN = WN/8 n8 tiles into fb[0..IN), for the tile whose (m, k) / (k, n)
// origin is
//   A: (a_r0, a_c0) in A_KC = 1 order ([m][k]), (k, m) rows/cols otherwise
//   B: (b_r0, b_c0) in B_NC = 1 order ([k][n]), (n, k) rows/cols otherwise
// (the same convention as pm_sm80_mma_tile; i8: A_KC = 1 and B_NC = 0).
template <int WM, int WN, int A_KC, int PA, int SWZA, int B_NC, int PB,
          int SWZB>
__device__ __forceinline__ void pm_sm80_ldf(uint32_t (*fa)[4],
                                            uint32_t (*fb)[2],
                                            const PM_AB_T *As, int a_r0,
                                            int a_c0, const PM_AB_T *Bs,
                                            int b_r0, int b_c0) {
  static_assert(WM % 16 == 0 && WN % 8 == 0,
                "pm_sm80_ldf: WM must be a multiple of 16, WN of 8");
  static_assert((A_KC == 0 || A_KC == 1) && (B_NC == 0 || B_NC == 1),
                "pm_sm80_ldf: A_KC and B_NC must be 0 or 1");
  static_assert(PM_SM80_E == 8 || (A_KC == 1 && B_NC == 0),
                "pm_sm80_ldf: 8-bit operands are read K-major only");
  constexpr int IM = WM / 16, IN = WN / 8, E = PM_SM80_E;
  constexpr unsigned EB = (unsigned)sizeof(PM_AB_T);
  const int lane = pm_lane_id();
  const int li = lane & 7;        // row inside the 8x8 matrix
  const int j0 = (lane >> 3) & 1; // matrix index bit 0
  const int j1 = lane >> 4;       // matrix index bit 1
  const unsigned a_base = pm_smem_addr(As);
  const unsigned b_base = pm_smem_addr(Bs);
  // this lane's (m, k) / (n, k) offsets inside a 16 x 32-byte A / B block
  // (k in elements: a 16-byte chunk is E of them)
  const int a_m = 8 * j0 + (A_KC ? li : 0), a_k = E * j1 + (A_KC ? 0 : li);
  const int b_n = 8 * j1 + (B_NC ? 0 : li), b_k = E * j0 + (B_NC ? li : 0);
  // .x2 (lanes 0..15 only): matrix j = j0 -> (n, k + E*j0)
  const int b2_n = B_NC ? 0 : li, b2_k = E * j0 + (B_NC ? li : 0);
#pragma unroll
  for (int im = 0; im < IM; ++im) {
    const int m = im * 16 + a_m;
    const int off =
        A_KC ? pm_smem_off<PA, SWZA, 0, E>(a_r0 + m, a_c0 + a_k)
             : pm_smem_off<PA, SWZA, 0, E>(a_r0 + a_k, a_c0 + m);
    pm_ldsm_x4<A_KC ? 0 : 1>(fa[im], a_base + EB * (unsigned)off);
  }
#pragma unroll
  for (int in = 0; in + 1 < IN; in += 2) {
    const int n = in * 8 + b_n;
    const int off =
        B_NC ? pm_smem_off<PB, SWZB, 0, E>(b_r0 + b_k, b_c0 + n)
             : pm_smem_off<PB, SWZB, 0, E>(b_r0 + n, b_c0 + b_k);
    uint32_t d[4];
    pm_ldsm_x4<B_NC ? 1 : 0>(d, b_base + EB * (unsigned)off);
    fb[in][0] = d[0];
    fb[in][1] = d[1];
    fb[in + 1][0] = d[2];
    fb[in + 1][1] = d[3];
  }
  if (IN % 2) {
    const int n = (IN - 1) * 8 + b2_n;
    const int off =
        B_NC ? pm_smem_off<PB, SWZB, 0, E>(b_r0 + b2_k, b_c0 + n)
             : pm_smem_off<PB, SWZB, 0, E>(b_r0 + n, b_c0 + b2_k);
    pm_ldsm_x2<B_NC ? 1 : 0>(fb[IN - 1], b_base + EB * (unsigned)off);
  }
}

// acc (an MMxMN macro tile, pm_sm80_mma's distribution) += the product of
// the fragments loaded by pm_sm80_ldf: A tiles fa[im0 .. im0 + MM/16),
// B tiles fb[in0 .. in0 + MN/8).  im0 and in0 must be compile-time
// constants after inlining (the arrays stay in registers).
template <int MM, int MN>
__device__ __forceinline__ void pm_sm80_mma_frag(float *acc,
                                                 const uint32_t (*fa)[4],
                                                 const uint32_t (*fb)[2],
                                                 int im0, int in0) {
  static_assert(MM % 16 == 0 && MN % 8 == 0,
                "pm_sm80_mma_frag: MM must be a multiple of 16, MN of 8");
  constexpr int IM = MM / 16, IN = MN / 8;
  // serpentine over n so that consecutive MMAs share a B fragment
#pragma unroll
  for (int im = 0; im < IM; ++im)
#pragma unroll
    for (int jn = 0; jn < IN; ++jn) {
      const int in = (im & 1) ? IN - 1 - jn : jn;
      pm_sm80_mma_m16n8k16(acc + (im * IN + in) * 4, fa[im0 + im],
                           fb[in0 + in]);
    }
}

// acc (MM*MN/32 floats per thread, same distribution as pm_sm80_mma<MM,MN,MK>)
//   += A(MMxMK) * B(MKxMN) with
//   A(m,k) = As[pm_smem_off<PA,SWZA>(a_r0 + m, a_c0 + k)]   A_KC = 1 ([m][k])
//          = As[pm_smem_off<PA,SWZA>(a_r0 + k, a_c0 + m)]   A_KC = 0 ([k][m])
//   B(k,n) = Bs[pm_smem_off<PB,SWZB>(b_r0 + k, b_c0 + n)]   B_NC = 1 ([k][n])
//          = Bs[pm_smem_off<PB,SWZB>(b_r0 + n, b_c0 + k)]   B_NC = 0 ([n][k])
// Requirements: As, Bs 16-byte aligned pointers into shared memory; the
// column origins a_c0, b_c0 multiples of 8 (16 for i8: every ldmatrix row is
// one whole 16-byte chunk); rows arbitrary.
//
// Per k-step (16 deep, 32 for i8: 32 bytes of k; pm_sm80_ldf): IM = MM/16
// ldmatrix.x4 for A (one per A fragment), ceil(IN/2) ldmatrix for B (an .x4
// loads the fragments of two n8 tiles, a trailing odd one uses .x2), then
// IM*IN mma.sync.  Lane l supplies the row address of row i = l % 8 of
// matrix j = l / 8 (x4; k + 8 is the next 16-byte chunk, k + 16 for i8):
//   A_KC=1 (no .trans): j -> (m + 8*(j&1), k + 8*(j>>1)), row = m
//   A_KC=0 (.trans):    j -> (m + 8*(j&1), k + 8*(j>>1)), row = k
//   B_NC=0 (no .trans): j -> (n + 8*(j>>1), k + 8*(j&1)), row = n
//   B_NC=1 (.trans):    j -> (n + 8*(j>>1), k + 8*(j&1)), row = k
// so d[0..3] are a0a1, a2a3, a4a5, a6a7 of the A fragment and b0b1, b2b3 of
// n-tile in, then b0b1, b2b3 of n-tile in+1 (see the fragment table at the
// top of this file).  tests/test_banks.c mirrors these lane addresses.
// Fragments are double-buffered across the k-steps: the ldmatrix of step
// s+1 is issued before the mma.sync of step s.
template <int MM, int MN, int MK, int A_KC, int PA, int SWZA, int B_NC,
          int PB, int SWZB>
__device__ __forceinline__ void pm_sm80_mma_tile(float *acc, const PM_AB_T *As,
                                                 int a_r0, int a_c0,
                                                 const PM_AB_T *Bs, int b_r0,
                                                 int b_c0) {
  static_assert(MK % PM_AB_K == 0,
                "pm_sm80_mma_tile: MK must be a multiple of PM_AB_K");
  uint32_t af[2][MM / 16][4];
  uint32_t bf[2][MN / 8][2];
  auto load = [&](int buf, int kk) {
    pm_sm80_ldf<MM, MN, A_KC, PA, SWZA, B_NC, PB, SWZB>(
        af[buf], bf[buf], As, a_r0 + (A_KC ? 0 : kk), a_c0 + (A_KC ? kk : 0),
        Bs, b_r0 + (B_NC ? kk : 0), b_c0 + (B_NC ? 0 : kk));
  };
  load(0, 0);
#pragma unroll
  for (int s = 0; s < MK / PM_AB_K; ++s) {
    if (s + 1 < MK / PM_AB_K)
      load((s + 1) & 1, (s + 1) * PM_AB_K);
    pm_sm80_mma_frag<MM, MN>(acc, af[s & 1], bf[s & 1], 0, 0);
  }
}

#endif // POLYMMA_TARGETS_SM80_CUH

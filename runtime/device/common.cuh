// polymma target helpers: common part.
//
// Embedded verbatim into every generated kernel, before any per-target helper
// file (sm70.cuh / sm80.cuh rely on the helpers defined here).
// Self-contained, header-only; only standard CUDA headers are included.
#ifndef POLYMMA_TARGETS_COMMON_CUH
#define POLYMMA_TARGETS_COMMON_CUH

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <stdint.h>

// ---------------------------------------------------------------------------
// The operand element type of the file's contractions (PM_AB_T), its token in
// the MMA instructions (PM_AB_PTX), its bits as an unsigned short
// (PM_AB_BITS), its TMA data type (PM_AB_TMA), the k of one MMA instruction
// (PM_AB_K, and as a string PM_AB_KS) and PM_AB_TRANS(x): x where the MMA
// takes transpose immediates, nothing for the 8-bit types (K-major only): a
// generated file defines them before these helpers from its target's
// operand-type table (target/target.h, struct pm_operand_row); f16 when
// included alone.
// ---------------------------------------------------------------------------
#ifndef PM_AB_T
#define PM_AB_T __half
#define PM_AB_PTX "f16"
#define PM_AB_BITS __half_as_ushort
#define PM_AB_TMA CU_TENSOR_MAP_DATA_TYPE_FLOAT16
#define PM_AB_K 16
#define PM_AB_KS "16"
#define PM_AB_TRANS(x) x
#endif
// The accumulators: their PTX type (PM_ACC_PTX), the MMA's scale
// immediates (PM_ACC_SCALES, none for integers) and the asm operand of
// accumulator register x (PM_ACC_OUT): f32, or s32 held in the float
// registers as their bits (i8 operands; stored as i32 by pm_from_f32<int>).
#ifndef PM_ACC_PTX
#define PM_ACC_PTX "f32"
#define PM_ACC_SCALES ", 1, 1"
#define PM_ACC_OUT(x) "+f"(x)
#endif

// The bits of an 8-bit integer or float (PM_AB_BITS of the 8-bit rows).
__device__ __forceinline__ unsigned short pm_s8_bits(int8_t x) {
  return (unsigned short)(uint8_t)x;
}
__device__ __forceinline__ unsigned short pm_fp8_bits(__nv_fp8_e4m3 x) {
  return x.__x;
}
__device__ __forceinline__ unsigned short pm_fp8_bits(__nv_fp8_e5m2 x) {
  return x.__x;
}

// ---------------------------------------------------------------------------
// fp32 -> element type conversion used when storing accumulators.
// ---------------------------------------------------------------------------
template <typename T> __device__ __forceinline__ T pm_from_f32(float x);

template <> __device__ __forceinline__ float pm_from_f32<float>(float x) {
  return x;
}

template <> __device__ __forceinline__ __half pm_from_f32<__half>(float x) {
  return __float2half_rn(x);
}

template <>
__device__ __forceinline__ __nv_bfloat16 pm_from_f32<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// i32 outputs come only from s32 accumulators (i8 operands, no epilogue),
// whose float registers hold the integers' bits.
template <> __device__ __forceinline__ int32_t pm_from_f32<int32_t>(float x) {
  return __float_as_int(x);
}

// ---------------------------------------------------------------------------
// Zero an accumulator array.  Called with a compile-time constant n, the loop
// is fully unrolled after inlining, so acc stays in registers.
// ---------------------------------------------------------------------------
__device__ __forceinline__ void pm_fill_zero(float *acc, int n) {
#pragma unroll
  for (int i = 0; i < n; ++i) acc[i] = 0.0f;
}

// ---------------------------------------------------------------------------
// One 16-byte copy global -> shared through a uint4 register.
// Both pointers must be 16-byte aligned.
// ---------------------------------------------------------------------------
__device__ __forceinline__ void pm_copy16_g2s(void *smem, const void *gmem) {
  const uint4 v = *reinterpret_cast<const uint4 *>(gmem);
  *reinterpret_cast<uint4 *>(smem) = v;
}

// One 16-byte copy shared -> global (the staged store of an output tile).
__device__ __forceinline__ void pm_copy16_s2g(void *gmem, const void *smem) {
  *reinterpret_cast<uint4 *>(gmem) = *reinterpret_cast<const uint4 *>(smem);
}

// The unit of V elements at smem to global elements gmem[e * stride], those
// e < lim: a staged unit of a transposed output (a swapped row's,
// docs/decisions/0057-swapped-skinny-row.md), its columns strided.
template <int V, typename T>
__device__ __forceinline__ void pm_s2g_strided(T *gmem, const T *smem,
                                               long long stride,
                                               long long lim) {
#pragma unroll
  for (int e = 0; e < V; ++e)
    if (e < lim) gmem[e * stride] = smem[e];
}

// ---------------------------------------------------------------------------
// Small helpers shared by the tensor-core target files.
// ---------------------------------------------------------------------------

// Hardware lane id (0..31), independent of the block shape.
__device__ __forceinline__ int pm_lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return (int)lane;
}

// Two adjacent output elements as one 32-bit (f16, bf16) or 64-bit (f32)
// value, for the accumulators' pair stores.
template <typename T> struct pm_pair;
template <> struct pm_pair<__half> {
  typedef __half2 type;
  static __device__ __forceinline__ __half2 make(float a, float b) {
    return __floats2half2_rn(a, b);
  }
};
template <> struct pm_pair<__nv_bfloat16> {
  typedef __nv_bfloat162 type;
  static __device__ __forceinline__ __nv_bfloat162 make(float a, float b) {
    return __floats2bfloat162_rn(a, b);
  }
};
template <> struct pm_pair<int32_t> {
  typedef int2 type;
  static __device__ __forceinline__ int2 make(float a, float b) {
    return make_int2(__float_as_int(a), __float_as_int(b));
  }
};
template <> struct pm_pair<float> {
  typedef float2 type;
  static __device__ __forceinline__ float2 make(float a, float b) {
    return make_float2(a, b);
  }
};

// Store R accumulator registers of thread t (its index in its MMA unit):
// register r holds element (m, n) of the unit's tile, ACC::coord(r, t, &m,
// &n), stored to c[m*c_sm + n*c_sn].  The targets' distributions put
// registers 2q and 2q+1 at (m, n) and (m, n+1) with n even, so with c_sn == 1
// (the emitter always passes a literal 1) each pair is one 32-bit (f16) or
// 64-bit (f32) store; c and c_sm must then keep pairs aligned, which the
// launcher's size and alignment checks guarantee.
// Elements at rows m >= rows or columns n >= cols are not stored (a ragged
// last tile; rows of 16-byte units keep the pairs whole).
template <int R, typename ACC, typename T>
__device__ __forceinline__ void pm_store_acc(const float *acc, int t, T *c,
                                             long long c_sm, long long c_sn,
                                             long long rows = 1LL << 40,
                                             long long cols = 1LL << 40) {
  if (c_sn == 1) {
#pragma unroll
    for (int r = 0; r < R; r += 2) {
      int m, n;
      ACC::coord(r, t, &m, &n);
      if (m >= rows || n >= cols)
        continue;
      *reinterpret_cast<typename pm_pair<T>::type *>(c + (long long)m * c_sm +
                                                     n) =
          pm_pair<T>::make(acc[r], acc[r + 1]);
    }
    return;
  }
#pragma unroll
  for (int r = 0; r < R; ++r) {
    int m, n;
    ACC::coord(r, t, &m, &n);
    if (m >= rows || n >= cols)
      continue;
    c[(long long)m * c_sm + (long long)n * c_sn] = pm_from_f32<T>(acc[r]);
  }
}

// Pack two operand elements into one .f16x2 / .bf16x2 register: lo -> bits
// 0..15, hi -> 16..31 (in an mma operand vector, the lower-indexed element is
// the low half).
__device__ __forceinline__ uint32_t pm_pack2(PM_AB_T lo, PM_AB_T hi) {
  return (uint32_t)PM_AB_BITS(lo) | ((uint32_t)PM_AB_BITS(hi) << 16);
}

// ---------------------------------------------------------------------------
// Shared-memory tile addressing.
//
// pm_smem_off<P, SWZ>(r, c): offset in elements (__half) of element (row r,
// column c) of a shared tile whose rows have a pitch of P halves (P a multiple
// of 8, i.e. rows are whole 16-byte chunks; padding is expressed by a larger
// P).  r, c >= 0, c < P.
//
//   SWZ = 0 (plain / padded):   off = r*P + c
//
//   SWZ = 1 (XOR swizzle of 16-byte chunks inside a row):
//     CH    = P / 8                       16-byte chunks per row
//     chunk = c / 8,  e = c % 8           chunk and element inside it
//     x     = r % 8                       if CH >= 8 (CH a multiple of 8)
//           = (r / (8/CH)) % CH           if CH < 8  (CH in {1, 2, 4})
//     off   = r*P + (chunk ^ x)*8 + e
//   Requires CH in {1, 2, 4} or CH a multiple of 8 (static_assert).
//   chunk ^ x stays inside the row: x < 8 only permutes the chunks inside an
//   aligned group of 8 chunks (CH >= 8), and x < CH permutes [0, CH) (CH a
//   power of two).  The 8 halves of a chunk stay contiguous and 16-byte
//   aligned, so every ldmatrix row / 16-byte copy stays one aligned access.
//
//   Bank argument (32 banks x 4 bytes = 8 groups of 16 bytes; a warp's 16-byte
//   accesses are served in 4 phases of 8 lanes; a phase is conflict-free iff
//   its 8 chunks lie in 8 distinct groups (byte_address / 16) % 8):
//     group(r, chunk) = (r*CH + (chunk ^ x)) % 8
//       CH >= 8:  = (chunk % 8) ^ (r % 8)
//       CH <  8:  = (r % (8/CH))*CH + (chunk ^ ((r / (8/CH)) % CH))
//   (a) 8 consecutive rows, same logical chunk (one ldmatrix 8x8 matrix,
//       either orientation): r -> (r % (8/CH), (r / (8/CH)) % CH) is a
//       bijection of r % 8, so the 8 groups are distinct (CH >= 8: r % 8
//       takes all 8 values, XOR with a fixed chunk is a bijection).
//   (b) 8 consecutive chunks of row-major data starting at a multiple of 8
//       chunks (one phase of a warp copying 32 consecutive chunks): CH >= 8:
//       one row, chunk % 8 takes all 8 values; CH < 8: 8/CH whole rows with
//       the same x, (r % (8/CH), chunk ^ x) takes all 8 values.
//   host.h's pm_smem_off_h is the same formula (tests/test_banks.c checks
//   both properties by simulation).
//
//   SWZ = 2, 3, 4 (column blocks of W = 64, 32, 16: the wgmma canonical
//   128-, 64- and 32-byte swizzles; sm_90a tiles wider than 64 elements),
//   H the tile's row count:
//     off = pm_smem_off<W, 1>((c / W) * H + r, c % W)
//   i.e. the tile is stored as P/W blocks of H rows x W columns, each
//   block SWZ = 1 with CH = W / 8.  Requires P % W == 0 and H % 8 == 0.
//   Both bank properties above hold inside each block.
// ---------------------------------------------------------------------------
// Swizzle key x of row r for CH chunks per row (see above).
template <int CH>
__host__ __device__ __forceinline__ constexpr int pm_swz_key(int r) {
  return CH >= 8 ? (r & 7)
                 : (int)(((unsigned)r / (unsigned)(CH >= 8 ? 1 : 8 / CH)) &
                         (unsigned)(CH - 1));
}

// The column blocks of SWZ = 2, 3, 4 (0: none).
template <int SWZ> __host__ __device__ constexpr int pm_swz_block() {
  return SWZ == 2 ? 64 : SWZ == 3 ? 32 : SWZ == 4 ? 16 : 0;
}
// ... and its log2
template <int SWZ> __host__ __device__ constexpr int pm_swz_shift() {
  return SWZ == 2 ? 6 : SWZ == 3 ? 5 : SWZ == 4 ? 4 : 0;
}

// E: the elements of a 16-byte chunk (8; 16 for 8-bit elements, SWZ 0 or 1
// only), the formulas above with 8 read as E.
template <int P, int SWZ, int H = 0, int E = 8>
__host__ __device__ __forceinline__ constexpr int pm_smem_off(int r, int c) {
  static_assert(E == 8 || (E == 16 && SWZ <= 1),
                "pm_smem_off: E is 8, or 16 with SWZ 0 or 1");
  static_assert(P > 0 && P % E == 0,
                "pm_smem_off: P must be a multiple of E");
  static_assert(SWZ >= 0 && SWZ <= 4, "pm_smem_off: SWZ must be 0 to 4");
  static_assert(SWZ != 1 || P / E == 1 || P / E == 2 || P / E == 4 ||
                    (P / E) % 8 == 0,
                "pm_smem_off: with SWZ=1, P/E must be 1, 2, 4 or a multiple "
                "of 8");
  constexpr int W = pm_swz_block<SWZ>();
  static_assert(SWZ < 2 || (P % (W > 0 ? W : 1) == 0 && H > 0 && H % 8 == 0),
                "pm_smem_off: with SWZ=2/3/4, P must be a multiple of the "
                "block (64/32/16) and H of 8");
  return SWZ == 0   ? r * P + c
         : SWZ == 1 ? r * P + (((c / E) ^ pm_swz_key<P / E>(r)) * E) + (c % E)
                    : (((c >> pm_swz_shift<SWZ>()) * (H > 0 ? H : 1) + r)
                       << pm_swz_shift<SWZ>()) +
                          ((((c >> 3) & (W / 8 - 1)) ^
                            pm_swz_key<(W > 0 ? W : 8) / 8>(r))
                           << 3) +
                          (c & 7);
}

// ---------------------------------------------------------------------------
// Asynchronous 16-byte global -> shared copies (cp.async, sm_80+).
// Below sm_80 these fall back to a synchronous copy (pm_copy16_g2s) and
// commit / wait are no-ops, so code using them still builds for sm_75.
// Both pointers must be 16-byte aligned; smem must point into shared memory.
// Usual use: pm_cp_async16 ...; pm_cp_async_commit(); pm_cp_async_wait<0>();
// __syncthreads();  (wait<N>: at most N most recent groups still pending).
// ---------------------------------------------------------------------------
__device__ __forceinline__ void pm_cp_async16(void *smem, const void *gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n"
               :
               : "r"(s), "l"(gmem)
               : "memory");
#else
  pm_copy16_g2s(smem, gmem);
#endif
}

// pm_cp_async16 where p holds; nothing (no read of gmem) where it does not.
__device__ __forceinline__ void pm_cp_async16_if(void *smem, const void *gmem,
                                                 bool p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n"
               " @q cp.async.cg.shared.global [%0], [%1], 16;\n}\n"
               :
               : "r"(s), "l"(gmem), "r"((int)p)
               : "memory");
#else
  if (p)
    pm_copy16_g2s(smem, gmem);
#endif
}

// pm_cp_async16 where in holds; 16 zero bytes (a source size of 0: no read
// of gmem) where it does not: a unit past k (docs/decisions/0030).
__device__ __forceinline__ void pm_cp_async16_z(void *smem, const void *gmem,
                                                bool in) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n"
               :
               : "r"(s), "l"(gmem), "r"(in ? 16 : 0)
               : "memory");
#else
  if (in)
    pm_copy16_g2s(smem, gmem);
  else
    *(uint4 *)smem = make_uint4(0u, 0u, 0u, 0u);
#endif
}

// pm_cp_async16_z where p holds; nothing where it does not.
__device__ __forceinline__ void pm_cp_async16_if_z(void *smem,
                                                   const void *gmem, bool p,
                                                   bool in) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n"
               " @q cp.async.cg.shared.global [%0], [%1], 16, %3;\n}\n"
               :
               : "r"(s), "l"(gmem), "r"((int)p), "r"(in ? 16 : 0)
               : "memory");
#else
  if (p)
    pm_cp_async16_z(smem, gmem, in);
#endif
}

__device__ __forceinline__ void pm_cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

template <int N> __device__ __forceinline__ void pm_cp_async_wait() {
  static_assert(N >= 0 && N <= 7, "pm_cp_async_wait: N in 0..7");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" : : "n"(N) : "memory");
#endif
}

// ---------------------------------------------------------------------------
// Narrow copies and stores (the _unaligned row; docs/decisions/0046-narrow-
// copies.md): rows that are not whole 16-byte units and pointers that are not
// 16-byte aligned.  A unit is N elements of one row, row[c .. c + N), of which
// those at c + e < lim exist; the others are zeros in shared memory (past k
// they must be; past M or N they are never stored) and are never read or
// written in global memory.  The width of each access follows the actual
// address: 16 bytes where it is 16-byte aligned, cp.async of 8 or 4 bytes
// where it is 8- or 4-byte aligned (sm_80+), else element by element through
// registers.
// ---------------------------------------------------------------------------
template <int S> struct pm_bits_of;
template <> struct pm_bits_of<1> { typedef unsigned char type; };
template <> struct pm_bits_of<2> { typedef unsigned short type; };
template <> struct pm_bits_of<4> { typedef unsigned type; };

// Elements of row[c .. c + N) below lim: 0 .. N.
template <int N>
__device__ __forceinline__ int pm_narrow_n(long long c, long long lim) {
  const long long n = lim - c;
  return n <= 0 ? 0 : n >= N ? N : (int)n;
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// cp.async of W bytes (4, 8 or 16) at a W-aligned address, src bytes read
// (0..W), the rest zero-filled; a chunk with nothing to read is stored as
// zeros (no global address formed past the row).
template <int W>
__device__ __forceinline__ void pm_cp_async_w(unsigned s, const char *g,
                                              int src) {
  if (src <= 0) {
    if (W == 16)
      asm volatile("st.shared.v4.u32 [%0], {%1, %1, %1, %1};\n" ::"r"(s),
                   "r"(0)
                   : "memory");
    else if (W == 8)
      asm volatile("st.shared.v2.u32 [%0], {%1, %1};\n" ::"r"(s), "r"(0)
                   : "memory");
    else
      asm volatile("st.shared.u32 [%0], %1;\n" ::"r"(s), "r"(0) : "memory");
    return;
  }
  if (W == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s),
                 "l"(g), "r"(src)
                 : "memory");
  else if (W == 8)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s),
                 "l"(g), "r"(src)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s),
                 "l"(g), "r"(src)
                 : "memory");
}

// The unit's B bytes as cp.async chunks of W bytes.
template <int W, int B>
__device__ __forceinline__ void pm_cp_async_chunks(unsigned s, const char *g,
                                                   int bytes) {
#pragma unroll
  for (int q = 0; q < B / W; ++q)
    pm_cp_async_w<W>(s + q * W, g + q * W, bytes - q * W < W ?
                     bytes - q * W : W);
}
#endif

// The unit row[c .. c + N) (N * sizeof(T) <= 16 bytes, smem aligned to
// them) into shared memory: cp.async where the address allows (sm_80+),
// else through registers, element by element.
template <int N, typename T>
__device__ __forceinline__ void pm_cp_narrow(T *smem, const T *row,
                                             long long c, long long lim) {
  typedef typename pm_bits_of<sizeof(T)>::type B;
  const int n = pm_narrow_n<N>(c, lim);
  const char *g = reinterpret_cast<const char *>(row + c);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  constexpr int BYTES = N * (int)sizeof(T);
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  const unsigned a = (unsigned)reinterpret_cast<uintptr_t>(g);
  const int bytes = n * (int)sizeof(T);

  if (BYTES == 16 && a % 16 == 0) {
    pm_cp_async_chunks<16, 16>(s, g, bytes);
    return;
  }
  if (BYTES % 8 == 0 && a % 8 == 0) {
    pm_cp_async_chunks<8, BYTES>(s, g, bytes);
    return;
  }
  if (BYTES % 4 == 0 && a % 4 == 0) {
    pm_cp_async_chunks<4, BYTES>(s, g, bytes);
    return;
  }
#endif
  {
    B *d = reinterpret_cast<B *>(smem);
    const B *src = reinterpret_cast<const B *>(g);
#pragma unroll
    for (int e = 0; e < N; ++e)
      d[e] = e < n ? src[e] : (B)0;
  }
}

// The same unit (16 bytes) into a register: one 16-byte load where it is
// whole and aligned, else element by element (the register-staged copies).
template <int N, typename T>
__device__ __forceinline__ uint4 pm_ld_narrow(const T *row, long long c,
                                              long long lim) {
  typedef typename pm_bits_of<sizeof(T)>::type B;
  const int n = pm_narrow_n<N>(c, lim);
  const B *src = reinterpret_cast<const B *>(row + c);
  union {
    uint4 u;
    B e[16 / sizeof(B)];
  } v;

  if (N * sizeof(T) == 16 && n == N &&
      reinterpret_cast<uintptr_t>(src) % 16 == 0)
    return *reinterpret_cast<const uint4 *>(src);
  v.u = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
  for (int e = 0; e < N; ++e)
    if (e < n)
      v.e[e] = src[e];
  return v.u;
}

// A unit of the shared C tile to row[c .. c + N), those below lim.
template <int N, typename T>
__device__ __forceinline__ void pm_s2g_narrow(T *row, long long c,
                                              long long lim, const T *smem) {
  typedef typename pm_bits_of<sizeof(T)>::type B;
  const int n = pm_narrow_n<N>(c, lim);
  B *d = reinterpret_cast<B *>(row + c);
  const B *src = reinterpret_cast<const B *>(smem);

  if (N * sizeof(T) == 16 && n == N &&
      reinterpret_cast<uintptr_t>(d) % 16 == 0) {
    *reinterpret_cast<uint4 *>(d) = *reinterpret_cast<const uint4 *>(src);
    return;
  }
#pragma unroll
  for (int e = 0; e < N; ++e)
    if (e < n)
      d[e] = src[e];
}

// The elements from..n of a unit in shared memory back to zeros (the
// _unaligned row's prologues: past k, f(0) made 0 again).
template <typename T>
__device__ __forceinline__ void pm_zero_tail(int n, T *smem, long long from) {
  typedef typename pm_bits_of<sizeof(T)>::type B;
  B *d = reinterpret_cast<B *>(smem);
#pragma unroll
  for (int e = 0; e < n; ++e)
    if (e >= from)
      d[e] = (B)0;
}

// pm_store_acc with pairs stored whole only where both exist and their
// address is aligned to the pair, else element by element.
template <int R, typename ACC, typename T>
__device__ __forceinline__ void pm_store_acc_n(const float *acc, int t, T *c,
                                               long long c_sm,
                                               long long rows,
                                               long long cols) {
  typedef typename pm_pair<T>::type P;
#pragma unroll
  for (int r = 0; r < R; r += 2) {
    int m, n;
    ACC::coord(r, t, &m, &n);
    if (m >= rows || n >= cols)
      continue;
    T *p = c + (long long)m * c_sm + n;
    if (n + 1 < cols && reinterpret_cast<uintptr_t>(p) % sizeof(P) == 0) {
      *reinterpret_cast<P *>(p) = pm_pair<T>::make(acc[r], acc[r + 1]);
      continue;
    }
    p[0] = pm_from_f32<T>(acc[r]);
    if (n + 1 < cols)
      p[1] = pm_from_f32<T>(acc[r + 1]);
  }
}

// 32-bit shared-window address of a generic pointer into shared memory (for
// ldmatrix / cp.async operands).
__device__ __forceinline__ unsigned pm_smem_addr(const void *p) {
  return (unsigned)__cvta_generic_to_shared(p);
}

// ---------------------------------------------------------------------------
// Split-K: the blocks z = 0 .. nz-1 of one output tile (blockIdx.z) each
// accumulate one chunk of the reduction, then meet in a workspace:
//   pm_splitk_put<R, NT>(acc, slot)   every thread's R accumulator floats
//       to the block's slot, as float4 [R / 4][NT] (coalesced), L2 only;
//   pm_splitk_arrive(cnt, nz, flag)   counts the tile's arrivals: true (in
//       every thread) for the block that arrives last, which resets the
//       counter to 0 for the next launch; the others stop.  flag: one int of
//       shared memory no thread uses after the k loop (written after the
//       first barrier, read before the next barrier of the kernel);
//   pm_splitk_sum<R, NT>(acc, slots, pb, nz)   the last block: acc = the
//       sum of slots 0 .. nz-1 in z order, its own included (the same
//       rounding whichever block arrives last).
// Release / acquire: each thread fences its stores before the barrier and
// the atomic (the threadFenceReduction pattern); the last block fences
// after it and reads with ld.global.cg.  Block-uniform: call with the whole
// block, 1-D thread blocks of NT threads.
// ---------------------------------------------------------------------------
template <int R, int NT>
__device__ __forceinline__ void pm_splitk_put(const float *acc, float *slot) {
  static_assert(R % 4 == 0, "pm_splitk_put: R must be a multiple of 4");
  float4 *s = reinterpret_cast<float4 *>(slot) + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; r += 4)
    __stcg(s + (r / 4) * NT,
           make_float4(acc[r], acc[r + 1], acc[r + 2], acc[r + 3]));
}

__device__ __forceinline__ bool pm_splitk_arrive(unsigned *cnt, int nz,
                                                 volatile int *flag) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const int last = atomicAdd(cnt, 1u) == (unsigned)(nz - 1);
    if (last)
      *cnt = 0;
    *flag = last;
  }
  __syncthreads();
  const bool last = *flag != 0;
  if (last)
    __threadfence();
  return last;
}

template <int R, int NT>
__device__ __forceinline__ void pm_splitk_sum(float *acc, const float *slots,
                                              long long pb, int nz) {
  const float4 *s = reinterpret_cast<const float4 *>(slots) + threadIdx.x;
  // per group of 4 registers, the chunks in a loop: few live temporaries
#pragma unroll
  for (int r = 0; r < R; r += 4) {
    float4 t = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll 1
    for (int q = 0; q < nz; ++q) {
      const float4 v = __ldcg(s + q * (pb / 4) + (r / 4) * NT);
      t.x += v.x;
      t.y += v.y;
      t.z += v.z;
      t.w += v.w;
    }
    acc[r] = t.x;
    acc[r + 1] = t.y;
    acc[r + 2] = t.z;
    acc[r + 3] = t.w;
  }
}

#endif // POLYMMA_TARGETS_COMMON_CUH

// polymma target helpers: common part.
//
// Embedded verbatim into every generated kernel, before any per-target helper
// file (sm70.cuh / sm80.cuh rely on the helpers defined here).
// Self-contained, header-only; only standard CUDA headers are included.
#ifndef POLYMMA_TARGETS_COMMON_CUH
#define POLYMMA_TARGETS_COMMON_CUH

#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>

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

// ---------------------------------------------------------------------------
// Small helpers shared by the tensor-core target files.
// ---------------------------------------------------------------------------

// Hardware lane id (0..31), independent of the block shape.
__device__ __forceinline__ int pm_lane_id() {
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return (int)lane;
}

// Pack two halves into one .f16x2 register: lo -> bits 0..15, hi -> 16..31
// (in an mma operand vector, the lower-indexed element is the low half).
__device__ __forceinline__ uint32_t pm_pack_half2(__half lo, __half hi) {
  return (uint32_t)__half_as_ushort(lo) |
         ((uint32_t)__half_as_ushort(hi) << 16);
}

#endif // POLYMMA_TARGETS_COMMON_CUH

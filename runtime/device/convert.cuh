// polymma converting copies (docs/decisions/0047-mixed-operand-types.md):
// an operand stored in another type than the MMA's (i8 weights beside f16
// or bf16 activations) lands as it is stored, 8 elements of one byte a copy
// unit (half the bytes of the MMA type's unit), in a raw tile of shared
// memory; the kernel's PRO pass widens each unit into the operand tile.
// Embedded only in files with such an operand.
#ifndef POLYMMA_CONVERT_CUH
#define POLYMMA_CONVERT_CUH

// 8 bytes global -> shared, asynchronous on sm_80+ (cp.async.ca: 8-byte
// copies are not .cg), synchronous below. Both pointers 8-byte aligned.
__device__ __forceinline__ void pm_cp_async8(void *smem, const void *gmem) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n"
               :
               : "r"(s), "l"(gmem)
               : "memory");
#else
  *reinterpret_cast<uint2 *>(smem) = *reinterpret_cast<const uint2 *>(gmem);
#endif
}

// pm_cp_async8 where p holds; nothing (no read of gmem) where it does not.
__device__ __forceinline__ void pm_cp_async8_if(void *smem, const void *gmem,
                                                bool p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n"
               " @q cp.async.ca.shared.global [%0], [%1], 8;\n}\n"
               :
               : "r"(s), "l"(gmem), "r"((int)p)
               : "memory");
#else
  if (p)
    pm_cp_async8(smem, gmem);
#endif
}

// pm_cp_async8 where in holds; 8 zero bytes (a source size of 0: no read
// of gmem) where it does not: a unit past k (docs/decisions/0030).
__device__ __forceinline__ void pm_cp_async8_z(void *smem, const void *gmem,
                                               bool in) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n"
               :
               : "r"(s), "l"(gmem), "r"(in ? 8 : 0)
               : "memory");
#else
  if (in)
    pm_cp_async8(smem, gmem);
  else
    *reinterpret_cast<uint2 *>(smem) = make_uint2(0u, 0u);
#endif
}

// pm_cp_async8_z where p holds; nothing where it does not.
__device__ __forceinline__ void pm_cp_async8_if_z(void *smem, const void *gmem,
                                                  bool p, bool in) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
  asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n"
               " @q cp.async.ca.shared.global [%0], [%1], 8, %3;\n}\n"
               :
               : "r"(s), "l"(gmem), "r"((int)p), "r"(in ? 8 : 0)
               : "memory");
#else
  if (p)
    pm_cp_async8_z(smem, gmem, in);
#endif
}

#endif

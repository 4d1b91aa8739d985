# Experiment: replace pm_splitk_sum in a generated file (argv[1] -> argv[2])
# with the per-register-group loop (the accumulator written once).
import re, sys
s = open(sys.argv[1]).read()
a = s.index('template <int R, int NT>\n__device__ __forceinline__ void pm_splitk_sum')
b = s.index('#endif // POLYMMA_TARGETS_COMMON_CUH')
new = '''template <int R, int NT>
__device__ __forceinline__ void pm_splitk_sum(float *acc, const float *slots,
                                              long long pb, int nz) {
  const float4 *s = reinterpret_cast<const float4 *>(slots) + threadIdx.x;
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

'''
open(sys.argv[2], 'w').write(s[:a] + new + s[b:])

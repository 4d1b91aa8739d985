#!/usr/bin/env python3
"""ra_pipe.py IN.cu OUT.cu: in a generated sm_90a file, rewrite the k loops
of the persistent kernels (_persist, _persist_split) whose MMA reads A
through registers (pm_sm90_mma_tile_ra) so that the A fragments of k tile
j + 1 are loaded (ldmatrix + the prologue) while tile j's wgmma run: the
fragments in two register sets, the loop's wait for the "full" barrier of
j + 1 before the drain of j (experiments only, session 11; run104: 2.4 %
slower, not kept). Its two helpers are pm_sm90_mma_tile_ra's halves
(emit/targets/sm90.cuh), copied so that the rewrite needs no change to
the generator."""
import re, sys
s = open(sys.argv[1]).read()
helpers = r'''
// ra_pipe.py: pm_sm90_mma_tile_ra split in its two halves.
template <int MK, int A_KC, int PA, int SWZA, int HA, typename F>
__device__ __forceinline__ void pm_ra_frags(uint32_t (*a)[4], const __half *As,
                                            int a_r0, int a_c0, F f) {
  const int w = pm_wg_thread() >> 5, l = pm_lane_id();
#pragma unroll
  for (int kk = 0; kk < MK; kk += 16) {
    uint32_t *x = a[kk / 16];
    if constexpr (A_KC) {
      const int r = a_r0 + 16 * w + (l & 15);
      const int c = a_c0 + kk + ((l >> 4) << 3);
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 "
                   "{%0, %1, %2, %3}, [%4];\n"
                   : "=r"(x[0]), "=r"(x[1]), "=r"(x[2]), "=r"(x[3])
                   : "r"(pm_smem_addr(As + pm_smem_off<PA, SWZA, HA>(r, c))));
    } else {
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
  }
}
template <int MN, int MK, int B_NC, int PB, int SWZB, int HB>
__device__ __forceinline__ void pm_ra_issue(float *acc, uint32_t (*a)[4],
                                            const __half *Bs, int b_r0, int b_c0) {
  pm_wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < MK; kk += 16) {
    uint64_t db;
    if constexpr (B_NC)
      db = pm_sm90_operand<0, PB, SWZB, HB>(Bs, b_r0 + kk, b_c0);
    else
      db = pm_sm90_operand<1, PB, SWZB, HB>(Bs, b_r0, b_c0 + kk);
    pm_wgmma_ra<MN, B_NC ? 1 : 0>(acc, a[kk / 16], db);
  }
  pm_wgmma_commit();
}
'''
first = s.index('extern "C" __global__')
s = s[:first] + helpers + s[first:]
loop = re.compile(
    r'(?P<ind>\t+)_Pragma\("unroll 1"\) for \(int c2 = \(0\); \(c2 < (?P<n>[^;]+)\); c2 \+= \(1\)\) \{\n'
    r'\t+pm_mbar_wait\(&pm_bar\[0 \+ \(\(pm_qc \+ \(\(c2\)\)\) % (?P<S>\d+)\)\], [^\n]*\n'
    r'\t+\{\n\t+const int c3 = (?P<c3>[^;]+);\n\t+\(void\) c3;\n'
    r'\t+pm_sm90_mma_tile_ra<(?P<MM>\d+), (?P<MN>\d+), (?P<MK>\d+), (?P<AKC>\d), (?P<PA>\d+), (?P<SWZA>\d), (?P<BNC>\d), (?P<PB>\d+), (?P<SWZB>\d), (?P<HA>\d+), (?P<HB>\d+)>'
    r'\((?P<acc>pm_acc\[\(0\)\]), A_shared \+ \(\(pm_qc \+ \(\(c2\)\)\) % \d+\) \* (?P<sa>\d+), (?P<ar>[^,]+), (?P<ac>[^,]+), B_shared \+ \(\(pm_qc \+ \(\(c2\)\)\) % \d+\) \* (?P<sb>\d+), (?P<br>[^,]+), (?P<bc>[^,]+), (?P<f>pm_pro\d+)\);\n'
    r'\t+\}\n'
    r'\t+pm_sm90_drain<(?P<D>\d+)>\(\(float \*\) pm_acc\);\n'
    r'\t+if \(pm_lane_id\(\) == 0\) pm_mbar_arrive\(&pm_bar\[(?P<E>\d+) \+ \(\(pm_qc \+ \(\(c2\)\)\) % \d+\)\]\);\n'
    r'(?P=ind)\}\n')
def rep(m):
    g = m.groupdict(); i = g['ind']; S = g['S']
    fr = f"pm_ra_frags<{g['MK']}, {g['AKC']}, {g['PA']}, {g['SWZA']}, {g['HA']}>"
    return (f"{i}{{\n{i}\tconst int c3 = {g['c3']};\n{i}\tconst int pm_kn = {g['n']};\n"
            f"{i}\tuint32_t pm_fa[{int(g['MK'])//16}][4], pm_fb[{int(g['MK'])//16}][4];\n"
            f"{i}\tif (pm_kn > 0) {{\n"
            f"{i}\t\tpm_mbar_wait(&pm_bar[0 + (pm_qc % {S})], (pm_qc / {S}) & 1);\n"
            f"{i}\t\t{fr}(pm_fa, A_shared + (pm_qc % {S}) * {g['sa']}, {g['ar']}, {g['ac']}, {g['f']});\n{i}\t}}\n"
            f"{i}\t_Pragma(\"unroll 1\") for (int c2 = 0; c2 < pm_kn; ++c2) {{\n"
            f"{i}\t\tconst unsigned pm_q = pm_qc + c2, pm_s = pm_q % {S};\n"
            f"{i}\t\tpm_ra_issue<{g['MN']}, {g['MK']}, {g['BNC']}, {g['PB']}, {g['SWZB']}, {g['HB']}>({g['acc']}, pm_fa, B_shared + pm_s * {g['sb']}, {g['br']}, {g['bc']});\n"
            f"{i}\t\tif (c2 + 1 < pm_kn) {{\n"
            f"{i}\t\t\tpm_mbar_wait(&pm_bar[0 + ((pm_q + 1) % {S})], ((pm_q + 1) / {S}) & 1);\n"
            f"{i}\t\t\t{fr}(pm_fb, A_shared + ((pm_q + 1) % {S}) * {g['sa']}, {g['ar']}, {g['ac']}, {g['f']});\n{i}\t\t}}\n"
            f"{i}\t\tpm_sm90_drain<{g['D']}>((float *) pm_acc);\n"
            f"{i}\t\tif (pm_lane_id() == 0) pm_mbar_arrive(&pm_bar[{g['E']} + pm_s]);\n"
            f"{i}\t\t#pragma unroll\n{i}\t\tfor (int pm_i = 0; pm_i < {int(g['MK'])//16}; ++pm_i)\n"
            f"{i}\t\t\tfor (int pm_e = 0; pm_e < 4; ++pm_e)\n{i}\t\t\t\tpm_fa[pm_i][pm_e] = pm_fb[pm_i][pm_e];\n"
            f"{i}\t}}\n{i}}}\n")
n = 0
out = []
pos = 0
for name in ('_persist(', '_persist_split('):
    pass
# only inside the persistent kernels
for m in re.finditer(r'extern "C" __global__ void __launch_bounds__\(384, 1\) pm_kernel_\w+?(_persist|_persist_split)\(', s):
    pass
def sub_in(s, kname):
    k = s.index(kname)
    e = s.index('\n}\n', k)
    body, cnt = loop.subn(rep, s[k:e])
    return s[:k] + body + s[e:], cnt
tot = 0
for kn in re.findall(r'pm_kernel_\w+_persist(?:_split)?\(', s):
    if kn.endswith('_persist(') or kn.endswith('_persist_split('):
        s, c = sub_in(s, kn)
        tot += c
print("ra_pipe.py: %d loops rewritten" % tot, file=sys.stderr)
if not tot:
    sys.exit(1)
open(sys.argv[2], 'w').write(s)

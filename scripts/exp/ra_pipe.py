#!/usr/bin/env python3
"""ra_pipe.py IN.cu OUT.cu: in a generated sm_90a file, rewrite the k loops
of the persistent kernels (_persist, _persist_split) whose MMA reads A
through registers (pm_sm90_mma_tile_ra) so that the A fragments of k tile
j + 1 are loaded (ldmatrix + the prologue) while tile j's wgmma run: the
fragments in two register sets, the loop's wait for the "full" barrier of
j + 1 before the drain of j (experiments only, session 11; run104: 2.4 %
slower, not kept). Its two helpers are pm_sm90_mma_tile_ra's halves,
cut out of the file's own copy (emit/targets/sm90.cuh), so that the
rewrite needs no change to the generator."""
import re, sys
s = open(sys.argv[1]).read()
# The two helpers: pm_sm90_mma_tile_ra's halves, cut out of the file's own
# copy of it (emit/targets/sm90.cuh) at its wgmma fence; both keep its
# template and parameters, the fragments array first.
m = re.search(r'(template <[^>]*typename F>\s*__device__ __forceinline__ void) '
              r'pm_sm90_mma_tile_ra\(([^)]*)\) \{\n(.*?)\n\}\n', s, re.S)
tmpl, params, body = m.group(1), m.group(2), m.group(3)
body = body.replace('  uint32_t a[MK / 16][4];\n', '')
cut = body.index('  pm_wgmma_fence();')
helpers = ('\n// ra_pipe.py: pm_sm90_mma_tile_ra in two halves.\n'
           f'{tmpl} pm_ra_frags(uint32_t (*a)[4], {params}) {{\n{body[:cut]}}}\n'
           f'{tmpl} pm_ra_issue(uint32_t (*a)[4], {params}) {{\n{body[cut:]}\n}}\n')
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
    targs = ", ".join(g[x] for x in ('MM', 'MN', 'MK', 'AKC', 'PA', 'SWZA', 'BNC', 'PB', 'SWZB', 'HA', 'HB'))
    fr = f"pm_ra_frags<{targs}>"
    bz = f"B_shared, {g['br']}, {g['bc']}"
    return (f"{i}{{\n{i}\tconst int c3 = {g['c3']};\n{i}\tconst int pm_kn = {g['n']};\n"
            f"{i}\tuint32_t pm_fa[{int(g['MK'])//16}][4], pm_fb[{int(g['MK'])//16}][4];\n"
            f"{i}\tif (pm_kn > 0) {{\n"
            f"{i}\t\tpm_mbar_wait(&pm_bar[0 + (pm_qc % {S})], (pm_qc / {S}) & 1);\n"
            f"{i}\t\t{fr}(pm_fa, {g['acc']}, A_shared + (pm_qc % {S}) * {g['sa']}, {g['ar']}, {g['ac']}, {bz}, {g['f']});\n{i}\t}}\n"
            f"{i}\t_Pragma(\"unroll 1\") for (int c2 = 0; c2 < pm_kn; ++c2) {{\n"
            f"{i}\t\tconst unsigned pm_q = pm_qc + c2, pm_s = pm_q % {S};\n"
            f"{i}\t\tpm_ra_issue<{targs}>(pm_fa, {g['acc']}, A_shared, {g['ar']}, {g['ac']}, B_shared + pm_s * {g['sb']}, {g['br']}, {g['bc']}, {g['f']});\n"
            f"{i}\t\tif (c2 + 1 < pm_kn) {{\n"
            f"{i}\t\t\tpm_mbar_wait(&pm_bar[0 + ((pm_q + 1) % {S})], ((pm_q + 1) / {S}) & 1);\n"
            f"{i}\t\t\t{fr}(pm_fb, {g['acc']}, A_shared + ((pm_q + 1) % {S}) * {g['sa']}, {g['ar']}, {g['ac']}, {bz}, {g['f']});\n{i}\t\t}}\n"
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

#!/usr/bin/env python3
"""bias_pf.py IN OUT (session 18 experiment): in a generated GEMM+bias+ReLU
file, prefetch each tile's bias row to L1 at the tile's start (after its
accumulators are zeroed), so that the epilogue's loads after the k loop
hit L1 instead of waiting on L2. Threads 0 .. W/64 - 1 of each warpgroup
prefetch one 128-byte line each (W = the tile's columns)."""
import re, sys
src = open(sys.argv[1]).read()
parts = src.split('extern "C" __global__')
n = 0
for i in range(1, len(parts)):
    p = parts[i]
    if 'pm_ld2f(&bias[' not in p or 'pm_fill_zero(' not in p:
        continue
    m = re.search(r'pm_sm90_acc_coord<64, (\d+)>', p)
    b = re.search(r'pm_j0 = (\(.*?\)) \+ pm_n', p)
    if not m or not b:
        continue
    w = int(m.group(1))
    pf = ('{ const int pm_pt = (int) threadIdx.x %% 128; if (pm_pt < %d) '
          'asm volatile("prefetch.global.L1 [%%0];" :: "l"(&bias[(int64_t) %s + 64 * pm_pt])); }'
          % (w // 64, b.group(1)))
    p, k = re.subn(r'(pm_fill_zero\(pm_acc\[\(0\)\], \d+\);)', r'\1 ' + pf.replace('\\', '\\\\'), p)
    n += k
    parts[i] = p
open(sys.argv[2], 'w').write('extern "C" __global__'.join(parts))
print("bias_pf: %d sites" % n)

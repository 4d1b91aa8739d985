#!/usr/bin/env python3
"""trace_units.py IN.cu OUT.cu: instrument a generated sm_90a GEMM file's
split persistent kernel: thread 0 of each block records %globaltimer at
each unit's start (with the unit; a stream-K piece: 100000 x its role +
its tile) and at the block's end into pm_trace (experiments only;
scripts/exp/trace.cu reads it)."""
import re, sys
s = open(sys.argv[1]).read()
decl = ('__device__ unsigned long long pm_trace[1024 * 16];\n'
        'struct pm_tr_end { __device__ ~pm_tr_end() { if (threadIdx.x == 0) { unsigned long long t; '
        'asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); pm_trace[blockIdx.x * 16 + 15] = t; } } };\n')
k = s.index('extern "C" __global__ void __launch_bounds__(288, 1) pm_kernel_gemm_nn_persist_split(')
s = s[:k] + decl + s[k:]
k = s.index('pm_kernel_gemm_nn_persist_split(')
loop = re.compile(r'(\tfor \(unsigned pm_u = blockIdx\.x;[^\n]*\{\n)')
m = loop.search(s, k)
sk = 'pm_si += pm_ke - pm_kb;\n' in s[m.end():m.end() + 2000]
unit = '(pm_skp ? 100000u * pm_skr + pm_st : pm_u)' if sk else 'pm_u'
ins = ('\t\tif (threadIdx.x == 0 && pm_ti_n < 7) { unsigned long long t; asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t)); '
       'pm_trace[blockIdx.x * 16 + 2 * pm_ti_n] = t; pm_trace[blockIdx.x * 16 + 2 * pm_ti_n + 1] = ' + unit + '; ++pm_ti_n; }\n')
at = m.end()
if sk:
    at = s.index('pm_si += pm_ke - pm_kb;\n', at) + len('pm_si += pm_ke - pm_kb;\n')
s = s[:m.start()] + '\tpm_tr_end pm_tre; (void) pm_tre;\n\tint pm_ti_n = 0;\n' + s[m.start():at] + ins + s[at:]
# the fixup: slot 12 before it, 13 after it (the block's last unit)
fx = s.find('\t\t\t\t\t\tif (pm_skr == 1) {', k)
if fx < 0:
    fx = s.index('\t\t\t\t\t\tif (pm_nz > 1) {', k)
e = s.index('\n', fx)
tm = 'if (threadIdx.x == 0) { unsigned long long t; asm volatile("mov.u64 %%0, %%globaltimer;" : "=l"(t)); pm_trace[blockIdx.x * 16 + %d] = t; } '
s = s[:fx] + '\t\t\t\t\t\t' + (tm % 12) + s[fx + 6:e] + ' ' + (tm % 13) + s[e:]
# ... slot 10 after the puts, 11 after the counter's wait
line = s[fx:s.index('\n', fx)]
new = re.sub(r'(pm_rs_put<[^;]*;)', lambda m: m.group(1) + ' ' + (tm % 10), line, count=1)
new = re.sub(r'(pm_rs_sync<[^;]*;)', lambda m: m.group(1) + ' ' + (tm % 11), new, count=1)
s = s.replace(line, new, 1)
s = "#include <stdlib.h>\n#include <stdio.h>\n" + s
open(sys.argv[2], "w").write(s)

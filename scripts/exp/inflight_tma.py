#!/usr/bin/env python3
"""inflight_tma.py IN.cu OUT.cu: the generated sm_90a TMA k loop (nn,
128x128x64, 3 stages) with one k tile of wgmma kept in flight: wait<1>
after issuing tile kt, release tile kt - 1's stage, then the copies of
tile kt + 2 into it; drain after the loop (experiment, docs/PERF.md)."""
import sys
s = open(sys.argv[1]).read()
a = s.index('pm_kernel_gemm_nn(')
old_tail = '''						pm_sm90_drain<64>((float *) pm_acc);
						if (pm_lane_id() == 0) pm_mbar_arrive(&pm_bar[3 + ((c2)) % 3]);
					}
'''
i = s.index(old_tail, a)
j = s.rindex('						{\n							const bool pm_p1', a, i)
copy = s[j:i]
k = s.rindex('						pm_mbar_wait(&pm_bar[0 + ((c2)) % 3]', a, j)
mma_end = j
new = s[k:mma_end] + '''						pm_wgmma_wait<1>();
						if (pm_lane_id() == 0 && c2 >= 1) pm_mbar_arrive(&pm_bar[3 + (c2 - 1) % 3]);
''' + copy + '''					}
					pm_sm90_drain<64>((float *) pm_acc);
'''
s = s[:k] + new + s[i + len(old_tail):]
# the loop runs at least once (else ptxas serializes the wgmma: C7515)
r = s.index('\t\t\t\t\t// red\n', a)
s = s[:r] + '\t\t\t\t\t{ const int c2 = (0); if (!(c2 < K / 64)) __builtin_unreachable(); }\n' + s[r:]
open(sys.argv[2], 'w').write(s)

#!/usr/bin/env python3
"""inflight_ws.py IN.cu OUT.cu: the warp-specialized (persistent) consumer
k loops of a generated sm_90a file with one k tile of wgmma kept in
flight: wait<1> after issuing tile kt, then tile kt - 1's stage released;
after the loop the drain and the last stage's release (experiment,
docs/PERF.md session 17). Prints how many loops it changed."""
import re, sys
s = open(sys.argv[1]).read()
pat = re.compile(
    r'(?P<ind>\t+)pm_sm90_drain<(?P<n>\d+)>\(\(float \*\) pm_acc\);\n'
    r'(?P=ind)if \(pm_lane_id\(\) == 0\) pm_mbar_arrive\(&pm_bar\[(?P<e>\d+) \+ \(\(pm_qc \+ \(\(c2\)\)\) % (?P<s>\d+)\)\]\);\n'
    r'(?P<ind2>\t+)\}\n')
def rep(m):
    ind, n, e, S, ind2 = m['ind'], m['n'], m['e'], m['s'], m['ind2']
    return (f'{ind}pm_wgmma_wait<1>();\n'
            f'{ind}if (pm_lane_id() == 0 && c2 >= 1) pm_mbar_arrive(&pm_bar[{e} + ((pm_qc + ((c2 - 1))) % {S})]);\n'
            f'{ind2}}}\n'
            f'{ind2}pm_sm90_drain<{n}>((float *) pm_acc);\n'
            f'{ind2}if (pm_lane_id() == 0 && K / 64 >= 1) pm_mbar_arrive(&pm_bar[{e} + ((pm_qc + ((K / 64 - 1))) % {S})]);\n')
s, n = pat.subn(rep, s)
open(sys.argv[2], 'w').write(s)
print(n, file=sys.stderr)

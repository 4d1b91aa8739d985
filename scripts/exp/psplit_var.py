#!/usr/bin/env python3
"""psplit_var.py IN.cu OUTDIR: variants of a generated file's split
persistent kernel for timing -- of its first version (commit afdc057's
parent work: the unit of chunk 0 summed every partial after pm_ws_wait;
run43); the reduce-scatter that replaced it has no such text (results wrong on purpose where the fixup is
cut): v0 as generated; v1 no fixup (every unit stores its own tile);
v2 partials put and signalled, the z = 0 unit neither waits nor sums;
v3 the z = 0 unit waits but does not sum; v4 the sum's loads only (no
wait)."""
import os, re, sys
src = open(sys.argv[1]).read()
out = sys.argv[2]
os.makedirs(out, exist_ok=True)
m = re.search(r'if \(pm_nz > 1\) \{ if \(pm_z\) \{.*?\} \}\n', src)
assert m, 'no persistent fixup'
fix = m.group(0)
wait = re.search(r'pm_ws_wait<\d+>\([^;]*\); ', fix).group(0)
loop = re.search(r'for \(int pm_q = 1;.*\} \}', fix).group(0)
v = {
    'v0': fix,
    'v1': '',
    'v2': fix.replace(wait, '').replace(loop, '}'),
    'v3': fix.replace(loop, '}'),
    'v4': fix.replace(wait, ''),
}
for k, f in v.items():
    open(os.path.join(out, k + '.cu'), 'w').write(src.replace(fix, f))
    print(k, f[:160].replace('\n', ' '))

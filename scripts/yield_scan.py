#!/usr/bin/env python3
"""yield_scan.py SASS...: in cuobjdump -sass listings, each kernel's
innermost loop around its HGMMA or HMMA (the shortest backward branch spanning
one) and the YIELD instructions inside it. ptxas's YIELD in a k loop
costs: a "branch resolving" stall per iteration (session 11, run106:
7-13 % of a split persistent kernel). Prints kernel, loop [start, end],
its instructions and YIELDs."""
import re, sys
ins = re.compile(r'/\*([0-9a-f]{4,})\*/\s+([^;]*);')
for f in sys.argv[1:]:
    fn, code = None, []
    def report():
        if not fn or not code:
            return
        bras = [(a, int(m.group(1), 16)) for a, t in code
                for m in [re.search(r'\bBRA(?:\.[A-Z.]+)?\s+(?:`\(\.L_x_\d+\)|0x)?([0-9a-f]+)', t)] if m]
        bras = [(a, t) for a, t in bras if t <= a]
        loops = set()
        for h, t in code:
            if 'HGMMA' not in t and 'HMMA' not in t:
                continue
            c = [(a - s, s, a) for a, s in bras if s <= h <= a]
            if c:
                loops.add(min(c)[1:])
        for s, a in sorted(loops):
            n = sum(1 for x, _ in code if s <= x <= a)
            y = sum(1 for x, t in code if s <= x <= a and 'YIELD' in t)
            print("%-48s loop 0x%04x-0x%04x %4d instr %d YIELD%s" % (fn, s, a, n, y, "  <==" if y else ""))
    for line in open(f):
        m = re.search(r'Function : (\S+)', line)
        if m:
            report()
            fn, code = m.group(1), []
            continue
        m = ins.search(line)
        if m and fn:
            code.append((int(m.group(1), 16), m.group(2)))
    report()

#!/usr/bin/env python3
"""abn-cmp.py DIR BASE NAME...: per idiom and size, the median over rounds
of polymma's time for each binary (bench-NAME-R.csv in DIR), its ratio to
BASE's (BASE / NAME: above 1 faster) and the geomean of the ratios, and the
median speedup vs cuBLAS of each."""
import csv, glob, math, statistics, sys
d, names = sys.argv[1], sys.argv[2:]
t = {}
for n in names:
    for f in sorted(glob.glob(f"{d}/bench-{n}-*.csv")):
        for r in csv.DictReader(l for l in open(f) if not l.startswith('#')):
            if r['variant'] != 'polymma' or r['status'] != 'ok':
                continue
            k = (r['idiom'], int(r['M']), int(r['N']), int(r['K']))
            t.setdefault(k, {}).setdefault(n, []).append(
                (float(r['ms']), float(r['speedup_cublas'])))
g = {}
for k in sorted(t):
    row = t[k]
    if any(n not in row for n in names):
        continue
    med = {n: statistics.median(x[0] for x in row[n]) for n in names}
    sc = {n: statistics.median(x[1] for x in row[n]) for n in names}
    out = [f"{k[0]:15s} {k[1]:5d}x{k[2]:5d}x{k[3]:5d}"]
    for n in names:
        rt = med[names[0]] / med[n]
        g.setdefault((k[0], n), []).append(rt)
        g.setdefault(('all', n), []).append(rt)
        out.append(f"{n} {med[n]*1000:7.2f}us {rt:5.3f} ({sc[n]:.3f})")
    print("  ".join(out))
for (i, n), v in sorted(g.items()):
    print(f"geomean {i:15s} {n:8s} {math.exp(sum(map(math.log, v))/len(v)):.4f} over {len(v)}")

#!/usr/bin/env python3
"""Summarize var_time.cu's output (var-time.sh's $OUT/var-TAG.txt).

Each `VAR MxNxK cublas=MS name=MS ...` line times cuBLAS and every column
(a variant, `tag/` the plan's row, `tag/_row` a forced row; -1: it did not
run) in one process. Per set of sizes (paper: bench/tools/paper-sizes.txt;
square: M = N = K; other), prints each column's geometric mean of cuBLAS
time / its time, its minimum and how many sizes fall below --below;
--ab NEW OLD: the speed-up of variant NEW over OLD for each forcing they
share (OLD time / NEW time); --worst N: the N sizes where --col is
slowest against cuBLAS.

    python3 bench/tools/var_report.py build/var-d.txt --ab new old
"""

import argparse
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def parse(lines):
    """[(size, cublas_ms, {column: ms})] of the VAR lines (ms <= 0 left
    out: the column did not run there)."""
    rows = []
    for line in lines:
        f = line.split()
        if len(f) < 3 or f[0] != "VAR" or not f[2].startswith("cublas="):
            continue
        cols = {}
        for kv in f[3:]:
            if "=" not in kv:
                continue
            k, v = kv.rsplit("=", 1)
            try:
                ms = float(v)
            except ValueError:
                continue
            if ms > 0:
                cols[k] = ms
        rows.append((f[1], float(f[2].split("=", 1)[1]), cols))
    return rows


def size_set(size, paper):
    if size in paper:
        return "paper"
    d = size.split("x")
    return "square" if len(set(d)) == 1 else "other"


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 0.0


def columns(rows):
    seen = []
    for _, _, cols in rows:
        for k in cols:
            if k not in seen:
                seen.append(k)
    return seen


def summary(rows, below):
    """{set: {column: (n, geomean, min, n below)}} against cuBLAS."""
    out = {}
    for name in sorted({r[3] for r in rows}):
        part = [r for r in rows if r[3] == name]
        out[name] = {}
        for c in columns([(s, cb, cols) for s, cb, cols, _ in part]):
            v = [cb / cols[c] for _, cb, cols, _ in part if c in cols]
            out[name][c] = (len(v), geomean(v), min(v),
                            sum(1 for x in v if x < below))
    return out


def ab(rows, new, old):
    """{set: {forcing: (n, geomean, min, max)}}: OLD's time / NEW's."""
    out = {}
    for name in sorted({r[3] for r in rows}):
        part = [r for r in rows if r[3] == name]
        out[name] = {}
        for c in columns([(s, cb, cols) for s, cb, cols, _ in part]):
            if not c.startswith(new + "/") and c != new:
                continue
            force = c[len(new):]
            v = [cols[old + force] / cols[c] for _, _, cols, _ in part
                 if c in cols and old + force in cols]
            if v:
                out[name][force.lstrip("/") or "(plan)"] = (
                    len(v), geomean(v), min(v), max(v))
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("--below", type=float, default=0.85)
    ap.add_argument("--ab", nargs=2, metavar=("NEW", "OLD"))
    ap.add_argument("--worst", type=int, default=0)
    ap.add_argument("--col", help="the column of --worst (default the "
                    "first)")
    ap.add_argument("--paper", default=os.path.join(HERE, "paper-sizes.txt"))
    a = ap.parse_args(argv)
    with open(a.paper) as f:
        paper = set(f.read().split())
    with open(a.file) as f:
        rows = [(s, cb, c, size_set(s, paper)) for s, cb, c in parse(f)]
    if not rows:
        print("var_report: no VAR line in " + a.file, file=sys.stderr)
        return 1
    for name, cols in summary(rows, a.below).items():
        for c, (n, g, lo, nb) in cols.items():
            print("%-7s %-32s n=%3d vs cuBLAS %.4f min %.3f below %.2f: %d"
                  % (name, c, n, g, lo, a.below, nb))
    if a.ab:
        for name, forces in ab(rows, a.ab[0], a.ab[1]).items():
            for force, (n, g, lo, hi) in forces.items():
                print("%-7s %s over %s %-24s n=%3d %.4f (%.3f-%.3f)"
                      % (name, a.ab[0], a.ab[1], force, n, g, lo, hi))
    if a.worst:
        col = a.col or columns([r[:3] for r in rows])[0]
        ranked = sorted((cb / c[col], s) for s, cb, c, _ in rows if col in c)
        for ratio, s in ranked[:a.worst]:
            print("worst %-16s %s %.3f" % (s, col, ratio))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

#!/usr/bin/env bash
# run85 (session 10): per-block unit timelines of the split persistent
# kernel (trace_units.py, trace.cu) at 3200x1408x1408 (275 tiles: 264 whole,
# 11 in 5 chunks), forced all-whole, and 3072x1408x1408 forced all-whole.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
bash scripts/exp/trace-build.sh build/polymma g
build/var/tr-g 3200x1408x1408 > $O/tr-3200-def.txt
PM_FORCE=-1,1 build/var/tr-g 3200x1408x1408 > $O/tr-3200-whole.txt
PM_FORCE=-1,1 build/var/tr-g 3072x1408x1408 > $O/tr-3072-whole.txt
PM_FORCE=264,1 build/var/tr-g 3200x1408x1408 > $O/tr-3200-s1.txt
head -1 $O/tr-*.txt

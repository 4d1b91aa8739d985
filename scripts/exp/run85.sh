#!/usr/bin/env bash
# run85 (session 10): per-block unit timelines of the split persistent
# kernel (trace_units.py, trace.cu) at 3200x1408x1408 (275 tiles: 264 whole,
# 11 in 5 chunks), forced all-whole, and 3072x1408x1408 forced all-whole.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/g.cu
python3 scripts/exp/force_tdp.py build/var/g.cu build/var/gf.cu
python3 scripts/exp/trace_units.py build/var/gf.cu build/var/gt.cu
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/gt.cu\"" scripts/exp/trace.cu -o build/var/tr
build/var/tr 3200x1408x1408 > $O/tr-3200-def.txt
PM_FORCE=-1,1 build/var/tr 3200x1408x1408 > $O/tr-3200-whole.txt
PM_FORCE=-1,1 build/var/tr 3072x1408x1408 > $O/tr-3072-whole.txt
PM_FORCE=264,1 build/var/tr 3200x1408x1408 > $O/tr-3200-s1.txt
head -1 $O/tr-*.txt

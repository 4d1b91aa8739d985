#!/usr/bin/env bash
# run58: the 128x128 persistent kernel's ring depth: 4 stages (the
# target's pstages) against 5 and 6 (shared memory allows 6 next to the
# C tile); the consumers waited on full stages ~10 % of their samples
# (run56). nn, --persistent on, cuBLAS in the same process.
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="examples/gemm_nn.tc --target sm_90a --persistent on --cluster 1"
for s in 4 5 6; do build/polymma gen $G --stages $s -o build/var/s$s.cu; done
S=${SIZES:-"4096x4096x4096 2048x2048x1024 3072x3840x3072 2816x1920x1792 1792x2816x1920 3840x3456x2816 2304x2304x1024"}
SIZES="$S" bash scripts/exp/time-files.sh build/var/s4.cu build/var/s5.cu build/var/s6.cu build/var/s4.cu 2>&1 | grep -E "^(TIME|FAIL)|passed"

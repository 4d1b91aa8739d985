#!/usr/bin/env bash
# run59: a tall persistent kernel, 256x128 blocks (two warpgroups of
# 128x128, two m64n128 wgmma each per k step: B read twice, but the copies
# 48 KB per 2 x 128x128 of work: ~144 B/clock of shared memory per SM at
# full rate against the 128x128 kernel's ~160), against the 128x128 (p)
# and the wide 128x256 (w, m64n256) ones; nn, --persistent on.
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="examples/gemm_nn.tc --target sm_90a --persistent on --cluster 1"
build/polymma gen $G -o build/var/p.cu
build/polymma gen $G --block 256x128x64 --warp 128x128 --stages 3 -o build/var/t.cu
build/polymma gen $G --block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 3 -o build/var/w.cu
S=${SIZES:-"4096x4096x4096 2048x2048x1024 3072x3840x3072 8192x8192x4096 2560x2816x4096 3584x1920x2688"}
SIZES="$S" bash scripts/exp/time-files.sh build/var/p.cu 2>&1 | grep -E "^(TIME|FAIL)|passed"
SIZES="$S" BM=256 bash scripts/exp/time-files.sh build/var/t.cu 2>&1 | grep -E "^(TIME|FAIL)|passed"
SIZES="$S" BN=256 bash scripts/exp/time-files.sh build/var/w.cu 2>&1 | grep -E "^(TIME|FAIL)|passed"

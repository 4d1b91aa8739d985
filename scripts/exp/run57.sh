#!/usr/bin/env bash
# run57: the wide persistent kernel (128x256) with one m64n256k16 wgmma
# per k step (--mma 64x256x64: A read once from shared memory) against two
# m64n128k16 (the default, w1) and the 128x128 kernel (p1); cuBLAS in the
# same process, nn.
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="examples/gemm_nn.tc --target sm_90a --persistent on --cluster 1"
W="--block 128x256x64 --warp 64x256 --stages 3"
build/polymma gen $G -o build/var/p1.cu
build/polymma gen $G $W -o build/var/w1.cu
build/polymma gen $G $W --mma 64x256x64 -o build/var/w3.cu
build/polymma gen $G $W --mma 64x256x64 --cluster 2 -o build/var/w3c.cu
S=${SIZES:-"4096x4096x4096 8192x8192x4096 2048x2048x1024 1536x2560x3072 3072x3840x3072 2560x2816x4096"}
SIZES="$S" bash scripts/exp/time-files.sh build/var/p1.cu 2>&1 | grep -E "^(TIME|FAIL)|passed"
SIZES="$S" BN=256 bash scripts/exp/time-files.sh build/var/w1.cu build/var/w3.cu build/var/w3c.cu 2>&1 | grep -E "^(TIME|FAIL)|passed"

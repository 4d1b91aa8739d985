#!/usr/bin/env bash
# run28: narrower blocks for one partial wave: 128x64 (two 64x64
# warpgroups; 3 stages: 3 blocks per SM) and 64x128 (one 64x128
# warpgroup) against 128x128, nn, TMA, at paper sizes of 145-320 tiles.
cd "$(dirname "$0")/../.."
mkdir -p build/var
P="build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off"
$P -o build/var/w128.cu
$P --block 128x64x64 --warp 64x64 -o build/var/w12864.cu
$P --block 128x64x64 --warp 64x64 --stages 4 -o build/var/w12864s4.cu
$P --block 64x128x64 --warp 64x128 -o build/var/w64128.cu
export SIZES="2304x1408x896 1152x3072x1536 1536x2560x1792 2048x1536x2432 3200x768x2304 1792x1664x3584 896x3456x2048 640x3712x1152 1664x2816x2432 4096x1280x3456 2048x2048x2048 2816x1536x2560"
bash scripts/exp/time-files.sh build/var/w128.cu 2>&1
BN=64 bash scripts/exp/time-files.sh build/var/w12864.cu build/var/w12864s4.cu 2>&1
BM=64 bash scripts/exp/time-files.sh build/var/w64128.cu 2>&1

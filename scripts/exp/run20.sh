#!/usr/bin/env bash
# run20: on top of TMA, grouped block rasterization (scripts/exp/raster.py,
# 8 and 16 tile rows) and 128x256 blocks (two 64x256 warpgroups, 4 stages).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
P="build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off"
$P -o build/var/g_tma.cu
python3 scripts/exp/raster.py build/var/g_tma.cu build/var/g_r8.cu 8
python3 scripts/exp/raster.py build/var/g_tma.cu build/var/g_r16.cu 16
$P --block 128x256x64 --warp 64x256 --stages 4 -o build/var/g_256.cu
export SIZES="2048x2048x2048 4096x4096x4096 8192x8192x4096 1664x2816x2432 2816x1536x2560 3456x2816x3840 4096x1280x3456 3072x3072x2048 2560x3840x3968 1536x3712x3584"
bash scripts/exp/time-files.sh build/var/g_tma.cu build/var/g_r8.cu build/var/g_r16.cu 2>&1 | tee "$O/time.txt"
BN=256 bash scripts/exp/time-files.sh build/var/g_256.cu 2>&1 | tee -a "$O/time.txt"

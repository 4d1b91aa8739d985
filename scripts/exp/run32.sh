#!/usr/bin/env bash
# run32: wave quantization — generated 128x192 and 192x128 blocks against
# 128x128 (and the persistent w4 of run30) at sizes they divide, chosen so
# the wider tile fills whole waves of 132 blocks (1 per SM).
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off"
$G -o build/var/w0.cu
$G --block 128x192x64 --warp 64x192 -o build/var/b1.cu
$G --block 192x128x64 --warp 64x128 -o build/var/b2.cu
$G --block 128x192x64 --warp 64x192 --stages 4 -o build/var/b3.cu
python3 scripts/exp/ws.py build/var/w0.cu build/var/w4.cu WS_INFL=1 WS_PERSIST=1 WS_ST=4 WS_THREADS=384
S1="2048x1536x2432 2816x2304x2560 1024x3840x2048 4096x3072x1024 3328x1536x3456"
S2="3456x2816x3840 1536x3712x1152 3840x1280x4096 2304x2560x2048"
SIZES="$S1 $S2" bash scripts/exp/time-files.sh build/var/w0.cu build/var/w4.cu
BN=192 SIZES="$S1" bash scripts/exp/time-files.sh build/var/b1.cu build/var/b3.cu
BM=192 SIZES="$S2" bash scripts/exp/time-files.sh build/var/b2.cu

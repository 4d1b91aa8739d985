#!/usr/bin/env bash
# run34: the persistent kernel (--persistent on) with 128x128 and 128x256
# blocks against the plain 128x128 kernel, at sizes 256 divides.
#   w0    the plain kernel (--split-k 1 --small-variant off)
#   p128  --persistent on (128x128x64, 4 stages)
#   p256  --persistent on --block 128x256x64 --warp 64x256 --stages 3
#   p256d p256 with --staged-store off --stages 4 (C from registers)
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off"
$G -o build/var/w0.cu
$G --persistent on -o build/var/p128.cu
$G --persistent on --block 128x256x64 --warp 64x256 --stages 3 -o build/var/p256.cu
$G --persistent on --block 128x256x64 --warp 64x256 --stages 4 --staged-store off -o build/var/p256d.cu
S="2048x2048x2048 4096x4096x4096 8192x8192x4096 3072x3072x2048 1536x2560x1792 2816x1536x2560 2304x2304x1024 3584x3840x1920 1664x2816x2432 4096x12288x4096 2048x1536x2432"
SIZES="$S" bash scripts/exp/time-files.sh build/var/w0.cu build/var/p128.cu
BN=256 SIZES="$S" bash scripts/exp/time-files.sh build/var/p256.cu build/var/p256d.cu

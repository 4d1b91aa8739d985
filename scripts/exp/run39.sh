#!/usr/bin/env bash
# run39: ReLU+GEMM (a prologue through the MMA's registers) on grids of
# several waves: the big kernel (r0) against --persistent on with 128x128
# (r1) and 128x256 blocks (r2; r3 with 64x256 macro-MMAs); GPU time per
# call (relu_time.cu). Then the wide GEMM kernel with 64x128 or 64x256
# macro-MMAs.
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="build/polymma gen bench/specs/relu_gemm.tc --target sm_90a"
$G --split-k 1 --small-variant off -o build/var/r0.cu
$G --persistent on -o build/var/r1.cu
$G --persistent on --block 128x256x64 --warp 64x256 --stages 3 -o build/var/r2.cu
$G --persistent on --block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 3 -o build/var/r3.cu
for v in r0 r1 r2 r3; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/$v.cu\"" -DKFN=pm_relu_gemm scripts/exp/relu_time.cu -o build/var/t_$v &
done
wait
S="1664x2816x2432 1792x3072x1024 1920x3840x1664 2048x3328x1664 2560x3072x1536 2816x4096x2560 2944x3840x2944 3584x2048x3712 3840x3072x3072 4096x2816x2560 4096x4096x4096 4096x11008x4096"
for v in r0 r1 r2 r3; do timeout 120 build/var/t_$v $v $S; done
# the wide GEMM variant: two 64x128 macro-MMAs per warp (p256) or one
# 64x256 (p256m)
G="build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off"
$G --persistent on --block 128x256x64 --warp 64x256 --stages 3 -o build/var/p256.cu
$G --persistent on --block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 3 -o build/var/p256m.cu
BN=256 SIZES="1664x4096x2176 2048x3328x1664 2560x3072x1536 2816x4096x2560 2944x3840x2944 3584x2048x3712 3840x3072x3072 4096x2816x2560 4096x4096x4096 8192x8192x4096" TO=120 \
	bash scripts/exp/time-files.sh build/var/p256.cu build/var/p256m.cu

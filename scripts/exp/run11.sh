#!/usr/bin/env bash
# run11: sm_90a with one k tile of wgmma in flight across the barrier
# (wait<1>, copies S-2 tiles ahead): stages / tiles, nn, vs cuBLAS.
cd "$(dirname "$0")/../.."
CONFIGS="w90_s4|--target sm_90a --stages 4
w90_s3|--target sm_90a --stages 3
w90_b32_s6|--target sm_90a --block 128x128x32 --mma 64x128x32 --stages 6
w90_b32_s5|--target sm_90a --block 128x128x32 --mma 64x128x32 --stages 5
w90_n256_s4|--target sm_90a --block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 4
w90_n256_b32_s6|--target sm_90a --block 128x256x32 --warp 64x256 --mma 64x256x32 --stages 6
w90_m256_s4|--target sm_90a --block 256x128x64 --warp 64x128 --stages 4" \
bash scripts/tile-sweep.sh 2048x2048x2048 4096x4096x4096 8192x8192x8192 3072x3072x2048 1536x1536x4096

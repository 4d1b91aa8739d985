#!/usr/bin/env bash
# run13: sm_90a tiles for grids smaller than the GPU (small-variant
# candidates), nn, vs cuBLAS.
cd "$(dirname "$0")/../.."
CONFIGS="w90_default|--target sm_90a
w90_64x64_s4|--target sm_90a --block 64x64x64 --warp 64x64 --stages 4
w90_64x128_s4|--target sm_90a --block 64x128x64 --warp 64x128 --stages 4
w90_128x64_s4|--target sm_90a --block 128x64x64 --warp 64x64 --stages 4
w90_64x64_s6|--target sm_90a --block 64x64x64 --warp 64x64 --stages 6" \
bash scripts/tile-sweep.sh 256x1536x3456 896x768x4096 640x256x2176 1024x512x2048 512x768x256 1536x1536x1024 1024x1024x1024

#!/usr/bin/env bash
# run12: sm_90a, wgmma waited right after issue (default) vs one k tile in
# flight (--mma-inflight on), nn, vs cuBLAS.
cd "$(dirname "$0")/../.."
CONFIGS="w90_s3|--target sm_90a
w90_s2|--target sm_90a --stages 2
w90_n256_s3|--target sm_90a --block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 3
w90_if_n256_s4|--target sm_90a --block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 4 --mma-inflight on
w90_if_s4|--target sm_90a --stages 4 --mma-inflight on
w90_b64x128_s4|--target sm_90a --block 64x128x64 --warp 64x128 --stages 4" \
bash scripts/tile-sweep.sh 2048x2048x2048 4096x4096x4096 8192x8192x8192 3072x3072x2048 1536x1536x4096 1024x1024x1024

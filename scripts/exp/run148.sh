#!/usr/bin/env bash
# run148 (session 17): one-warpgroup persistent blocks (64xN) with one k
# tile of wgmma in flight, stage counts, and 128x192 in flight, at the 34
# small paper grids, against cuBLAS and the default.
cd "$(dirname "$0")/../.."
B="--persistent on --split-k 1"
export VARS="def:
p64x192s6i:--block 64x192x64 --warp 64x192 --stages 6 $B @inflight
p64x192s4i:--block 64x192x64 --warp 64x192 --stages 4 $B @inflight
p64x192s3i:--block 64x192x64 --warp 64x192 --stages 3 $B @inflight
p64x256s5i:--block 64x256x64 --warp 64x256 --stages 5 $B @inflight
p64x128s6i:--block 64x128x64 --warp 64x128 --stages 6 $B @inflight
p64x96s6i:--block 64x96x64 --warp 64x96 --mma 64x96x64 --stages 6 $B @inflight
p128x192s4i:--block 128x192x64 --warp 64x192 --stages 4 $B @inflight"
TAG=run148 bash scripts/exp/run144.sh

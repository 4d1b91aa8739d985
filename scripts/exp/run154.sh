#!/usr/bin/env bash
# run154 (session 17): two accumulator chains per warpgroup (a macro-MMA
# of half the warp tile's n) against one, with and without wgmma in flight,
# at the 34 small paper grids, against cuBLAS and the default.
cd "$(dirname "$0")/../.."
B="--persistent on --split-k 1"
export VARS="def:
n192:--block 64x192x64 --warp 64x192 --stages 6 $B --mma-inflight on
n192c2:--block 64x192x64 --warp 64x192 --mma 64x96x64 --stages 6 $B --mma-inflight on
p128:--stages 4 $B
p128c2:--mma 64x64x64 --stages 4 $B
p128c2i:--mma 64x64x64 --stages 5 $B --mma-inflight on
p192c2:--block 128x192x64 --warp 64x192 --mma 64x96x64 --stages 4 $B"
TAG=run154 bash scripts/exp/run144.sh

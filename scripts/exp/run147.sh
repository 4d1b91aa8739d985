#!/usr/bin/env bash
# run147 (session 17): one k tile of wgmma in flight in the persistent
# consumers (inflight_ws.py) for 128x96, 128x128 and 64x192 blocks,
# unsplit, at the 34 small paper grids, against cuBLAS and the default.
cd "$(dirname "$0")/../.."
B="--persistent on --split-k 1"
export VARS="def:
p96s4:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 4 $B
p96s4i:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 4 $B @inflight
p96s6i:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 6 $B @inflight
p128s4:--stages 4 $B
p128s4i:--stages 4 $B @inflight
p64x192i:--block 64x192x64 --warp 64x192 --stages 6 $B @inflight
p192x96i:--block 192x96x64 --warp 64x96 --mma 64x96x64 --stages 4 $B @inflight"
TAG=run147 bash scripts/exp/run144.sh

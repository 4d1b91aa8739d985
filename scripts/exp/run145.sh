#!/usr/bin/env bash
# run145 (session 17): 128x96 and 128x80 persistent blocks (wgmma n = 96 /
# 80; B's second 64-column block half used) at the 34 small paper grids
# and the 12 bigger ones of 132-263 tiles, against cuBLAS and the default.
cd "$(dirname "$0")/../.."
B="--persistent on --split-k 1"
export VARS="def:
p96s4:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 4 $B
p96s6:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 6 $B
p80s4:--block 128x80x64 --warp 64x80 --mma 64x80x64 --stages 4 $B
p80s6:--block 128x80x64 --warp 64x80 --mma 64x80x64 --stages 6 $B
p96s6a:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 6 --persistent on
p80s6a:--block 128x80x64 --warp 64x80 --mma 64x80x64 --stages 6 --persistent on
p64x192s6:--block 64x192x64 --warp 64x192 --stages 6 $B"
TAG=run145 bash scripts/exp/run144.sh

#!/usr/bin/env bash
# run146 (session 17): 128x96 and 128x80 persistent blocks with B in exact
# 32- / 16-column swizzled blocks (SWZ 3 / 4: no padding) and 192x96
# blocks at the 34 small paper grids, against cuBLAS and the default
# (128x96 through cp.async was refused: 768 16-byte units of B's tile over
# 256 threads).
cd "$(dirname "$0")/../.."
B="--persistent on --split-k 1"
export VARS="def:
p96s4:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 4 $B
p96s6:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 6 $B
p80s4:--block 128x80x64 --warp 64x80 --mma 64x80x64 --stages 4 $B
p80s6:--block 128x80x64 --warp 64x80 --mma 64x80x64 --stages 6 $B
p96s4a:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 4 --persistent on
p192x96:--block 192x96x64 --warp 64x96 --mma 64x96x64 --stages 4 $B"
TAG=run146 bash scripts/exp/run144.sh

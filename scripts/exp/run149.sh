#!/usr/bin/env bash
# run149 (session 17): correctness of 128x96 / 128x80 blocks (wgmma n = 96
# / 80, B in 32- / 16-column swizzled blocks) and of --mma-inflight on in
# persistent kernels: gpu-check (4 layouts, ragged and exact sizes) and the
# fused checkers; then var_time with the generator's --mma-inflight on
# (64x192 blocks) against the python patch of run147/148.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p $O
ONLY='sm90a_(n96|n96np|n80|pinfl)$' OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check rc=$?"; tail -3 $O/gc.txt
grep -E "^(PASS|FAIL)" build/gpu/results.txt > $O/check-n96-inflight-run149.log; rm -rf $O/gc
OUT=$O/fc SIZES_SM90A="1000x3000x1920 640x2048x3584 2048x768x2816 256x512x512" bash scripts/gpu-fused-check.sh --only 'sm90a_(n96|pinfl)$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt
grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-n96-inflight-run149.log; rm -rf $O/fc
B="--persistent on --split-k 1"
export VARS="def:
p64x192s6i:--block 64x192x64 --warp 64x192 --stages 6 $B @inflight
p64x192s6g:--block 64x192x64 --warp 64x192 --stages 6 $B --mma-inflight on
p96s4:--block 128x96x64 --warp 64x96 --mma 64x96x64 --stages 4 $B"
TAG=run149 bash scripts/exp/run144.sh

#!/usr/bin/env bash
# run150 (session 17): the narrow variant (64x192 persistent blocks, one k
# tile of wgmma in flight) in the default plan: the fused sm_90a checkers
# (every function, both positions, 4 layouts) and gpu-check (sm90a, and
# the pinfl / n96 configurations) at sizes whose plan launches it.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p $O
OUT=$O/fc SIZES_SM90A="640x2048x3584 2048x768x2816 1408x896x1664" bash scripts/gpu-fused-check.sh --only 'sm90a$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt
grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-narrow-run150.log; rm -rf $O/fc
ONLY='sm90a(_pinfl)?$' OUT=$O/gc SIZES_SM90A="640x2048x3584 2048x768x2816 1408x896x1664 384x3584x2944 2944x384x3200 512x2304x1792 640x2176x2304 1000x3000x512 256x128x128" \
	bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check rc=$?"; tail -3 $O/gc.txt
grep -E "^(PASS|FAIL)" build/gpu/results.txt > $O/check-narrow-run150.log; rm -rf $O/gc

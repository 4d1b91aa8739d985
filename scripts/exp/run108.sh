#!/usr/bin/env bash
# run108 (session 11): the 128x128 persistent kernels with a register
# prologue (ReLU+GEMM) without the producer warpgroup (288 threads, one
# producer warp, no setmaxnreg; build-exp: pm_emit_wg only for blocks
# bigger than 128x128): the fused prologue checkers at the sizes of
# run104, then the benchmark at the 34 grids under 132 tiles, 2 rounds,
# build/polymma against build-exp/polymma.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=build-exp/polymma SIZES_SM90A="1408x896x1664 2048x768x2816 1024x768x2048 896x768x4096 640x256x2176" \
	OUT=$O/fc bash scripts/gpu-fused-check.sh --only '^pro_.*_sm90a$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
grep -c "__launch_bounds__(288, 1)" build/fused/pro_relu_nn_sm90a.cu
cp $O/fc/fused.log $O/fused-nowg-session11-run108.log 2>/dev/null
rm -rf $O/fc $O/fc.txt
M="640x2048x3584 384x3584x2944 640x2176x2304 2048x768x2816 768x2176x1280 2688x640x2560 896x2176x2944 512x3968x1664 640x3200x2944 2304x896x3200 1664x1280x3712"
OUT=$O bash scripts/exp/abn-bench.sh run108 2 base=build/polymma nowg=build-exp/polymma -- \
	$(for s in $M; do printf -- '--size %s ' $s; done) $(bash scripts/exp/small-grids.sh)
python3 scripts/exp/abn-cmp.py "$O" base nowg > "$O/cmp.txt"
rm -f "$O"/bench-*.txt
grep -E "geomean" "$O/cmp.txt"

#!/usr/bin/env bash
# run104 (session 11): the register prologue's A fragments one k tile ahead
# in the persistent kernels (ra_pipe.py through polymma-ra.sh):
# PART=1 correctness, the fused prologue checkers (every function, 4
# layouts, sm_90a) at sizes run by the persistent kernel (77 and 96 tiles),
# the split one in clusters (1024x768x2048), through the workspace
# (896x768x4096) and the small variant (640x256x2176); PART=2 the
# benchmark at the 23 grids under 79 tiles and the 11 of 79-131 tiles,
# build/polymma against polymma-ra.sh, 2 rounds (GEMM, bias+ReLU and Add
# do not change: controls).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	POLYMMA=scripts/exp/polymma-ra.sh SIZES_SM90A="1408x896x1664 2048x768x2816 1024x768x2048 896x768x4096 640x256x2176" \
		OUT=$O/fc bash scripts/gpu-fused-check.sh --only '^(pro|epi_relu)_.*_sm90a$' > $O/fc.txt 2>&1
	echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
	grep -l pm_ra_issue build/fused/pro_relu_nn_sm90a.cu
	cp $O/fc/fused.log $O/fused-ra-session11-run104.log 2>/dev/null
	rm -rf $O/fc $O/fc.txt
else
	M="640x2048x3584 384x3584x2944 640x2176x2304 2048x768x2816 768x2176x1280 2688x640x2560 896x2176x2944 512x3968x1664 640x3200x2944 2304x896x3200 1664x1280x3712"
	OUT=$O bash scripts/exp/abn-bench.sh run104 2 base=build/polymma ra=scripts/exp/polymma-ra.sh -- \
		$(for s in $M; do printf -- '--size %s ' $s; done) $(bash scripts/exp/small-grids.sh)
	python3 scripts/exp/abn-cmp.py "$O" base ra > "$O/cmp.txt"
	rm -f "$O"/bench-*.txt
	grep -E "geomean" "$O/cmp.txt"
fi

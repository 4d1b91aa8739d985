#!/usr/bin/env bash
# run71 (session 9): the plan for split-K in clusters, after run70: build
# (clusters where the workspace split's chunks of 16 k tiles fit, the
# half-SM rule) against build-exp (chunks of 16 k tiles of the unit's work,
# all contractions together: 8 per contraction for Add(GEMM, GEMM); no
# half-SM rule for clusters), the paper's 23 grids under 79 tiles, 2 rounds.
# build-exp: CFLAGS='-O2 -g -DPM_CL_HALF="\"!cl && \""' on that working
# tree (the macro since removed: the kept rule counts a unit once per
# contraction instead).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ=""
for s in 3072x256x3584 3200x256x3712 512x1920x896 1920x384x512 1792x256x1536 \
	128x3840x2816 896x768x3200 384x2688x2432 256x1536x3456 1024x768x1920 \
	640x256x2176 640x1792x256 1408x896x1664 1408x768x3712 896x768x4096 \
	2944x384x3200 1664x640x3840 2048x128x2432 512x2304x1792 1920x512x3584 \
	3456x128x3456 3968x128x1408 512x1536x384; do SZ="$SZ --size $s"; done
# shellcheck disable=SC2086
OUT=$O bash scripts/exp/abn-bench.sh run71 ${ROUNDS:-2} new=build/polymma exp=build-exp/polymma -- $SZ
python3 scripts/exp/abn-cmp.py "$O" new exp > "$O/cmp.txt"
rm -f "$O"/bench-*.txt

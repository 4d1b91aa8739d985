#!/usr/bin/env bash
# run113 (session 12): run112 found the split persistent kernel through
# the workspace faster than in clusters at the sizes the plan splits in
# clusters. The benchmark at the 23 grids under 79 tiles, 2 rounds: HEAD
# (old) against --cluster 1 (nocl: every split through the workspace)
# and --cluster 1 with chunks of 10 k tiles or more (nocl10: PM_MIN_PKT
# 10); the GPU checks of nocl10 first.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=build-exp/pm-nocl10 SIZES_SM90A="256x1536x3456 128x3840x2816 384x2688x2432 3456x128x3456 1408x768x3712 640x256x2176" \
	ONLY='^sm90a$' OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check nocl10 rc=$?"; tail -1 $O/gc.txt; grep FAIL $O/gc.txt | head
rm -rf $O/gc $O/gc.txt
OUT=$O bash scripts/exp/abn-bench.sh run113 2 old=build/polymma nocl=build-exp/pm-nocl nocl10=build-exp/pm-nocl10 -- \
	$(bash scripts/exp/small-grids.sh)
rm -f "$O"/bench-*-[12].txt

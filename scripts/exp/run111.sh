#!/usr/bin/env bash
# run111 (session 12): the tensor maps prefetched at the kernel's start
# (prefetch.tensormap beside the barriers' initialisation; build/polymma)
# against HEAD before (build-old/polymma), and with it clusters of 12 k
# tiles of a unit's work instead of 16 (build-exp/polymma): PART=1 the
# GPU checks of the prefetch build at a few sizes; PART=2 the benchmark
# at the 23 grids under 79 tiles and the 11 of 79-131 tiles, 2 rounds.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	SIZES_SM90A="1024x768x2048 512x640x4096 896x768x4096 2304x2304x1024 3200x1408x1408 640x2048x3584 2048x128x2432 1024x768x1920" \
		ONLY='^sm90a$' OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
	echo "gpu-check rc=$?"; tail -1 $O/gc.txt; grep FAIL $O/gc.txt | head
	POLYMMA=build-exp/polymma SIZES_SM90A="1024x768x1920 2048x128x2432 640x256x2176" \
		ONLY='^sm90a$' OUT=$O/gc2 bash scripts/gpu-check.sh > $O/gc2.txt 2>&1
	echo "gpu-check exp rc=$?"; tail -1 $O/gc2.txt; grep FAIL $O/gc2.txt | head
	rm -rf $O/gc $O/gc2 $O/gc.txt $O/gc2.txt
fi
if [ "${PART:-1}" = 2 ]; then
	M="640x2048x3584 384x3584x2944 640x2176x2304 2048x768x2816 768x2176x1280 2688x640x2560 896x2176x2944 512x3968x1664 640x3200x2944 2304x896x3200 1664x1280x3712"
	OUT=$O bash scripts/exp/abn-bench.sh run111 2 old=build-old/polymma pf=build/polymma ckt12=build-exp/polymma -- \
		$(for s in $M; do printf -- '--size %s ' $s; done) $(bash scripts/exp/small-grids.sh)
	python3 scripts/exp/abn-cmp.py "$O" old pf > "$O/bench-pf-session12-run111-cmp.txt"
	python3 scripts/exp/abn-cmp.py "$O" old ckt12 > "$O/bench-ckt12-session12-run111-cmp.txt"
	rm -f "$O"/bench-*-[12].txt
	grep -E "geomean" "$O"/bench-*-cmp.txt
fi

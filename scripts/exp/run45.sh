#!/usr/bin/env bash
# run45: grids of several waves whose last is at most half full: the split
# persistent kernel runs the full waves' tiles whole and splits the tail's.
# PART=1: gpu-check sm_90a (2304x2304x1024: 324 tiles, a tail of 60 in 2
# chunks) and the fused sm_90a checks at 2304x2304x1024 and 640x896x3072;
# PART=2: the benchmark at the paper sizes it changes, this build against
# build-old/polymma (the commit before) in one session.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ="--size 1664x2816x2432 --size 3968x1152x1408 --size 3456x1920x3072 --size 2688x2432x4096 --size 4096x1280x3456 --size 2816x1920x1792 --size 2048x3328x1664 --size 3584x1920x2688 --size 3456x2816x3840 --size 2304x3200x2176 --size 4096x3712x3328 --size 1664x4096x2176"
if [ "${PART:-1}" = 1 ]; then
	ONLY='sm90a$' bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
	tail -1 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -5
	cp build/gpu/gpu-check.log "$O/" 2>/dev/null
	SIZES_SM90A="2304x2304x1024 640x896x3072" bash scripts/gpu-fused-check.sh --only '_sm90a$' > "$O/fused.txt" 2>&1
	tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -5
	grep -hE '^(PASS|FAIL)|passed' build/fused/*.run.log > "$O/fused-runs.txt"
else
	for v in new old; do
		P=build/polymma; [ $v = old ] && P=build-old/polymma
		# shellcheck disable=SC2086
		POLYMMA=$P OUT=$O/b-$v GEN_ARGS="--target sm_90a" POLYMMA_DESC="run45 $v" bash bench/run.sh $SZ > "$O/bench-$v.txt" 2>&1
		echo "$v rc=$?"; cp "$O/b-$v/bench.csv" "$O/bench-$v.csv"; rm -rf "$O/b-$v"
	done
fi

#!/usr/bin/env bash
# run47: the tail rule for a prologue through the MMA's registers
# (ReLU+GEMM): build-exp/polymma generates it with PM_EXP_TAIL_PRO set
# (an experiment's switch, not in the committed generator), without it as
# committed; the benchmark at run45's 12 sizes, both in one session.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ="--size 1664x2816x2432 --size 3968x1152x1408 --size 3456x1920x3072 --size 2688x2432x4096 --size 4096x1280x3456 --size 2816x1920x1792 --size 2048x3328x1664 --size 3584x1920x2688 --size 3456x2816x3840 --size 2304x3200x2176 --size 4096x3712x3328 --size 1664x4096x2176"
for v in new old; do
	if [ $v = new ]; then export PM_EXP_TAIL_PRO=1; else unset PM_EXP_TAIL_PRO; fi
	# shellcheck disable=SC2086
	POLYMMA=build-exp/polymma OUT=$O/b-$v GEN_ARGS="--target sm_90a" POLYMMA_DESC="run47 $v" bash bench/run.sh $SZ > "$O/bench-$v.txt" 2>&1
	echo "$v rc=$?"; cp "$O/b-$v/bench.csv" "$O/bench-$v.csv"; rm -rf "$O/b-$v"
done

#!/usr/bin/env bash
# run133 (session 15): the tall blocks' rate in ReLU+GEMM's cost model,
# 1.00 (build/polymma) against 1.02 (build-exp/polymma-t1020) of the big
# kernel's, with the benchmark (rotated inputs, single calls) at the 5
# paper sizes where the two differ (tall or two big blocks per SM) and 3
# controls, two rounds alternating.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ="--size 3072x1152x1280 --size 2304x3200x2176 --size 1024x3968x4096 --size 3584x1920x2688 --size 2048x1664x3200 --size 1920x3840x768 --size 3584x3072x640 --size 2432x1280x1664"
for r in 1 2; do for v in t1000 t1020; do
	P=build/polymma; [ $v = t1020 ] && P=build-exp/polymma-t1020
	POLYMMA=$P OUT=$O/b$v$r GEN_ARGS="--target sm_90a" POLYMMA_DESC="session 15 tall rate $v" \
		bash bench/run.sh $SZ > $O/b$v$r.txt 2>&1
	echo "$v $r rc=$?"
	grep ",relu_gemm,[0-9]*,[0-9]*,[0-9]*,polymma," $O/b$v$r/bench.csv | cut -d, -f3-5,8,10 | sed "s/^/$v$r /"
done; done

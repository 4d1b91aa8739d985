#!/usr/bin/env bash
# ab-bench.sh TAG --size MxNxK ...: the benchmark (bench/run.sh, sm_90a) at
# the given sizes, build-old/polymma ("old") then build/polymma ("new") in
# one session; $OUT/bench-{old,new}.csv and .txt (OUT: default build).
cd "$(dirname "$0")/../.."
O=${OUT:-build} tag=$1
shift
for v in old new; do
	P=build/polymma; [ $v = old ] && P=build-old/polymma
	POLYMMA=$P OUT=$O/b-$v GEN_ARGS="--target sm_90a" POLYMMA_DESC="$tag $v" \
		bash bench/run.sh "$@" > "$O/bench-$v.txt" 2>&1
	echo "$v rc=$?"; cp "$O/b-$v/bench.csv" "$O/bench-$v.csv"; rm -rf "$O/b-$v"
done

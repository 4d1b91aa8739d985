#!/usr/bin/env bash
# abn-bench.sh TAG ROUNDS NAME=POLYMMA... -- --size MxNxK ...: the benchmark
# (bench/run.sh, sm_90a) at the given sizes for each polymma binary, the
# binaries interleaved round by round (ROUNDS rounds) in one session;
# $OUT/bench-NAME-R.csv (OUT: default build). abn-cmp.py compares them.
cd "$(dirname "$0")/../.."
O=${OUT:-build} tag=$1 rounds=$2
shift 2
vs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do vs+=("$1"); shift; done
shift
for r in $(seq 1 "$rounds"); do
	for v in "${vs[@]}"; do
		n=${v%%=*} P=${v#*=}
		POLYMMA=$P OUT=$O/b-$n GEN_ARGS="--target sm_90a" POLYMMA_DESC="$tag $n" \
			bash bench/run.sh "$@" > "$O/bench-$n-$r.txt" 2>&1
		echo "$n round $r rc=$?"; cp "$O/b-$n/bench.csv" "$O/bench-$n-$r.csv"; rm -rf "$O/b-$n"
	done
done

#!/usr/bin/env bash
# run77 (session 9, final): the full benchmark of the final build (the
# split in clusters with its end barrier, the persistent kernel from 1/2
# tile per SM); POLYMMA: the build to run (default build/polymma).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=${POLYMMA:-build/polymma} OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 9 final: split-K in clusters through distributed shared memory, the persistent kernel from 1/2 tile per SM (run77)" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; tail -12 "$O/bench.txt"

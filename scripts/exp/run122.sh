#!/usr/bin/env bash
# run122 (session 13, final): the full benchmark of the final build (ragged
# output tiles: M, N need not be multiples of the block tile; the LLM
# set's M = 16 shapes now run).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=${POLYMMA:-build/polymma} OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 13 final: ragged output tiles (run122)" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; tail -12 "$O/bench.txt"

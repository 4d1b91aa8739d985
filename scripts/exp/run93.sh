#!/usr/bin/env bash
# run93 (session 10, final): the full benchmark of the final build (the
# workspace fixup's CUTLASS-style counter, the shared-memory limit raised
# once per device).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=${POLYMMA:-build/polymma} OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 10 final: the split-K workspace counter as CUTLASS's barriers, the shared-memory limit raised once per device (run93)" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; tail -12 "$O/bench.txt"

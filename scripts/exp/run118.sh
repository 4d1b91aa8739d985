#!/usr/bin/env bash
# run118 (session 12, final): the full benchmark of the final build (the
# workspace before clusters at equal chunks, the tensor maps prefetched,
# the epilogue's inputs two columns per load).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=${POLYMMA:-build/polymma} OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 12 final: clusters only for more chunks than the workspace, tensor-map prefetch, paired epilogue loads (run118)" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; tail -12 "$O/bench.txt"

#!/usr/bin/env bash
# run130 (session 14, final): the full benchmark with the mid variant
# (128x192 persistent blocks) for every idiom, ReLU+GEMM's register
# prologue included. POLYMMA: the generator (default build/polymma).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=${POLYMMA:-build/polymma} OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 14 final: 128x192 persistent blocks (run130)" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; tail -12 "$O/bench.txt"

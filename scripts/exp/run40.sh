#!/usr/bin/env bash
# run40: the wide persistent variant with one 64x256 macro-MMA per warp.
# PART=1: gpu-check and fused checks of sm_90a (the wide variant at 4096^3
# and, fused, 2048x4096x256); PART=2: the sm_90a benchmark.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	OUT=$O NOBENCH=1 ONLY=sm90a FUSED='_sm90a(_inflight|_cpasync|_persist)?$' bash scripts/exp/check-bench.sh
else
	OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="sm_90a session 6 final: persistent variants, the wide one with 64x256 macro-MMAs (run40)" bash bench/run.sh > "$O/bench-run.txt" 2>&1
	echo "bench rc=$?"; sed -n '/## Set paper/,/## Throughput/p' "$O/b90/summary.md"
fi

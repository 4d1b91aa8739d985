#!/usr/bin/env bash
# run157 (session 18): the register prologue's k16 steps interleaved
# (ldmatrix and the prologue of step kk + 16 while step kk's wgmma runs):
# the fused sm_90a prologue checkers (every function, 4 layouts, the
# variants), then the full benchmark.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
OUT=$O/fused bash scripts/gpu-fused-check.sh --only '^pro.*sm90a' > $O/fused.txt 2>&1
echo "fused rc=$?"; tail -2 $O/fused.txt; grep FAIL $O/fused.txt | head
POLYMMA=build/polymma OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 18: register prologue k16 steps interleaved with the wgmma (${TAG:-run157})" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; sed -n '/## Set paper/,/## Set square/p' $O/b90/summary.md

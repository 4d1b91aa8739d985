#!/usr/bin/env bash
# run38: the persistent kernel also for 3/5 to 1 tile per SM (no split-K,
# no small variant there), for Add(GEMM, GEMM) (one ring for both
# contractions) and, on those grids only, a prologue through the MMA's
# registers. Part 1 (PART=1): gpu-check and fused checks of sm_90a, then
# the quick benchmark with --persistent on (every idiom persistent, the
# gate checks Add's persistent kernel). Part 2: the sm_90a benchmark.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	OUT=$O NOBENCH=1 ONLY=sm90a FUSED='_sm90a(_inflight|_cpasync|_persist)?$' bash scripts/exp/check-bench.sh
	OUT=$O/bq GEN_ARGS="--target sm_90a --persistent on" POLYMMA_DESC="sm_90a --persistent on (run38)" bash bench/run.sh --quick > "$O/bench-quick.txt" 2>&1
	echo "quick bench rc=$?"; sed -n '/## All sizes/,/## Set paper/p' "$O/bq/summary.md"
else
	OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="sm_90a session 6: persistent variants, also for 3/5-1 tile per SM and Add (run38)" bash bench/run.sh > "$O/bench-run.txt" 2>&1
	echo "bench rc=$?"; sed -n '/## Set paper/,/## Set llm/p' "$O/b90/summary.md"
fi

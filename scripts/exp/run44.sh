#!/usr/bin/env bash
# run44: the split persistent kernel with its plan (chunks of 16 k tiles or
# more, units filling half the SMs) and the plain entry's kept workspace.
# PART=1: gpu-check (every sm_90a configuration, sm_80 and its split-K)
# and the fused sm_90a checks; PART=2: the sm_90a benchmark.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	OUT=$O NOBENCH=1 ONLY='sm90a|sm80$|sm80_split3' FUSED='_sm90a(_inflight|_cpasync|_persist)?$' bash scripts/exp/check-bench.sh
else
	OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="sm_90a session 7: split-K in the persistent kernel for grids under 3/5 tile per SM, the plain entry's kept workspace (run44)" bash bench/run.sh > "$O/bench-run.txt" 2>&1
	echo "bench rc=$?"; sed -n '/## Set paper/,/## Throughput/p' "$O/b90/summary.md"
fi

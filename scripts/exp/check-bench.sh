#!/usr/bin/env bash
# check-bench.sh: gpu-check, the fused checks, then (unless NOBENCH=1) the
# sm_90a benchmark into $OUT/b90 -- the session-5 runs (run21 ... run29)
# with their parameters:
#   ONLY   gpu-check configurations (regex; empty: every one)
#   FUSED  gpu-fused-check.sh --only regex
#   DESC   the benchmark's description of the build
cd "$(dirname "$0")/../.."
O=${OUT:-build}
ONLY=${ONLY:-} bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
tail -1 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -5
cp build/gpu/gpu-check.log "$O/" 2>/dev/null
bash scripts/gpu-fused-check.sh --only "$FUSED" > "$O/fused.txt" 2>&1
tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -5
[ "${NOBENCH:-0}" = 1 ] && exit 0
OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="${DESC:-sm_90a}" bash bench/run.sh > "$O/bench-run.txt" 2>&1
echo "bench rc=$?"
sed -n '/## Set paper/,/## Set llm/p' "$O/b90/summary.md"

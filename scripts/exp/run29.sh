#!/usr/bin/env bash
# run29: the medium variant (64x128 blocks): gpu-check and fused checks of
# sm_90a (TMA, --tma off, --mma-inflight on), then the sm_90a benchmark.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
ONLY=sm90a bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
tail -1 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -5
cp build/gpu/gpu-check.log "$O/" 2>/dev/null
bash scripts/gpu-fused-check.sh --only '_sm90a(_inflight|_cpasync)?$' > "$O/fused.txt" 2>&1
tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -5
OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="${DESC:-sm_90a}" bash bench/run.sh > "$O/bench-run.txt" 2>&1
echo "bench rc=$?"
sed -n '/## Set paper/,/## Set llm/p' "$O/b90/summary.md"

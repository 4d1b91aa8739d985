#!/usr/bin/env bash
# run26: final checks of session 5: gpu-check (every configuration), the
# fused checks (sm_90a with TMA, --tma off, --mma-inflight on; sm_80 nn/tt
# and its prologues), then the sm_90a benchmark into $OUT/b90.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
tail -1 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -5
cp build/gpu/gpu-check.log "$O/" 2>/dev/null
bash scripts/gpu-fused-check.sh --only '_sm90a(_inflight|_cpasync)?$|_(nn|tt)_sm80$|^pro_.*_sm80$' > "$O/fused.txt" 2>&1
tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -5
OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="${DESC:-sm_90a}" bash bench/run.sh > "$O/bench-run.txt" 2>&1
echo "bench rc=$?"
sed -n '/## Set paper/,/## Set llm/p' "$O/b90/summary.md"

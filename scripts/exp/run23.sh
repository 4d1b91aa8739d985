#!/usr/bin/env bash
# run23: TMA + raster order (no last-wave split): gpu-check (every
# configuration), fused checks (sm_90a, --tma off, sm_80 nn), then the
# sm_90a benchmark into $OUT/b90.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
tail -1 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -5
cp build/gpu/gpu-check.log "$O/" 2>/dev/null
bash scripts/gpu-fused-check.sh --only '_sm90a(_cpasync)?$|_nn_sm80$' > "$O/fused.txt" 2>&1
tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -5
OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="${DESC:-sm_90a}" bash bench/run.sh > "$O/bench-run.txt" 2>&1
echo "bench rc=$?"
sed -n '/## Set paper/,/## Set square/p' "$O/b90/summary.md"

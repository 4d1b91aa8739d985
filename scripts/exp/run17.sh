#!/usr/bin/env bash
# run17: final checks of session 4 (the unsplit kernel is the --split-k 1
# one): gpu-check (every configuration), the fused checks of sm_90a, sm_80
# nn/tt and the prologues, then the sm_90a benchmark into $OUT/b90.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
tail -1 "$O/gpu-check.txt"
bash scripts/gpu-fused-check.sh --only '_sm90a(_inflight)?$|_(nn|tt)_sm80$|^pro_.*_sm80$' > "$O/fused.txt" 2>&1
tail -1 "$O/fused.txt"
cp build/gpu/gpu-check.log "$O/" 2>/dev/null
OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="${DESC:-sm_90a}" bash bench/run.sh > /dev/null 2>&1
echo "bench rc=$?"
sed -n '/## Set paper/,/## Set square/p' "$O/b90/summary.md"

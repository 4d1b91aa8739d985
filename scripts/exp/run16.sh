#!/usr/bin/env bash
# run16: A's prologue through the wgmma register operand (--pro-regs):
# the fused prologue checks on sm_90a (and the overlapped B prologues),
# then the sm_90a benchmark into $OUT/b90.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
bash scripts/gpu-fused-check.sh --only '^pro_.*_sm90a(_inflight)?$|^epi_chain_(nn|tt)_sm90a$' > "$O/fused.txt" 2>&1
tail -1 "$O/fused.txt"
cp build/fused/fused.log "$O/" 2>/dev/null
OUT=$O/b90 GEN_ARGS="--target sm_90a" POLYMMA_DESC="${DESC:-sm_90a}" bash bench/run.sh > /dev/null 2>&1
echo "bench rc=$?"
sed -n '/## Set paper/,/## Set square/p' "$O/b90/summary.md"

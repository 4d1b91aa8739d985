#!/usr/bin/env bash
# run14: split-K correctness on the GPU: every gpu-check configuration (the
# default auto split, and k always in 3 / 5 chunks), the workspace entry,
# then the fused checks on sm_80 and sm_90a (512x256x1024 splits there).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
tail -3 "$O/gpu-check.txt"
bash scripts/gpu-fused-check.sh --only "${FUSED:-_(nn|tt)_sm(80|90a)\$}" > "$O/fused.txt" 2>&1
tail -3 "$O/fused.txt"

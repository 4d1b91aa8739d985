#!/usr/bin/env bash
# run92 (session 10): the final build's correctness: gpu-check's sm_80,
# sm_90a and sm90a_nocl configurations and the fused checkers (sm_80,
# sm_90a, default sizes).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
ONLY='^sm80$|^sm90a$|sm90a_nocl' OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check rc=$?"; tail -1 $O/gc.txt; grep FAIL $O/gc.txt | head
OUT=$O/fc bash scripts/gpu-fused-check.sh --only '_sm90a$|_sm80$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
cp $O/gc/gpu-check.log $O/gpu-check-session10-run92.log 2>/dev/null
cp $O/fc/fused.log $O/fused-session10-run92.log 2>/dev/null
rm -rf $O/gc $O/fc $O/gc.txt $O/fc.txt

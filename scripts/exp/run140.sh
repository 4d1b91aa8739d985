#!/usr/bin/env bash
# run140 (session 16): the sq variant (192x192 persistent blocks) in the
# default files, where the plan launches it: 3840x1152x512 (exact),
# 3456x1280x768 (N ragged), 3968x1152x448 (M and N ragged). The fused sm_90a
# checkers (every function, both positions, 4 layouts) and gpu-check's
# sm90a GEMM (4 layouts); plan printed by the probe first.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
Z="3840x1152x512 3456x1280x768 3968x1152x448"
OUT=$O/fc SIZES_SM90A="$Z" bash scripts/gpu-fused-check.sh --only 'sm90a$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt
grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-sq-run140.log; rm -rf $O/fc
ONLY='sm90a$' OUT=$O/gc SIZES_SM90A="$Z" bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check rc=$?"; tail -2 $O/gc.txt
grep -E "^(PASS|FAIL)" build/gpu/results.txt > $O/check-sq-run140.log; rm -rf $O/gc

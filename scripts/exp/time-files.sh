#!/usr/bin/env bash
# time-files.sh F.cu ...: build tests/gpu/check_gemm.cu (nn, 128x128x64
# tiles, sm_90a) against each generated kernel file and time it against
# cuBLAS at a few sizes (hand-edited variants of one generated kernel).
cd "$(dirname "$0")/../.."
SIZES=${SIZES:-2048x2048x2048 4096x4096x4096 3072x3072x2048 1536x1536x4096}
for f in "$@"; do
	bash scripts/exp/build-check.sh "$f" gemm_nn "${BM:-128}" "${BN:-128}" &
done
wait
for f in "$@"; do
	n=$(basename "$f" .cu)
	timeout ${TO:-120} "build/var/$n" --time --tag "$n" $SIZES 2>&1 | grep -E "^(TIME|FAIL)|passed"
done

#!/usr/bin/env bash
# run69 (session 9): split-K in clusters, the partials through distributed
# shared memory. PART=1: how many clusters of s blocks the GPU holds; the
# GEMM checker on sm_90a (default plan, and --cluster 1: the workspace
# fixup) with sizes whose plans split in 2 .. 8 chunks; the fused checkers
# on sm_90a (640x896x3072: 3 chunks). PART=2: the benchmark on the paper's
# 23 grids under 79 tiles, build-old/polymma (HEAD before) against
# build/polymma, one session.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	nvcc -O2 -o build/ncl_probe scripts/exp/ncl_probe.cu && ./build/ncl_probe | tee "$O/ncl.txt"
	SIZES_SM90A="896x768x4096 1024x768x2048 384x1408x4096 640x640x5120 256x1408x6144 384x768x7168 384x384x8192 1024x512x2048 2304x2304x1024" \
		ONLY='^sm90a$' OUT=$O bash scripts/gpu-check.sh > "$O/check.txt" 2>&1
	echo "gpu-check rc=$?"; tail -3 "$O/check.txt"
	SIZES_SM90A="640x896x3072 384x384x8192" OUT=$O/fused \
		bash scripts/gpu-fused-check.sh --only '_sm90a$' > "$O/fused.txt" 2>&1
	echo "fused rc=$?"; tail -3 "$O/fused.txt"
else
	SZ=$(bash scripts/exp/small-grids.sh)
	# shellcheck disable=SC2086
	OUT=$O bash scripts/exp/ab-bench.sh run69 $SZ
fi

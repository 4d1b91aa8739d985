#!/usr/bin/env bash
# run53: clusters of two blocks sharing B by TMA multicast (--cluster 2)
# against none (--cluster 1), the persistent kernels by hand-picked
# variant (--persistent on, 128x128 and 128x256), nn, cuBLAS in the same
# process; PART=2: gpu-check of the sm_90a configurations (4 layouts).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
P=build/polymma
if [ "${PART:-1}" = 1 ]; then
	G="examples/gemm_nn.tc --target sm_90a --persistent on"
	W="--block 128x256x64 --warp 64x256 --stages 3"
	$P gen $G --cluster 1 -o build/var/p1.cu
	$P gen $G -o build/var/p2.cu
	$P gen $G $W --cluster 1 -o build/var/w1.cu
	$P gen $G $W -o build/var/w2.cu
	SIZES=${SIZES:-"4096x4096x4096 3840x3456x2816 1792x2816x1920 2048x2048x1024 8192x8192x4096 2432x2304x1024 3328x4096x3712"} \
		bash scripts/exp/time-files.sh build/var/p1.cu build/var/p2.cu > "$O/time-p.txt" 2>&1
	SIZES=${SIZES:-"4096x4096x4096 3840x3456x2816 1792x2816x1920 2048x2048x1024 8192x8192x4096 2432x2304x1024 3328x4096x3712"} BN=256 \
		bash scripts/exp/time-files.sh build/var/w1.cu build/var/w2.cu > "$O/time-w.txt" 2>&1
	grep -hE "^(TIME|FAIL)|passed" "$O/time-p.txt" "$O/time-w.txt"
else
	ONLY=${ONLY:-'^sm90a(_persist)?$'} OUT=$O/gc bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
	tail -3 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -20
fi

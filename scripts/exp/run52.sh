#!/usr/bin/env bash
# run52: which kernels cuBLAS runs at a few paper sizes (names give tile,
# stages, cluster; LaunchStats the grid, cluster and shared memory).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
if [ ! -x build/var/p ]; then
	build/polymma gen examples/gemm_nn.tc --target sm_90a --persistent on -o build/var/p.cu
	bash scripts/exp/build-check.sh build/var/p.cu
fi
for s in ${SIZES:-4096x4096x4096 3840x3456x2816 1792x2816x1920 768x3456x1280 2048x2048x1024}; do
	timeout 120 ncu --clock-control none -k regex:'^[^pcr]' --launch-count 1 --section LaunchStats --section SpeedOfLight \
		build/var/p --time "$s" > "$O/ncu-cublas-$s.txt" 2>&1
	echo "== $s"; grep -E "^  [a-zA-Z_]|Cluster Size|Grid Size|Block Size|Registers Per|Dynamic Shared|Duration|SM Frequency|L2 Cache Th|DRAM Th" "$O/ncu-cublas-$s.txt"
done
# the 128x256 persistent kernel against the 128x128 one
if [ -n "${WIDE:-}" ]; then
	build/polymma gen examples/gemm_nn.tc --target sm_90a --persistent on --block 128x256x64 --warp 64x256 --stages 3 -o build/var/pw.cu
	SIZES="4096x4096x4096 3840x3456x2816 1792x2816x1920 2048x2048x1024 8192x8192x4096" BN=256 bash scripts/exp/time-files.sh build/var/p.cu build/var/pw.cu
fi

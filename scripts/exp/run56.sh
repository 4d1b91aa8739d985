#!/usr/bin/env bash
# run56: where the persistent kernels' warps stall, per SASS instruction
# (Nsight Compute's source page, stall samples): p1 (128x128) and w1
# (128x256), both --cluster 1, at 4096^3 and 2048x2048x1024.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
G="examples/gemm_nn.tc --target sm_90a --persistent on --cluster 1"
[ -x build/var/p1 ] || { build/polymma gen $G -o build/var/p1.cu; SIZES=128x128x64 bash scripts/exp/time-files.sh build/var/p1.cu > /dev/null; }
[ -x build/var/w1 ] || { build/polymma gen $G --block 128x256x64 --warp 64x256 --stages 3 -o build/var/w1.cu; BN=256 SIZES=256x256x64 bash scripts/exp/time-files.sh build/var/w1.cu > /dev/null; }
for v in p1 w1; do
	for s in 4096x4096x4096 2048x2048x1024; do
		timeout 150 ncu --clock-control none -k regex:'pm_kernel' --launch-count 1 --section SourceCounters \
			--section WarpStateStats -o build/var/rep-$v-$s -f build/var/$v $s > /dev/null 2>&1
		ncu -i build/var/rep-$v-$s.ncu-rep --page source --csv --print-source sass > "$O/src-$v-$s.csv" 2>&1
		ncu -i build/var/rep-$v-$s.ncu-rep --page details --print-details all > "$O/det-$v-$s.txt" 2>&1
		echo "$v $s $(wc -l < "$O/src-$v-$s.csv")"
	done
done

#!/usr/bin/env bash
# run49: where the persistent sm_90a kernel loses to cuBLAS on big grids.
# Times (check_gemm --time, cuBLAS in the same process) the default file, the
# --persistent on kernel, and that kernel with its epilogue's stores removed
# (wrong on purpose: the epilogue's cost); then Nsight Compute sections for
# our kernel and cuBLAS's at two sizes (the cuBLAS kernel's name gives its
# tile, stages and cluster).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
P=build/polymma
$P gen examples/gemm_nn.tc --target sm_90a -o build/var/d.cu
$P gen examples/gemm_nn.tc --target sm_90a --persistent on -o build/var/p.cu
# p.cu minus the stores of C (the staging and the copies out)
sed -e 's/^\(\s*\)pm_copy16_s2g(.*$/\1;/' -e 's/^\(\s*\)pm_sm90_store<.*$/\1;/' build/var/p.cu > build/var/pn.cu
SIZES=${SIZES:-"3328x4096x3712 1920x3584x3840 3840x3456x2816 4096x4096x4096 768x3456x1280 1792x2816x1920 1280x2816x3328"} \
	bash scripts/exp/time-files.sh build/var/d.cu build/var/p.cu build/var/pn.cu > "$O/time.txt" 2>&1
cat "$O/time.txt"
for s in ${NCU_SIZES:-3328x4096x3712 768x3456x1280}; do
	timeout 200 ncu --clock-control none -k regex:'pm_kernel|nvjet|xmma|gemm|cutlass' --launch-count ${NCU_N:-3} \
		--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
		--section LaunchStats --section Occupancy --section WarpStateStats \
		build/var/p "$s" > "$O/ncu-$s.txt" 2>&1
	grep -E "pm_kernel|nvjet|xmma|sm90|Duration|Throughput|Cluster|Grid Size|Block Size|Registers|Pipe|Busy" "$O/ncu-$s.txt" | head -80
done

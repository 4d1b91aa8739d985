#!/usr/bin/env bash
# run135 (session 15): why ReLU+GEMM's mid kernel runs ~10 % slower than the
# GEMM's on the same plan (3712x3456x1664: both _persist_mid_x). ncu's
# speed-of-light, warp-state and scheduler sections of one launch of each,
# and the SASS of both kernels' k loops (cuobjdump).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/r135
S=3712x3456x1664
for n in relu_gemm gemm; do
	build/polymma gen bench/specs/$n.tc --target sm_90a -o build/r135/$n.cu || exit 1
	(nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r135/$n.cu\"" \
		-DKFN=pm_$n scripts/exp/relu_time.cu -o build/r135/rt_$n &&
	 nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -cubin -o build/r135/$n.cubin build/r135/$n.cu &&
	 cuobjdump -sass -fun pm_kernel_pm_${n}_persist_mid_x build/r135/$n.cubin > $O/sass-mid-$n-session15-run135.txt) &
done
wait
for n in relu_gemm gemm; do
	build/r135/rt_$n $n $S
	timeout 200 ncu --section SpeedOfLight --section WarpStateStats --section SchedulerStats \
		--section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section Occupancy \
		-k regex:persist_mid -c 1 build/r135/rt_$n $n $S > $O/ncu-mid-$n-session15-run135.txt 2>&1
	echo "ncu $n rc=$?"
done
ls -la $O

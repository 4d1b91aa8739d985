#!/usr/bin/env bash
# run80 (session 10): Nsight Compute of our GEMM against our ReLU+GEMM at
# small-N grids where the prologue costs 15-18 % (3072x256x3584: split in
# clusters of 2; 1024x768x1920) and one where it costs 2 % (384x2688x2432).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
P=${POLYMMA:-build/polymma}
mkdir -p build/var
$P gen examples/gemm_nn.tc --target sm_90a -o build/var/g.cu
$P gen bench/specs/relu_gemm.tc --target sm_90a -o build/var/r.cu
nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DKERNEL_FILE="\"$PWD/build/var/g.cu\"" -DKFN=gemm_nn scripts/exp/relu_time.cu -o build/var/tg &
nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DKERNEL_FILE="\"$PWD/build/var/r.cu\"" -DKFN=pm_relu_gemm scripts/exp/relu_time.cu -o build/var/tr &
wait
for s in 3072x256x3584 1024x768x1920 384x2688x2432; do
	build/var/tg g $s; build/var/tr r $s
	for v in g r; do
		ncu --launch-skip 10 --launch-count 1 -k regex:pm_kernel --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section LaunchStats --section Occupancy --metrics smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active build/var/t$v $v $s > $O/ncu-$v-$s.txt 2>&1
	done
done

#!/usr/bin/env bash
# run51: is run50's gap cycles or clocks?  Nsight Compute's SpeedOfLight
# (SM frequency, elapsed cycles) of the --persistent on kernel and its
# variants at 4096^3; then the SASS of the variants' k loops compared.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
for v in ${VARS:-p p_nosts p_nostg}; do
	timeout 120 ncu --clock-control none -k regex:'pm_kernel' --launch-count 1 --section SpeedOfLight \
		--metrics sm__cycles_active.avg,smsp__inst_executed.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active \
		build/var/$v ${NCU_SIZE:-4096x4096x4096} > "$O/ncu-$v.txt" 2>&1
	echo "== $v"; grep -E "Frequency|Elapsed Cycles|Duration|SM Active|sm__|smsp__|Compute \(SM\)" "$O/ncu-$v.txt"
	cuobjdump -sass -fun pm_kernel_gemm_nn build/var/$v > "$O/$v.sass" 2>&1
done

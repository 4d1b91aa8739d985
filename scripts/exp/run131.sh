#!/usr/bin/env bash
# run131 (session 15): ReLU+GEMM's launch plan, measured. The default
# sm_90a file with its plan forced (force_var.py's PM_VAR) to every variant
# that gives a distinct plan at each of the 100 paper sizes (the lists in
# scripts/exp/relu15/, from a host stub of the plan), relu_time.cu (200
# back-to-back calls, median of 5), two rounds; then the YIELD scan of the
# 4 idioms' sm_90a kernels (session 14's left-over: ReLU+GEMM's mid kernel).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/r131
build/polymma gen bench/specs/relu_gemm.tc --target sm_90a -o build/r131/relu.cu || exit 1
python3 scripts/exp/force_var.py build/r131/relu.cu build/r131/relu_f.cu || exit 1
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r131/relu_f.cu\"" \
	-DKFN=pm_relu_gemm scripts/exp/relu_time.cu -o build/r131/rt || exit 1
VS="def big small medium pfew mid wide tall tail2 tail4 ws2 ws4 cl2 cl4"
for r in 1 2; do for v in $VS; do
	PM_VAR=$v timeout 120 build/r131/rt $v $(cat scripts/exp/relu15/relu15-$v.txt) 2>&1 | grep -E "^(TIME|FAIL)"
done; done > $O/relu-plan-session15-run131.txt
grep -c TIME $O/relu-plan-session15-run131.txt; grep -c FAIL $O/relu-plan-session15-run131.txt
mkdir -p build/ys
for s in bench/specs/*.tc; do
	n=$(basename $s .tc)
	build/polymma gen $s --target sm_90a -o build/ys/$n.cu || continue
	(nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -cubin -o build/ys/$n.cubin build/ys/$n.cu &&
		cuobjdump -sass build/ys/$n.cubin > build/ys/$n.sass) &
done
wait
python3 scripts/yield_scan.py build/ys/*.sass > $O/yield-scan-session15-run131.txt
grep -ic "yield" $O/yield-scan-session15-run131.txt; tail -3 $O/yield-scan-session15-run131.txt

#!/usr/bin/env bash
# run121 (session 13): why ReLU+GEMM at 1920x3200x1792 ran 13 % slower
# after the ragged tiles (run120; its launch: the unsplit 128x128 kernel,
# two blocks per SM, whose only change is the store's guards): the YIELD
# scan of the old and new kernels (sm_90a, the 4 idioms and the chain),
# then steady-state times (clock_probe.cu) old / new at that size and two
# more.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/ys
for P in old new; do
	bin=build/polymma; [ $P = old ] && bin=build-old/polymma
	for s in bench/specs/*.tc examples/gemm_epilogue_chain.tc; do
		n=$(basename $s .tc)-$P
		$bin gen $s --target sm_90a -o build/ys/$n.cu || continue
		(nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -cubin -o build/ys/$n.cubin build/ys/$n.cu &&
			cuobjdump -sass build/ys/$n.cubin > build/ys/$n.sass) &
	done
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/ys/relu_gemm-$P.cu\"" \
		-DGEMM_FN=pm_relu_gemm scripts/exp/clock_probe.cu -o build/ys/c$P 2>/dev/null &
done
sleep 1; wait
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/ys/relu_gemm-old.cu\"" \
	-DGEMM_FN=pm_relu_gemm scripts/exp/clock_probe.cu -o build/ys/cold
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/ys/relu_gemm-new.cu\"" \
	-DGEMM_FN=pm_relu_gemm scripts/exp/clock_probe.cu -o build/ys/cnew
python3 scripts/yield_scan.py build/ys/*.sass > $O/yield-scan-session13-run121.txt
grep -i "yield" $O/yield-scan-session13-run121.txt | head -20
for s in 1920x3200x1792 2816x3328x1280 3584x2048x3712; do
	for r in 1 2; do for P in old new; do echo "$s $P $(build/ys/c$P $s 1.0)"; done; done
done | tee $O/relu-session13-run121.txt

#!/usr/bin/env bash
# run117 (session 12): the epilogue's inputs loaded two elements at a time
# (pm_ld2f, in the accumulators' pairs of columns; the launcher checks
# their alignment). PART=1: the fused checkers of every epilogue (epi_*,
# pro_epi_*) on every target configuration at the default sizes (every
# kernel variant), with the new misaligned-bias and -residual tests.
# PART=2: steady-state times (clock_probe.cu) of GEMM+bias+ReLU, HEAD
# before (build-old) against this, at run116's sizes; then the benchmark
# of GEMM+bias+ReLU and the chain, 2 rounds, at 12 paper sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	OUT=$O/fc bash scripts/gpu-fused-check.sh --only '^(epi|pro_epi)_' > $O/fc.txt 2>&1
	echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
	grep -c "neg-alignBias.*PASS\|PASS.*neg-alignBias" $O/fc/fused.log
	grep -c "PASS.*neg-alignR" $O/fc/fused.log
	grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-pairs-session12-run117.log
	rm -rf $O/fc $O/fc.txt
else
	mkdir -p build/var
	for P in old new; do
		bin=build/polymma; [ $P = old ] && bin=build-old/polymma
		$bin gen bench/specs/gemm_bias_relu.tc --target sm_90a -o build/var/b$P.cu
		nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/b$P.cu\"" \
			-DGEMM_FN=pm_gemm_bias_relu -DBIAS scripts/exp/clock_probe.cu -o build/var/c$P &
	done
	wait
	for s in 3584x2048x3712 3456x1920x3072 1920x3200x1792 1536x2304x3456 3840x3072x3072 2816x3328x1280 2048x1664x3200 896x768x4096 1408x768x3712; do
		for r in 1 2; do for P in old new; do echo "$P $(build/var/c$P $s 1.0)"; done; done
	done | tee $O/epi-pairs-session12-run117.txt
	S="3584x2048x3712 3456x1920x3072 1920x3200x1792 1536x2304x3456 3840x3072x3072 2816x3328x1280 2048x1664x3200 896x768x4096 1408x768x3712 640x2048x3584 256x1536x3456 2304x1408x896"
	OUT=$O bash scripts/exp/abn-bench.sh run117 2 old=build-old/polymma new=build/polymma -- \
		$(for s in $S; do printf -- '--size %s ' $s; done)
	rm -f "$O"/bench-*-[12].txt
fi

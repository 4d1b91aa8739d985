#!/usr/bin/env bash
# run129 (session 14): the mid variant with a prologue through the MMA's
# registers (ReLU+GEMM), built by build-exp/polymma-rmid (pipeline.c
# without the pro-regs exclusion): steady state (clock_probe.cu) against
# HEAD's plan at 8 of the sizes whose plan runs it, two rounds; then the
# fused relu prologue checkers (4 layouts) at two such sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/rm
build/polymma gen bench/specs/relu_gemm.tc --target sm_90a -o build/rm/old.cu
build-exp/polymma-rmid gen bench/specs/relu_gemm.tc --target sm_90a -o build/rm/new.cu
for v in old new; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/rm/$v.cu\"" \
		-DGEMM_FN=pm_relu_gemm scripts/exp/clock_probe.cu -o build/rm/c$v &
done
wait
for s in 1792x1664x3584 2816x3328x1280 3712x3456x1664 1152x2304x3968 3072x3072x640 1536x3712x3584 2048x1536x2432 3200x768x2304; do
	for r in 1 2; do for v in old new; do echo "$s $v $(build/rm/c$v $s 0.4)"; done; done
done | tee $O/relu-mid-session14-run129.txt
cp build-exp/polymma-rmid build/polymma
OUT=$O/fc SIZES_SM90A="1000x3000x512 2816x3328x1280" bash scripts/gpu-fused-check.sh --only '^pro_relu_.*_sm90a$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-relu-mid-session14-run129.log
rm -rf $O/fc

#!/usr/bin/env bash
# run87 (session 10): the workspace fixup's barrier as CUTLASS's (one
# barrier, one thread's fence.acq_rel + red.relaxed, no per-thread
# __threadfence; the counter's second arrival after the adds, off the
# wait's path) in build-exp against build/polymma: the unit timeline at
# 3200x1408x1408 and check_gemm's checks and timing at sizes with a split
# tail or a workspace split, 3 rounds.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
for v in old new; do
	P=build/polymma; [ $v = new ] && P=build-exp/polymma
	$P gen examples/gemm_nn.tc --target sm_90a -o build/var/$v.cu
	bash scripts/exp/build-check.sh build/var/$v.cu &
	bash scripts/exp/trace-build.sh $P tr$v &
done
wait
for v in old new; do build/var/tr-tr$v 3200x1408x1408 > $O/tr-$v.txt; done
S="3200x1408x1408 3968x1152x1408 2816x1920x1792 1664x2816x2432 3456x1920x3072 896x768x4096 1024x1024x8192 3072x1408x1408"
for r in 1 2 3; do
	for v in old new; do
		build/var/$v --time --tag $v $S 2>&1 | grep -E "^TIME|FAIL|passed" | sed 's/polymma_tflops=//;s/cublas_tflops=//' | awk '{print $2,$3,$4,$6,$8,$9}'
	done
done | sort -k2,2 -k1,1
head -3 $O/tr-old.txt $O/tr-new.txt

#!/usr/bin/env bash
# run124 (session 13): the staged store's guarded copy with its shared
# load unconditional (pm_copy16_s2g_if), against HEAD before: steady state
# (clock_probe.cu) of ReLU+GEMM and GEMM at run120's slower sizes.
# (build-exp: a build with pm_copy16_s2g_if, not kept: docs/PERF.md, session 13.)
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/v
for sp in relu_gemm gemm; do
	build-old/polymma gen bench/specs/$sp.tc --target sm_90a -o build/v/$sp-old.cu
	build-exp/polymma gen bench/specs/$sp.tc --target sm_90a -o build/v/$sp-new.cu
	for v in old new; do
		nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/v/$sp-$v.cu\"" \
			-DGEMM_FN=pm_$sp scripts/exp/clock_probe.cu -o build/v/c$sp-$v &
	done
done
wait
for sp in relu_gemm gemm; do
	for s in 1920x3200x1792 1024x768x1920 3584x2048x3712 640x2048x3584; do
		for r in 1 2; do for v in old new; do echo "$sp $v $(build/v/c$sp-$v $s 0.7)"; done; done
	done
done | tee $O/store-if-session13-run124.txt

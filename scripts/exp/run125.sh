#!/usr/bin/env bash
# run125 (session 13): the staged store's guard at sizes that need none
# (run124: GEMM 1024x768x1920 12 % slower in steady state, ReLU+GEMM
# 1920x3200x1792 7 %): old (HEAD before), new (pm_copy16_s2g_if), rg (the
# guard short-circuited by a launch-uniform flag), sel (no predicate: a
# generic store, past the sizes into its own shared source). store_var.py.
# (build-exp: a build with pm_copy16_s2g_if, not kept: docs/PERF.md, session 13.)
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/v
for sp in relu_gemm gemm; do
	build-old/polymma gen bench/specs/$sp.tc --target sm_90a -o build/v/$sp-old.cu
	build-exp/polymma gen bench/specs/$sp.tc --target sm_90a -o build/v/$sp-new.cu
	python3 scripts/exp/store_var.py build/v/$sp-new.cu build/v/$sp-rg.cu rg
	python3 scripts/exp/store_var.py build/v/$sp-new.cu build/v/$sp-sel.cu sel
	for v in old new rg sel; do
		nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/v/$sp-$v.cu\"" \
			-DGEMM_FN=pm_$sp scripts/exp/clock_probe.cu -o build/v/c$sp-$v &
	done
done
wait
for x in "gemm 1024x768x1920" "relu_gemm 1920x3200x1792" "gemm 3584x2048x3712"; do
	set -- $x
	for r in 1 2; do for v in old new rg sel; do echo "$1 $v $(build/v/c$1-$v $2 0.5)"; done; done
done | tee $O/store-var-session13-run125.txt

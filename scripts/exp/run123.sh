#!/usr/bin/env bash
# run123 (session 13): what in the ragged build slows ReLU+GEMM's
# non-persistent 128x128 kernel at 1920x3200x1792 (run121: 6 %)? Steady
# state (clock_probe.cu) of: old (HEAD before), new, new without the
# store's guards (nostg), new with the loop bounds M / 128 again (nopad).
# Timing only: the variants without guards are wrong on ragged sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/v
build-old/polymma gen bench/specs/relu_gemm.tc --target sm_90a -o build/v/old.cu
build/polymma gen bench/specs/relu_gemm.tc --target sm_90a -o build/v/new.cu
sed -E 's/if \(\([^)]*\) < M && \([^)]*\) < N\) pm_copy16_s2g/pm_copy16_s2g/' build/v/new.cu > build/v/nostg.cu
sed -E 's/pm_tM \/ 128/M \/ 128/g; s/pm_tN \/ 128/N \/ 128/g' build/v/new.cu > build/v/nopad.cu
grep -c "< N) pm_copy16_s2g" build/v/*.cu
for v in old new nostg nopad; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/v/$v.cu\"" \
		-DGEMM_FN=pm_relu_gemm scripts/exp/clock_probe.cu -o build/v/c$v &
done
wait
for s in 1920x3200x1792 1024x768x1920; do
	for r in 1 2; do for v in old new nostg nopad; do echo "$v $(build/v/c$v $s 1.0)"; done; done
done | tee $O/relu-var-session13-run123.txt

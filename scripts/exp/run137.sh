#!/usr/bin/env bash
# run137 (session 15): bench_time.cu (the benchmark's way: rotated inputs,
# one call per event pair) against relu_time.cu at two sizes where
# relu_time disagreed with the benchmark (128x3840x2816: small vs ws4;
# 3072x1152x1280: big vs tall), ReLU+GEMM's file, plans forced.
# Not run yet: its first try (session 15) stopped at force_var.py, which
# called the missing cluster plan of a register prologue (fixed since).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/r137
build/polymma gen bench/specs/relu_gemm.tc --target sm_90a -o build/r137/relu.cu || exit 1
python3 scripts/exp/force_var.py build/r137/relu.cu build/r137/relu_f.cu || exit 1
for t in bench_time relu_time; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r137/relu_f.cu\"" \
		-DKFN=pm_relu_gemm scripts/exp/$t.cu -o build/r137/$t &
done
wait
for r in 1 2; do for t in bench_time relu_time; do
	for v in small ws4; do PM_VAR=$v build/r137/$t $t-$v 128x3840x2816; done
	for v in big tall; do PM_VAR=$v build/r137/$t $t-$v 3072x1152x1280; done
done; done | tee $O/bench-time-session15-run137.txt

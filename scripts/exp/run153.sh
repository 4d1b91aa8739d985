#!/usr/bin/env bash
# run153 (session 17): ops_time again (GEMM+bias+ReLU fused against cuBLAS +
# one bias_relu kernel and cuBLAS + a bias kernel + a relu kernel, 100
# paper sizes), twice in a row, for the spread of the per-operation reading.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/r153 $O
build/polymma gen bench/specs/gemm_bias_relu.tc --target sm_90a -o build/r153/gbr.cu || exit 1
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r153/gbr.cu\"" \
	scripts/exp/ops_time.cu -lcublas -o build/r153/ops_time || exit 1
for r in a b; do
	timeout 200 build/r153/ops_time $(cat scripts/exp/paper-sizes.txt) > $O/ops-session17-run153$r.txt
	echo "ops rc=$?"; grep -c OPS $O/ops-session17-run153$r.txt
done

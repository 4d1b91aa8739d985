#!/usr/bin/env bash
# run142 (session 16): ops_time again, now timed as the benchmark does (all
# calls queued, one synchronization; run141's per-call synchronization
# counted cuBLAS's host launch time), at the 100 paper sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/r142
build/polymma gen bench/specs/gemm_bias_relu.tc --target sm_90a -o build/r142/gbr.cu || exit 1
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r142/gbr.cu\"" \
	scripts/exp/ops_time.cu -lcublas -o build/r142/ops_time || exit 1
timeout 200 build/r142/ops_time $(cat scripts/exp/paper-sizes.txt) > $O/ops-session16-run142.txt
echo "ops rc=$?"; grep -c OPS $O/ops-session16-run142.txt; grep FAIL $O/ops-session16-run142.txt | head -3

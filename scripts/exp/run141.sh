#!/usr/bin/env bash
# run141 (session 16): the full benchmark with the sq variant (192x192
# persistent blocks, plan_sq), then ops_time (GEMM+bias+ReLU: the fused
# kernel against cuBLAS + one bias_relu kernel and cuBLAS + a bias kernel +
# a relu kernel) at the 100 paper sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=build/polymma OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 16: 192x192 persistent blocks where they run fewer rounds (${TAG:-run141})" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; tail -12 "$O/bench.txt"
mkdir -p build/r141
build/polymma gen bench/specs/gemm_bias_relu.tc --target sm_90a -o build/r141/gbr.cu || exit 1
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r141/gbr.cu\"" \
	scripts/exp/ops_time.cu -lcublas -o build/r141/ops_time || exit 1
timeout 150 build/r141/ops_time $(cat scripts/exp/paper-sizes.txt) > $O/ops-session16-run141.txt
echo "ops rc=$?"; grep -c OPS $O/ops-session16-run141.txt; grep FAIL $O/ops-session16-run141.txt | head -3

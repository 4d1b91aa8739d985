#!/usr/bin/env bash
# run151 (session 17): the full benchmark with the narrow variant (64x192
# persistent blocks, one k tile of wgmma in flight, plan_narrow), then
# ops_time (GEMM+bias+ReLU against both unfused baselines) at the 100
# paper sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=build/polymma OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 17: 64x192 blocks with wgmma in flight on one-wave grids (${TAG:-run151})" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; tail -12 "$O/bench.txt"
mkdir -p build/r151
build/polymma gen bench/specs/gemm_bias_relu.tc --target sm_90a -o build/r151/gbr.cu || exit 1
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r151/gbr.cu\"" \
	scripts/exp/ops_time.cu -lcublas -o build/r151/ops_time || exit 1
timeout 150 build/r151/ops_time $(cat scripts/exp/paper-sizes.txt) > $O/ops-session17-${TAG:-run151}.txt
echo "ops rc=$?"; grep -c OPS $O/ops-session17-${TAG:-run151}.txt; grep FAIL $O/ops-session17-${TAG:-run151}.txt | head -3

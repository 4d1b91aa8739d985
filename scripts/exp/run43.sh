#!/usr/bin/env bash
# run43: the split persistent kernel's fixup, step by step
# (scripts/exp/psplit_var.py variants v0..v4 of gemm_nn, sm_90a), GPU time per
# call through gemm_nn_ws (entry_time.cu -DWS) and ncu kernel durations.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ=${SZ:-"1792x256x1536 896x768x4096 1024x768x1920"}
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/g.cu || exit 1
python3 scripts/exp/psplit_var.py build/var/g.cu build/var/pv > /dev/null || exit 1
for v in v0 v1 v2 v3 v4; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DWS -DKERNEL_FILE="\"$PWD/build/var/pv/$v.cu\"" -DKFN=gemm_nn -DTAG="\"$v\"" scripts/exp/entry_time.cu -o build/var/pv_$v 2>/dev/null &
done
wait
for v in v0 v1 v2 v3 v4; do build/var/pv_$v $SZ; done | tee "$O/entry.txt"
for v in v0 v1 v3; do
	ncu --launch-count 8 --metrics gpu__time_duration.sum build/var/pv_$v 1792x256x1536 2>&1 | grep -E 'gpu__time' | awk -v v=$v '{print v, $NF}' | tail -3
done | tee "$O/ncu.txt"

#!/usr/bin/env bash
# run159 (session 18): GEMM+bias+ReLU's bias prefetched to L1 at each
# tile's start (bias_pf.py) against the default file, each timed by
# ops_time.cu against cuBLAS at the 100 paper sizes, twice, alternating.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
D=build/r159
mkdir -p $D
build/polymma gen bench/specs/gemm_bias_relu.tc --target sm_90a -o $D/def.cu || exit 1
python3 scripts/exp/bias_pf.py $D/def.cu $D/pf.cu || exit 1
for v in def pf; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/$D/$v.cu\"" \
		scripts/exp/ops_time.cu -lcublas -o $D/ops_$v -Xptxas -v 2>&1 | grep -E "spill" | grep -v " 0 bytes spill" &
done
wait
for r in 1 2; do
	for v in def pf; do
		timeout 120 $D/ops_$v $(cat scripts/exp/paper-sizes.txt) > $O/ops-$v-$r.txt; echo "$v $r rc=$?"
	done
done

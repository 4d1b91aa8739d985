#!/usr/bin/env bash
# run139 (session 16): (1) run138's sm90a_wg3 fused checkers (a register
# prologue in 192x128 persistent blocks: three consumer warpgroups,
# setmaxnreg.inc 152); (2) gpu-check's sm90a_p192 (--persistent on, 192x192
# blocks, three consumer warps of 64x192, 3 stages) at ragged and exact
# sizes, 4 layouts; (3) bench_time (the benchmark's way) at the 66 paper
# grids of 132 tiles or more, two rounds: GEMM default vs 192x192; ReLU+GEMM
# default vs 192x128 (wg3) vs 192x192.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/r139
OUT=$O/fc SIZES_SM90A="1000x3000x1920 2304x2304x1024 256x512x512" bash scripts/gpu-fused-check.sh --only 'sm90a_wg3$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt
grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-wg3-run139.log; rm -rf $O/fc
ONLY='sm90a_p192$' OUT=$O/gc SIZES_SM90A="1000x3000x512 3456x1280x768 3968x1152x1408 2304x2304x1024 384x128x192 640x384x1472 4096x4096x4096" \
	bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check rc=$?"; tail -3 $O/gc.txt
grep -E "^(PASS|FAIL)" build/gpu/results.txt > $O/check-p192-run139.log; rm -rf $O/gc
P="--target sm_90a"
build/polymma gen bench/specs/gemm.tc $P -o build/r139/gd.cu || exit 1
build/polymma gen bench/specs/gemm.tc $P --block 192x192x64 --warp 64x192 --stages 3 --persistent on -o build/r139/g192.cu || exit 1
build/polymma gen bench/specs/relu_gemm.tc $P -o build/r139/rd.cu || exit 1
build/polymma gen bench/specs/relu_gemm.tc $P --block 192x128x64 --warp 64x128 --persistent on -o build/r139/rw3.cu || exit 1
build/polymma gen bench/specs/relu_gemm.tc $P --block 192x192x64 --warp 64x192 --stages 3 --persistent on -o build/r139/r192.cu || exit 1
for v in gd g192 rd rw3 r192; do
	f=pm_gemm; [ ${v:0:1} = r ] && f=pm_relu_gemm
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r139/$v.cu\"" \
		-DKFN=$f scripts/exp/bench_time.cu -o build/r139/bt$v &
done
wait
S=$(cat scripts/exp/paper-big.txt)
for r in 1 2; do for v in gd g192 rd rw3 r192; do
	timeout 120 build/r139/bt$v $v $S | grep -E "^(TIME|FAIL)"
done; done > $O/p192-wg3-session16-run139.txt
grep -c TIME $O/p192-wg3-session16-run139.txt
# (4) GEMM+bias+ReLU: the fused kernel against cuBLAS + one bias_relu kernel
# (bench.cu's baseline) and cuBLAS + a bias kernel + a relu kernel, paper set
build/polymma gen bench/specs/gemm_bias_relu.tc $P -o build/r139/gbr.cu || exit 1
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r139/gbr.cu\"" \
	scripts/exp/ops_time.cu -lcublas -o build/r139/ops_time || exit 1
timeout 200 build/r139/ops_time $(cat scripts/exp/paper-sizes.txt) > $O/ops-session16-run139.txt
echo "ops rc=$?"; grep -c OPS $O/ops-session16-run139.txt

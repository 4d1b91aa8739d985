#!/usr/bin/env bash
# run138 (prepared in session 15, not run yet): three consumer warpgroups
# for a register prologue. ReLU+GEMM in 192x128 persistent blocks (64x128
# per warpgroup, setmaxnreg.inc 152; --block 192x128x64 --warp 64x128
# --persistent on) against the default file, timed the benchmark's way
# (bench_time.cu) at the 66 paper grids of 132 tiles or more, two rounds;
# first the sm90a_wg3 fused checkers (and run137's comparison of the two
# timers).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/r138
OUT=$O/fc SIZES_SM90A="1000x3000x1920 2304x2304x1024 256x512x512" bash scripts/gpu-fused-check.sh --only 'sm90a_wg3$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt
grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-wg3-run138.log; rm -rf $O/fc
build/polymma gen bench/specs/relu_gemm.tc --target sm_90a -o build/r138/d.cu || exit 1
build/polymma gen bench/specs/relu_gemm.tc --target sm_90a --block 192x128x64 --warp 64x128 --persistent on -o build/r138/w3.cu || exit 1
for v in d w3; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r138/$v.cu\"" \
		-DKFN=pm_relu_gemm scripts/exp/bench_time.cu -o build/r138/bt$v &
done
wait
S=$(cat scripts/exp/paper-big.txt)
for r in 1 2; do for v in d w3; do
	timeout 250 build/r138/bt$v $v $S | grep -E "^(TIME|FAIL)"
done; done > $O/wg3-session16-run138.txt
grep -c TIME $O/wg3-session16-run138.txt

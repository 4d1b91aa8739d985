#!/usr/bin/env bash
# run66: with the producer warpgroup (setmaxnreg), is the 128x128
# persistent kernel with a register prologue still slower on several
# waves than two plain blocks per SM (session 6: 6 %, the reason the plan
# keeps ReLU+GEMM off it and off the tail rule)? ReLU+GEMM, the default
# file against --persistent on (128x128, now a producer warpgroup), at
# multi-wave paper sizes where the GEMM's plan runs the 128x128 persistent
# or split kernels; check_gemm timing.
cd "$(dirname "$0")/../.."
mkdir -p build/var
R="examples/relu_gemm.tc --target sm_90a"
build/polymma gen $R -o build/var/rd.cu
build/polymma gen $R --persistent on -o build/var/rp.cu
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/gd.cu
S="1664x2816x2432 3968x1152x1408 3456x1920x3072 2688x2432x4096 2816x1920x1792 2048x3328x1664 3584x1920x2688 2304x2304x1024 1792x2816x1920"
for v in rd rp gd; do
	kf=relu_gemm; [ $v = gd ] && kf=gemm_nn
	bash scripts/exp/build-check.sh build/var/$v.cu $kf 128 128 &
done
wait
for v in rd rp gd rd; do build/var/$v --time --tag $v $S 2>&1 | grep -E "^TIME"; done

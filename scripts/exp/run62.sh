#!/usr/bin/env bash
# run62: ReLU+GEMM (a register prologue on A) in the wide and tall
# persistent blocks: the default file (two 128x128 blocks per SM on these
# grids) against --persistent on with 128x256 (m64n256, A through
# registers) and 256x128 blocks, at the paper sizes the wide / tall rules
# take; check_gemm's timing (its reference is a plain GEMM: FAIL lines
# expected), cuBLAS GEMM in the same process.
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="examples/relu_gemm.tc --target sm_90a"
build/polymma gen $G -o build/var/rd.cu
build/polymma gen $G --persistent on --block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 3 -o build/var/rw.cu
build/polymma gen $G --persistent on --block 256x128x64 --warp 128x128 --stages 3 -o build/var/rt.cu
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/gd.cu
W="1920x3840x1664 2944x3840x2944 4096x2816x2560 2560x3072x1536 3840x3072x3072"
T="3072x3712x640 2304x3200x2176 4096x3712x3328 3840x1920x640"
for v in rd rw rt gd; do
	kf=relu_gemm; [ $v = gd ] && kf=gemm_nn
	bn=128; [ $v = rw ] && bn=256
	bm=128; [ $v = rt ] && bm=256
	bash scripts/exp/build-check.sh build/var/$v.cu $kf $bm $bn &
done
wait
for v in rd rw gd; do build/var/$v --time --tag $v $W 2>&1 | grep -E "^TIME"; done
for v in rd rt gd; do build/var/$v --time --tag $v $T 2>&1 | grep -E "^TIME"; done

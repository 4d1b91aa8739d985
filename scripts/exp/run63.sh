#!/usr/bin/env bash
# run63: run62's wide and tall ReLU+GEMM kernels with a producer
# warpgroup and setmaxnreg (scripts/exp/wg_var.py: 384 threads, the
# consumers at 232 registers: no spills, no serialized wgmma), against the
# default file, and the wide GEMM likewise; check_gemm timing.
cd "$(dirname "$0")/../.."
mkdir -p build/var
R="examples/relu_gemm.tc --target sm_90a"
WB="--block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 3"
TB="--block 256x128x64 --warp 128x128 --stages 3"
build/polymma gen $R -o build/var/rd.cu
build/polymma gen $R --persistent on $WB -o build/var/rw0.cu
build/polymma gen $R --persistent on $TB -o build/var/rt0.cu
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/gd.cu
build/polymma gen examples/gemm_nn.tc --target sm_90a --persistent on $WB -o build/var/gw0.cu
for v in rw rt gw; do python3 scripts/exp/wg_var.py build/var/${v}0.cu build/var/$v.cu; done
W="1920x3840x1664 2944x3840x2944 4096x2816x2560 2560x3072x1536 3840x3072x3072"
T="3072x3712x640 2304x3200x2176 4096x3712x3328 3840x1920x640"
for v in rd rw rt gd gw gw0; do
	kf=relu_gemm; case $v in g*) kf=gemm_nn;; esac
	bn=128; case $v in rw|gw|gw0) bn=256;; esac
	bm=128; [ $v = rt ] && bm=256
	bash scripts/exp/build-check.sh build/var/$v.cu $kf $bm $bn &
done
wait
for v in rd rw gd gw gw0; do build/var/$v --time --tag $v $W 2>&1 | grep -E "^TIME"; done
for v in rd rt gd; do build/var/$v --time --tag $v $T 2>&1 | grep -E "^TIME"; done

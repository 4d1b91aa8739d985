#!/usr/bin/env bash
# run30: warp-specialized sm_90a kernels by hand (scripts/exp/ws.py,
# ws_kernel.cuh) against the generated TMA kernel (w0).
#   w1 producer warp (288 threads), drain per k tile, 2 blocks/SM
#   w2 w1 + one k tile of wgmma in flight
#   w3 w2 persistent, 4 stages, C staged apart (1 block/SM)
#   w4 w3 with a producer warpgroup and setmaxnreg (384 threads)
#   w5 w3 without the in-flight tile
#   w6 w3 with 3 stages
cd "$(dirname "$0")/../.."
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off -o build/var/w0.cu
P=scripts/exp/ws.py; T=build/var/w0.cu
python3 $P $T build/var/w1.cu WS_INFL=0 WS_PERSIST=0 WS_MINB=2
python3 $P $T build/var/w2.cu WS_INFL=1 WS_PERSIST=0 WS_MINB=2
python3 $P $T build/var/w3.cu WS_INFL=1 WS_PERSIST=1 WS_ST=4
python3 $P $T build/var/w4.cu WS_INFL=1 WS_PERSIST=1 WS_ST=4 WS_THREADS=384
python3 $P $T build/var/w5.cu WS_INFL=0 WS_PERSIST=1 WS_ST=4
python3 $P $T build/var/w6.cu WS_INFL=1 WS_PERSIST=1 WS_ST=3
SIZES=${SIZES:-"2304x1408x896 1152x3072x1536 1536x2560x1792 2048x1536x2432 1664x2816x2432 2048x2048x2048 4096x4096x4096 3456x2816x3840 2816x1536x2560 640x3712x1152 8192x8192x4096"} \
	bash scripts/exp/time-files.sh build/var/w{0,1,2,3,4,5,6}.cu

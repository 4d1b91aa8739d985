#!/usr/bin/env bash
# run31: ping-pong warp-specialized kernels by hand (ws_kernel.cuh, WS_PP)
# against the generated TMA kernel (w0) and run30's best (w4).
#   w7 ping-pong: a producer warpgroup, two consumer warpgroups each on its
#      own 128x128 tile, one k tile in flight, 4 stages, C staged per WG
#   w8 w7 with the wgmma drained every k tile
#   w9 w7 with C stored from registers, 6 stages
cd "$(dirname "$0")/../.."
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off -o build/var/w0.cu
P=scripts/exp/ws.py; T=build/var/w0.cu
python3 $P $T build/var/w4.cu WS_INFL=1 WS_PERSIST=1 WS_ST=4 WS_THREADS=384
python3 $P $T build/var/w7.cu WS_PP=1 WS_INFL=1 WS_PERSIST=1 WS_ST=4
python3 $P $T build/var/w8.cu WS_PP=1 WS_INFL=0 WS_PERSIST=1 WS_ST=4
python3 $P $T build/var/w9.cu WS_PP=1 WS_PP_DIRECT=1 WS_INFL=1 WS_PERSIST=1 WS_ST=6
SIZES=${SIZES:-"2304x1408x896 1152x3072x1536 1536x2560x1792 2048x1536x2432 1664x2816x2432 2048x2048x2048 4096x4096x4096 3456x2816x3840 2816x1536x2560 640x3712x1152 8192x8192x4096"} \
	bash scripts/exp/time-files.sh build/var/w{0,4,7,8,9}.cu

#!/usr/bin/env bash
# run37: grids under one wave of 132 blocks (the paper set's worst sizes):
# the default file (its launch plan: split-K, small and medium variants),
# the plain 128x128 kernel unsplit (w0), --persistent on (p128: one block
# per SM, a producer warp), split-K 2 forced (s2).
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="build/polymma gen examples/gemm_nn.tc --target sm_90a"
$G -o build/var/dflt.cu
$G --split-k 1 --small-variant off -o build/var/w0.cu
$G --persistent on -o build/var/p128.cu
$G --split-k 2 --small-variant off -o build/var/s2.cu
SIZES="512x3968x1664 2688x640x2560 896x2176x2944 2304x896x3200 640x3200x2944 1664x1280x3712 768x2176x1280 896x768x4096 256x1536x3456 640x2048x3584 1920x512x3584 2048x768x2816 384x3584x2944" \
	bash scripts/exp/time-files.sh build/var/dflt.cu build/var/w0.cu build/var/p128.cu build/var/s2.cu

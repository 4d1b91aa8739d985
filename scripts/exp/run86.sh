#!/usr/bin/env bash
# run86 (session 10): host cost per call and single-launch event timing
# against back-to-back timing, polymma's launcher and cublasGemmEx
# (launch_probe.cu), at small, medium and big sizes.
cd "$(dirname "$0")/../.."
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/g.cu
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/g.cu\"" scripts/exp/launch_probe.cu -lcublas -o build/var/lp
build/var/lp 512x1920x896 1024x768x1920 3072x256x3584 896x768x4096 3072x1408x1408 3200x1408x1408 2048x2048x2048 4096x4096x4096

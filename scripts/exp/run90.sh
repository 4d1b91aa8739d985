#!/usr/bin/env bash
# run90 (session 10): the host cost of the launcher's pieces (host_probe.cu)
cd "$(dirname "$0")/../.."
mkdir -p build/var
P=${POLYMMA:-build/polymma}
$P gen examples/gemm_nn.tc --target sm_90a -o build/var/g.cu
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/g.cu\"" scripts/exp/host_probe.cu -o build/var/hp
build/var/hp 512x1920x896 1024x768x2048 512x640x4096 3072x1408x1408 3200x1408x1408 4096x4096x4096

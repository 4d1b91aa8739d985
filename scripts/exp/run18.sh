#!/usr/bin/env bash
# run18: TMA copies (hand-edited gemm_nn variants, scripts/exp/tma_nn.py)
# against the cp.async kernel: correctness and time vs cuBLAS.
cd "$(dirname "$0")/../.."
export SIZES="2048x2048x64 2048x2048x192 2048x2048x2048 4096x4096x4096 8192x8192x4096 1664x2816x2432 2816x1536x2560 3456x2816x3840 640x3712x1152 4096x1280x3456 3072x3072x2048"
bash scripts/exp/time-files.sh build/var/base.cu build/var/tma0.cu build/var/tma1.cu 2>&1 | tee ${OUT:-/tmp}/run18.log

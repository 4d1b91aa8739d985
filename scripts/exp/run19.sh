#!/usr/bin/env bash
# run19: the generated TMA pipeline (--tma, sm_90a default): gpu-check and
# fused checks of sm_90a (TMA and --tma off), then nn timed against the
# cp.async kernel (--tma off) and cuBLAS.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
ONLY=sm90a bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
tail -1 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -5
bash scripts/gpu-fused-check.sh --only '_sm90a(_cpasync)?$' > "$O/fused.txt" 2>&1
tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -5
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off -o build/var/g_tma.cu
build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off --tma off -o build/var/g_cpa.cu
SIZES="2048x2048x2048 4096x4096x4096 8192x8192x4096 1664x2816x2432 2816x1536x2560 3456x2816x3840 640x3712x1152 4096x1280x3456 3072x3072x2048" \
	bash scripts/exp/time-files.sh build/var/g_cpa.cu build/var/g_tma.cu 2>&1 | tee "$O/time.txt"

#!/usr/bin/env bash
# run82 (session 10): the cost of a partial last wave. The default file
# (GEMM nn, sm_90a, the launch plan) and --persistent on, timed against
# cuBLAS (check_gemm --time) at N = 1408, K = 1408 and M = 128 r: 264 tiles
# (2 full waves of 132) .. 396 (3), and the paper's 3968x1152x1408 (279).
cd "$(dirname "$0")/../.."
mkdir -p build/var
P=${POLYMMA:-build/polymma}
$P gen examples/gemm_nn.tc --target sm_90a -o build/var/d.cu
$P gen examples/gemm_nn.tc --target sm_90a --persistent on -o build/var/p.cu
bash scripts/exp/build-check.sh build/var/d.cu &
bash scripts/exp/build-check.sh build/var/p.cu &
wait
S="3072x1408x1408 3200x1408x1408 3328x1408x1408 3456x1408x1408 3840x1408x1408 4224x1408x1408 4608x1408x1408 3968x1152x1408 1536x1408x1408"
for f in d p; do
	build/var/$f --time --tag $f $S 2>&1 | grep -E "^TIME" | sed 's/polymma_tflops=//;s/cublas_tflops=//' | awk '{print $2,$3,$4,$6,$8}'
done

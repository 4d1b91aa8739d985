#!/usr/bin/env bash
# run155 (session 18): the full benchmark with the paper's baseline as
# SPEC.md states it (one pointwise kernel per operation: GEMM+bias+ReLU's
# cublas runs a bias kernel then a relu kernel) and the stricter
# cublas_1pw (one hand-fused bias+relu kernel) beside it. Kernels
# unchanged since run152.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
POLYMMA=build/polymma OUT=$O/b90 GEN_ARGS="--target sm_90a" \
	POLYMMA_DESC="sm_90a session 18: the kernels of run152; baselines per SPEC.md (${TAG:-run155})" \
	bash bench/run.sh > "$O/bench.txt" 2>&1
echo "bench rc=$?"; tail -14 "$O/bench.txt"

#!/usr/bin/env bash
# run25: TMA k loop with one k tile of wgmma in flight (scripts/exp/
# inflight_tma.py) against the default (wgmma waited for at once).
cd "$(dirname "$0")/../.."
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a --split-k 1 --small-variant off -o build/var/t_wait.cu
python3 scripts/exp/inflight_tma.py build/var/t_wait.cu build/var/t_infl.cu
cp build/var/t_wait.cu build/var/t_wait2.cu; cp build/var/t_infl.cu build/var/t_infl2.cu
SIZES="2304x1408x896 1152x3072x1536 1536x2560x1792 2048x1536x2432 1664x2816x2432 2048x2048x2048 4096x4096x4096 3456x2816x3840 2816x1536x2560" \
	bash scripts/exp/time-files.sh build/var/t_wait.cu build/var/t_infl.cu build/var/t_wait2.cu build/var/t_infl2.cu

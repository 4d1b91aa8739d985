#!/usr/bin/env bash
# run24: small grids (the 64x64 variant) with TMA got 5-12 % slower than
# cp.async: the tensor maps prefetched at the kernel's start, or not, or
# cp.async (--tma off); plain entry, back-to-back GPU time per call.
cd "$(dirname "$0")/../.."
mkdir -p build/var
P="build/polymma gen examples/gemm_nn.tc --target sm_90a"
$P -o build/var/s_pf.cu
grep -v "pm_tma_prefetch(&pm_tm" build/var/s_pf.cu > build/var/s_nopf.cu
$P --tma off -o build/var/s_cpa.cu
for v in s_pf s_nopf s_cpa; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/$v.cu\"" -DKFN=gemm_nn -DTAG="\"$v\"" scripts/exp/entry_time.cu -o build/var/$v &
done
wait
for r in 1 2; do
for v in s_pf s_nopf s_cpa; do
	build/var/$v 640x256x2176 2048x128x2432 256x1536x3456 1920x384x512 896x768x4096 512x2304x1792 640x2176x2304 2048x2048x2048 | sed 's/sync_latency_us=[0-9.]* //'
done
done

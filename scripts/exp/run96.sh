#!/usr/bin/env bash
# (Ran with the stream-K build: scripts/exp/run97-sk.diff applied to 35b0423.)
# run96 (session 11): stream-K in the split persistent kernel, correctness:
# gpu-check sm_90a / sm90a_nocl with sizes whose plans run it (one partial
# wave: 69, 80, 96, 105 tiles; tails: 150, 275, 320, 324 tiles) and the
# open rule's build (build-exp: k of 4 tiles or more, any fill); fused
# checkers (sm_90a) at a one-wave and a tail size.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SK="2944x384x3200 640x2048x3584 2048x768x2816 2688x640x2560 3200x768x2304 3200x1408x1408 4096x1280x3456 2304x2304x1024 1024x1536x512 2304x1408x896 1152x1536x1024 896x1920x640"
for P in build/polymma build-exp/polymma; do
	$P gen examples/gemm_nn.tc --target sm_90a -o build/pp.cu &&
		nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DPM_SK \
			-DKERNEL_FILE="\"$PWD/build/pp.cu\"" scripts/exp/plan_probe.cu -o build/pp &&
		echo "plans of $P" && build/pp $SK
done
rm -f build/pp build/pp.cu
SIZES_SM90A="128x256x64 512x768x256 896x768x4096 1024x768x2048 512x640x4096 1024x1024x448 2816x1536x512 $SK" \
ONLY='^sm90a$|sm90a_nocl' OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check rc=$?"; tail -1 $O/gc.txt; grep FAIL $O/gc.txt | head
POLYMMA=build-exp/polymma SIZES_SM90A="$SK" ONLY='^sm90a$' OUT=$O/gco bash scripts/gpu-check.sh > $O/gco.txt 2>&1
echo "gpu-check open rc=$?"; tail -1 $O/gco.txt; grep FAIL $O/gco.txt | head
SIZES_SM90A="2048x768x2816 3200x768x2304" OUT=$O/fc bash scripts/gpu-fused-check.sh --only '_sm90a$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
cp $O/gc/gpu-check.log $O/gpu-check-session11-run96.log 2>/dev/null
cp $O/gco/gpu-check.log $O/gpu-check-open-session11-run96.log 2>/dev/null
cp $O/fc/fused.log $O/fused-session11-run96.log 2>/dev/null
rm -rf $O/gc $O/gco $O/fc $O/gc.txt $O/gco.txt $O/fc.txt
# the plans of every paper size: HEAD before stream-K (build-old), the
# default rule (build), the open one (build-exp)
PAPER="$(cat scripts/exp/paper-sizes.txt)"
for P in build-old/polymma build/polymma build-exp/polymma; do
	$P gen examples/gemm_nn.tc --target sm_90a -o build/pp.cu &&
		nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 $([ $P = build-old/polymma ] || echo -DPM_SK) \
			-DKERNEL_FILE="\"$PWD/build/pp.cu\"" scripts/exp/plan_probe.cu -o build/pp &&
		build/pp $PAPER > $O/plans-$(dirname $P).txt
done
rm -f build/pp build/pp.cu

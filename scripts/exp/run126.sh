#!/usr/bin/env bash
# run126 (for the exact-twins branch): each kernel with ragged sizes also
# as its exact twin (the code before ragged tiles), launched where its tile
# divides M and N. PART=1: run120's gpu-check (default + ragged sizes: both
# kernels of every pair run) and odd M; then steady state (clock_probe.cu)
# at run125's sizes, HEAD before ragged tiles (build-old, ede82b3) against
# this: the twins should match it. PART=2: the fused checkers at ragged and
# exact sizes; PART=3: the full benchmark (as run122).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	sed -n '/^R80=/p;/^R90=/p' scripts/exp/run120.sh > build/r.sh; . build/r.sh
	SIZES="128x256x64 256x128x32 384x128x160 512x768x256 128x128x4096 1024x512x2048 2048x1536x1024 2304x2304x1024 $R80" \
	SIZES_SM90A="128x256x64 384x128x192 512x768x256 128x128x4096 1024x512x2048 896x768x4096 1024x768x2048 512x640x4096 256x1408x5120 384x384x8192 640x384x1472 1024x1024x448 1024x1536x512 2304x1408x896 2304x2304x1024 2560x2944x512 3200x1408x1408 4096x4096x4096 $R90" \
	OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
	echo "gpu-check rc=$?"; tail -1 $O/gc.txt; grep "^FAIL" build/gpu/results.txt | head -20
	for b in nn_sm90a nn_sm80 nn_sm90a_persist nt_sm70_16x16x8; do
		timeout 120 build/gpu/$b --tag odd-$b 1001x776x256 17x4096x4096 1x64x64 | grep -E "FAIL|passed"
	done
	grep -E "^(PASS|FAIL)" build/gpu/results.txt > $O/gpu-check-twins-run126.log
	rm -rf $O/gc
	mkdir -p build/v
	for sp in relu_gemm gemm gemm_bias_relu; do
		for v in old new; do
			bin=build/polymma; [ $v = old ] && bin=build-old/polymma
			$bin gen bench/specs/$sp.tc --target sm_90a -o build/v/$sp-$v.cu
			nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/v/$sp-$v.cu\"" \
				$([ $sp = gemm_bias_relu ] && echo -DBIAS) -DGEMM_FN=pm_$sp scripts/exp/clock_probe.cu -o build/v/c$sp-$v &
		done
	done
	wait
	for x in "gemm 1024x768x1920" "relu_gemm 1920x3200x1792" "gemm 1920x3200x1792" "gemm_bias_relu 1024x768x1920" "gemm 3584x2048x3712"; do
		set -- $x
		for r in 1 2; do for v in old new; do echo "$1 $v $(build/v/c$1-$v $2 0.5)"; done; done
	done | tee $O/twins-run126.txt
elif [ "$PART" = 2 ]; then
	OUT=$O/fc SIZES="200x264x160 1000x776x256 512x256x1024" SIZES_SM90A="200x264x192 1000x776x512 896x776x4096 16x4096x2048 1024x1536x512 2304x2304x1024" \
		bash scripts/gpu-fused-check.sh > $O/fc.txt 2>&1
	echo "fused rc=$?"; tail -2 $O/fc.txt; grep FAIL $O/fc.txt | head -20
	grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-twins-run126.log
	rm -rf $O/fc
else
	POLYMMA=build/polymma OUT=$O/b90 GEN_ARGS="--target sm_90a" \
		POLYMMA_DESC="sm_90a: ragged output tiles with exact twins (run126)" \
		bash bench/run.sh > "$O/bench.txt" 2>&1
	echo "bench rc=$?"; tail -12 "$O/bench.txt"
fi

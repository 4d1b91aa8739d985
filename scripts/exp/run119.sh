#!/usr/bin/env bash
# run119 (session 13): ragged output tiles (M, N not multiples of the block
# tile). PART=1: gpu-check, every configuration and layout, at its default
# sizes plus ragged ones (the red zone after C must stay poisoned), odd M
# on the nn kernels, and compute-sanitizer memcheck at ragged sizes.
# PART=2: the fused checkers at ragged sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
R80="200x264x96 1000x776x256 16x4096x512 136x8x64 2056x1544x1024 520x1032x2048 3000x3000x1024"
R90="16x4096x4096 200x264x192 1000x776x256 136x8x64 520x1032x2048 896x776x4096 1544x1800x512 2056x1544x1024 2312x2296x1024 3000x3000x1024 4104x4096x2048 2568x2944x512 384x136x7168"
if [ "${PART:-1}" = 1 ]; then
	SIZES="128x256x64 256x128x32 384x128x160 512x768x256 128x128x4096 1024x512x2048 2048x1536x1024 2304x2304x1024 $R80" \
	SIZES_SM90A="128x256x64 384x128x192 512x768x256 128x128x4096 1024x512x2048 896x768x4096 1024x768x2048 512x640x4096 256x1408x5120 384x384x8192 640x384x1472 1024x1024x448 1024x1536x512 2304x1408x896 2304x2304x1024 2560x2944x512 3200x1408x1408 4096x4096x4096 $R90" \
	OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
	echo "gpu-check rc=$?"; tail -3 $O/gc.txt; grep "^FAIL" build/gpu/results.txt | head -20
	for b in nn_sm90a nn_sm80 nn_sm90a_persist nn_sm90a_cluster nt_sm70_16x16x8; do
		timeout 120 build/gpu/$b --tag odd-$b 1001x776x256 17x4096x4096 1x64x64 77x136x1024 | grep -E "FAIL|passed"
	done
	for b in nn_sm90a tt_sm90a nn_sm80 tn_sm70_32x32x8 nn_sm90a_persist nt_sm90a_cluster nn_sm90a_split5; do
		timeout 300 compute-sanitizer --tool memcheck --print-limit 5 build/gpu/$b --tag san-$b 200x264x192 1000x776x256 136x8x64 520x1032x2048 2>&1 | grep -E "ERROR SUMMARY|FAIL|passed|Invalid" | head -6
	done
	grep -E "^(PASS|FAIL)" build/gpu/results.txt > $O/gpu-check-ragged-session13-run119.log
else
	OUT=$O/fc SIZES="200x264x160 1000x776x256" SIZES_SM90A="200x264x192 1000x776x512 2056x1544x1024 896x776x4096 16x4096x2048" \
		bash scripts/gpu-fused-check.sh ${ONLY_FC:+--only "$ONLY_FC"} > $O/fc.txt 2>&1
	echo "fused rc=$?"; tail -2 $O/fc.txt; grep FAIL $O/fc.txt | head -20
	grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-ragged-session13-run119.log
	rm -rf $O/fc
fi

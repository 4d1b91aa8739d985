#!/usr/bin/env bash
# run109 (session 11): the split persistent kernel in two, without each
# other's fixup code: _persist_split (the workspace only) and
# _persist_split_cl (clusters only). PART=1: gpu-check sm_90a /
# sm90a_nocl at sizes split in clusters, through the workspace and at
# tails; fused sm_90a there. PART=2: the benchmark at the 23 paper sizes
# whose plan splits a tail and the 23 grids under 79 tiles, build-old
# (HEAD before) against build, 2 rounds. (A first run had the cluster
# twin's occupancy asked without its shared-memory attribute: no plan
# split in clusters; fixed in plan.c's ncl_fn, then run again.)
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	# the plans: clusters at the small sizes, the tails through the workspace
	build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/pp.cu &&
		nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
			-DKERNEL_FILE="\"$PWD/build/pp.cu\"" scripts/exp/plan_probe.cu -o build/pp &&
		build/pp 1024x768x2048 512x640x4096 384x384x8192 896x768x4096 2304x2304x1024 640x256x2176 128x3840x2816
	rm -f build/pp build/pp.cu
	SIZES_SM90A="128x256x64 512x768x256 1024x768x2048 512x640x4096 256x1408x5120 512x512x6144 384x512x7168 384x384x8192 896x768x4096 640x384x1472 1024x1536x512 2304x2304x1024 3200x1408x1408 3200x768x2304 4096x1280x3456 2816x1536x512" \
		ONLY='^sm90a$|sm90a_nocl' OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
	echo "gpu-check rc=$?"; tail -1 $O/gc.txt; grep FAIL $O/gc.txt | head
	SIZES_SM90A="1024x768x2048 384x384x8192 896x768x4096 2304x2304x1024" \
		OUT=$O/fc bash scripts/gpu-fused-check.sh --only '_sm90a$' > $O/fc.txt 2>&1
	echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
	cp $O/gc/gpu-check.log $O/gpu-check-session11-run109.log 2>/dev/null
	cp $O/fc/fused.log $O/fused-session11-run109.log 2>/dev/null
	rm -rf $O/gc $O/fc $O/gc.txt $O/fc.txt
else
	T="3968x768x2048 1664x2816x2432 3456x1920x3072 3968x1152x1408 1152x2304x3968 2816x3328x1280 3200x768x2304 4096x1280x3456 3584x3840x1920 640x3712x1152 2816x1920x1792 3456x2816x3840 2048x1536x2432 1792x1664x3584 2048x3328x1664 3584x2048x3712 3072x896x2560 2688x2432x4096 1152x2688x1536 896x3456x2048 3584x1920x2688 2432x1280x1664 1664x4096x2176 "
	OUT=$O bash scripts/exp/abn-bench.sh run109 2 old=build-old/polymma new=build/polymma -- \
		$(for s in $T; do printf -- '--size %s ' $s; done) $(bash scripts/exp/small-grids.sh)
	python3 scripts/exp/abn-cmp.py "$O" old new > "$O/cmp.txt"
	rm -f "$O"/bench-*.txt
	grep -E "geomean" "$O/cmp.txt"
fi

#!/usr/bin/env bash
# run128 (session 14): the mid variant (128x192 persistent blocks, plan.c's
# last rule). PART=1: gpu-check of the sm_90a configurations (4 layouts)
# at sizes whose plan runs it (exact: 2304x2304x1024 and the paper's
# 3712x3456x1664 ...; ragged: 1000x3000x512), fused sm_90a checkers at two
# of them, and the YIELD scan of the 4 idioms' sm_90a kernels. PART=2: the
# full benchmark.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	S="1000x3000x512 2304x2304x1024 1792x1664x3584 3200x768x2304 2816x3328x1280 1152x2304x3968"
	ONLY='^sm90a$|^sm90a_nocl$' SIZES_SM90A="$S" OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
	echo "gpu-check rc=$?"; tail -1 $O/gc.txt; grep "^FAIL" build/gpu/results.txt | head
	grep -E "^(PASS|FAIL)" build/gpu/results.txt > $O/gpu-check-mid-session14-run128.log
	rm -rf $O/gc
	OUT=$O/fc SIZES_SM90A="1000x3000x512 2304x2304x1024" bash scripts/gpu-fused-check.sh --only 'sm90a$' > $O/fc.txt 2>&1
	echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
	grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-mid-session14-run128.log
	rm -rf $O/fc
	mkdir -p build/ys
	build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/ys/pp.cu &&
		nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/ys/pp.cu\"" \
		scripts/exp/plan_probe.cu -o build/ys/pp && build/ys/pp $(cat scripts/exp/paper-sizes.txt) $S > $O/plans-mid-session14-run128.txt
	echo "mid plans: $(grep -c 'persist=5' $O/plans-mid-session14-run128.txt)"
	for s in bench/specs/*.tc; do
		n=$(basename $s .tc)
		build/polymma gen $s --target sm_90a -o build/ys/$n.cu || continue
		(nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -cubin -o build/ys/$n.cubin build/ys/$n.cu &&
			cuobjdump -sass build/ys/$n.cubin > build/ys/$n.sass) &
	done
	wait
	python3 scripts/yield_scan.py build/ys/*.sass > $O/yield-scan-session14-run128.txt
	grep -ic "yield" $O/yield-scan-session14-run128.txt; tail -3 $O/yield-scan-session14-run128.txt
else
	POLYMMA=build/polymma OUT=$O/b90 GEN_ARGS="--target sm_90a" \
		POLYMMA_DESC="sm_90a session 14: 128x192 persistent blocks (run128)" \
		bash bench/run.sh > "$O/bench.txt" 2>&1
	echo "bench rc=$?"; tail -12 "$O/bench.txt"
fi

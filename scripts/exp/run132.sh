#!/usr/bin/env bash
# run132 (session 15): ReLU+GEMM's plan from the cost model (plan.c's
# plan_ra, the target's ra_cost) and the small grids' split rules for a
# register prologue. PART=1: relu_time.cu, HEAD before (build-old/polymma)
# against now (build/polymma) at the 100 paper sizes, two rounds
# alternating; then the fused sm_90a prologue checkers (every function, 4
# layouts) at sizes whose new plan runs each variant: workspace split in 4
# and 5 chunks and ragged in 2, wide, tall, mid (ragged), medium.
# PART=2: the full benchmark.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	mkdir -p build/r132
	for v in old new; do
		P=build/polymma; [ $v = old ] && P=build-old/polymma
		$P gen bench/specs/relu_gemm.tc --target sm_90a -o build/r132/$v.cu || exit 1
		nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/r132/$v.cu\"" \
			-DKFN=pm_relu_gemm scripts/exp/relu_time.cu -o build/r132/rt$v &
	done
	wait
	S=$(cat scripts/exp/paper-sizes.txt)
	for r in 1 2; do for v in old new; do
		timeout 200 build/r132/rt$v $v $S 2>&1 | grep -E "^(TIME|FAIL)"
	done; done > $O/relu-model-session15-run132.txt
	grep -c TIME $O/relu-model-session15-run132.txt; grep -c FAIL $O/relu-model-session15-run132.txt
	OUT=$O/fc SIZES_SM90A="2048x128x2432 256x1536x3456 1000x776x1920 1536x2304x3456 3072x1152x1280 1000x3000x1920 2304x1408x896" \
		bash scripts/gpu-fused-check.sh --only '^pro_.*_sm90a$' > $O/fc.txt 2>&1
	echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
	grep -E "^(PASS|FAIL)|passed" $O/fc/fused.log > $O/fused-pro-session15-run132.log
	rm -rf $O/fc
else
	POLYMMA=build/polymma OUT=$O/b90 GEN_ARGS="--target sm_90a" \
		POLYMMA_DESC="sm_90a session 15: ReLU+GEMM plan from a cost model (${TAG:-run132})" \
		bash bench/run.sh > "$O/bench.txt" 2>&1
	echo "bench rc=$?"; tail -12 "$O/bench.txt"
fi

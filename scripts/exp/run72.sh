#!/usr/bin/env bash
# run72 (session 9, final): split-K in clusters. PART=1: gpu-check sm_90a
# (its sizes now split in 2 .. 8 chunks in clusters) and --cluster 1 (the
# workspace fixup), the fused checkers on sm_90a at sizes that split in
# clusters of 3, 4 and 8 and on a tail (the workspace). PART=2: the plan
# at those sizes (plan_probe.cu), check_gemm's entry with no workspace, the
# full benchmark (docs/bench-sm90a).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	ONLY='^sm90a$' OUT=$O bash scripts/gpu-check.sh > "$O/check.txt" 2>&1
	echo "gpu-check rc=$?"; tail -2 "$O/check.txt"
	SIZES_SM90A="896x768x4096 512x640x4096 384x384x8192" \
		ONLY='^sm90a_nocl$' OUT=$O/nocl bash scripts/gpu-check.sh > "$O/check-nocl.txt" 2>&1
	echo "gpu-check --cluster 1 rc=$?"; tail -2 "$O/check-nocl.txt"
	SIZES_SM90A="640x896x3072 512x640x4096 384x384x8192 2304x2304x1024" OUT=$O/fused \
		bash scripts/gpu-fused-check.sh --only '_sm90a$' > "$O/fused.txt" 2>&1
	echo "fused rc=$?"; tail -2 "$O/fused.txt"
else
	# the plan at the checked sizes (chunks, cluster, workspace)
	./build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/pp.cu &&
		nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
			-DKERNEL_FILE="\"$PWD/build/pp.cu\"" scripts/exp/plan_probe.cu -o build/pp &&
		./build/pp 1024x768x2048 512x640x4096 256x1408x5120 512x512x6144 \
			384x512x7168 384x384x8192 896x768x4096 2304x2304x1024 | tee "$O/plan.txt"
	# the entry with no workspace (check_gemm's /ws-none)
	SIZES_SM90A="1024x768x2048 512x640x4096 384x384x8192 896x768x4096" \
		ONLY='^sm90a$' OUT=$O bash scripts/gpu-check.sh > "$O/check.txt" 2>&1
	echo "gpu-check rc=$?"; tail -1 "$O/check.txt"; grep -c "ws-none" "$O/gpu-check.log"
	OUT=$O/b90 GEN_ARGS="--target sm_90a" \
		POLYMMA_DESC="sm_90a session 9: split-K in clusters through distributed shared memory (run72)" \
		bash bench/run.sh > "$O/bench.txt" 2>&1
	echo "bench rc=$?"; tail -30 "$O/bench.txt"
fi

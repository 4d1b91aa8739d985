#!/usr/bin/env bash
# run60 (session 8): the tall persistent variant (256x128) and the
# --cluster 2 kernels on the GPU. PART=1: gpu-check sm90a, sm90a_persist,
# sm90a_cluster (4 layouts) and the fused sm_90a checkers at the tall
# size and 2304x2304x1024; PART=2: the benchmark at the paper sizes the
# tall variant takes and a few controls, build-old/polymma (HEAD before)
# against build/polymma, one session.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	ONLY=${ONLY:-'^sm90a(_persist|_cluster)?$'} OUT=$O bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
	tail -1 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -20
	SIZES_SM90A=${FSIZES:-"2560x2944x512 2304x2304x1024"} bash scripts/gpu-fused-check.sh --only '_sm90a$' > "$O/fused.txt" 2>&1
	tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -10
else
	SZ=${SZ:-"--size 3072x3712x640 --size 2304x3200x2176 --size 4096x3712x3328 --size 3840x1920x640 --size 2560x2944x512 --size 1664x2816x2432 --size 3072x3840x3072 --size 2048x1408x3968"}
	# shellcheck disable=SC2086
	OUT=$O bash scripts/exp/ab-bench.sh run60 $SZ
fi

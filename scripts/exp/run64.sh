#!/usr/bin/env bash
# run64 (session 8): the producer warpgroup with setmaxnreg for a register
# prologue (emit/persist.c), which lets ReLU+GEMM run the wide and tall
# persistent variants. PART=1: gpu-check sm90a / sm90a_persist and the
# fused sm_90a / sm90a_persist checkers at sizes running each persistent
# variant (2048x4096x256 wide, 2560x2944x512 tall, 1024x1536x512 the
# 128x128 one, 640x896x3072 and 2304x2304x1024 the split one); PART=2:
# the benchmark, old (before this session) and new, at the paper sizes
# the wide and tall rules take and controls.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
if [ "${PART:-1}" = 1 ]; then
	ONLY='^sm90a(_persist)?$' OUT=$O bash scripts/gpu-check.sh > "$O/gpu-check.txt" 2>&1
	tail -1 "$O/gpu-check.txt"; grep FAIL "$O/gpu-check.txt" | head -20
	SIZES_SM90A="2048x4096x256 2560x2944x512 1024x1536x512 640x896x3072 2304x2304x1024" \
		bash scripts/gpu-fused-check.sh --only '_sm90a(_persist)?$' > "$O/fused.txt" 2>&1
	tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -10
else
	SZ=${SZ:-"--size 1920x3840x1664 --size 2944x3840x2944 --size 4096x2816x2560 --size 2560x3072x1536 --size 3840x3072x3072 --size 3072x3712x640 --size 2304x3200x2176 --size 4096x3712x3328 --size 3840x1920x640 --size 1664x2816x2432 --size 2048x1408x3968"}
	# shellcheck disable=SC2086
	OUT=$O bash scripts/exp/ab-bench.sh run64 $SZ
fi

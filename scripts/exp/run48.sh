#!/usr/bin/env bash
# run48 (the generator change it measured: scripts/exp/run48-rap.diff,
# applied to commit a3e4d5f and reverted): a prologue through the MMA's registers in the persistent kernels
# with the next k tile's A fragments loaded while this tile's wgmma run
# (pm_sm90_mma_tile_rap). PART=1: the fused checks of the prologues on
# sm_90a (default and --persistent on) at 1024x1536x512 (_persist),
# 640x896x3072 (_persist_split) and 2304x2304x1024. PART=2: ReLU+GEMM in
# the benchmark at multi-wave paper sizes, build-exp/polymma (this source,
# with an experiment's switch PM_EXP_TAIL_PRO letting the plan choose the
# persistent kernels on several waves) with and without the switch, one
# session.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ="--size 1664x2816x2432 --size 3968x1152x1408 --size 3456x1920x3072 --size 2688x2432x4096 --size 4096x1280x3456 --size 2816x1920x1792 --size 2048x3328x1664 --size 3584x1920x2688 --size 3456x2816x3840 --size 2304x3200x2176 --size 4096x3712x3328 --size 1664x4096x2176 --size 2944x3584x2304 --size 3840x3712x3072 --size 3712x3456x1664"
if [ "${PART:-1}" = 1 ]; then
	SIZES_SM90A="1024x1536x512 640x896x3072 2304x2304x1024" bash scripts/gpu-fused-check.sh --only '^pro_.*_sm90a(_persist)?$' > "$O/fused.txt" 2>&1
	tail -1 "$O/fused.txt"; grep FAIL "$O/fused.txt" | head -5
	grep -hE '^(PASS|FAIL)|passed' build/fused/*.run.log > "$O/fused-runs.txt"
else
	for v in new old; do
		if [ $v = new ]; then export PM_EXP_TAIL_PRO=1; else unset PM_EXP_TAIL_PRO; fi
		# shellcheck disable=SC2086
		POLYMMA=build-exp/polymma OUT=$O/b-$v GEN_ARGS="--target sm_90a" POLYMMA_DESC="run48 $v" bash bench/run.sh $SZ > "$O/bench-$v.txt" 2>&1
		echo "$v rc=$?"; cp "$O/b-$v/bench.csv" "$O/bench-$v.csv"; rm -rf "$O/b-$v"
	done
fi

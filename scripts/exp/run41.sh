#!/usr/bin/env bash
# run41: split-K inside the persistent kernel (_persist_split) for grids
# under 3/5 tile per SM. PART=1: gpu-check sm_90a and the fused sm_90a
# checks; PART=2: the benchmark at the paper set's 23 sizes under 3/5 tile
# per SM, this build against build-old/polymma (the commit before) in one
# session.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ="--size 640x256x2176 --size 2048x128x2432 --size 256x1536x3456 --size 3456x128x3456 --size 1792x256x1536 --size 128x3840x2816 --size 3968x128x1408 --size 896x768x3200 --size 896x768x4096 --size 1920x384x512 --size 512x1536x384 --size 1024x768x1920 --size 3072x256x3584 --size 3200x256x3712 --size 512x1920x896 --size 1920x512x3584 --size 384x2688x2432 --size 1664x640x3840 --size 1408x768x3712 --size 2944x384x3200 --size 640x1792x256 --size 512x2304x1792 --size 1408x896x1664"
if [ "${PART:-1}" = 1 ]; then
	OUT=$O NOBENCH=1 ONLY="${ONLY:-sm90a$}" FUSED='_sm90a$' bash scripts/exp/check-bench.sh
else
	for v in new old; do
		P=build/polymma; [ $v = old ] && P=build-old/polymma
		# shellcheck disable=SC2086
		POLYMMA=$P OUT=$O/b-$v GEN_ARGS="--target sm_90a" POLYMMA_DESC="run41 $v" bash bench/run.sh $SZ > "$O/bench-$v.txt" 2>&1
		echo "$v rc=$?"; sed -n '/## Set paper/,/## Set square/p' "$O/b-$v/summary.md" | grep '^| [a-z]'
	done
fi

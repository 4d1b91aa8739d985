#!/usr/bin/env bash
# run89 (session 10): the workspace fixup's counter as CUTLASS's barriers
# (build-exp) against HEAD (build-old), the benchmark at the 13 paper sizes
# whose last wave the split persistent kernel splits (a tail of R <= 66
# tiles) and the 23 grids under 79 tiles (split in clusters or through
# the workspace), 2 rounds.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
T="1664x2816x2432 3456x1920x3072 3968x1152x1408 2816x3328x1280 4096x1280x3456 3584x3840x1920 2816x1920x1792 3456x2816x3840 2048x3328x1664 3584x2048x3712 2688x2432x4096 3584x1920x2688 1664x4096x2176"
OUT=$O bash scripts/exp/abn-bench.sh run89 2 old=build-old/polymma new=build-exp/polymma -- \
	$(for s in $T; do printf -- '--size %s ' $s; done) $(bash scripts/exp/small-grids.sh)
python3 scripts/exp/abn-cmp.py "$O" old new > "$O/cmp.txt"
rm -f "$O"/bench-*.txt
grep -E "geomean" "$O/cmp.txt"

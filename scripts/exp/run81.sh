#!/usr/bin/env bash
# run81 (session 10): the register prologue one k16 step at a time (the
# ldmatrix of step kk + 16 runs while the wgmma of step kk does; a
# wgmma.fence per step) in build-exp against all steps' ldmatrix first
# (build/polymma), the 23 small grids and 5 big ones, 2 rounds.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
OUT=$O bash scripts/exp/abn-bench.sh run81 2 def=build/polymma ilv=build-exp/polymma -- \
	$(bash scripts/exp/small-grids.sh) --size 2560x3840x3968 --size 2944x3584x2304 \
	--size 1664x2816x2432 --size 3584x1920x2688 --size 4096x4096x4096
python3 scripts/exp/abn-cmp.py "$O" def ilv > "$O/cmp.txt"
rm -f "$O"/bench-*.txt
grep -E "^relu|geomean" "$O/cmp.txt"

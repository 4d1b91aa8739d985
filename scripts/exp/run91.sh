#!/usr/bin/env bash
# run91 (session 10): the shared-memory limit raised once per device
# instead of in every launch (a ~0.6 us driver call on the host before the
# launch; host_probe.cu, run90) in build/polymma against HEAD without it
# (build-t2), the benchmark at the 23 small grids and 4 bigger ones,
# 2 rounds.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
OUT=$O bash scripts/exp/abn-bench.sh run91 2 old=build-t2/polymma new=build/polymma -- \
	$(bash scripts/exp/small-grids.sh) --size 1536x1536x1536 --size 3072x1408x1408 \
	--size 2048x2048x2048 --size 4096x4096x4096
python3 scripts/exp/abn-cmp.py "$O" old new > "$O/cmp.txt"
rm -f "$O"/bench-*.txt
grep -E "geomean" "$O/cmp.txt"

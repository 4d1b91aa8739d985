#!/usr/bin/env bash
# run76 (session 9): the persistent kernel unsplit (pfew) from 1/2 tile
# per SM instead of 3/5 (the grids of 67..78 tiles, which neither split in
# clusters of 2 nor fill 3/5 of the SMs, ran the 64x64 small variant):
# build against build-exp (plan.c's two thresholds at 1/2; not kept in the
# tree unless it wins), the paper sizes of 69, 70, 72 and 77 tiles and one
# control (60 tiles, split in clusters in both), 3 rounds.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
OUT=$O bash scripts/exp/abn-bench.sh run76 3 new=build/polymma exp=build-exp/polymma -- \
	--size 2944x384x3200 --size 512x2304x1792 --size 1408x896x1664 \
	--size 640x1792x256 --size 1920x512x3584
python3 scripts/exp/abn-cmp.py "$O" new exp > "$O/cmp.txt"
rm -f "$O"/bench-*.txt
cat "$O/cmp.txt"

#!/usr/bin/env bash
# run61 (session 8; the variant it measured was removed again, PERF.md):
# the wide split variant (the tail of grids of several
# waves of 128x256 blocks in chunks) in the benchmark: the paper sizes its
# rule takes and two controls, build-old/polymma (before this session)
# against build/polymma, one session.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ=${SZ:-"--size 2560x3840x3968 --size 1664x2816x2432 --size 1792x3072x1024 --size 2816x3328x1280 --size 4096x1280x3456 --size 3584x3840x1920 --size 1664x3328x3200 --size 2816x2304x1024 --size 3456x2816x3840 --size 1792x3072x1664 --size 2944x3584x2304 --size 3072x3840x3072 --size 2048x1408x3968"}
# shellcheck disable=SC2086
OUT=$O bash scripts/exp/ab-bench.sh run61 $SZ

#!/usr/bin/env bash
# run67 (session 8): ReLU+GEMM's wide and tall variants on every multi-wave
# grid whose N (M) they divide at k of 16 tiles or more, whatever their
# waves' fill (their alternative, two 128x128 blocks per SM, fills its
# waves exactly as well): build-old/polymma (fc5685e, the 85 % rule)
# against build/polymma, one session, the paper sizes it changes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ=${SZ:-"--size 2560x3840x3968 --size 1664x2816x2432 --size 1792x3072x1024 --size 3840x3712x3072 --size 2816x3328x1280 --size 4096x1280x3456 --size 3584x3840x1920 --size 2816x1920x1792 --size 3456x2816x3840 --size 2048x3328x1664 --size 1536x3712x3584 --size 3584x1920x2688 --size 2944x3584x2304 --size 1664x4096x2176"}
# shellcheck disable=SC2086
OUT=$O bash scripts/exp/ab-bench.sh run67 $SZ

#!/usr/bin/env bash
# run78 needs the m64n192k16 wrappers and 64x192 macros (session 10, removed again)
# run78 (session 10): 128x192 persistent blocks (two warpgroups of 64x192,
# one m64n192 wgmma each per k step: ~138 B/clock of shared memory per SM
# at full rate, a 93 % cap against the 128x128 block's 80 %) against the
# 128x128 (p), wide 128x256 (w) and tall 256x128 (t) ones; nn,
# --persistent on, full waves where the tile allows.
cd "$(dirname "$0")/../.."
mkdir -p build/var
G="examples/gemm_nn.tc --target sm_90a --persistent on --cluster 1"
P=${POLYMMA:-build/polymma}
$P gen $G -o build/var/p.cu
$P gen $G --block 128x192x64 --warp 64x192 --mma 64x192x64 --stages 4 -o build/var/n4.cu
$P gen $G --block 128x192x64 --warp 64x192 --mma 64x192x64 --stages 5 -o build/var/n5.cu
$P gen $G --block 128x256x64 --warp 64x256 --mma 64x256x64 --stages 3 -o build/var/w.cu
$P gen $G --block 256x128x64 --warp 128x128 --stages 3 -o build/var/t.cu
S=${SIZES:-"4224x3072x4096 2816x2304x2560 3968x1152x1408 3456x1920x3072 4096x3072x2048 2112x3072x3072"}
for f in p n4 n5 w t; do
	case $f in n*) bn=192 bm=128;; w) bn=256 bm=128;; t) bn=128 bm=256;; *) bn=128 bm=128;; esac
	bash scripts/exp/build-check.sh build/var/$f.cu gemm_nn $bm $bn &
done
wait
for r in 1 2; do
for f in p n4 n5 w t; do
	timeout 120 build/var/$f --time --tag $f $S 2>&1 | grep -E "^(TIME|FAIL)|passed|rror"
done
done

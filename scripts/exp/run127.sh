#!/usr/bin/env bash
# run127 (session 14): a 128x192 persistent block (wgmma m64n192k16, B tile
# of three 64-column boxes). The default file against the same spec with
# --block 128x192x64 --warp 64x192 --mma 64x192x64 --persistent on, checked
# at ragged and exact sizes, then check_gemm --time at the 66 paper grids of
# 132 tiles or more, two rounds alternating. Again with the staged store
# (rows of 24 units on 32 lanes) and 3 stages (VARS).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/d0.cu || exit 1
build/polymma gen examples/gemm_nn.tc --target sm_90a --block 128x192x64 --warp 64x192 --mma 64x192x64 --persistent on -o build/var/p192.cu || exit 1
build/polymma gen examples/gemm_nn.tc --target sm_90a --block 128x192x64 --warp 64x192 --mma 64x192x64 --persistent on --stages 3 -o build/var/p192s3.cu || exit 1

bash scripts/exp/build-check.sh build/var/d0.cu &
bash scripts/exp/build-check.sh build/var/p192.cu gemm_nn 128 192 &
bash scripts/exp/build-check.sh build/var/p192s3.cu gemm_nn 128 192 &

wait
for b in p192 p192s3; do
	timeout 200 build/var/$b --tag chk-$b 128x192x64 1000x776x512 4096x4096x4096 1920x3840x1664 3456x1280x768 136x8x64 2816x1920x1792 | grep -E "FAIL|passed"
done
S="${SIZES:-$(cat scripts/exp/paper-big.txt)}"
for r in 1 2; do for v in ${VARS:-d0 p192 p192s3}; do
	timeout 250 build/var/$v --time --tag "$v" $S 2>&1 | grep -E "^(TIME|FAIL)|passed"
done; done > $O/p192-session14-run127${TAG:-}.txt
grep -c TIME $O/p192-session14-run127${TAG:-}.txt; grep -E "FAIL|passed" $O/p192-session14-run127${TAG:-}.txt | sort | uniq -c

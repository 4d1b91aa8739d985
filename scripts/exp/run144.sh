#!/usr/bin/env bash
# run144 (session 17): GEMM tile shapes for the 34 paper grids under 132
# 128x128 tiles (and a few bigger ones), each forced by options, against
# cuBLAS and the default file, timed the benchmark's way (var_time.cu).
# VARS: lines tag:options (@inflight in the options: inflight_ws.py).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
D=build/r144
mkdir -p $D $O
P="--target sm_90a"
VARS=${VARS:-"def:
b64x192s6:--block 64x192x64 --warp 64x192 --stages 6 --persistent off --split-k 1
b64x256s5:--block 64x256x64 --warp 64x256 --stages 5 --persistent off --split-k 1
b192x64s6:--block 192x64x64 --warp 64x64 --stages 6 --persistent off --split-k 1
b256x64s5:--block 256x64x64 --warp 64x64 --stages 5 --persistent off --split-k 1
b128x64s6:--block 128x64x64 --warp 64x64 --stages 6 --persistent off --split-k 1
b64x128s6:--block 64x128x64 --warp 64x128 --stages 6 --persistent off --split-k 1
b128x192s4:--block 128x192x64 --warp 64x192 --stages 4 --persistent off --split-k 1
b192x128s4:--block 192x128x64 --warp 64x128 --stages 4 --persistent off --split-k 1
b128x128s6:--block 128x128x64 --warp 64x128 --stages 6 --persistent off --split-k 1
p64x192s6:--block 64x192x64 --warp 64x192 --stages 6 --persistent on --split-k 1
p128x192s4:--block 128x192x64 --warp 64x192 --stages 4 --persistent on --split-k 1
p128x64s6:--block 128x64x64 --warp 64x64 --stages 6 --persistent on --split-k 1
p64x128s6a:--block 64x128x64 --warp 64x128 --stages 6 --persistent on"}
i=0
: > $D/vars.h
echo "static const pm_var vars[] = {" > $D/table.h
while IFS=: read -r tag opts; do
	[ -z "$tag" ] && continue
	sed "s/def pm_gemm(/def pm_gemm_v$i(/" bench/specs/gemm.tc > $D/v$i.tc
	post=; case "$opts" in *@inflight*) post=1; opts=${opts//@inflight/};; esac
	build/polymma gen $D/v$i.tc $P $opts -o $D/v$i.cu || { echo "gen $tag failed"; exit 1; }
	# @inflight: one k tile of wgmma in flight (unsplit persistent files)
	[ -n "$post" ] && { python3 scripts/exp/inflight_ws.py $D/v$i.cu $D/v$i.cu || exit 1; }
	echo "extern \"C\" cudaError_t pm_gemm_v$i(const void *, const void *, void *, int64_t, int64_t, int64_t, cudaStream_t);" >> $D/vars.h
	echo "  {\"$tag\", pm_gemm_v$i}," >> $D/table.h
	(nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -c $D/v$i.cu -o $D/v$i.o -Xptxas -v 2>&1 | grep -E "spill" | grep -v " 0 bytes spill" | sed "s/^/$tag: /") &
	i=$((i + 1))
done <<< "$VARS"
echo "};" >> $D/table.h
cat $D/table.h >> $D/vars.h
wait
nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -DVARS_H="\"$PWD/$D/vars.h\"" \
	scripts/exp/var_time.cu $D/v*.o -lcublas -lcuda -o $D/var_time || exit 1
S=${SIZES:-$(cat scripts/exp/paper-small.txt)}
timeout ${TLIM:-400} $D/var_time $S > $O/var-${TAG:-run144}.txt
echo "rc=$?"; grep -c ^VAR $O/var-${TAG:-run144}.txt; grep FAIL $O/var-${TAG:-run144}.txt | head

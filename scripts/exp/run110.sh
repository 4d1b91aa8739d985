#!/usr/bin/env bash
# run110 (session 12): where small grids lose. (1) which kernels cuBLAS
# runs at the paper's worst small grids (ncu LaunchStats); (2) the 128x256
# persistent kernel (--persistent on) at K/2 and K/3 of those sizes
# against the default file at full K: the per-SM time a 128x256 split in
# 2 or 3 chunks would have before its fixup.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/d.cu
build/polymma gen examples/gemm_nn.tc --target sm_90a --persistent on --block 128x256x64 --warp 64x256 --stages 3 -o build/var/pw.cu
build/polymma gen examples/gemm_nn.tc --target sm_90a --persistent on -o build/var/p.cu
bash scripts/exp/build-check.sh build/var/d.cu &
bash scripts/exp/build-check.sh build/var/pw.cu gemm_nn 128 256 &
bash scripts/exp/build-check.sh build/var/p.cu &
wait
for s in ${CSIZES:-640x2048x3584 2048x128x2432 640x256x2176 256x1536x3456 1024x768x1920 3456x1280x768 3968x1152x1408 3072x256x3584 2944x384x3200 128x3840x2816}; do
	timeout 60 ncu --clock-control none -k regex:'^(nvjet|sm|cutlass|xmma|ampere|void|gemm|splitK|reduce)' --launch-count 3 --section LaunchStats \
		build/var/d --time "$s" > "$O/ncu-$s.txt" 2>&1
	echo "== $s"; grep -E "^  [a-zA-Z_]|Cluster Size|Grid Size|Block Size|Registers Per|Dynamic Shared" "$O/ncu-$s.txt" | sed 's/  */ /g'
done > $O/cublas-kernels-session12-run110.txt
rm -f $O/ncu-*.txt
{
for f in d p pw; do
	timeout 120 build/var/$f --time --tag $f ${TSIZES:-640x2048x3584 640x2048x1792 640x2048x1216 1024x768x1920 1024x768x960 1024x768x640 3072x256x3584 3072x256x1792 3072x256x1216 256x1536x3456 256x1536x1728 256x1536x1152 1536x3328x128} 2>&1 | grep -E "^(TIME|FAIL)|passed"
done
} > $O/time-session12-run110.txt
cat $O/cublas-kernels-session12-run110.txt $O/time-session12-run110.txt

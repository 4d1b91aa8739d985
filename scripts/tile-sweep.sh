#!/usr/bin/env bash
# tile-sweep.sh: time the nn GEMM kernel for several tile configurations
# against cuBLAS in the same process (tests/gpu/check_gemm.cu --time).
#   bash scripts/tile-sweep.sh [SIZE ...]      (default 2048^3 4096^3 8192^3)
# Each configuration line below is "name|polymma gen options" (CONFIGS in the
# environment replaces them); options naming sm_90a build for sm_90a.
set -u -o pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
W=build/sweep
mkdir -p "$W"
SIZES=${*:-2048x2048x2048 4096x4096x4096 8192x8192x8192}
CONFIGS=${CONFIGS:-"b128x128x32_s3|--block 128x128x32 --warp 64x64 --stages 3
b128x256x32_s3|--block 128x256x32 --warp 64x64 --stages 3
b256x128x32_s3|--block 256x128x32 --warp 64x64 --stages 3
b128x256x32_s4|--block 128x256x32 --warp 64x64 --stages 4
b128x128x64_s3|--block 128x128x64 --warp 64x64 --stages 3
b128x128x32_w64x32|--block 128x128x32 --warp 64x32 --stages 3"}
build() {
	local name=${1%%|*} opts=${1#*|}
	read -r bm bn bk <<<"$(echo "$opts" | sed -n 's/.*--block \([0-9]*\)x\([0-9]*\)x\([0-9]*\).*/\1 \2 \3/p')"
	local arch=-arch=sm_90
	case $opts in *sm_90a*) arch=-gencode=arch=compute_90a,code=sm_90a ;; esac
	build/polymma gen examples/gemm_nn.tc -o "$W/$name.cu" $opts &&
	"$NVCC" -O2 $arch -std=c++17 -DKERNEL_FILE="\"$PWD/$W/$name.cu\"" \
		-DKFN=gemm_nn -DA_KM=0 -DB_NK=0 -DBLOCK_M=${bm:-128} \
		-DBLOCK_N=${bn:-128} -DBLOCK_K=${bk:-32} \
		tests/gpu/check_gemm.cu -lcublas -o "$W/$name" >"$W/$name.log" 2>&1 ||
		echo "BUILD FAILED $name"
}
export -f build; export W NVCC
echo "$CONFIGS" | xargs -P 8 -I{} bash -c 'build "{}"'
echo "$CONFIGS" | while IFS= read -r c; do
	name=${c%%|*}
	[ -x "$W/$name" ] || continue
	"$W/$name" --time --tag "$name" $SIZES 2>&1 | grep -E "^(TIME|FAIL)|passed"
done

#!/usr/bin/env bash
# run75 (session 9, final check): the kernel with the relaxed end barrier:
# gpu-check sm_90a (sizes splitting in 2 .. 8 chunks in clusters), the
# fused checkers on sm_90a at sizes splitting in clusters of 3, 4 and 8,
# and compute-sanitizer memcheck / synccheck / racecheck of check_gemm at
# cluster sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
ONLY='^sm90a$' OUT=$O bash scripts/gpu-check.sh > "$O/check.txt" 2>&1
echo "gpu-check rc=$?"; tail -1 "$O/check.txt"
SIZES_SM90A="640x896x3072 512x640x4096 384x384x8192" OUT=$O/fused \
	bash scripts/gpu-fused-check.sh --only '_sm90a$' > "$O/fused.txt" 2>&1
echo "fused rc=$?"; tail -1 "$O/fused.txt"
mkdir -p build/var
./build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/san.cu &&
	bash scripts/exp/build-check.sh build/var/san.cu || exit 1
for tool in memcheck synccheck racecheck; do
	compute-sanitizer --tool $tool --error-exitcode 3 build/var/san \
		--tag $tool 1024x768x2048 512x640x4096 384x384x8192 > "$O/san-$tool.txt" 2>&1
	echo "$tool rc=$?"; grep -E "passed|SUMMARY" "$O/san-$tool.txt" | tail -2
done

#!/usr/bin/env bash
# run73 (session 9): compute-sanitizer on the split in clusters: memcheck,
# racecheck and synccheck of check_gemm (gemm_nn, sm_90a) at sizes whose
# plans split in 2, 4 and 8 chunks in clusters, and one of the workspace's.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
./build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/san.cu &&
	bash scripts/exp/build-check.sh build/var/san.cu || exit 1
for tool in memcheck racecheck synccheck; do
	compute-sanitizer --tool $tool --error-exitcode 3 build/var/san \
		--tag $tool 1024x768x2048 512x640x4096 384x384x8192 896x768x4096 \
		> "$O/san-$tool.txt" 2>&1
	echo "$tool rc=$?"; grep -E "ERROR SUMMARY|passed|RACECHECK SUMMARY" "$O/san-$tool.txt" | tail -3
done

#!/usr/bin/env bash
# run74 (session 9): a cluster barrier (relaxed: the release one of a first
# try cost ~3 % at the cluster sizes) at the end of the split persistent
# kernel launched in clusters (for compute-sanitizer racecheck, which
# flagged every remote store of run73 as a write to a block that "might
# have already exited": its check recognizes cluster barriers, not the
# mbarrier protocol): build (without) against build-exp (with), the 23
# small grids, 2 rounds; then racecheck with build-exp's kernel.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
# shellcheck disable=SC2046
OUT=$O bash scripts/exp/abn-bench.sh run74 2 new=build/polymma exp=build-exp/polymma -- $(bash scripts/exp/small-grids.sh)
python3 scripts/exp/abn-cmp.py "$O" new exp > "$O/cmp.txt"
rm -f "$O"/bench-*.txt
grep geomean "$O/cmp.txt"
mkdir -p build/var
./build-exp/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/san.cu &&
	bash scripts/exp/build-check.sh build/var/san.cu || exit 1
compute-sanitizer --tool racecheck --error-exitcode 3 build/var/san \
	--tag racecheck 1024x768x2048 512x640x4096 384x384x8192 > "$O/san-racecheck.txt" 2>&1
echo "racecheck rc=$?"; grep -E "passed|SUMMARY" "$O/san-racecheck.txt" | tail -2

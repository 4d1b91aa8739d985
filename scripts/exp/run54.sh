#!/usr/bin/env bash
# run54: why run53's cluster kernel ran 2.5x slower: its launch (grid,
# cluster) and stalls under Nsight Compute, and a variant whose remote
# arrivals use the default .release.cta semantics (as CUTLASS's do).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
sed 's/mbarrier.arrive.release.cluster.shared::cluster.b64/mbarrier.arrive.shared::cluster.b64/' build/var/p2.cu > build/var/p2r.cu
SIZES="4096x4096x4096 2048x2048x1024" bash scripts/exp/time-files.sh build/var/p2r.cu 2>&1 | grep -E "^(TIME|FAIL)|passed"
for v in p1 p2; do
	timeout 120 ncu --clock-control none -k regex:'pm_kernel' --launch-count 1 --section SpeedOfLight --section LaunchStats \
		--section WarpStateStats --section Occupancy build/var/$v 4096x4096x4096 > "$O/ncu-$v.txt" 2>&1
	echo "== $v"; grep -E "Duration|Grid Size|Cluster Size|Max Active Clusters|Stall|L2 Cache Th|SM Busy|Warp Cycles Per Issued" "$O/ncu-$v.txt"
done

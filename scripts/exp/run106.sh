#!/usr/bin/env bash
# run106 (session 11): where the stream-K build's split persistent kernel
# stalls on "branch resolving" (run105: 0.57 per issue against 0.08):
# Nsight Compute's per-instruction warp-state sampling (source page, SASS)
# of old, new and nofix (build/var/cp, run105's binaries) on whole tiles.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
for v in old new nofix; do
	[ -x build/var/cp/$v ] || nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
		-DKERNEL_FILE="\"$PWD/build/var/cp/$v.cu\"" scripts/exp/clock_probe.cu -o build/var/cp/$v
	PM_FORCE=-1,1 ncu --kernel-name regex:persist_split --launch-skip 20 --launch-count 1 \
		--section WarpStateStats --section SourceCounters -o $O/src-$v build/var/cp/$v 2688x640x2560 0.05 > /dev/null 2>&1
	ncu -i $O/src-$v.ncu-rep --page source --print-source sass --csv > $O/src-$v.csv 2> $O/src-$v.err
	echo "$v rc=$? $(wc -l < $O/src-$v.csv) lines"
	rm -f $O/src-$v.ncu-rep
done

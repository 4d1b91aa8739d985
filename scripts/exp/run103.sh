#!/usr/bin/env bash
# run103 (session 11): does the split persistent kernel's cluster path
# (distributed shared memory) cost its whole tiles? HEAD's default file
# (dflt) and its --cluster 1 file (nocl), build/var/cp/*.cu
# (force_tdp.py'd); clock_probe.cu, 1 s each, 2 rounds: whole tiles in the
# split kernel (PM_FORCE=-1,1), the default plans (a persistent kernel at
# 105 and 102 tiles; the tail split at the others).
cd "$(dirname "$0")/../.."
for v in dflt nocl; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
		-DKERNEL_FILE="\"$PWD/build/var/cp/$v.cu\"" scripts/exp/clock_probe.cu -o build/var/cp/$v &
done
wait
for r in 1 2; do
	for s in 2688x640x2560 768x2176x1280 3200x768x2304 4096x1280x3456 1664x2816x2432; do
		for v in dflt nocl; do
			echo -n "whole $v "; PM_FORCE=-1,1 build/var/cp/$v $s 1
			echo -n "plan $v "; build/var/cp/$v $s 1
		done
	done
done

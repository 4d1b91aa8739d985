#!/usr/bin/env bash
# run101 (session 11): the stream-K owner's waits gathered before its adds
# (build/var/cp/fix1.cu: one thread acquires every contributor's flag,
# one barrier, then the adds; new.cu waited per contributor inside the add
# loop): whole tiles (PM_FORCE=-1,1) and the default plans (old: HEAD's;
# new, fix1: the open stream-K rule) at tail sizes and one partial wave,
# clock_probe.cu, 1 s each, 2 rounds.
cd "$(dirname "$0")/../.."
for v in old new fix1; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
		-DKERNEL_FILE="\"$PWD/build/var/cp/$v.cu\"" scripts/exp/clock_probe.cu -o build/var/cp/$v &
done
wait
for r in 1 2; do
	for s in 2688x640x2560 768x2176x1280; do
		for v in old new fix1; do echo -n "whole $v "; PM_FORCE=-1,1 build/var/cp/$v $s 1; done
	done
	for s in 3200x768x2304 1152x2304x3968 3072x896x2560 896x3456x2048 2048x1536x2432 3968x768x2048 2688x640x2560 1152x3072x1536 4096x1280x3456; do
		for v in old new fix1; do echo -n "default $v "; build/var/cp/$v $s 1; done
	done
done

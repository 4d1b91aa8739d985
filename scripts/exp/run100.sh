#!/usr/bin/env bash
# run100 (session 11): which part of the stream-K code slows the split
# persistent kernel's whole tiles? clock_probe.cu on the files in
# build/var/cp (force_tdp.py'd): old (HEAD), new (run97-sk.diff), sk0
# (new with pm_sk a constant 0), nofix (new without the stream-K fixup
# statements); PM_FORCE=-1,1 (whole tiles), 1 s each, 2 rounds.
# VARS: the variants (run100b: old new owner contrib; owner: only the
# owner's adds, contrib: only the contributor's put).
cd "$(dirname "$0")/../.."
for v in ${VARS:-old new sk0 nofix}; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
		-DKERNEL_FILE="\"$PWD/build/var/cp/$v.cu\"" scripts/exp/clock_probe.cu -o build/var/cp/$v &
done
wait
for r in 1 2; do
	for s in 2688x640x2560 768x2176x1280 1152x3072x1536; do
		for v in ${VARS:-old new sk0 nofix}; do echo -n "$v "; PM_FORCE=-1,1 build/var/cp/$v $s 1; done
	done
done

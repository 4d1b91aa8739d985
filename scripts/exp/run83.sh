#!/usr/bin/env bash
# run83 (session 10): why the tail split does not pay at 275-330 tiles
# (run82: 2 waves 21.7 us, 275 tiles split 31.4, unsplit 3 waves 30.6):
# the tail's chunks, min(SMs / R, kt / PM_MIN_TKT, 8), with PM_MIN_TKT
# 2 / 4 / 7 / 11 (kt = 22: 8 / 5 / 3 / 2 chunks) in build-tk*, and the
# persistent kernel alone (p), 3 rounds.
cd "$(dirname "$0")/../.."
mkdir -p build/var
for v in 2 4 7 11; do
	P=build-tk$v/polymma; [ $v = 4 ] && P=build/polymma
	$P gen examples/gemm_nn.tc --target sm_90a -o build/var/tk$v.cu
	bash scripts/exp/build-check.sh build/var/tk$v.cu &
done
build/polymma gen examples/gemm_nn.tc --target sm_90a --persistent on -o build/var/p.cu
bash scripts/exp/build-check.sh build/var/p.cu &
wait
S="3072x1408x1408 3200x1408x1408 3840x1408x1408 3968x1152x1408 6784x640x1408 2816x1920x1792"
for r in 1 2 3; do
for f in tk2 tk4 tk7 tk11 p; do
	build/var/$f --time --tag $f $S 2>&1 | grep -E "^TIME" | sed 's/polymma_tflops=//;s/cublas_tflops=//' | awk '{print $2,$3,$4,$6,$8}'
done
done | sort -k2,2 -k1,1

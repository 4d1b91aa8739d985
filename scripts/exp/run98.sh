#!/usr/bin/env bash
# (Ran with the stream-K build: scripts/exp/run97-sk.diff applied to 35b0423.)
# run98 (session 11): is the H100 power-capped? Each plan back to back for
# 2 s (clock_probe.cu) while nvidia-smi samples the SM clock and the power:
# stream-K (the default plan now) and whole tiles in the same kernel
# (PM_FORCE=-1,1), at a one-wave size (105 tiles) and 2 tail sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
P=${POLYMMA:-build/polymma}
$P gen examples/gemm_nn.tc --target sm_90a -o build/cp.cu
python3 scripts/exp/force_tdp.py build/cp.cu build/cpf.cu
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
	-DKERNEL_FILE="\"$PWD/build/cpf.cu\"" scripts/exp/clock_probe.cu -o build/cp || exit 1
for s in 2688x640x2560 1152x3072x1536 4096x4096x4096; do
	for f in "" "-1,1"; do
		nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 200 > $O/smi.txt &
		sp=$!
		sleep 0.5
		PM_FORCE=$f build/cp $s 2
		kill $sp; wait $sp 2>/dev/null
		echo "  force='$f' smi (clock, power, temp) median of the middle:"; sed -n '5,12p' $O/smi.txt | sort | sed -n 4p
	done
done
rm -f build/cp build/cp.cu build/cpf.cu $O/smi.txt

#!/usr/bin/env bash
# run42: where the split persistent kernel's time goes: entry_time.cu (host
# submission, GPU time per call back-to-back, synchronized latency) of the
# plain entry and of NAME_ws with a workspace of its own, this build against
# build-old/polymma; then ncu's kernel durations of the new file at two sizes.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ=${SZ:-"1792x256x1536 896x768x4096 1024x768x1920 3968x128x1408 640x256x2176 128x3840x2816"}
mkdir -p build/var
for v in new old; do
	P=build/polymma; [ $v = old ] && P=build-old/polymma
	$P gen examples/gemm_nn.tc --target sm_90a -o build/var/g_$v.cu || exit 1
	for w in plain ws; do
		D=; [ $w = ws ] && D=-DWS
		nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 $D -DKERNEL_FILE="\"$PWD/build/var/g_$v.cu\"" -DKFN=gemm_nn -DTAG="\"${v}_$w\"" scripts/exp/entry_time.cu -o build/var/et_${v}_$w &
	done
done
wait
for b in new_plain new_ws old_plain old_ws; do
	build/var/et_$b $SZ
done | tee "$O/entry.txt"
if command -v ncu >/dev/null; then
	for z in 1792x256x1536 896x768x4096; do
		ncu --launch-count 12 --metrics gpu__time_duration.sum build/var/et_new_ws $z 2>&1 | grep -E '^  [a-z_]+.*\(|gpu__time' | paste - - | awk -v z=$z '{print z, $1, $2, $NF}'
	done | tee "$O/ncu.txt"
fi

#!/usr/bin/env bash
# run22: where the last-wave split loses (bench: 1.2x slower on those
# sizes): the plain entry's host and GPU cost with the tail split, without
# it (plan edited), and with --tma off.
cd "$(dirname "$0")/../.."
mkdir -p build/var
P="build/polymma gen examples/gemm_nn.tc --target sm_90a"
$P -o build/var/e_tail.cu
sed 's/\telse if (tiles % ((int64_t) sms \* occ) \&\&/\telse if (0 \&\& tiles % ((int64_t) sms * occ) \&\&/' build/var/e_tail.cu > build/var/e_notail.cu
grep -c "else if (0 &&" build/var/e_notail.cu
$P --tma off -o build/var/e_cpa.cu
sed 's/\telse if (tiles % ((int64_t) sms \* occ) \&\&/\telse if (0 \&\& tiles % ((int64_t) sms * occ) \&\&/' build/var/e_cpa.cu > build/var/e_cpa_notail.cu
for v in e_tail e_notail e_cpa e_cpa_notail; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/$v.cu\"" -DKFN=gemm_nn -DTAG="\"$v\"" -DPM_TMA_PROBE scripts/exp/entry_time.cu -o build/var/$v &
done
wait
for v in e_tail e_notail e_cpa e_cpa_notail; do
	build/var/$v 3456x1280x768 1792x3072x1024 2816x2304x1024 1664x2816x2432 2048x2048x2048 640x256x2176 1152x3072x1536
done

#!/usr/bin/env bash
# run116 (session 12): where GEMM+bias+ReLU loses 5-11 % to the plain GEMM
# on big grids (run93): steady-state times (clock_probe.cu, 1.5 s each) of
# the GEMM, GEMM+bias+ReLU as generated, the same with the bias loads
# replaced by 0 (nobias) and with no epilogue at all (noepi; both wrong on
# purpose, timing only).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
build/polymma gen bench/specs/gemm.tc --target sm_90a -o build/var/g.cu
build/polymma gen bench/specs/gemm_bias_relu.tc --target sm_90a -o build/var/b.cu
sed 's/pm_f(bias\[(int64_t) pm_j\])/0.0f/g' build/var/b.cu > build/var/b0.cu
sed 's/\*pm_p = pm_relu((pm_v + pm_f(bias\[(int64_t) pm_j\])));/(void) pm_p;/g' build/var/b.cu > build/var/bn.cu
grep -c "pm_f(bias" build/var/b.cu build/var/b0.cu build/var/bn.cu
G=$(grep -o "^extern \"C\" cudaError_t [a-z_]*(" build/var/g.cu | grep -v "_ws(" | head -1 | sed "s/.*cudaError_t //; s/(//")
F=$(grep -o "^extern \"C\" cudaError_t [a-z_]*(" build/var/b.cu | grep -v "_ws(" | head -1 | sed "s/.*cudaError_t //; s/(//")
echo "launchers $G $F"
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/g.cu\"" -DGEMM_FN=$G scripts/exp/clock_probe.cu -o build/var/cg &
for v in b b0 bn; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -DKERNEL_FILE="\"$PWD/build/var/$v.cu\"" -DGEMM_FN=$F -DBIAS scripts/exp/clock_probe.cu -o build/var/c$v &
done
wait
for s in ${SIZES:-3584x2048x3712 3456x1920x3072 1920x3200x1792 1536x2304x3456 3840x3072x3072 2816x3328x1280 2048x1664x3200}; do
	for v in g b b0 bn; do echo "$v $(build/var/c$v $s 1.5)"; done
done | tee $O/epi-session12-run116.txt

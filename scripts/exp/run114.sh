#!/usr/bin/env bash
# run114 (session 12): clusters only where they split a tile in more
# chunks than the workspace would (plan.c's cluster rule: c > the
# workspace split after the half-SM rule; run112-113: at equal chunks the
# workspace split ran 2-10 % faster). Plans at the 23 grids under 79
# tiles (GEMM and Add), gpu-check sm_90a and the fused checkers at sizes
# whose plan moves from clusters to the workspace, then the benchmark
# there, 2 rounds: build-exp/polymma-pf (HEAD + the tensor-map prefetch)
# against build/polymma (+ this rule).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SG=$(bash scripts/exp/small-grids.sh | sed 's/--size //g')
for P in build-exp/polymma-pf build/polymma; do
	for spec in examples/gemm_nn.tc examples/add_gemm.tc; do
		$P gen $spec --target sm_90a -o build/pp.cu &&
			nvcc -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
				-DKERNEL_FILE="\"$PWD/build/pp.cu\"" -DPLAN=$(basename $spec .tc) scripts/exp/plan_probe.cu -o build/pp &&
			echo "== $P $spec" && build/pp $SG
	done
done > $O/plans-session12-run114.txt 2>&1
rm -f build/pp build/pp.cu
SIZES_SM90A="256x1536x3456 384x2688x2432 3072x256x3584 1408x768x3712 128x3840x2816 640x256x2176" \
	ONLY='^sm90a$' OUT=$O/gc bash scripts/gpu-check.sh > $O/gc.txt 2>&1
echo "gpu-check rc=$?"; tail -1 $O/gc.txt; grep FAIL $O/gc.txt | head
SIZES_SM90A="256x1536x3456 1408x768x3712" \
	OUT=$O/fc bash scripts/gpu-fused-check.sh --only '_sm90a$' > $O/fc.txt 2>&1
echo "fused rc=$?"; tail -1 $O/fc.txt; grep FAIL $O/fc.txt | head
cp $O/gc/gpu-check.log $O/gpu-check-session12-run114.log 2>/dev/null
cp $O/fc/fused.log $O/fused-session12-run114.log 2>/dev/null
rm -rf $O/gc $O/fc $O/gc.txt $O/fc.txt
OUT=$O bash scripts/exp/abn-bench.sh run114 2 old=build-exp/polymma-pf new=build/polymma -- $(bash scripts/exp/small-grids.sh)
rm -f "$O"/bench-*-[12].txt

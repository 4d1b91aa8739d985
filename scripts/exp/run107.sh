#!/usr/bin/env bash
# run107 (session 11): does any kernel of HEAD's generated files carry a
# YIELD in its MMA loop (yield_scan.py)? The 4 benchmark idioms, sm_90a
# and sm_80, and the fused checkers' prologue / epilogue examples.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/ys
for t in sm_90a sm_80; do
	for s in bench/specs/*.tc examples/gemm_epilogue_chain.tc; do
		n=$(basename $s .tc)-$t
		build/polymma gen $s --target $t -o build/ys/$n.cu || continue
		a=$([ $t = sm_90a ] && echo "-gencode=arch=compute_90a,code=sm_90a" || echo "-arch=sm_80")
		(nvcc -O2 $a -std=c++17 -cubin -o build/ys/$n.cubin build/ys/$n.cu &&
			cuobjdump -sass build/ys/$n.cubin > build/ys/$n.sass) &
	done
done
wait
python3 scripts/yield_scan.py build/ys/*.sass | tee $O/yield-scan.txt

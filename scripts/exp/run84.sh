#!/usr/bin/env bash
# run84 (session 10): the split persistent kernel's plan forced
# (force_tdp.py, PM_FORCE="W,S": W whole tiles, -1 all; the rest in S
# chunks) at 264 tiles (3072x1408x1408, 2 full waves) and 265 (6784x640x
# 1408, a tail of one tile), against the default plan.
cd "$(dirname "$0")/../.."
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a -o build/var/g.cu
python3 scripts/exp/force_tdp.py build/var/g.cu build/var/gf.cu
bash scripts/exp/build-check.sh build/var/gf.cu
for r in 1 2; do
for f in "" "-1,1" "264,1" "264,2" "264,5" "264,8"; do
	for s in 3072x1408x1408 6784x640x1408; do
		[ "$s" = 3072x1408x1408 ] && [ "$f" != "" ] && [ "$f" != "-1,1" ] && continue
		PM_FORCE=$f build/var/gf --time --tag "f[$f]" $s 2>&1 | grep -E "^TIME|FAIL" | sed 's/polymma_tflops=//;s/cublas_tflops=//' | awk '{print $2,$3,$4,$6,$8}'
	done
done
done

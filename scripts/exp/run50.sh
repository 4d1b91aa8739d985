#!/usr/bin/env bash
# run50: what the persistent kernel's epilogue costs (run49: without its
# stores the --persistent on kernel ran at 1.04-1.10x cuBLAS against
# 0.77-0.87x with them).  Variants by scripts/exp/epi_var.py, timed against
# cuBLAS in one process each (check_gemm --time).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
mkdir -p build/var
build/polymma gen examples/gemm_nn.tc --target sm_90a --persistent on -o build/var/p.cu
F=build/var/p.cu
for v in ${VARS:-nostg nosts own bulk}; do
	python3 scripts/exp/epi_var.py build/var/p.cu build/var/p_$v.cu $v
	F="$F build/var/p_$v.cu"
done
SIZES=${SIZES:-"4096x4096x4096 3840x3456x2816 1792x2816x1920 768x3456x1280 2048x2048x1024"} \
	bash scripts/exp/time-files.sh $F > "$O/time.txt" 2>&1
grep -E "^TIME|passed" "$O/time.txt"
# the epilogue's instructions in SASS (the base file's kernel)
if [ -n "${SASS:-}" ]; then
	cuobjdump -sass -fun pm_kernel_gemm_nn build/var/p > "$O/p.sass" 2>&1
	grep -oE "(STS|LDS|STG|FENCE|MEMBAR|BAR|SYNCS|HGMMA|WARPGROUP)[.A-Z0-9_]*" "$O/p.sass" | sort | uniq -c
fi

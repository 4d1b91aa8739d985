#!/usr/bin/env bash
# run79 (session 10): where ReLU+GEMM's prologue costs 8 % over our GEMM
# (the 23 grids under 79 tiles): the default (A through the MMA's
# registers, overlapped) against --pro-regs off (ReLU in shared memory)
# and --pro-overlap off; build-w1 / build-w2 are wrappers adding the option.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
OUT=$O bash scripts/exp/abn-bench.sh run79 2 def=build/polymma noregs=build-w1/polymma noovl=build-w2/polymma -- \
	$(bash scripts/exp/small-grids.sh)
python3 scripts/exp/abn-cmp.py "$O" def noregs noovl > "$O/cmp.txt"
rm -f "$O"/bench-*.txt
cat "$O/cmp.txt"

#!/usr/bin/env bash
# sass-check.sh: generate the default sm_80 kernel for each layout, compile it
# for sm_90 and count the instructions that show the fast paths in SASS:
# LDGSTS (cp.async), LDSM (ldmatrix), HMMA.16816 (mma.sync m16n8k16), and
# local-memory traffic (LDL/STL, must be 0). Needs build/polymma, nvcc and
# cuobjdump (the GPU machine has both). One kernel per file (--small-variant
# off): the counts are those of the 128x128 kernel.
set -eu -o pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
W=build/sass
mkdir -p "$W"
printf '%-8s %8s %8s %11s %8s %8s\n' layout LDGSTS LDSM HMMA.16816 LDL/STL regs
for l in nn nt tn tt; do
	build/polymma gen examples/gemm_$l.tc -o "$W/$l.cu" --small-variant off "$@"
	"$NVCC" -arch=sm_90 -cubin -Xptxas -v -o "$W/$l.cubin" "$W/$l.cu" \
		>"$W/$l.ptxas" 2>&1
	"$CUOBJDUMP" -sass "$W/$l.cubin" >"$W/$l.sass"
	regs=$(grep -o 'Used [0-9]* registers' "$W/$l.ptxas" | head -1 | awk '{print $2}')
	printf '%-8s %8d %8d %11d %8d %8s\n' "$l" \
		"$(grep -c LDGSTS "$W/$l.sass" || true)" \
		"$(grep -c 'LDSM' "$W/$l.sass" || true)" \
		"$(grep -c 'HMMA.16816' "$W/$l.sass" || true)" \
		"$(grep -cE '\bLDL|\bSTL' "$W/$l.sass" || true)" "$regs"
done

#!/usr/bin/env bash
# sass-check-sm90a.sh: generate the default sm_90a kernel for each layout,
# compile it for sm_90a and count what shows its paths in SASS: HGMMA
# (wgmma; HMMA would mean a slower path), LDGSTS (cp.async), WARPGROUP
# barriers/arrives, FENCE (proxy fences), and local-memory traffic (LDL/STL,
# must be 0). Needs build/polymma, nvcc and cuobjdump (the GPU machine has
# both). One kernel per file (--small-variant off). Extra arguments go to
# polymma gen.
set -eu -o pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
W=build/sass90
mkdir -p "$W"
printf '%-8s %6s %6s %7s %9s %6s %8s %5s\n' layout HGMMA HMMA LDGSTS WARPGROUP FENCE LDL/STL regs
for l in nn nt tn tt; do
	build/polymma gen examples/gemm_$l.tc -o "$W/$l.cu" --target sm_90a \
		--small-variant off "$@"
	"$NVCC" -gencode=arch=compute_90a,code=sm_90a -cubin -Xptxas -v \
		-o "$W/$l.cubin" "$W/$l.cu" >"$W/$l.ptxas" 2>&1
	"$CUOBJDUMP" -sass "$W/$l.cubin" >"$W/$l.sass"
	regs=$(grep -o 'Used [0-9]* registers' "$W/$l.ptxas" | head -1 | awk '{print $2}')
	printf '%-8s %6d %6d %7d %9d %6d %8d %5s\n' "$l" \
		"$(grep -c 'HGMMA' "$W/$l.sass" || true)" \
		"$(grep -c 'HMMA' "$W/$l.sass" || true)" \
		"$(grep -c LDGSTS "$W/$l.sass" || true)" \
		"$(grep -c 'WARPGROUP' "$W/$l.sass" || true)" \
		"$(grep -c 'FENCE' "$W/$l.sass" || true)" \
		"$(grep -cE '\bLDL|\bSTL' "$W/$l.sass" || true)" "$regs"
done
grep -m3 'HGMMA' "$W/nn.sass" | sed 's/^ *//'

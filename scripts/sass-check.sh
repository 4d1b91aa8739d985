#!/usr/bin/env bash
# sass-check.sh [polymma gen options]: generate the default kernel for each
# layout (sm_80, or the target the options name), compile it and count the
# instructions that show the fast paths in SASS:
#   sm_80 (compiled for sm_90): LDGSTS (cp.async), LDSM (ldmatrix),
#     HMMA.16816 (mma.sync m16n8k16);
#   sm_90a: HGMMA (wgmma; HMMA would mean a slower path), LDGSTS, WARPGROUP
#     (wgmma arrive/wait), FENCE (proxy fences);
# and local-memory traffic (LDL/STL, must be 0), and no YIELD inside any
# kernel's MMA loop (scripts/yield_scan.py). Needs build/polymma, nvcc
# and cuobjdump (the GPU machine has both). One kernel per file
# (--small-variant off): the counts are those of the 128x128 kernel.
set -eu -o pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
CUOBJDUMP=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
W=build/sass
mkdir -p "$W"
case " $* " in
*sm_90a*) sm90=1 arch=(-gencode=arch=compute_90a,code=sm_90a)
	cols=(HGMMA HMMA LDGSTS WARPGROUP FENCE) ;;
*) sm90=0 arch=(-arch=sm_90) cols=(LDGSTS LDSM HMMA.16816) ;;
esac
printf '%-8s' layout; printf ' %10s' "${cols[@]}" LDL/STL regs; echo
for l in nn nt tn tt; do
	build/polymma gen examples/gemm_$l.tc -o "$W/$l.cu" --small-variant off "$@"
	"$NVCC" "${arch[@]}" -cubin -Xptxas -v -o "$W/$l.cubin" "$W/$l.cu" \
		>"$W/$l.ptxas" 2>&1
	"$CUOBJDUMP" -sass "$W/$l.cubin" >"$W/$l.sass"
	regs=$(grep -o 'Used [0-9]* registers' "$W/$l.ptxas" | head -1 | awk '{print $2}')
	printf '%-8s' "$l"
	for c in "${cols[@]}"; do
		printf ' %10d' "$(grep -c "$c" "$W/$l.sass" || true)"
	done
	printf ' %10d %10s\n' "$(grep -cE '\bLDL|\bSTL' "$W/$l.sass" || true)" "$regs"
done
[ $sm90 = 1 ] && grep -m1 'HGMMA' "$W/nn.sass" | sed 's/^ *//' || true
# No YIELD in any kernel's MMA loop: ptxas's forward-progress point there
# cost a k loop 7-13 % (docs/decisions/0025-k-loops-rolled.md).
if python3 scripts/yield_scan.py "$W"/*.sass | grep '<=='; then
	echo "sass-check.sh: a YIELD in an MMA loop (above)" >&2
	exit 1
fi
echo "MMA loops with a YIELD: 0 ($(python3 scripts/yield_scan.py "$W"/*.sass | wc -l) loops)"

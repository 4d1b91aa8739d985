#!/usr/bin/env bash
# jit_check.sh: the JIT on a GPU (docs/decisions/0038-jit.md). Builds the
# generated launcher of each spec with nvcc (when there is one) for the
# bit-for-bit comparison, then runs build/tests/gpu/jit_check on them:
# cold and warm compile times, every row at odd sizes against the fp64
# reference and the generated launcher, the host time per launch.
#
#   here:    make build/polymma build/tests/gpu/jit_check
#   GPU:     bash tests/gpu/jit_check.sh [SPEC.tc ...]
#            (default examples/gemm_nn.tc examples/gemm_bias_relu.tc)
#
# Environment: NVCC, OUT (default build/jit: the .cu, .so and the JIT
# cache, POLYMMA_CACHE_DIR=$OUT/cache), SIZES (jit_check --sizes), OPTS
# (generator options KEY=VALUE, space-separated, e.g. "cluster=2": polymma
# gen --KEY VALUE and jit_check --opt KEY=VALUE).
set -u -o pipefail
cd "$(dirname "$(readlink -f "$0")")/../.." || exit 2
OUT=${OUT:-build/jit}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
mkdir -p "$OUT"
export POLYMMA_CACHE_DIR="$OUT/cache"
specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(examples/gemm_nn.tc examples/gemm_bias_relu.tc)
cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d .)
case "$cc" in
9*) target=sm_90a; gencode=(-gencode=arch=compute_90a,code=sm_90a) ;;
*) target=sm_80; gencode=(-arch="sm_${cc:-80}") ;;
esac
args=()
gen=()
for o in ${OPTS:-}; do
	gen+=("--${o%%=*}" "${o#*=}")
	args+=(--opt "$o")
done
if [ -x "$NVCC" ]; then
	for s in "${specs[@]}"; do
		n=$(basename "$s" .tc)
		name=$(sed -n 's/^def \([A-Za-z_0-9]*\).*/\1/p' "$s" | head -1)
		build/polymma gen "$s" --target "$target" "${gen[@]}" -o "$OUT/$n.cu" || exit 1
		"$NVCC" -O2 -std=c++17 -shared -Xcompiler -fPIC "${gencode[@]}" \
			"$OUT/$n.cu" -o "$OUT/$n.so" || exit 1
		args+=(--so "$name=$(readlink -f "$OUT/$n.so")")
	done
else
	echo "jit_check.sh: no nvcc: no comparison with the generated launcher"
fi
[ -n "${SIZES:-}" ] && args+=(--sizes "$SIZES")
exec build/tests/gpu/jit_check "${args[@]}" "${specs[@]}"

#!/usr/bin/env bash
# Programmatic dependent launch on the GPU (tests/gpu/pdl_check.cu,
# docs/decisions/0068-pdl.md): SPEC (default examples/gemm_nn.tc, the
# gemm_nn signature) generated for sm_90a as is, with its waits cut out
# (the control) and with --pdl off; every row of the file forced at SIZES
# (the producer test and the chain), then, with TIME sizes, the time per
# launch of back-to-back launches with and without --pdl.
#   bash tests/gpu/pdl_check.sh [SIZES...]    (OUT: where the logs go)
set -u -o pipefail
cd "$(dirname "$(readlink -f "$0")")/../.." || exit 1
POLYMMA=${POLYMMA:-build/polymma}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
SPEC=${SPEC:-examples/gemm_nn.tc}
OUT=${OUT:-build/pdl-check}
W=build/pdl-check
mkdir -p "$W" "$OUT"
name=$(sed -n 's/^def \([A-Za-z0-9_]*\)(.*/\1/p' "$SPEC" | head -1)
G="-O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a"
for v in on cut off; do
	sed "s/^def $name(/def pdl_$v(/" "$SPEC" > "$W/$v.tc"
	opt=; [ $v = off ] && opt="--pdl off"
	# shellcheck disable=SC2086
	"$POLYMMA" gen "$W/$v.tc" --target sm_90a $opt -o "$W/$v.cu" || exit 1
done
# the control: the kernels launched early with no wait
sed -i 's/^\tpm_pdl_wait();$//' "$W/cut.cu"
grep -q 'pm_pdl_wait();$' "$W/cut.cu" && { echo "cut failed"; exit 1; }
for v in on cut off; do
	# shellcheck disable=SC2086
	"$NVCC" $G -c "$W/$v.cu" -o "$W/$v.o" &
done
wait
# shellcheck disable=SC2086
"$NVCC" $G tests/gpu/pdl_check.cu "$W"/on.o "$W"/cut.o "$W"/off.o -lcuda \
	-o "$W/pdl_check" || exit 1
ROWS=$(sed -n 's/^ \*   \(_[a-z0-9_]*\)  *[0-9].*/\1/p' "$W/on.cu" | paste -sd,)
echo "rows: $ROWS"
S=${*:-"1x4096x4096 16x4096x4096 64x2048x2048 127x1000x777 256x256x256 520x520x520 1000x1000x512"}
ROWS=$ROWS "$W/pdl_check" $S | tee "$OUT/pdl_check.txt"
rc=$?
[ -n "${TIME:-}" ] && "$W/pdl_check" --time $TIME | tee "$OUT/pdl_time.txt"
exit $rc

#!/usr/bin/env bash
# sets.sh: the benchmark's batched and grouped sets (issue 28), each its own
# harness beside bench/bench.cu's sets (bench/run.sh passes them here):
#
#   bash bench/sets.sh batched|grouped
#
#   batched  tests/specs/bmm_nn.tc (C(b) = A(b) B(b), f16) against
#            cublasGemmStridedBatchedEx (bench/tools/bmm_time.cu)
#   grouped  bench/specs/group_gemm.tc (rows [offs(e - 1), offs(e)) of X
#            times expert e's W, f16) against the faster of a loop of
#            cublasGemmEx and cublasGemmGroupedBatchedEx
#            (bench/tools/group_time.cu)
#
# Generates the kernel for sm_90a with build/polymma, compiles the harness,
# runs the held problems, writes $OUT/<set>.txt (default build/bench/out)
# and prints each line and the geomean of the speedups last. Exit status:
# the harness's (nonzero where an output was wrong).
# Environment: POLYMMA (build/polymma), NVCC, GEN_ARGS (--target sm_90a).
set -u -o pipefail
cd "$(dirname "$(readlink -f "$0")")/.." || exit 1
POLYMMA=${POLYMMA:-build/polymma}
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
GEN_ARGS=${GEN_ARGS:---target sm_90a}
OUTDIR=${OUT:-build/bench/out}
W=build/bench/sets
mkdir -p "$W" "$OUTDIR"

case ${1:-} in
batched)
	spec=tests/specs/bmm_nn.tc tool=bench/tools/bmm_time.cu tag=BMM col=5
	# Bt x M x N x K: short and long K, small and large batches, ragged
	problems="64x512x512x512 16x2048x2048x128 32x1024x1024x1024
		128x256x256x256 8x4096x4096x1024 4x2048x2048x2048 3x1000x1000x1000" ;;
grouped)
	spec=bench/specs/group_gemm.tc tool=bench/tools/group_time.cu tag=GRP col=10
	# NAME:N:K:rows of each group (issue 28's 8 uneven experts, 6208 rows;
	# Mixtral-like prefill and decode; 64 small experts, some empty;
	# empty, one-row and ragged groups)
	problems="moe8_uneven:4096:4096:1536,1024,896,768,640,512,448,384
		mixtral_prefill:14336:4096:1031,977,1100,1003,989,1025,1040,1027
		mixtral_decode:14336:4096:16,16,16,16,16,16,16,16
		small64:2048:7168:0,37,74,14,51,88,28,65,5,42,79,19,56,93,33,70,10,47,84,24,61,1,38,75,15,52,89,29,66,6,43,80,20,57,94,34,71,11,48,85,25,62,2,39,76,16,53,90,30,67,7,44,81,21,58,95,35,72,12,49,86,26,63,3
		edge16:4096:4096:0,1,7,129,1000,0,4095,8,127,777,1,0,4097,256,33,2048" ;;
*)
	sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2 ;;
esac
set_name=$1
# shellcheck disable=SC2086
"$POLYMMA" gen "$spec" -o "$W/$set_name.cu" $GEN_ARGS || exit 1
"$NVCC" -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a \
	-DKERNEL_FILE="\"$PWD/$W/$set_name.cu\"" -Ibench/tools "$tool" \
	-lcublas -lcuda -o "$W/$set_name" || exit 1
# shellcheck disable=SC2086
"$W/$set_name" $problems | tee "$OUTDIR/$set_name.txt"
rc=$?
awk -v t="$tag" -v c="$col" '$1 == t && $c > 0 { s += log($c); n++ }
	END { if (n) printf "%s: geomean speedup %.3fx over %d problems\n", t, exp(s / n), n }' \
	"$OUTDIR/$set_name.txt" | tee -a "$OUTDIR/$set_name.txt"
exit $rc

#!/usr/bin/env bash
# Variants of one idiom's file, timed the benchmark's way (var_time.cu)
# against cuBLAS (used for run144-run149, run156).
#   VARS: one "tag:options" line per variant (polymma gen options after
#         --target sm_90a; @D=NAME compiles that variant with -DNAME;
#         @P=PATH generates it with the polymma binary PATH, e.g. an
#         earlier commit's, to time two generators in one process);
#   SPEC: bench/specs/SPEC.tc (default gemm; relu_gemm times against a relu
#         kernel + cuBLAS); SIZES (default the 100 paper sizes); TAG; TLIM.
# VT_FORCE and VT_GRAPH pass through to var_time.cu (forced rows; N calls
# a CUDA graph, timed per call).
# Writes $OUT/var-TAG.txt ("VAR MxNxK cublas_ms name=ms .. nsets").
#   VARS="def:
#   nocl:--cluster 1" bash bench/tools/var-time.sh
cd "$(dirname "$0")/../.."
O=${OUT:-build}
D=build/var-time
mkdir -p $D $O
SPEC=${SPEC:-gemm}
P="--target sm_90a"
VARS=${VARS:-"def:"}
i=0
: > $D/vars.h
echo "static const pm_var vars[] = {" > $D/table.h
while IFS=: read -r tag opts; do
	[ -z "$tag" ] && continue
	sed "s/def bench_$SPEC(/def vt_${SPEC}_v$i(/" bench/specs/$SPEC.tc > $D/v$i.tc
	defs=
	bin=build/polymma
	for w in $opts; do case "$w" in @D=*) defs="$defs -D${w#@D=}";; @P=*) bin=${w#@P=};; esac; done
	opts=$(echo "$opts" | sed 's/@D=[A-Za-z0-9_=]*//g; s/@P=[^ ]*//g')
	$bin gen $D/v$i.tc $P $opts -o $D/v$i.cu || { echo "gen $tag failed"; exit 1; }
	echo "extern \"C\" cudaError_t vt_${SPEC}_v$i(const void *, const void *, void *, int64_t, int64_t, int64_t, cudaStream_t);" >> $D/vars.h
	echo "  {\"$tag\", vt_${SPEC}_v$i}," >> $D/table.h
	(nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a $defs -c $D/v$i.cu -o $D/v$i.o -Xptxas -v 2>&1 | grep -E "spill" | grep -v " 0 bytes spill" | sed "s/^/$tag: /") &
	i=$((i + 1))
done <<< "$VARS"
echo "};" >> $D/table.h
cat $D/table.h >> $D/vars.h
wait
R=; [ "$SPEC" = relu_gemm ] && R=-DRELU_A
nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a $R -DVARS_H="\"$PWD/$D/vars.h\"" \
	bench/tools/var_time.cu $D/v*.o -lcublas -lcuda -o $D/var_time || exit 1
S=${SIZES:-$(cat bench/tools/paper-sizes.txt)}
timeout ${TLIM:-400} $D/var_time $S > $O/var-${TAG:-var}.txt
echo "rc=$?"; grep -c ^VAR $O/var-${TAG:-var}.txt; grep FAIL $O/var-${TAG:-var}.txt | head

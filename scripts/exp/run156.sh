#!/usr/bin/env bash
# run156 (session 18): variants of one idiom's default file, timed the
# benchmark's way (var_time.cu) against cuBLAS. Like run144, plus SPEC (the
# spec, default gemm; relu_gemm times against relu kernel + cuBLAS) and
# @D=NAME in a variant's options (compile it with -DNAME).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
D=build/r156
mkdir -p $D $O
SPEC=${SPEC:-gemm}
P="--target sm_90a"
VARS=${VARS:-"def:
ilv:@D=PM_RA_ILV"}
i=0
: > $D/vars.h
echo "static const pm_var vars[] = {" > $D/table.h
while IFS=: read -r tag opts; do
	[ -z "$tag" ] && continue
	sed "s/def pm_$SPEC(/def pm_${SPEC}_v$i(/" bench/specs/$SPEC.tc > $D/v$i.tc
	defs=
	for w in $opts; do case "$w" in @D=*) defs="$defs -D${w#@D=}";; esac; done
	opts=$(echo "$opts" | sed 's/@D=[A-Za-z0-9_=]*//g')
	build/polymma gen $D/v$i.tc $P $opts -o $D/v$i.cu || { echo "gen $tag failed"; exit 1; }
	echo "extern \"C\" cudaError_t pm_${SPEC}_v$i(const void *, const void *, void *, int64_t, int64_t, int64_t, cudaStream_t);" >> $D/vars.h
	echo "  {\"$tag\", pm_${SPEC}_v$i}," >> $D/table.h
	(nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a $defs -c $D/v$i.cu -o $D/v$i.o -Xptxas -v 2>&1 | grep -E "spill" | grep -v " 0 bytes spill" | sed "s/^/$tag: /") &
	i=$((i + 1))
done <<< "$VARS"
echo "};" >> $D/table.h
cat $D/table.h >> $D/vars.h
wait
R=; [ "$SPEC" = relu_gemm ] && R=-DRELU_A
nvcc -O2 -std=c++17 -gencode=arch=compute_90a,code=sm_90a $R -DVARS_H="\"$PWD/$D/vars.h\"" \
	scripts/exp/var_time.cu $D/v*.o -lcublas -lcuda -o $D/var_time || exit 1
S=${SIZES:-$(cat scripts/exp/paper-sizes.txt)}
timeout ${TLIM:-400} $D/var_time $S > $O/var-${TAG:-run156}.txt
echo "rc=$?"; grep -c ^VAR $O/var-${TAG:-run156}.txt; grep FAIL $O/var-${TAG:-run156}.txt | head

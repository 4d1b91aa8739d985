#!/usr/bin/env bash
# run102 (session 11): the SASS of the split persistent kernel in HEAD's
# file (old), the stream-K build's (new) and new without the stream-K
# fixup statements (nofix), build/var/cp/*.cu: $OUT/sass-V.txt.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
for v in old new nofix; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -cubin \
		-o build/var/cp/$v.cubin build/var/cp/$v.cu &&
	cuobjdump -sass -fun pm_kernel_gemm_nn_persist_split build/var/cp/$v.cubin > $O/sass-$v.txt
	echo "$v: $(grep -c '/\*[0-9a-f]*\*/' $O/sass-$v.txt) instructions"
done

#!/usr/bin/env bash
# build-check.sh F.cu [KFN [BM [BN]]]: tests/gpu/check_gemm.cu built against
# the generated (or hand-edited) kernel file F.cu, nn, sm_90a, into
# build/var/<F's name> (KFN: the launcher, default gemm_nn; BM, BN: the
# block tile its negative tests derive from, default 128). Prints only
# nvcc's errors and its C75xx performance warnings.
cd "$(dirname "$0")/../.."
f=$1 n=$(basename "$1" .cu)
mkdir -p build/var
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
	-DKERNEL_FILE="\"$PWD/$f\"" -DKFN="${2:-gemm_nn}" -DA_KM=0 -DB_NK=0 \
	-DBLOCK_M="${3:-128}" -DBLOCK_N="${4:-128}" -DBLOCK_K=64 \
	tests/gpu/check_gemm.cu -lcublas -o "build/var/$n" 2>&1 | grep -E "C75|error"
exit "${PIPESTATUS[0]}"

#!/usr/bin/env bash
# trace-build.sh POLYMMA NAME [SED]: the default sm_90a gemm_nn file of the
# polymma binary POLYMMA with its plan forceable (force_tdp.py, PM_FORCE)
# and its split persistent kernel instrumented (trace_units.py), edited by
# the sed expression SED if given, built with trace.cu into
# build/var/tr-NAME (its sources build/var/NAME*.cu).
set -e
cd "$(dirname "$0")/../.."
P=$1 n=$2
mkdir -p build/var
"$P" gen examples/gemm_nn.tc --target sm_90a -o "build/var/$n.cu"
python3 scripts/exp/force_tdp.py "build/var/$n.cu" "build/var/${n}f.cu"
python3 scripts/exp/trace_units.py "build/var/${n}f.cu" "build/var/${n}t.cu"
if [ -n "${3:-}" ]; then
	sed "$3" "build/var/${n}t.cu" > "build/var/${n}e.cu"
	cmp -s "build/var/${n}t.cu" "build/var/${n}e.cu" && { echo "trace-build.sh: '$3' changed nothing" >&2; exit 1; }
	mv "build/var/${n}e.cu" "build/var/${n}t.cu"
fi
nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
	-DKERNEL_FILE="\"$PWD/build/var/${n}t.cu\"" scripts/exp/trace.cu -o "build/var/tr-$n"

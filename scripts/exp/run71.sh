#!/usr/bin/env bash
# run71 (session 9): the plan for split-K in clusters, after run70: build
# (clusters where the workspace split's chunks of 16 k tiles fit, the
# half-SM rule) against build-exp (chunks of 16 k tiles of the unit's work,
# all contractions together: 8 per contraction for Add(GEMM, GEMM); no
# half-SM rule for clusters), the paper's 23 grids under 79 tiles, 2 rounds.
# build-exp: CFLAGS='-O2 -g -DPM_CL_HALF="\"!cl && \""' on that working
# tree (the macro since removed: the kept rule counts a unit once per
# contraction instead).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ=$(bash scripts/exp/small-grids.sh)
# shellcheck disable=SC2086
OUT=$O bash scripts/exp/abn-bench.sh run71 ${ROUNDS:-2} new=build/polymma exp=build-exp/polymma -- $SZ
python3 scripts/exp/abn-cmp.py "$O" new exp > "$O/cmp.txt"
rm -f "$O"/bench-*.txt

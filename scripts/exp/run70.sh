#!/usr/bin/env bash
# run70 (session 9): the plan for split-K in clusters on the paper's 23
# grids under 79 tiles, three builds interleaved, 2 rounds: build-old
# (HEAD before: the workspace fixup), build (clusters where the split's
# chunks fit: PM_MIN_CKT 16, the half-SM rule), build-exp (PM_MIN_CKT 8,
# no half-SM rule for clusters). build-exp was built from that working tree
# with CFLAGS='-O2 -g -DPM_MIN_CKT=8 -DPM_CL_HALF="\"!cl && \""' (macros
# since removed: the plan kept is run71's).
cd "$(dirname "$0")/../.."
O=${OUT:-build}
SZ=$(bash scripts/exp/small-grids.sh)
# shellcheck disable=SC2086
OUT=$O bash scripts/exp/abn-bench.sh run70 ${ROUNDS:-2} old=build-old/polymma new=build/polymma exp=build-exp/polymma -- $SZ
python3 scripts/exp/abn-cmp.py "$O" old new exp > "$O/cmp.txt"
tail -12 "$O/cmp.txt"

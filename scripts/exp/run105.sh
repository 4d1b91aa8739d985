#!/usr/bin/env bash
# run105 (session 11): why does code a kernel never runs slow its k loop?
# Nsight Compute's warp stall reasons of the split persistent kernel on
# whole tiles (PM_FORCE=-1,1) at 2688x640x2560: HEAD's (old), the stream-K
# build's (new, 13 % slower) and new without the stream-K fixup (nofix,
# full speed); build/var/cp/*.cu.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
for v in old new nofix; do
	nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 \
		-DKERNEL_FILE="\"$PWD/build/var/cp/$v.cu\"" scripts/exp/clock_probe.cu -o build/var/cp/$v &
done
wait
for v in old new nofix; do
	PM_FORCE=-1,1 ncu --kernel-name regex:persist_split --launch-skip 20 --launch-count 1 \
		--metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio,gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second' \
		--csv --page raw build/var/cp/$v 2688x640x2560 0.05 > $O/ncu-$v.csv 2>$O/ncu-$v.err
	echo "$v rc=$?"
done
python3 - "$O" <<'PY'
import csv, sys
d = sys.argv[1]
rows = {}
for v in ("old", "new", "nofix"):
    lines = [l for l in open(f"{d}/ncu-{v}.csv") if l.startswith('"')]
    r = list(csv.reader(lines))
    if len(r) < 3: print(v, "no data"); continue
    hdr, vals = r[0], r[2]
    rows[v] = dict(zip(hdr, vals))
keys = [k for k in rows.get("old", {}) if k.startswith("smsp__average_warps_issue_stalled") or k in ("gpu__time_duration.sum", "smsp__inst_executed.sum", "sm__cycles_elapsed.avg.per_second")]
for k in keys:
    vals = [rows[v].get(k, "") for v in ("old", "new", "nofix") if v in rows]
    try:
        if all(float(x.replace(",", "")) < 0.005 for x in vals): continue
    except ValueError: pass
    print("%-75s %s" % (k.replace("smsp__average_warps_issue_stalled_", "stall_").replace("_per_issue_active.ratio", ""), "  ".join(vals)))
PY

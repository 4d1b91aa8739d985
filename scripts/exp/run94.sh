#!/usr/bin/env bash
# run94 (session 10): why the blocks that get a third unit run their first
# ones ~1 us slower (run85): the unit timeline at 3200x1408x1408, all 275
# tiles whole, with the blocks' unit order as generated (block b takes
# units b, b + 132, ...) and reversed (block b takes 131 - b, ...): does
# the slowness follow the block (its SM) or the third unit?
cd "$(dirname "$0")/../.."
O=${OUT:-build}
P=${POLYMMA:-build/polymma}
bash scripts/exp/trace-build.sh "$P" t
bash scripts/exp/trace-build.sh "$P" r 's/for (unsigned pm_u = blockIdx.x;/for (unsigned pm_u = gridDim.x - 1u - blockIdx.x;/'
for i in 1 2; do
	PM_FORCE=-1,1 build/var/tr-t 3200x1408x1408 > $O/tr94-fwd-$i.txt
	PM_FORCE=-1,1 build/var/tr-r 3200x1408x1408 > $O/tr94-rev-$i.txt
done
for f in $O/tr94-*.txt; do python3 - "$f" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r'b\s*(\d+)\s+(.*)', line)
    if not m:
        continue
    ts = [float(x) for x in re.findall(r'u\d+@([\d.]+)', m.group(2))]
    end = float(re.search(r'end@([\d.]+)', m.group(2)).group(1))
    rows[int(m.group(1))] = (ts, end)
g = {}
for b, (ts, end) in rows.items():
    k = '3 units' if len(ts) == 3 else '2 units'
    g.setdefault(k, []).append(ts[1] if len(ts) > 1 else 0)
print(sys.argv[1], ' '.join('%s: blocks %s.., 2nd unit at %.2f us (mean of %d)' % (k, min(b for b, r in rows.items() if (len(r[0]) == 3) == (k == '3 units')), sum(v) / len(v), len(v)) for k, v in sorted(g.items())))
PY
done

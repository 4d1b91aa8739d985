#!/usr/bin/env bash
# run95 (session 10): run94's lead separated. 3200x1408x1408 forced all
# whole (275 tiles, 132 blocks: blocks 0-10 get a third tile), the tiles
# renumbered t = (u + 100) mod 275 so that blocks 0-10 start on tiles
# 100-110: does the slow first tile follow the blocks with a third unit
# or the tiles 0-10?
cd "$(dirname "$0")/../.."
O=${OUT:-build}
bash scripts/exp/trace-build.sh "${POLYMMA:-build/polymma}" o 's/const unsigned pm_t = pm_whole ? pm_u :/const unsigned pm_t = pm_whole ? (pm_u + 100u) % pm_nt :/'
for i in 1 2; do PM_FORCE=-1,1 build/var/tr-o 3200x1408x1408 > $O/tr95-rot-$i.txt; done
for f in $O/tr95-*.txt; do python3 - "$f" <<'PY'
import re, sys
rows = {}
for line in open(sys.argv[1]):
    m = re.match(r'b\s*(\d+)\s+(.*)', line)
    if not m:
        continue
    ts = [float(x) for x in re.findall(r'u\d+@([\d.]+)', m.group(2))]
    rows[int(m.group(1))] = ts + [float(re.search(r'end@([\d.]+)', m.group(2)).group(1))]
a = [t[1] for b, t in rows.items() if len(t) == 4]
o = [t[1] for b, t in rows.items() if len(t) == 3]
# blocks whose first tile is 0-10: u = b, t = (b + 100) % 275 -> b = 175..185, none (b < 132); tile 0-10 are their second: blocks 43-53 (u = 175..185)
sec = [t[-1] - t[1] for b, t in rows.items() if 43 <= b <= 53]
rest = [t[-1] - t[1] for b, t in rows.items() if len(t) == 3 and not 43 <= b <= 53]
print(sys.argv[1], '3-unit blocks (0-10, first tiles 100-110): 2nd unit at %.2f us; the other blocks %.2f; second tiles: 0-10 (blocks 43-53) %.2f us, the others %.2f us' % (sum(a)/len(a), sum(o)/len(o), sum(sec)/len(sec), sum(rest)/len(rest)))
PY
done

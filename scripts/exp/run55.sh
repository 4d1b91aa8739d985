#!/usr/bin/env bash
# run55: the cluster kernel with CUTLASS-like remote arrivals (p2r) against
# the same kernel copying its whole B tile itself (p2s: the cluster's
# coupling without multicast) and none (p1); Nsight Compute of p2r.
cd "$(dirname "$0")/../.."
O=${OUT:-build}
python3 - <<'PY'
import re
s = open('build/var/p2r.cu').read()
i = s.index('pm_kernel_gemm_nn(const')
k = re.sub(r'pm_tma_load_2d_mc\(&B_shared\[pm_s \* 8192 \+ \(0 \+ pm_rk\) \* 4096\], &pm_tm1, &pm_bar\[0 \+ pm_s\], \(128 \* c1\) \+ \(0 \+ \(int\) pm_rk\) \* 64, \(64 \* c2\), 3\);',
           'pm_tma_load_2d(&B_shared[pm_s * 8192], &pm_tm1, &pm_bar[0 + pm_s], (128 * c1), (64 * c2)); pm_tma_load_2d(&B_shared[pm_s * 8192 + 4096], &pm_tm1, &pm_bar[0 + pm_s], (128 * c1) + 64, (64 * c2));', s[i:])
assert k != s[i:]
open('build/var/p2s.cu', 'w').write(s[:i] + k)
PY
SIZES="4096x4096x4096 8192x8192x4096 2048x2048x1024 3840x3456x2816" bash scripts/exp/time-files.sh build/var/p1.cu build/var/p2r.cu build/var/p2s.cu 2>&1 | grep -E "^(TIME|FAIL)|passed"
timeout 120 ncu --clock-control none -k regex:'pm_kernel' --launch-count 1 --section SpeedOfLight --section WarpStateStats \
	--section MemoryWorkloadAnalysis --section SchedulerStats build/var/p2r 4096x4096x4096 > "$O/ncu-p2r.txt" 2>&1
timeout 120 ncu --clock-control none -k regex:'pm_kernel' --launch-count 1 --section SpeedOfLight --section WarpStateStats \
	--section MemoryWorkloadAnalysis --section SchedulerStats build/var/p1 4096x4096x4096 > "$O/ncu-p1.txt" 2>&1

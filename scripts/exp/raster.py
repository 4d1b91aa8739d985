#!/usr/bin/env python3
"""raster.py IN.cu OUT.cu G: the main kernel's block -> tile mapping in
groups of G tile rows (blocks run in linear order: a wave covers G rows x
(wave / G) columns instead of whole rows), the experiment in front of a
--raster option (docs/PERF.md)."""
import sys
src, dst, g = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = open(src).read()
a = s.index('pm_kernel_gemm_nn(')
pre = '''	const int pm_lin = blockIdx.y * gridDim.x + blockIdx.x, pm_gw = %d * gridDim.x;
	const int pm_r0 = pm_lin / pm_gw * %d, pm_gh = min((int) gridDim.y - pm_r0, %d), pm_in = pm_lin %% pm_gw;
	const int pm_by = pm_r0 + pm_in %% pm_gh, pm_bx = pm_in / pm_gh;
''' % (g, g, g)
i = s.index('\tfloat pm_acc[1][64];\n', a)
s = s[:i] + pre + s[i:]
s = s[:i] + s[i:].replace('(0) + blockIdx.y;', '(0) + pm_by;', 1).replace('(0) + blockIdx.x;', '(0) + pm_bx;', 1)
open(dst, 'w').write(s)

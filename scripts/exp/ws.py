#!/usr/bin/env python3
"""ws.py IN.cu OUT.cu [NAME=VAL ...]: the generated sm_90a nn gemm file
(128x128x64, --split-k 1 --small-variant off) with its kernel and launcher
replaced by scripts/exp/ws_kernel.cuh under the given macros (experiment,
docs/PERF.md)."""
import os, sys
s = open(sys.argv[1]).read()
i = s.index('extern "C" __global__ void __launch_bounds__(256) pm_kernel_gemm_nn(')
defs = ''.join('#define %s %s\n' % tuple(a.split('=')) for a in sys.argv[3:])
k = open(os.path.join(os.path.dirname(__file__), 'ws_kernel.cuh')).read()
open(sys.argv[2], 'w').write(s[:i] + defs + k)

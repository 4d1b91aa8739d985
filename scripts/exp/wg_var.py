#!/usr/bin/env python3
"""wg_var.py IN.cu OUT.cu: a --persistent on sm_90a file (pm_kernel_<name>,
one producer warp) rewritten by hand into a producer warpgroup with
setmaxnreg: 384 threads, the roles in two branches each with its own loop
over tiles, the producer warpgroup down to 40 registers and the consumers
up to 232 (run63, docs/PERF.md)."""
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'extern "C" __global__ void __launch_bounds__\(288, 1\) (pm_kernel_\w+)\(', s)
name = m.group(1)
i = m.start()
j = s.index('\n}\n', i) + 3
k = s[i:j]
k = k.replace('__launch_bounds__(288, 1)', '__launch_bounds__(384, 1)')
loop = re.search(r'\tfor \(unsigned pm_t = [^\n]*\{\n', k)
head, rest = k[:loop.start()], k[loop.end():]
# tile setup: lines up to the role branch
b = rest.index('\t\tif (threadIdx.x >= 256) {\n')
setup = rest[:b]
rest = rest[b + len('\t\tif (threadIdx.x >= 256) {\n'):]
c = rest.index('\t\t\tcontinue;\n\t\t}\n')
prod = rest[:c]
cons = rest[c + len('\t\t\tcontinue;\n\t\t}\n'):]
# cons ends with the loop's and the kernel's closing braces
assert cons.endswith('\t}\n}\n')
cons = cons[:-len('\t}\n}\n')]
lh = loop.group(0)
out = head + ('\tif (threadIdx.x >= 256) {\n'
              '\t\tasm volatile("setmaxnreg.dec.sync.aligned.u32 40;\\n");\n'
              + lh + setup + prod + '\t}\n'
              '\t} else {\n'
              '\t\tasm volatile("setmaxnreg.inc.sync.aligned.u32 232;\\n");\n'
              + lh + setup + cons + '\t}\n\t}\n}\n')
s = s[:i] + out + s[j:]
s = s.replace('%s<<<grid, 288,' % name, '%s<<<grid, 384,' % name)
s = s.replace('(&o, %s, 288,' % name, '(&o, %s, 384,' % name)
open(sys.argv[2], 'w').write(s)

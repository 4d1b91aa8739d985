#!/usr/bin/env python3
"""force_tdp.py IN.cu OUT.cu: a generated sm_90a GEMM file whose launch plan
PM_FORCE="W,S" overrides: the split persistent kernel with W whole tiles
(-1: all) and the rest in S chunks (experiments only)."""
import sys
s = open(sys.argv[1]).read()
key = "\tp->cl = "
assert key in s
force = '''\t{
\t\tconst char *pe = getenv("PM_FORCE");
\t\tint w = 0, s3 = 1;
\t\tif (pe && sscanf(pe, "%d,%d", &w, &s3) == 2) {
\t\t\tconst int64_t rt = w < 0 ? 0 : tiles - w;
\t\t\tp->persist = 3, p->pblocks = (int64_t) sms * oc[4];
\t\t\tp->tdp = tiles - rt, p->s = rt ? s3 : 1;%s
\t\t\tp->kc[0] = (kt[0] + p->s - 1) / p->s * 64;
\t\t\tp->cnt_bytes = 4096;
\t\t\tp->bytes = p->cnt_bytes + (size_t) rt * (size_t) p->s * 65536;
\t\t}
\t}
'''
force = force.replace('%s', ' p->sk = 0;' if 'p->sk = 0;' in s else '', 1)
s = s.replace(key, force + key, 1)
s = "#include <stdlib.h>\n#include <stdio.h>\n" + s
open(sys.argv[2], "w").write(s)

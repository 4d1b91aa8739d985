#!/usr/bin/env python3
"""epi_var.py IN.cu OUT.cu VARIANT: the --persistent on sm_90a nn file
(pm_kernel_gemm_nn persistent, 128x128x64) with its epilogue changed, to see
what the epilogue costs (run50, docs/PERF.md).
  nostg   the staging kept, the copies to global removed (wrong on purpose)
  nosts   the staging removed, the copies kept (wrong on purpose)
  own     every tile's copies go to the block's own tile, blockIdx.x (wrong)
  nofence the epilogue's two fence.proxy.async removed (its staging buffer
          is the generic proxy's only)
  fence1  only the first (before the staging) kept
  bulk    the copies to global as one cp.async.bulk per row (threads 0-127),
          waited on (.read) before the staging of the next tile"""
import re, sys
src, dst, var = sys.argv[1:4]
s = open(src).read()
i = s.index('pm_kernel_gemm_nn(const')
head, k = s[:i], s[i:]
cp = re.compile(r'^(\s*)pm_copy16_s2g\(.*$', re.M)
if var == 'nostg':
    k = cp.sub(r'\1;', k)
elif var == 'nosts':
    k = re.sub(r'^(\s*)pm_sm90_store<.*$', r'\1;', k, flags=re.M)
elif var == 'nofence':
    j = k.index('pm_fence_proxy_async(); pm_bar_sync_n<256>();')
    k = k[:j] + k[j:].replace('pm_fence_proxy_async(); pm_bar_sync_n<256>();', 'pm_bar_sync_n<256>();')
elif var == 'fence1':
    j = k.index('pm_fence_proxy_async(); pm_bar_sync_n<256>();') + 10
    j = k.index('pm_fence_proxy_async(); pm_bar_sync_n<256>();', j)
    k = k[:j] + k[j:].replace('pm_fence_proxy_async(); pm_bar_sync_n<256>();', 'pm_bar_sync_n<256>();', 1)
elif var == 'own':
    k = k.replace('(128 * c0 + c2', '(128 * (int) (blockIdx.x / pm_tx) + c2')
    k = k.replace('(128 * c1 + 8 * c3)', '(128 * (int) (blockIdx.x % pm_tx) + 8 * c3)')
elif var == 'bulk':
    lines = k.split('\n')
    out, first = [], True
    for ln in lines:
        if 'pm_copy16_s2g(' in ln:
            if '(128 * c0 + c2)' in ln:
                ind = re.match(r'\s*', ln).group(0)
                out.append(ind + 'if (threadIdx.x < 128) { const unsigned pm_r = threadIdx.x; '
                           'asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 256;\\n" :: '
                           '"l"(&C[(int64_t) (128 * c0 + (int) pm_r) * (int64_t) N + (int64_t) (128 * c1)]), '
                           '"r"(pm_smem_addr(&pm_cst[pm_r * 136])) : "memory"); '
                           'asm volatile("cp.async.bulk.commit_group;\\n" ::: "memory"); }')
            continue
        if first and 'pm_fence_proxy_async(); pm_bar_sync_n<256>();' in ln:
            ind = re.match(r'\s*', ln).group(0)
            out.append(ind + 'if (threadIdx.x < 128) asm volatile("cp.async.bulk.wait_group.read 0;\\n" ::: "memory");')
            first = False
        out.append(ln)
    k = '\n'.join(out)
    # before the block exits, its copies must have read shared memory
    j = k.index('\n}\n')
    k = k[:j] + '\n\tif (threadIdx.x < 128) asm volatile("cp.async.bulk.wait_group 0;\\n" ::: "memory");' + k[j:]
else:
    sys.exit('unknown variant ' + var)
open(dst, 'w').write(head + k)

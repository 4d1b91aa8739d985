// plan_probe.cu (session 9): the launch plan of a generated gemm_nn file
// (-DKERNEL_FILE) at the sizes on the command line: chunks, cluster,
// persistent variant, workspace bytes (sk: stream-K, built with -DPM_SK
// for the stream-K build of session 11, scripts/exp/run97-sk.diff).
#include KERNEL_FILE
#include <cstdio>
// PLAN: the spec's name (default gemm_nn; session 12: add_gemm too)
#ifndef PLAN
#define PLAN gemm_nn
#endif
#define PM_CAT2(a, b) a##b
#define PM_CAT(a, b) PM_CAT2(a, b)
int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    long M, N, K;
    if (sscanf(argv[i], "%ldx%ldx%ld", &M, &N, &K) != 3)
      return 2;
    struct PM_CAT(pm_plan_, PLAN) p;
    if (PM_CAT(pm_plan_, PLAN)(M, N, K, &p) != cudaSuccess)
      return 1;
    printf("%s s=%d cl=%d persist=%d tdp=%lld bytes=%zu small=%d sk=%d\n", argv[i],
           p.s, p.cl, p.persist, (long long)p.tdp, p.bytes, p.small,
#ifdef PM_SK
           p.sk
#else
           0
#endif
           );
  }
  return 0;
}

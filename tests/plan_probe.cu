// plan_probe.cu (test_plan): the launch plan of a generated file
// (-DKERNEL_FILE, its plan pm_plan_<-DPLAN>) at each MxNxK on the command
// line, on the host, without a GPU: the CUDA calls the plan makes are
// replaced by a model of an H100 SXM (132 SMs; a kernel's blocks per SM
// from its dynamic shared memory, 228 KiB per SM with 1 KiB reserved per
// block, and its threads, 2048 per SM; one block of 384 threads, whose
// registers fill the SM; clusters: half the SMs' worth). Matches the
// plans an H100 gave at the 100 paper sizes (session 14, run128). The
// plan's rules' flags are printed in the goldens' format (runtime/plan.h's
// struct pm_rt_rules).
#include <cuda_runtime.h>
static int pm_probe_occ(int threads, size_t smem) {
  const int by_smem = (int)(233472 / (smem + 1024));
  const int by_threads = 2048 / threads;
  int o = by_smem < by_threads ? by_smem : by_threads;
  if (threads == 384)
    o = o > 0 ? 1 : 0;
  return o;
}
static cudaError_t pm_probe_device(int *d) { *d = 0; return cudaSuccess; }
static cudaError_t pm_probe_attr(int *v, cudaDeviceAttr, int) {
  *v = 132;
  return cudaSuccess;
}
template <class F>
static cudaError_t pm_probe_fattr(F, cudaFuncAttribute, int) {
  return cudaSuccess;
}
template <class F>
static cudaError_t pm_probe_blocks(int *o, F, int threads, size_t smem) {
  *o = pm_probe_occ(threads, smem);
  return cudaSuccess;
}
template <class F>
static cudaError_t pm_probe_clusters(int *n, F, const cudaLaunchConfig_t *lc) {
  *n = 132 / (int)lc->gridDim.x / 2;
  return cudaSuccess;
}
#define cudaGetDevice pm_probe_device
#define cudaDeviceGetAttribute pm_probe_attr
#define cudaFuncSetAttribute pm_probe_fattr
#define cudaOccupancyMaxActiveBlocksPerMultiprocessor pm_probe_blocks
#define cudaOccupancyMaxActiveClusters pm_probe_clusters
#include KERNEL_FILE
#include <cstdio>
#define PM_CAT2(a, b) a##b
#define PM_CAT(a, b) PM_CAT2(a, b)
int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    long M, N, K;
    if (sscanf(argv[i], "%ldx%ldx%ld", &M, &N, &K) != 3)
      return 2;
    struct pm_rt_choice c;
    // the last argument: the problem is aligned (docs/decisions/0046)
    if (PM_CAT(pm_plan_, PLAN)(M, N, K, &c, 0, 0) != cudaSuccess)
      return 1;
    printf("%s s=%d persist=%d tdp=%lld small=%d medium=%d cl=%d\n", argv[i],
           c.why.s, c.why.persist, (long long)c.why.tdp, c.why.small,
           c.why.medium, c.why.cl);
  }
  return 0;
}

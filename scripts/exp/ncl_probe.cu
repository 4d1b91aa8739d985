// ncl_probe.cu (session 9): how many clusters of s blocks (one per SM:
// 288 threads, ~166 KB of shared memory, as the split persistent kernel)
// the GPU holds at once, s = 1 .. 8.
#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(int *p) { extern __shared__ int s[]; if (p) p[0] = s[0]; }
int main() {
  const int smem = 165968;
  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  for (int s = 1; s <= 8; ++s) {
    cudaLaunchConfig_t lc = {};
    cudaLaunchAttribute la[1];
    lc.gridDim = dim3(s); lc.blockDim = dim3(288); lc.dynamicSmemBytes = smem;
    la[0].id = cudaLaunchAttributeClusterDimension;
    la[0].val.clusterDim.x = s; la[0].val.clusterDim.y = 1; la[0].val.clusterDim.z = 1;
    lc.attrs = la; lc.numAttrs = 1;
    int n = -1;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&n, k, &lc);
    printf("cluster %d: %d clusters (%d SMs) %s\n", s, n, n * s, cudaGetErrorString(e));
  }
  return 0;
}

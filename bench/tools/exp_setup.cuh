// exp_setup.cuh: the cuBLAS timers' set-up (bmm_time, group_time, ops_time,
// var_time): the L2 size of the current device (inputs are rotated past
// it) and a cuBLAS handle on a stream of its own.
#ifndef EXP_SETUP_CUH
#define EXP_SETUP_CUH
#include <cublas_v2.h>
#include <cstdio>

// 0, or -1 with a line on stderr naming tool.
static int exp_setup(const char *tool, int *l2, cublasHandle_t *h,
                     cudaStream_t *s) {
  int dev = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(l2, cudaDevAttrL2CacheSize, dev);
  cudaStreamCreate(s);
  if (cublasCreate(h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "%s: no GPU or cuBLAS (%s)\n", tool,
            cudaGetErrorString(cudaGetLastError()));
    return -1;
  }
  cublasSetStream(*h, *s);
  return 0;
}
#endif

// host_probe.cu: host microseconds per call of the pieces of a generated
// gemm_nn launcher (KERNEL_FILE): cudaGetDevice, cudaStreamGetId,
// cudaFuncSetAttribute, one tensor map, the plan, an empty launch, and the
// whole launcher (GPU queue not full), at each MxNxK.
#include KERNEL_FILE
#include <chrono>
#include <cstdio>
__global__ void hp_empty(int x) { (void)x; }
template <typename F> static double per_call(F f, int n = 2000) {
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) f();
  auto t1 = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / n;
}
int main(int argc, char **argv) {
  int dev; unsigned long long id;
  cudaFree(0);
  printf("cudaGetDevice        %.3f us\n", per_call([&] { cudaGetDevice(&dev); }));
  printf("cudaStreamGetId      %.3f us\n", per_call([&] { cudaStreamGetId(0, &id); }));
  printf("cudaFuncSetAttribute %.3f us\n", per_call([&] { cudaFuncSetAttribute(pm_kernel_gemm_nn_persist, cudaFuncAttributeMaxDynamicSharedMemorySize, 200000); }));
  void *A; cudaMalloc(&A, 1 << 26);
  CUtensorMap m;
  printf("pm_tma_map_2d        %.3f us\n", per_call([&] { pm_tma_map_2d(&m, A, 4096, 4096, 4096, 64, 64, 128); }));
  struct pm_plan_gemm_nn p;
  printf("pm_plan (2048^3)     %.3f us\n", per_call([&] { pm_plan_gemm_nn(2048, 2048, 2048, &p); }));
  printf("empty <<<>>>         %.3f us\n", per_call([&] { hp_empty<<<132, 128>>>(1); }, 500));
  cudaDeviceSynchronize();
  for (int a = 1; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    __half *X, *Y, *Z;
    cudaMalloc(&X, M * K * 2); cudaMalloc(&Y, K * N * 2); cudaMalloc(&Z, M * N * 2);
    for (int i = 0; i < 10; ++i) gemm_nn(X, Y, Z, M, N, K, 0);
    cudaDeviceSynchronize();
    printf("gemm_nn %s  %.3f us\n", argv[a], per_call([&] { gemm_nn(X, Y, Z, M, N, K, 0); }, 200));
    cudaDeviceSynchronize();
    cudaFree(X); cudaFree(Y); cudaFree(Z);
  }
  return 0;
}

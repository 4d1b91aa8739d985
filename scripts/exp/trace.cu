// trace.cu: runs a trace_units.py-instrumented GEMM file (KERNEL_FILE,
// gemm_nn signature) at MxNxK and prints each block's units: start times
// relative to the earliest, in microseconds, and the block's end.
#include KERNEL_FILE
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <vector>
int main(int argc, char **argv) {
  long long M, N, K;
  if (argc < 2 || sscanf(argv[1], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
  __half *A, *B, *C;
  cudaMalloc(&A, M * K * 2); cudaMalloc(&B, K * N * 2); cudaMalloc(&C, M * N * 2);
  cudaMemset(A, 0x3c, M * K * 2); cudaMemset(B, 0x3c, K * N * 2);
  for (int i = 0; i < 20; ++i) gemm_nn(A, B, C, M, N, K, 0);
  std::vector<unsigned long long> z(1024 * 16, 0), t(1024 * 16);
  cudaMemcpyToSymbol(pm_trace, z.data(), z.size() * 8);
  gemm_nn(A, B, C, M, N, K, 0);
  if (cudaDeviceSynchronize() != cudaSuccess) { printf("error\n"); return 1; }
  cudaMemcpyFromSymbol(t.data(), pm_trace, t.size() * 8);
  unsigned long long t0 = ~0ull, tmax = 0;
  for (int b = 0; b < 1024; ++b) if (t[b * 16]) t0 = std::min(t0, t[b * 16]);
  for (int b = 0; b < 1024; ++b) if (t[b * 16 + 15]) tmax = std::max(tmax, t[b * 16 + 15]);
  printf("%s span %.2f us\n", argv[1], (tmax - t0) / 1000.0);
  for (int b = 0; b < 1024; ++b) {
    if (!t[b * 16]) continue;
    printf("b%3d", b);
    for (int i = 0; i < 7 && t[b * 16 + 2 * i]; ++i)
      printf("  u%llu@%.2f", t[b * 16 + 2 * i + 1], (t[b * 16 + 2 * i] - t0) / 1000.0);
    printf("  fix@%.2f put..%.2f sync..%.2f add..%.2f  end@%.2f\n", (t[b * 16 + 12] - t0) / 1000.0,
           (t[b * 16 + 10] - t0) / 1000.0, (t[b * 16 + 11] - t0) / 1000.0,
           (t[b * 16 + 13] - t0) / 1000.0, (t[b * 16 + 15] - t0) / 1000.0);
  }
  return 0;
}

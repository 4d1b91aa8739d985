// entry_time.cu: the plain entry's cost at one size: host submission time
// per call, GPU time per call back-to-back (events around 200 calls), and
// synchronized latency per call; plus the host cost of one tensor-map
// encoding (pm_tma_map_2d). Built against a generated file (KERNEL_FILE,
// entry KFN with the gemm_nn signature). -DWS: through KFN_ws with a
// workspace allocated once (KFN_workspace_size).
#include KERNEL_FILE
#include <chrono>
#include <cstdio>
#include <cstdlib>
#ifdef WS
#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
static void *ws_p;
static size_t ws_n;
#define CALL(A, B, C, M, N, K, s) CAT(KFN, _ws)(A, B, C, M, N, K, ws_p, ws_n, s)
#else
#define CALL(A, B, C, M, N, K, s) KFN(A, B, C, M, N, K, s)
#endif
int main(int argc, char **argv) {
  for (int a = 1; a < argc; ++a) {
    long long M, N, K;
    if (sscanf(argv[a], "%lldx%lldx%lld", &M, &N, &K) != 3) return 2;
    __half *A, *B, *C;
    cudaMalloc(&A, M * K * 2); cudaMalloc(&B, K * N * 2); cudaMalloc(&C, M * N * 2);
    cudaMemset(A, 0, M * K * 2); cudaMemset(B, 0, K * N * 2);
    cudaStream_t s; cudaStreamCreate(&s);
#ifdef WS
    ws_n = CAT(KFN, _workspace_size)(M, N, K);
    ws_p = 0;
    if (ws_n) { cudaMalloc(&ws_p, ws_n); cudaMemset(ws_p, 0, ws_n); }
#endif
    for (int i = 0; i < 20; ++i) KFN(A, B, C, M, N, K, s);
    cudaStreamSynchronize(s);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    const int n = 200;
    auto h0 = std::chrono::steady_clock::now();
    cudaEventRecord(e0, s);
    for (int i = 0; i < n; ++i) CALL(A, B, C, M, N, K, s);
    cudaEventRecord(e1, s);
    auto h1 = std::chrono::steady_clock::now();
    cudaEventSynchronize(e1);
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    double host_us = std::chrono::duration<double, std::micro>(h1 - h0).count() / n;
    double lat = 0;
    for (int i = 0; i < 50; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      CALL(A, B, C, M, N, K, s); cudaStreamSynchronize(s);
      lat += std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    }
    printf("%s %s host_submit_us=%.2f gpu_us_per_call=%.2f sync_latency_us=%.2f err=%s\n", TAG, argv[a], host_us,
           ms * 1000 / n, lat / 50, cudaGetErrorString(cudaGetLastError()));
    cudaFree(A); cudaFree(B); cudaFree(C);
#ifdef WS
    if (ws_p) cudaFree(ws_p);
#endif
  }
#ifdef PM_TMA_PROBE
  {
    CUtensorMap m; void *p; cudaMalloc(&p, 1 << 26);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 10000; ++i) pm_tma_map_2d(&m, p, 4096, 4096, 4096, 128, 64, 128);
    printf("%s pm_tma_map_2d_us=%.3f\n", TAG, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 10000);
  }
#endif
  return 0;
}

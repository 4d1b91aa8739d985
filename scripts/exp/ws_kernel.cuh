// ws_kernel.cuh: hand-written experiment (scripts/exp/ws.py appends it to a
// generated sm_90a nn gemm file in place of its kernel and launcher).  A
// warp-specialized 128x128x64 kernel: warp 8 (WS_THREADS 288) or warpgroup 2
// (384) issues the TMA copies; warpgroups 0-1 compute 64x128 each.
// WS_INFL: one k tile of wgmma kept in flight.  WS_ST: stages.
// WS_PERSIST: grid = SMs x occupancy, tiles strided, C staged in its own
// shared buffer so the producer runs ahead into the next tile.
#ifndef WS_ST
#define WS_ST 3
#endif
#ifndef WS_THREADS
#define WS_THREADS 288
#endif
#ifndef WS_MINB
#define WS_MINB 1
#endif
#define WS_STAGE_B 32768
#define WS_CST_OFF (WS_PERSIST ? WS_ST * WS_STAGE_B : 0)
#ifndef WS_PP
#define WS_PP 0
#endif
#ifndef WS_PP_DIRECT
#define WS_PP_DIRECT 0
#endif
#define WS_CST_B (WS_PP ? (WS_PP_DIRECT ? 0 : 2 * 128 * 136 * 2) : WS_PERSIST ? 128 * 136 * 2 : 0)
#define WS_BAR_OFF (WS_ST * WS_STAGE_B + WS_CST_B)
#define WS_SMEM (WS_BAR_OFF + 2 * WS_ST * 8 + 16)

__device__ __forceinline__ void ws_bar_sync_consumers() {
  asm volatile("bar.sync 1, 256;\n" ::: "memory");
}

__device__ __forceinline__ void ws_tile(unsigned t, unsigned tx, unsigned ty,
                                        int *by, int *bx) {
  const unsigned gw = 8u * tx, r0 = t / gw * 8u;
  const unsigned gh = min(ty - r0, 8u), ti = t % gw;
  *by = (int)(r0 + ti % gh);
  *bx = (int)(ti / gh);
}

// The kernel's parameters and the locals both kernels start with.
#define WS_KERNEL_HEAD                                                       \
  pm_kernel_gemm_nn(const __half *__restrict__ A,                            \
                    const __half *__restrict__ B, __half *__restrict__ C,    \
                    int M, int N, int K,                                     \
                    const __grid_constant__ CUtensorMap pm_tm0,              \
                    const __grid_constant__ CUtensorMap pm_tm1) {            \
    const unsigned tx = ((unsigned)N + 127u) / 128u,                         \
                   ty = ((unsigned)M + 127u) / 128u, nt = tx * ty;           \
    extern __shared__ __align__(1024) unsigned char pm_smem[];               \
    __half *A_shared = (__half *)(pm_smem + 0);                              \
    __half *B_shared = (__half *)(pm_smem + 16384);

// The producer's loop: every k tile of the block's tiles into the ring.
__device__ __forceinline__ void ws_produce(unsigned t0, unsigned ts,
                                           unsigned nt, unsigned tx,
                                           unsigned ty, int KT,
                                           __half *A_shared, __half *B_shared,
                                           uint64_t *full, uint64_t *empty,
                                           const CUtensorMap *tm0,
                                           const CUtensorMap *tm1) {
  int q = 0;
  for (unsigned t = t0; t < nt; t += ts) {
    int by, bx;
    ws_tile(t, tx, ty, &by, &bx);
    for (int kt = 0; kt < KT; ++kt, ++q) {
      const int s = q % WS_ST;
      if (q >= WS_ST)
        pm_mbar_wait(&empty[s], ((q / WS_ST) + 1) & 1);
      pm_mbar_arrive_tx(&full[s], WS_STAGE_B);
      __half *as = A_shared + s * (WS_STAGE_B / 2),
             *bs = B_shared + s * (WS_STAGE_B / 2);
      pm_tma_load_2d(as, tm0, &full[s], 64 * kt, 128 * by);
      pm_tma_load_2d(bs, tm1, &full[s], 128 * bx, 64 * kt);
      pm_tma_load_2d(bs + 4096, tm1, &full[s], 128 * bx + 64, 64 * kt);
    }
  }
}

#if WS_PP
// Ping-pong: each consumer warpgroup computes whole 128x128 tiles (two
// 64x128 halves, 128 accumulators per thread), the two alternating over the
// block's tiles; the producer fills the ring in tile order.  C is staged in
// each warpgroup's own buffer (WS_PP_DIRECT: stored from registers).
extern "C" __global__ void __launch_bounds__(384, 1)
WS_KERNEL_HEAD
  uint64_t *full = (uint64_t *)(pm_smem + WS_BAR_OFF);
  uint64_t *empty = full + WS_ST, *order = empty + WS_ST;
  if (threadIdx.x == 0) {
    for (int i = 0; i < WS_ST; ++i) {
      pm_mbar_init(&full[i], 1);
      pm_mbar_init(&empty[i], 4);
    }
    pm_mbar_init(&order[0], 4);
    pm_mbar_init(&order[1], 4);
    pm_mbar_init_fence();
  }
  __syncthreads();
  const int KT = K / 64;
  const unsigned t0 = blockIdx.x, ts = gridDim.x;
  if (threadIdx.x >= 256) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (threadIdx.x != 256)
      return;
    ws_produce(t0, ts, nt, tx, ty, KT, A_shared, B_shared, full, empty,
               &pm_tm0, &pm_tm1);
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  const int w = threadIdx.x / 128;
#if !WS_PP_DIRECT
  __half *cst = (__half *)(pm_smem + WS_ST * WS_STAGE_B) + w * 128 * 136;
#endif
  float acc[2][64];
  int q = w * KT, i = 0;
  for (unsigned t = t0 + w * ts; t < nt; t += 2 * ts, q += KT, ++i) {
    int by, bx;
    ws_tile(t, tx, ty, &by, &bx);
    // the mainloops alternate: WG 1's i-th after WG 0's i-th, WG 0's i-th
    // after WG 1's (i-1)-th (the ring's parities hold one phase only)
    if (w == 1)
      pm_mbar_wait(&order[1], i & 1);
    else if (i >= 1)
      pm_mbar_wait(&order[0], (i - 1) & 1);
    pm_fill_zero(acc[0], 64);
    pm_fill_zero(acc[1], 64);
    for (int kt = 0; kt < KT; ++kt, ++q) {
      const int s = q % WS_ST;
      pm_mbar_wait(&full[s], (q / WS_ST) & 1);
      const __half *as = A_shared + s * (WS_STAGE_B / 2), *bs = B_shared + s * (WS_STAGE_B / 2);
      pm_wgmma_fence();
#pragma unroll
      for (int kk = 0; kk < 64; kk += 16) {
        const uint64_t db = pm_sm90_operand<0, 128, 2, 64>(bs, kk, 0);
        pm_wgmma<128, 0, 1>(acc[0], pm_sm90_operand<1, 64, 1, 128>(as, 0, kk), db);
        pm_wgmma<128, 0, 1>(acc[1], pm_sm90_operand<1, 64, 1, 128>(as, 64, kk), db);
      }
      pm_wgmma_commit();
#if WS_INFL
      pm_wgmma_wait<1>();
      if (kt >= 1 && pm_lane_id() == 0)
        pm_mbar_arrive(&empty[(q - 1) % WS_ST]);
#else
      pm_wgmma_wait<0>();
      if (pm_lane_id() == 0)
        pm_mbar_arrive(&empty[s]);
#endif
    }
    pm_sm90_drain<64>(acc[0]);
    pm_sm90_drain<64>(acc[1]);
#if WS_INFL
    if (pm_lane_id() == 0)
      pm_mbar_arrive(&empty[(q - 1) % WS_ST]);
#endif
    if (pm_lane_id() == 0)
      pm_mbar_arrive(&order[1 - w]);
#if WS_PP_DIRECT
    pm_sm90_store<64, 128>(acc[0], C + (int64_t)(128 * by) * N + 128 * bx, N, 1);
    pm_sm90_store<64, 128>(acc[1], C + (int64_t)(128 * by + 64) * N + 128 * bx, N, 1);
#else
    pm_sm90_store<64, 128>(acc[0], cst, 136, 1);
    pm_sm90_store<64, 128>(acc[1], cst + 64 * 136, 136, 1);
    asm volatile("bar.sync %0, 128;\n" ::"r"(w + 1) : "memory");
    {
      const int r = (threadIdx.x % 128) / 16, cc = threadIdx.x % 16;
#pragma unroll
      for (int i = 0; i < 16; ++i)
        pm_copy16_s2g(&C[(int64_t)(128 * by + r + 8 * i) * N + 128 * bx + 8 * cc],
                      &cst[(r + 8 * i) * 136 + 8 * cc]);
    }
    asm volatile("bar.sync %0, 128;\n" ::"r"(w + 1) : "memory");
#endif
  }
}
#else
extern "C" __global__ void __launch_bounds__(WS_THREADS, WS_MINB)
WS_KERNEL_HEAD
  __half *pm_cst = (__half *)(pm_smem + WS_CST_OFF);
  uint64_t *full = (uint64_t *)(pm_smem + WS_BAR_OFF);
  uint64_t *empty = full + WS_ST;
  if (threadIdx.x == 0) {
    for (int i = 0; i < WS_ST; ++i) {
      pm_mbar_init(&full[i], 1);
      pm_mbar_init(&empty[i], 8);
    }
    pm_mbar_init_fence();
  }
  __syncthreads();
  const int KT = K / 64;
  const unsigned t0 = blockIdx.x, ts = WS_PERSIST ? gridDim.x : nt;
  if (threadIdx.x >= 256) {
#if WS_THREADS == 384
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
#endif
    if (threadIdx.x != 256)
      return;
    ws_produce(t0, ts, nt, tx, ty, KT, A_shared, B_shared, full, empty,
               &pm_tm0, &pm_tm1);
    return;
  }
#if WS_THREADS == 384
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
#endif
  const int c = threadIdx.x / 128;
  float acc[64];
  int q = 0;
  for (unsigned t = t0; t < nt; t += ts) {
    int by, bx;
    ws_tile(t, tx, ty, &by, &bx);
    pm_fill_zero(acc, 64);
    for (int kt = 0; kt < KT; ++kt, ++q) {
      const int s = q % WS_ST;
      pm_mbar_wait(&full[s], (q / WS_ST) & 1);
      pm_sm90_mma_tile<64, 128, 64, 1, 64, 1, 1, 128, 2, 128, 64>(
          acc, A_shared + s * (WS_STAGE_B / 2), 64 * c, 0,
          B_shared + s * (WS_STAGE_B / 2), 0, 0);
#if WS_INFL
      pm_wgmma_wait<1>();
      if (kt >= 1 && pm_lane_id() == 0)
        pm_mbar_arrive(&empty[(q - 1) % WS_ST]);
#else
      pm_sm90_drain<64>(acc);
      if (pm_lane_id() == 0)
        pm_mbar_arrive(&empty[s]);
#endif
    }
#if WS_INFL
    pm_sm90_drain<64>(acc);
    if (pm_lane_id() == 0)
      pm_mbar_arrive(&empty[(q - 1) % WS_ST]);
#endif
    pm_fence_proxy_async();
    ws_bar_sync_consumers();
    pm_sm90_store<64, 128>(acc, pm_cst + (64 * c) * 136, 136, 1);
    ws_bar_sync_consumers();
    {
      const int r = threadIdx.x / 16, cc = threadIdx.x % 16;
#pragma unroll
      for (int i = 0; i < 8; ++i)
        pm_copy16_s2g(&C[(int64_t)(128 * by + r + 16 * i) * N + 128 * bx + 8 * cc],
                      &pm_cst[(r + 16 * i) * 136 + 8 * cc]);
    }
#if WS_PERSIST
    ws_bar_sync_consumers();
#endif
  }
}

#endif

extern "C" cudaError_t gemm_nn(const void *A, const void *B, void *C,
                               int64_t M, int64_t N, int64_t K,
                               cudaStream_t stream) {
  if (M < 1 || M % 128 || N < 1 || N % 128 || K < 1 || K % 64)
    return cudaErrorInvalidValue;
  static int grid_p = 0;
  if (cudaFuncSetAttribute(pm_kernel_gemm_nn,
                           cudaFuncAttributeMaxDynamicSharedMemorySize,
                           WS_SMEM) != cudaSuccess)
    return cudaGetLastError();
  const int64_t tiles = (M / 128) * (N / 128);
  int64_t g = tiles;
  if (WS_PERSIST) {
    if (!grid_p) {
      int dev, sms, occ;
      cudaGetDevice(&dev);
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, pm_kernel_gemm_nn,
                                                    WS_PP ? 384 : WS_THREADS, WS_SMEM);
      grid_p = sms * occ;
    }
    g = tiles < grid_p ? tiles : grid_p;
  }
  CUtensorMap pm_tm0, pm_tm1;
  if (pm_tma_map_2d(&pm_tm0, A, M, K, K, 128, 64, 128) != cudaSuccess)
    return cudaErrorInvalidValue;
  if (pm_tma_map_2d(&pm_tm1, B, K, N, N, 64, 64, 128) != cudaSuccess)
    return cudaErrorInvalidValue;
  pm_kernel_gemm_nn<<<(unsigned)g, WS_PP ? 384 : WS_THREADS, WS_SMEM, stream>>>(
      (const __half *)A, (const __half *)B, (__half *)C, (int)M, (int)N,
      (int)K, pm_tm0, pm_tm1);
  return cudaGetLastError();
}

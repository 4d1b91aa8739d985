// polymma target helpers: "sm90_split", split-K in the sm_90a persistent
// kernel: the reduce-scatter of a tile's chunks through the workspace
// (pm_rs_*) and, in clusters, through distributed shared memory (pm_dsm_*).
//
// Embedded verbatim into generated sm_90a kernels AFTER sm90.cuh, whose
// barriers (pm_bar_sync_n, the mbarriers, pm_fence_proxy_async) it uses.
#ifndef POLYMMA_TARGETS_SM90_SPLIT_CUH
#define POLYMMA_TARGETS_SM90_SPLIT_CUH

// ---------------------------------------------------------------------------
// Split-K in a persistent kernel (emit/fixup.c), reduce-scatter: the nz
// units of a tile (its chunks of k, all resident at once: the grid is
// persistent) each finish one strip of the tile's rows, the rows of the
// consumer warps [w0, w1) = [W z / nz, W (z + 1) / nz) (on the wgmma
// layout with the warpgroups stacked along m, warp w holds rows 16w ..
// 16w + 15).  Each unit puts the other warps' accumulators to its
// workspace slot, waits for every unit of the tile, adds the others'
// partials of its strip (its own first, then the others' in z order: a
// fixed order per strip, so every run rounds the same), and stores its
// strip's rows (the epilogue runs on every register; only the strip is
// stored).  The consumer warps only: NT threads, named barrier 1.
//   pm_rs_put<R, NT>(acc, slot, w0, w1)   warps outside [w0, w1): R floats
//                                         as float4 [R / 4][NT], L2 only
//   pm_rs_sync<NT>(cnt, nz)   every unit's partial is out: a barrier, then
//                             one thread's release (cumulative over the
//                             warps' puts, as CUTLASS's barriers) and
//                             acquire, then a barrier
//   pm_rs_done(cnt, nz)       after the adds (off the wait's path): the
//                             counter counts 2 nz arrivals (put, then
//                             done) and the last resets it to 0 for the
//                             next launch
//   pm_rs_add<R, NT>(acc, slot, w0, w1)   warps in [w0, w1): acc += a
//                                         partial (all its loads first)
// ---------------------------------------------------------------------------
// acc[0 .. R) += the R floats of v[0 .. R / 4).
template <int R>
__device__ __forceinline__ void pm_acc_add4(float *acc, const float4 *v) {
#pragma unroll
  for (int r = 0; r < R; r += 4) {
    acc[r] += v[r / 4].x;
    acc[r + 1] += v[r / 4].y;
    acc[r + 2] += v[r / 4].z;
    acc[r + 3] += v[r / 4].w;
  }
}

__device__ __forceinline__ bool pm_rs_mine(int w0, int w1) {
  const int w = (int)(threadIdx.x >> 5);
  return w >= w0 && w < w1;
}

template <int R, int NT>
__device__ __forceinline__ void pm_rs_put(const float *acc, float *slot,
                                          int w0, int w1) {
  if (!pm_rs_mine(w0, w1))
    pm_splitk_put<R, NT>(acc, slot);
}

template <int NT>
__device__ __forceinline__ void pm_rs_sync(unsigned *cnt, unsigned nz) {
  pm_bar_sync_n<NT>();
  if (threadIdx.x == 0) {
    unsigned v;
    asm volatile("fence.acq_rel.gpu;\n"
                 "red.relaxed.gpu.global.add.u32 [%0], 1;\n" ::"l"(cnt)
                 : "memory");
    for (;;) {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                   : "=r"(v)
                   : "l"(cnt)
                   : "memory");
      if (v >= nz)
        break;
      __nanosleep(32);
    }
  }
  pm_bar_sync_n<NT>();
}

__device__ __forceinline__ void pm_rs_done(unsigned *cnt, unsigned nz) {
  if (threadIdx.x == 0 && atomicAdd(cnt, 1u) == 2 * nz - 1)
    *cnt = 0;
}

template <int R, int NT>
__device__ __forceinline__ void pm_rs_add(float *acc, const float *slot,
                                          int w0, int w1) {
  static_assert(R % 4 == 0, "pm_rs_add: R must be a multiple of 4");
  if (!pm_rs_mine(w0, w1))
    return;
  const float4 *s = reinterpret_cast<const float4 *>(slot) + threadIdx.x;
  float4 v[R / 4];
#pragma unroll
  for (int r = 0; r < R; r += 4)
    v[r / 4] = __ldcg(s + (r / 4) * NT);
  pm_acc_add4<R>(acc, v);
}

// ---------------------------------------------------------------------------
// Split-K in a persistent kernel, the last to arrive sums (emit/fixup.c
// last_fixup; docs/decisions/0058-last-arriver-split.md): no unit waits
// for another, so a tile's chunks need not be resident together.  Each
// unit of a split tile puts its whole accumulators (pm_splitk_put) into
// slot [tile][z], then
//   pm_la_last<NT>(cnt, nz, flag)   counts the tile's arrivals: true (in
//       every consumer thread) for the unit that arrives last, which
//       resets the counter to 0 for the next launch; the others go on to
//       their next unit.  flag: an int of shared memory past the
//       mbarriers (emit/file.c).  Release and acquire as pm_rs_sync's:
//       the warps' barrier, one thread's acq_rel atomic (cumulative over
//       the warps' puts), the barrier again.
//   pm_la_sum<R, NT>(acc, slots, pb, nz)   the last unit: acc = slots 0
//       .. nz - 1 summed in z order (the same rounding whichever unit is
//       last), Q slots' loads in flight before their adds (4 for the
//       swapped rows' 8 or 16 floats a thread, fewer for more).
// The consumer warps only: NT threads, named barrier 1.
template <int NT>
__device__ __forceinline__ bool pm_la_last(unsigned *cnt, int nz,
                                           volatile int *flag) {
  pm_bar_sync_n<NT>();
  if (threadIdx.x == 0) {
    unsigned old;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\n"
                 : "=r"(old)
                 : "l"(cnt)
                 : "memory");
    const int last = old == (unsigned)(nz - 1);
    if (last)
      *cnt = 0;
    *flag = last;
  }
  pm_bar_sync_n<NT>();
  return *flag != 0;
}

template <int R, int NT>
__device__ __forceinline__ void pm_la_sum(float *acc, const float *slots,
                                          long long pb, int nz) {
  static_assert(R % 4 == 0, "pm_la_sum: R must be a multiple of 4");
  const float4 *s = reinterpret_cast<const float4 *>(slots) + threadIdx.x;
#pragma unroll
  for (int r = 0; r < R; ++r)
    acc[r] = 0.0f;
  constexpr int Q = R <= 16 ? 4 : R <= 32 ? 2 : 1;
#pragma unroll 1
  for (int q0 = 0; q0 < nz; q0 += Q) {
    float4 v[Q][R / 4];
#pragma unroll
    for (int q = 0; q < Q; ++q)
#pragma unroll
      for (int r = 0; r < R; r += 4)
        v[q][r / 4] = q0 + q < nz ? __ldcg(s + (q0 + q) * (pb / 4) +
                                           (r / 4) * NT)
                                  : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int q = 0; q < Q; ++q)
      pm_acc_add4<R>(acc, v[q]);
  }
}

// ---------------------------------------------------------------------------
// Split-K through distributed shared memory (emit/fixup.c): the split
// persistent kernel launched in clusters of nz blocks, the chunks of one
// tile, one unit per block (grids under 3/5 tile per SM).  The same
// reduce-scatter as pm_rs_* (the strips of rows, the sums in z order: the
// same rounding), with the partials put straight into the strip owner's
// shared memory instead of the workspace, and no counter in global memory:
//   pm_dsm_ready<NT>(go, z, nz)   after the k loop: this block's stages are
//                                 free; one arrival on every peer's "go"
//   pm_dsm_put<R, NT>(acc, area, i, go, z, nz)   a thread whose warp is in
//                                 block o's strip (o != z): once every
//                                 peer's stages are free, its R floats of
//                                 accumulator i into o's receive area
//   pm_dsm_sent<NT>(recv, z, nz)  then one arrival on o's "recv"
//   pm_dsm_add<R, NT>(acc, area, i, recv, z, nz)   the strip's threads:
//                                 once every peer's partials are in, acc
//                                 += them in z order
// Receive area of block o (the stages; float4 units):
//   [accumulator i][sender j: z without o][R / 4][(w - w0(o)) * 32 + lane]
// with sw(o) = w1(o) - w0(o) warps per row of it.  "go" counts nz - 1
// arrivals, "recv" (nz - 1) * 32 * sw(o) (kernel preamble, emit/file.c);
// both are used once per launch (parity 0).  Every access to a peer's
// shared memory happens before that peer passes its own "go" and "recv"
// waits, so no block leaves while a peer still writes to it; the kernel
// also ends on pm_cluster_sync_relaxed (the form of that guarantee that
// compute-sanitizer's racecheck recognizes).
// ---------------------------------------------------------------------------
// The block whose strip holds consumer warp w (strips [W z / nz, W (z + 1)
// / nz) of W warps).
__device__ __forceinline__ int pm_dsm_owner(int w, int W, int nz) {
  int o = w * nz / W;
  while (o + 1 < nz && W * (o + 1) / nz <= w)
    ++o;
  while (o > 0 && W * o / nz > w)
    --o;
  return o;
}

// p's address in the shared memory of block `rank` of the cluster.
__device__ __forceinline__ unsigned pm_mapa(const void *p, unsigned rank) {
  unsigned a;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n"
               : "=r"(a)
               : "r"(pm_smem_addr(p)), "r"(rank));
  return a;
}

// One release arrival (cluster scope) on the barrier at bar's offset in
// block `rank`: this thread's earlier writes to that block come first.
__device__ __forceinline__ void pm_mbar_arrive_cluster(uint64_t *bar,
                                                       unsigned rank) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, "
               "[%0];\n" ::"r"(pm_mapa(bar, rank))
               : "memory");
}

// pm_mbar_wait with acquire at cluster scope: the peers' writes before
// their arrivals are visible after it.
__device__ __forceinline__ void pm_mbar_wait_cluster(uint64_t *bar,
                                                     unsigned parity) {
  unsigned done;
  do {
    asm volatile("{\n\t.reg .pred p;\n\t"
                 "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
                 "p, [%1], %2;\n\t"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done)
                 : "r"(pm_smem_addr(bar)), "r"(parity)
                 : "memory");
  } while (!done);
}

template <int NT>
__device__ __forceinline__ void pm_dsm_ready(uint64_t *go, int z, int nz) {
  // the stages' last reads (wgmma, async proxy) before the peers' writes
  pm_fence_proxy_async();
  pm_bar_sync_n<NT>();
  if ((int)threadIdx.x < nz && (int)threadIdx.x != z)
    pm_mbar_arrive_cluster(go, threadIdx.x);
}

template <int R, int NT>
__device__ __forceinline__ void pm_dsm_put(const float *acc, float *area,
                                           int i, uint64_t *go, int z,
                                           int nz) {
  static_assert(R % 4 == 0, "pm_dsm_put: R must be a multiple of 4");
  constexpr int W = NT / 32;
  const int w = (int)(threadIdx.x >> 5), l = (int)(threadIdx.x & 31);
  const int o = pm_dsm_owner(w, W, nz);
  if (o == z)
    return;
  pm_mbar_wait_cluster(go, 0);
  const int w0 = W * o / nz, sw = W * (o + 1) / nz - w0;
  const int j = z < o ? z : z - 1;
  const unsigned step = 16u * 32u * (unsigned)sw;
  const unsigned a =
      pm_mapa(area, (unsigned)o) +
      16u * (unsigned)((i * (nz - 1) + j) * (R / 4) * sw * 32 +
                       (w - w0) * 32 + l);
#pragma unroll
  for (int r = 0; r < R; r += 4)
    asm volatile("st.shared::cluster.v4.f32 [%0], {%1, %2, %3, %4};\n" ::"r"(
                     a + (unsigned)(r / 4) * step),
                 "f"(acc[r]), "f"(acc[r + 1]), "f"(acc[r + 2]),
                 "f"(acc[r + 3])
                 : "memory");
}

template <int NT>
__device__ __forceinline__ void pm_dsm_sent(uint64_t *recv, int z, int nz) {
  const int o = pm_dsm_owner((int)(threadIdx.x >> 5), NT / 32, nz);
  if (o != z)
    pm_mbar_arrive_cluster(recv, (unsigned)o);
}

template <int R, int NT>
__device__ __forceinline__ void pm_dsm_add(float *acc, const float *area,
                                           int i, uint64_t *recv, int z,
                                           int nz) {
  constexpr int W = NT / 32;
  const int w0 = W * z / nz, sw = W * (z + 1) / nz - w0;
  const int w = (int)(threadIdx.x >> 5);
  if (!pm_rs_mine(w0, w0 + sw))
    return;
  pm_mbar_wait_cluster(recv, 0);
  const float4 *s = reinterpret_cast<const float4 *>(area) +
                    (i * (nz - 1)) * (R / 4) * sw * 32 + (w - w0) * 32 +
                    (int)(threadIdx.x & 31);
  for (int j = 0; j < nz - 1; ++j) {
    float4 v[R / 4];
#pragma unroll
    for (int r = 0; r < R; r += 4)
      v[r / 4] = s[(j * (R / 4) + r / 4) * sw * 32];
    pm_acc_add4<R>(acc, v);
  }
}

#endif // POLYMMA_TARGETS_SM90_SPLIT_CUH

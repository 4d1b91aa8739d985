// polymma target helpers: "sm90_store", the output tile's TMA stores on
// sm_90a (docs/decisions/0048-tma-stores.md) and, on the host, the encoding
// of every tensor map: the operands' (pm_tma_map_2d, read by
// pm_tma_load_2d, sm90.cuh), the output's of TMA stores (pm_tma_map_2d_ty)
// and, through pm_tma_encode, batch.cuh's 3-D maps; and the host's launch
// of a kernel with the programmatic dependency (pm_launch_pdl,
// docs/decisions/0068-pdl.md).
//
// Embedded verbatim into generated sm_90a kernels AFTER sm90.cuh, whose
// warpgroup layout (pm_wg_thread, pm_sm90_acc_coord) it uses.
#ifndef POLYMMA_TARGETS_SM90_STORE_CUH
#define POLYMMA_TARGETS_SM90_STORE_CUH

#ifndef POLYMMA_TARGETS_SM90_CUH
#error "polymma: runtime/device/sm90.cuh must be included before sm90_store.cuh"
#endif

// The staged tile of TMA stores (promote/store.c, decision 0048), 16-bit
// T: column blocks of 64 elements (128-byte rows), block s of the BM-row
// tile at byte s * BM * 128, each swizzled as TMA's 128-byte mode (16-byte
// chunk c of row m at chunk c ^ (m % 8)): a warp's pair stores (8 rows x 4
// lanes) fall into 32 distinct banks.  (row0, col0): the MM x MN macro
// tile's origin in the block tile, row0 a multiple of 8 and col0 of 64 (the
// generator's MN is a multiple of 64).  The layout of pm_sm90_acc_coord:
// pair r / 2 at row 16 w + g + 8 h, columns 8 j + 2 q (+ 1), so its chunk
// is j % 8, swizzled by g, at byte 4 q.
template <int MM, int MN, typename T>
__device__ __forceinline__ void pm_sm90_store_swz(const float *acc,
                                                  unsigned char *cst, int bm,
                                                  int row0, int col0) {
  static_assert(MM == 64 && MN % 64 == 0 && sizeof(T) == 2,
                "pm_sm90_store_swz: MM 64, MN a multiple of 64, 16-bit T");
  const int t = pm_wg_thread(), g = (t & 31) >> 2, q = t & 3;
  unsigned char *base =
      cst + (unsigned)(col0 / 64 * bm + row0 + 16 * (t >> 5) + g) * 128u +
      4u * (unsigned)q;
#pragma unroll
  for (int r = 0; r < MM * MN / 128; r += 2) {
    const int j = r >> 2, h = (r >> 1) & 1;
    *reinterpret_cast<typename pm_pair<T>::type *>(
        base + (unsigned)(j / 8 * bm + 8 * h) * 128u +
        ((unsigned)((j & 7) ^ g) << 4)) = pm_pair<T>::make(acc[r], acc[r + 1]);
  }
}

// One TMA store of a box of the tile in shared memory (src, 128-byte
// aligned; 1024 with the 128-byte swizzle) to the map's (x, y), clipped
// at its sizes, in the issuing thread's bulk group; pm_bulk_wait_read:
// that thread's stores have read shared memory (it may be rewritten);
// pm_bulk_wait: they are complete (before the block leaves).
__device__ __forceinline__ void pm_tma_store_2d(const CUtensorMap *map,
                                                const void *src, int x,
                                                int y) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group"
               " [%0, {%2, %3}], [%1];\n" ::"l"(map),
               "r"(pm_smem_addr(src)), "r"(x), "r"(y)
               : "memory");
}
__device__ __forceinline__ void pm_bulk_commit() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
}
__device__ __forceinline__ void pm_bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
__device__ __forceinline__ void pm_bulk_wait() {
  asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

// Host: the tensor maps, not under NVRTC (the JIT encodes its maps itself:
// runtime/jitlaunch.c).
#ifndef __CUDACC_RTC__
typedef CUresult (*pm_tmap_encode_fn)(CUtensorMap *, CUtensorMapDataType,
                                      cuuint32_t, void *, const cuuint64_t *,
                                      const cuuint64_t *, const cuuint32_t *,
                                      const cuuint32_t *, CUtensorMapInterleave,
                                      CUtensorMapSwizzle,
                                      CUtensorMapL2promotion,
                                      CUtensorMapFloatOOBfill);

// The tensor map of rank (2 or 3) dimensions at base, elements of TMA data
// type dt: dims the extents, innermost first, strides the bytes between
// consecutive indices of each dimension past the first, box the box's
// extents, a swizzle of swb bytes (128, 64 or 32; else none). The driver's
// encoder is found once, through the runtime (no -lcuda):
// cudaErrorNotSupported without it; cudaErrorInvalidValue when the driver
// refuses the map (base not 16-byte aligned, pitch not a multiple of 16
// bytes, ...).
static inline __attribute__((unused)) cudaError_t
pm_tma_encode(CUtensorMap *m, const void *base, CUtensorMapDataType dt,
              unsigned rank, const cuuint64_t *dims, const cuuint64_t *strides,
              const cuuint32_t *box, int swb) {
  static pm_tmap_encode_fn fn;
  if (!fn) {
    void *p = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                         cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess || !p)
      return cudaErrorNotSupported;
    fn = (pm_tmap_encode_fn)p;
  }
  const cuuint32_t estr[3] = {1, 1, 1};
  const CUtensorMapSwizzle sw =
      swb == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
      : swb == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
      : swb == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                  : CU_TENSOR_MAP_SWIZZLE_NONE;
  return fn(m, dt, rank, (void *)base, dims, strides,
            box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, sw,
            CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS
             ? cudaSuccess
             : cudaErrorInvalidValue;
}

// The tensor map of a row-major matrix of rows x cols elements of type dt
// (esize bytes; row pitch `pitch` elements) read or written in boxes of
// box_rows x box_cols with a swizzle of swb bytes (0: none): the output's
// map of TMA stores.
static inline __attribute__((unused)) cudaError_t
pm_tma_map_2d_ty(CUtensorMap *m, const void *base, CUtensorMapDataType dt,
                 unsigned esize, uint64_t rows, uint64_t cols, uint64_t pitch,
                 unsigned box_rows, unsigned box_cols, int swb) {
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {pitch * esize};
  const cuuint32_t box[2] = {box_cols, box_rows};
  return pm_tma_encode(m, base, dt, 2, dims, strides, box, swb);
}

// ... of an operand matrix (PM_AB_T elements, TMA data type PM_AB_TMA).
static inline __attribute__((unused)) cudaError_t pm_tma_map_2d(CUtensorMap *m, const void *base,
                                        uint64_t rows, uint64_t cols,
                                        uint64_t pitch, unsigned box_rows,
                                        unsigned box_cols, int swb) {
  return pm_tma_map_2d_ty(m, base, PM_AB_TMA, sizeof(PM_AB_T), rows, cols,
                          pitch, box_rows, box_cols, swb);
}

// Kernel k (whose first statement is pm_pdl_wait) on grid x threads with
// smem bytes of dynamic shared memory on stream s, launched with the
// programmatic stream serialization attribute: it may start while the
// stream's previous grid finishes (docs/decisions/0068-pdl.md).
template <typename... P, typename... A>
static inline cudaError_t pm_launch_pdl(void (*k)(P...), dim3 grid,
                                        unsigned threads, size_t smem,
                                        cudaStream_t s, A... a) {
  cudaLaunchConfig_t lc = {};
  cudaLaunchAttribute at[1];
  at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  at[0].val.programmaticStreamSerializationAllowed = 1;
  lc.gridDim = grid;
  lc.blockDim = dim3(threads, 1, 1);
  lc.dynamicSmemBytes = smem;
  lc.stream = s;
  lc.attrs = at;
  lc.numAttrs = 1;
  return cudaLaunchKernelEx(&lc, k, ((P) a)...);
}
#endif // __CUDACC_RTC__

#endif // POLYMMA_TARGETS_SM90_STORE_CUH

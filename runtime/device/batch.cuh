// ---------------------------------------------------------------------------
// Batched specs on sm_90a (emit/batch.h, docs/decisions/0036-batched-grid-z.md):
// the tensor map of a batched operand has a third, outermost dimension, the
// batch (slices `bstride` elements apart, a box of one), and a block copies
// its batch's boxes at coordinate z = blockIdx.z. Embedded only in files of
// batched specs (after sm90_store.cuh, whose encoder, pm_tma_encode, it uses).
// ---------------------------------------------------------------------------
__device__ __forceinline__ void pm_tma_load_3d(void *dst, const CUtensorMap *map,
                                               uint64_t *bar, int x, int y,
                                               int z) {
  asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile"
               ".mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, %5}], [%2];\n" ::"r"(
                   pm_smem_addr(dst)),
               "l"((uint64_t)map), "r"(pm_smem_addr(bar)), "r"(x), "r"(y),
               "r"(z)
               : "memory");
}

// A TMA store of the batched output's box (decision 0048): batch z.
__device__ __forceinline__ void pm_tma_store_3d(const CUtensorMap *map,
                                                const void *src, int x, int y,
                                                int z) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group"
               " [%0, {%2, %3, %4}], [%1];\n" ::"l"(map),
               "r"(pm_smem_addr(src)), "r"(x), "r"(y), "r"(z)
               : "memory");
}

// Host: pm_tma_map_2d's map of nb row-major matrices rows x cols (pitch
// elements a row), bstride elements apart; _ty: of any element type (dt,
// esize bytes), the output's map of TMA stores (decision 0048). Not under
// NVRTC, as sm90_store.cuh's maps.
#ifndef __CUDACC_RTC__
static inline __attribute__((unused)) cudaError_t
pm_tma_map_3d_ty(CUtensorMap *m, const void *base, CUtensorMapDataType dt,
                 unsigned esize, uint64_t rows, uint64_t cols, uint64_t pitch,
                 uint64_t nb, uint64_t bstride, unsigned box_rows,
                 unsigned box_cols, int swb) {
  const cuuint64_t dims[3] = {cols, rows, nb};
  const cuuint64_t strides[2] = {pitch * esize, bstride * esize};
  const cuuint32_t box[3] = {box_cols, box_rows, 1};
  return pm_tma_encode(m, base, dt, 3, dims, strides, box, swb);
}

static inline __attribute__((unused)) cudaError_t pm_tma_map_3d(CUtensorMap *m, const void *base,
                                        uint64_t rows, uint64_t cols,
                                        uint64_t pitch, uint64_t nb,
                                        uint64_t bstride, unsigned box_rows,
                                        unsigned box_cols, int swb) {
  return pm_tma_map_3d_ty(m, base, PM_AB_TMA, sizeof(PM_AB_T), rows, cols,
                          pitch, nb, bstride, box_rows, box_cols, swb);
}
#endif // __CUDACC_RTC__

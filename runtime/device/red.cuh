// ---------------------------------------------------------------------------
// Epilogue reductions (docs/decisions/0037-epilogue-reductions.md), in the
// files of specs that have one (emit/epired.c prints their use):
//   pm_red_ident<OP>()        the operator's identity: OP 0 sum: 0, 1 max:
//       -inf, 2 min: +inf
//   pm_red_op<OP>(a, b)       a + b, fmaxf(a, b), fminf(a, b)
//   pm_red_lanes<MASK, OP>(v) v combined over the lanes that differ in
//       the bits of MASK (a xor butterfly: every lane gets the same value,
//       the same order in every run)
//   pm_smXX_red<MM, MN>       a thread's accumulator registers of one
//       MM x MN macro tile by the row (KD 0), column (1) or tile (2) they
//       lie in: nslot(KD) slots, slot(r, KD) register r's, rep(s, KD) a
//       register of slot s (its row / column through <fn>_acc_coord),
//       lanes(KD) the lanes sharing a slot's row / column / tile
//   pm_red_arrive<NT>(cnt, n, flag)  the block's partials are written (NT:
//       0 the block's threads, else the first NT's: a warp-specialized
//       kernel's consumers): counts
//       the arrivals of its panel; true (in every thread) in the block that
//       arrives last (n arrivals), which resets the counter to 0 for the
//       next launch.  flag: an int of shared memory no thread reads
//       otherwise.  Release / acquire as pm_splitk_arrive (common.cuh).
//   pm_red_take(p)            a block's partial read by the last block, its
//       slot left 0: every launch leaves the whole workspace zero, so a
//       later launch at other sizes (its counters where these partials
//       were) finds its counters at 0.
// ---------------------------------------------------------------------------
template <int OP> __device__ __forceinline__ float pm_red_ident() {
  return OP == 0 ? 0.0f : __int_as_float(OP == 1 ? 0xff800000 : 0x7f800000);
}

template <int OP> __device__ __forceinline__ float pm_red_op(float a, float b) {
  return OP == 0 ? a + b : OP == 1 ? fmaxf(a, b) : fminf(a, b);
}

template <int MASK, int OP> __device__ __forceinline__ float pm_red_lanes(float v) {
#pragma unroll
  for (int b = 1; b < 32; b <<= 1)
    if (MASK & b)
      v = pm_red_op<OP>(v, __shfl_xor_sync(0xffffffffu, v, b));
  return v;
}

// mma.sync m8n8k4 quad pairs (sm70.cuh, pm_sm70_acc_coord): register r =
// 8 s + i, s = sm * SN + sn; row qm TM + 8 sm + (lane & 1) + (i & 2) +
// ((lane >> 2) & 4), column qn TN + 8 sn + (i & 1) + (lane & 2) + (i & 4).
template <int MM, int MN> struct pm_sm70_red {
  static constexpr int SN = MN / 16;
  __host__ __device__ static constexpr int nslot(int kd) {
    return kd == 0 ? MM / 8 : kd == 1 ? MN / 4 : 1;
  }
  __host__ __device__ static constexpr int slot(int r, int kd) {
    return kd == 0 ? (r >> 3) / SN * 2 + ((r >> 1) & 1)
           : kd == 1 ? (r >> 3) % SN * 4 + (r & 1) + ((r >> 1) & 2) : 0;
  }
  __host__ __device__ static constexpr int rep(int s, int kd) {
    return kd == 0 ? (s >> 1) * SN * 8 + (s & 1) * 2
           : kd == 1 ? (s >> 2) * 8 + (s & 1) + ((s >> 1) & 1) * 4 : 0;
  }
  __host__ __device__ static constexpr int lanes(int kd) {
    return kd == 0 ? 0x6 : kd == 1 ? 0x19 : 0x1f;
  }
};

// mma.sync m16n8 (sm80.cuh, pm_sm80_acc_coord): register r = 4 s + i,
// s = im * (MN / 8) + in; row 16 im + (lane >> 2) + 8 (i >> 1), column
// 8 in + 2 (lane & 3) + (i & 1).
template <int MM, int MN> struct pm_sm80_red {
  static constexpr int IN = MN / 8;
  __host__ __device__ static constexpr int nslot(int kd) {
    return kd == 0 ? MM / 8 : kd == 1 ? MN / 4 : 1;
  }
  __host__ __device__ static constexpr int slot(int r, int kd) {
    return kd == 0 ? (r >> 2) / IN * 2 + ((r >> 1) & 1)
           : kd == 1 ? (r >> 2) % IN * 2 + (r & 1) : 0;
  }
  __host__ __device__ static constexpr int rep(int s, int kd) {
    return kd == 0 ? (s >> 1) * IN * 4 + (s & 1) * 2
           : kd == 1 ? (s >> 1) * 4 + (s & 1) : 0;
  }
  __host__ __device__ static constexpr int lanes(int kd) {
    return kd == 0 ? 0x3 : kd == 1 ? 0x1c : 0x1f;
  }
};

// wgmma m64nN (sm90.cuh, pm_sm90_acc_coord): row 16 w + (lane >> 2) +
// 8 ((r >> 1) & 1), column 8 (r >> 2) + 2 (lane & 3) + (r & 1); a warp's
// partials cover its 16 rows.
template <int MM, int MN> struct pm_sm90_red {
  __host__ __device__ static constexpr int nslot(int kd) {
    return kd == 0 ? 2 : kd == 1 ? MN / 4 : 1;
  }
  __host__ __device__ static constexpr int slot(int r, int kd) {
    return kd == 0 ? (r >> 1) & 1 : kd == 1 ? (r >> 2) * 2 + (r & 1) : 0;
  }
  __host__ __device__ static constexpr int rep(int s, int kd) {
    return kd == 0 ? s * 2 : kd == 1 ? (s >> 1) * 4 + (s & 1) : 0;
  }
  __host__ __device__ static constexpr int lanes(int kd) {
    return kd == 0 ? 0x3 : kd == 1 ? 0x1c : 0x1f;
  }
};

__device__ __forceinline__ float pm_red_take(float *p) {
  const float v = __ldcg(p);
  __stcg(p, 0.0f);
  return v;
}

// NT: 0, the block's threads; else the first NT (a warp-specialized
// kernel's consumers, named barrier 1: pm_bar_sync_n, sm90.cuh).
template <int NT> __device__ __forceinline__ void pm_red_sync() {
  if (NT)
    asm volatile("bar.sync 1, %0;\n" ::"n"(NT) : "memory");
  else
    __syncthreads();
}

template <int NT>
__device__ __forceinline__ bool pm_red_arrive(unsigned *cnt, unsigned n,
                                              volatile int *flag) {
  __threadfence();
  pm_red_sync<NT>();
  if (threadIdx.x == 0) {
    const int last = atomicAdd(cnt, 1u) == n - 1u;
    if (last)
      *cnt = 0;
    *flag = last;
  }
  pm_red_sync<NT>();
  const bool last = *flag != 0;
  if (last)
    __threadfence();
  return last;
}

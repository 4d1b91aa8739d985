// polymma K-major copies (docs/decisions/0033-kmajor-copies.md): where the
// tensor cores read an operand type only K-major (wgmma's 8-bit operands)
// and the spec declares it MN-major (X (K, M) read X(k, i)), the launcher
// writes its K-major copy into the workspace and the kernels read that.
//
//   X  R x C bytes, row-major (the operand as declared: k its rows)
//   Y  C x P bytes, row-major, P = pm_kc_pitch(R) (R rounded up to 16:
//      16-byte rows for TMA and cp.async), Y[c][r] = X[r][c], and 0 in the
//      padding columns R <= r < P
//
// One block of PM_KC_THREADS threads per tile of PM_KC_ROWS rows and
// PM_KC_COLS columns of X, in two phases: pm_kc_load reads the tile in
// 16-byte units (a warp: two whole rows of 256 bytes) into shared memory,
// swizzled; pm_kc_store gathers 4 columns x 16 rows per thread, transposes
// them in registers (__byte_perm) and writes 4 rows of Y, 16 bytes each (a
// warp: 8 rows of Y, 64 contiguous bytes each). Neither phase has bank
// conflicts. Where X's rows are not 16-byte aligned (C % 16, or X
// itself) the loads go byte by byte.
//
// Plain C as well as CUDA: tests/test_kmajor.c runs both phases of every
// tile on the host (the shims below, outside nvcc).
#ifndef POLYMMA_KCOPY_CUH
#define POLYMMA_KCOPY_CUH

#ifndef __CUDACC__
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#define __device__
#define __host__
#define __forceinline__ inline
typedef struct {
	uint32_t x, y, z, w;
} uint4;
static inline uint32_t __byte_perm(uint32_t x, uint32_t y, uint32_t s)
{
	const uint64_t v = (uint64_t) y << 32 | x;
	uint32_t r = 0;

	for (int i = 0; i < 4; ++i)
		r |= (uint32_t) (v >> (8 * ((s >> (4 * i)) & 7)) & 0xff) << (8 * i);
	return r;
}
#endif

#define PM_KC_ROWS 64
#define PM_KC_COLS 256
#define PM_KC_THREADS 256

// The row pitch of the copy of an operand of r rows (k): r rounded up to 16.
static __host__ __device__ __forceinline__ int64_t pm_kc_pitch(int64_t r)
{
	return (r + 15) / 16 * 16;
}

// The workspace bytes of the copy of an R x C operand, 256-aligned.
static __host__ __device__ __forceinline__ size_t pm_kc_bytes(int64_t r,
	int64_t c)
{
	return ((size_t) c * (size_t) pm_kc_pitch(r) + 255) / 256 * 256;
}

static __device__ __forceinline__ uint4 pm_kc_ld16(const uint8_t *p)
{
#ifdef __CUDACC__
	return __ldg((const uint4 *) p);
#else
	uint4 v;

	memcpy(&v, p, 16);
	return v;
#endif
}

// Phase 1, thread t (0 .. PM_KC_THREADS) of the tile at (r0, c0): its 4
// 16-byte units of X into s (PM_KC_ROWS x PM_KC_COLS / 4 words): unit p
// (0..15) of row r at unit p ^ 2 (r / 16 % 4) of the row, zeros past R and
// C. vec: X's rows are 16-byte aligned.
static __device__ __forceinline__ void pm_kc_load(const uint8_t *x,
	int64_t R, int64_t C, int64_t r0, int64_t c0, int vec, uint32_t *s,
	int t)
{
	for (int i = 0; i < PM_KC_ROWS * PM_KC_COLS / 16 / PM_KC_THREADS; ++i) {
		const int u = t + i * PM_KC_THREADS, r = u / 16, p = u % 16;
		const int64_t gr = r0 + r, gc = c0 + 16 * p;
		uint4 v;

		if (gr < R && vec && gc + 16 <= C) {
			v = pm_kc_ld16(x + gr * C + gc);
		} else {
			uint32_t w[4] = { 0, 0, 0, 0 };

			// a constant trip count: w stays in registers
			for (int b = 0; b < 16; ++b)
				if (gr < R && gc + b < C)
					w[b / 4] |= (uint32_t) x[gr * C + gc + b] <<
						(8 * (b % 4));
			v.x = w[0], v.y = w[1], v.z = w[2], v.w = w[3];
		}
		*(uint4 *) (s + r * (PM_KC_COLS / 4) +
			4 * (p ^ (2 * (r / 16 % 4)))) = v;
	}
}

// Four words a[0..3] (rows of 4 bytes) into o[0..3], their columns.
static __device__ __forceinline__ void pm_kc_t4(const uint32_t *a,
	uint32_t *o)
{
	const uint32_t t0 = __byte_perm(a[0], a[1], 0x5140);
	const uint32_t t1 = __byte_perm(a[0], a[1], 0x7362);
	const uint32_t t2 = __byte_perm(a[2], a[3], 0x5140);
	const uint32_t t3 = __byte_perm(a[2], a[3], 0x7362);

	o[0] = __byte_perm(t0, t2, 0x5410);
	o[1] = __byte_perm(t0, t2, 0x7632);
	o[2] = __byte_perm(t1, t3, 0x5410);
	o[3] = __byte_perm(t1, t3, 0x7632);
}

// Phase 2, thread t of the tile at (r0, c0): X columns c0 + 4 cg .. + 3
// (cg = t / 4), rows r0 + 16 rq .. + 15 (rq = t % 4) from s into Y rows
// c0 + 4 cg + j, 16 bytes at column r0 + 16 rq; rows of Y past C and
// columns past P not written. P: Y's pitch.
static __device__ __forceinline__ void pm_kc_store(const uint32_t *s,
	uint8_t *y, int64_t C, int64_t P, int64_t r0, int64_t c0, int t)
{
	const int cg = t / 4, rq = t % 4;
	const int64_t gr = r0 + 16 * rq;
	uint32_t a[16], o[4][4];

	if (gr >= P)
		return;
	for (int i = 0; i < 16; ++i)
		a[i] = s[(16 * rq + i) * (PM_KC_COLS / 4) + (cg ^ (8 * rq))];
	for (int m = 0; m < 4; ++m) {
		uint32_t c[4];

		pm_kc_t4(a + 4 * m, c);
		for (int j = 0; j < 4; ++j)
			o[j][m] = c[j];
	}
	for (int j = 0; j < 4; ++j) {
		const int64_t gc = c0 + 4 * cg + j;
		uint4 v;

		if (gc >= C)
			break;
		v.x = o[j][0], v.y = o[j][1], v.z = o[j][2], v.w = o[j][3];
		*(uint4 *) (y + gc * P + gr) = v;
	}
}

#ifdef __CUDACC__
// One tile per block, tc tiles across X's columns. In an NVRTC program
// (the JIT) extern "C": the JIT launcher asks the module for it by name
// (runtime/jitlaunch.c); static in a file nvcc builds, which may be linked
// beside other generated files.
#ifdef __CUDACC_RTC__
extern "C" __global__ void __launch_bounds__(PM_KC_THREADS)
#else
static __global__ void __launch_bounds__(PM_KC_THREADS)
#endif
pm_kc_kernel(const uint8_t *__restrict__ x, uint8_t *__restrict__ y,
	int64_t R, int64_t C, int64_t tc)
{
	__shared__ __align__(16) uint32_t s[PM_KC_ROWS * PM_KC_COLS / 4];
	const int64_t b = blockIdx.x;
	const int64_t r0 = b / tc * PM_KC_ROWS, c0 = b % tc * PM_KC_COLS;
	const int vec = C % 16 == 0 && (uintptr_t) x % 16 == 0;

	pm_kc_load(x, R, C, r0, c0, vec, s, threadIdx.x);
	__syncthreads();
	pm_kc_store(s, y, C, pm_kc_pitch(R), r0, c0, threadIdx.x);
}

#ifndef __CUDACC_RTC__
// The copy of X (R x C) into y (16-byte aligned, pm_kc_bytes(R, C)),
// stream-ordered.
static inline __attribute__((unused)) cudaError_t pm_kcopy(const void *x,
	void *y, int64_t R, int64_t C, cudaStream_t stream)
{
	const int64_t tc = (C + PM_KC_COLS - 1) / PM_KC_COLS;
	const int64_t n = (R + PM_KC_ROWS - 1) / PM_KC_ROWS * tc;

	if (n < 1 || n > 2147483647)
		return cudaErrorInvalidValue;
	pm_kc_kernel<<<(unsigned) n, PM_KC_THREADS, 0, stream>>>(
		(const uint8_t *) x, (uint8_t *) y, R, C, tc);
	return cudaGetLastError();
}
#endif
#endif
#endif

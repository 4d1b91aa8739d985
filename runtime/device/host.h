/* polymma host helpers: the sequential C rendering of a kernel's schedule
 * (tests). A warp's register fragment is a plain MM x MN row-major tile;
 * every "thread" and "warp" is a loop. */
#ifndef PM_HOST_H
#define PM_HOST_H
#include <stdint.h>

static inline long floord(long n, long d)
{
	return n >= 0 ? n / d : -((-n + d - 1) / d);
}
static inline long pm_min(long a, long b) { return a < b ? a : b; }
static inline long pm_max(long a, long b) { return a > b ? a : b; }
#define min(a, b) pm_min(a, b)
#define max(a, b) pm_max(a, b)

/* An epilogue reduction's partial read, its slot left 0
 * (runtime/device/red.cuh's pm_red_take). */
static inline float pm_red_take(float *p)
{
	const float v = *p;

	*p = 0;
	return v;
}

static inline void pm_host_fill(float *acc, int n)
{
	for (int i = 0; i < n; ++i)
		acc[i] = 0;
}

static inline void pm_host_copy(int n, float *dst, const float *src)
{
	for (int i = 0; i < n; ++i)
		dst[i] = src[i];
}

/* pm_host_copy where in holds, else n zeros (a unit past k) */
static inline void pm_host_copy_z(int n, float *dst, const float *src, int in)
{
	for (int i = 0; i < n; ++i)
		dst[i] = in ? src[i] : 0.0f;
}

/* The _unaligned row's units (docs/decisions/0046-narrow-copies.md):
 * row[c + i] for c + i < lim, zeros for the others (never read) */
static inline void pm_host_copy_n(int n, float *dst, const float *row,
	int64_t c, int64_t lim)
{
	for (int i = 0; i < n; ++i)
		dst[i] = c + i < lim ? row[c + i] : 0.0f;
}

/* ... and a unit of the C tile to row[c + i], c + i < lim */
static inline void pm_host_s2g_n(int n, float *row, int64_t c, int64_t lim,
	const float *src)
{
	for (int i = 0; i < n; ++i)
		if (c + i < lim)
			row[c + i] = src[i];
}

/* ... and the elements from..n of a unit back to zeros (after a
 * prologue, past k) */
static inline void pm_host_zero_tail(int n, float *dst, int64_t from)
{
	for (int i = 0; i < n; ++i)
		if (i >= from)
			dst[i] = 0.0f;
}

static inline void pm_host_mma(int mm, int mn, int mk, float *acc,
	const float *a, long a_sm, long a_sk, const float *b, long b_sk,
	long b_sn)
{
	for (int i = 0; i < mm; ++i)
		for (int j = 0; j < mn; ++j)
			for (int k = 0; k < mk; ++k)
				acc[i * mn + j] += a[i * a_sm + k * a_sk] *
					b[k * b_sk + j * b_sn];
}

/* rows, cols: the elements stored (a ragged last tile: fewer than mm, mn) */
static inline void pm_host_store(int mm, int mn, const float *acc, float *c,
	int64_t c_sm, int64_t c_sn, int64_t rows, int64_t cols)
{
	for (int i = 0; i < mm && i < rows; ++i)
		for (int j = 0; j < mn && j < cols; ++j)
			c[i * c_sm + j * c_sn] = acc[i * mn + j];
}
/* Offset in elements of element (row r, column c) of a shared tile with a row
 * pitch of p elements (p a multiple of 8). Same formula as pm_smem_off<P, SWZ>
 * in common.cuh (see the comment there):
 *   swz = 0: r*p + c
 *   swz = 1: ch = p/8 chunks of 8 elements per row (1, 2, 4 or a multiple of
 *            8), x = r % 8 if ch >= 8 else (r / (8/ch)) % ch,
 *            r*p + ((c/8) ^ x)*8 + c%8 */
static inline int pm_smem_off_h(int p, int swz, int r, int c)
{
	int ch = p / 8, x;

	if (!swz)
		return r * p + c;
	x = ch >= 8 ? (r & 7) :
		(int)(((unsigned)r / (unsigned)(8 / ch)) & (unsigned)(ch - 1));
	return r * p + (((c >> 3) ^ x) << 3) + (c & 7);
}

/* A TMA box: the rows x cols tile at src (row pitch `pitch`) into a shared
 * tile of pitch p and swizzle swz. */
/* Elements at rows >= rlim or columns >= clim (past a ragged size) read
 * zeros, as TMA's out-of-bounds boxes. */
static inline void pm_host_tma(float *dst, const float *src, long rows,
	long cols, long pitch, int p, int swz, long rlim, long clim)
{
	for (long r = 0; r < rows; ++r)
		for (long c = 0; c < cols; ++c)
			dst[pm_smem_off_h(p, swz, (int) r, (int) c)] =
				r < rlim && c < clim ? src[r * pitch + c] : 0.0f;
}

/* acc (plain mm x mn row-major tile) += f(A(mm x mk)) * B(mk x mn), operands
 * in shared tiles addressed through pm_smem_off_h, as pm_sm80_mma_tile, A's
 * elements through f (a prologue applied on the way to the MMA, as
 * pm_sm90_mma_tile_ra; pm_host_mma_tile: the identity):
 *   A(i,k) = As[off(pa, swza, a_r0 + i, a_c0 + k)]  a_kc = 1 ([m][k])
 *          = As[off(pa, swza, a_r0 + k, a_c0 + i)]  a_kc = 0 ([k][m])
 *   B(k,j) = Bs[off(pb, swzb, b_r0 + k, b_c0 + j)]  b_nc = 1 ([k][n])
 *          = Bs[off(pb, swzb, b_r0 + j, b_c0 + k)]  b_nc = 0 ([n][k]) */
static inline void pm_host_mma_tile_ra(int mm, int mn, int mk, float *acc,
	int a_kc, int pa, int swza, const float *As, int a_r0, int a_c0,
	int b_nc, int pb, int swzb, const float *Bs, int b_r0, int b_c0,
	float (*f)(float))
{
	for (int i = 0; i < mm; ++i)
		for (int j = 0; j < mn; ++j)
			for (int k = 0; k < mk; ++k) {
				int ao = a_kc ?
					pm_smem_off_h(pa, swza, a_r0 + i, a_c0 + k) :
					pm_smem_off_h(pa, swza, a_r0 + k, a_c0 + i);
				int bo = b_nc ?
					pm_smem_off_h(pb, swzb, b_r0 + k, b_c0 + j) :
					pm_smem_off_h(pb, swzb, b_r0 + j, b_c0 + k);
				acc[i * mn + j] += f(As[ao]) * Bs[bo];
			}
}

static inline float pm_host_id(float x) { return x; }

static inline void pm_host_mma_tile(int mm, int mn, int mk, float *acc,
	int a_kc, int pa, int swza, const float *As, int a_r0, int a_c0,
	int b_nc, int pb, int swzb, const float *Bs, int b_r0, int b_c0)
{
	pm_host_mma_tile_ra(mm, mn, mk, acc, a_kc, pa, swza, As, a_r0, a_c0,
		b_nc, pb, swzb, Bs, b_r0, b_c0, pm_host_id);
}

/* The fragment pipeline (as pm_sm80_ldf / pm_sm80_mma_frag): one k-step
 * of a warp's operands, fa = A(wm x mk) and fb = B(mk x wn), row-major, the
 * tile origins and layouts as in pm_host_mma_tile. */
static inline void pm_host_ldf(int wm, int wn, int mk, float *fa, float *fb,
	int a_kc, int pa, int swza, const float *As, int a_r0, int a_c0,
	int b_nc, int pb, int swzb, const float *Bs, int b_r0, int b_c0)
{
	for (int i = 0; i < wm; ++i)
		for (int k = 0; k < mk; ++k)
			fa[i * mk + k] = As[a_kc ?
				pm_smem_off_h(pa, swza, a_r0 + i, a_c0 + k) :
				pm_smem_off_h(pa, swza, a_r0 + k, a_c0 + i)];
	for (int k = 0; k < mk; ++k)
		for (int j = 0; j < wn; ++j)
			fb[k * wn + j] = Bs[b_nc ?
				pm_smem_off_h(pb, swzb, b_r0 + k, b_c0 + j) :
				pm_smem_off_h(pb, swzb, b_r0 + j, b_c0 + k)];
}

/* acc (mm x mn) += fa rows [r0, r0 + mm) * fb columns [c0, c0 + mn). */
static inline void pm_host_mma_frag(int mm, int mn, int mk, float *acc,
	const float *fa, const float *fb, int wn, int r0, int c0)
{
	for (int i = 0; i < mm; ++i)
		for (int j = 0; j < mn; ++j)
			for (int k = 0; k < mk; ++k)
				acc[i * mn + j] += fa[(r0 + i) * mk + k] *
					fb[k * wn + c0 + j];
}

/* Split-K (as pm_splitk_put / _arrive / _sum in common.cuh; blocks run one
 * after the other, so the last of a tile is its z = nz - 1). */
static inline void pm_host_splitk_put(const float *acc, long n, float *slot)
{
	for (long i = 0; i < n; ++i)
		slot[i] = acc[i];
}

static inline int pm_host_splitk_arrive(unsigned *cnt, long nz)
{
	int last = ++*cnt == (unsigned) nz;

	if (last)
		*cnt = 0;
	return last;
}

static inline void pm_host_splitk_sum(float *acc, long n, const float *slots,
	long pb, long nz)
{
	for (long i = 0; i < n; ++i) {
		float t = 0;

		for (long q = 0; q < nz; ++q)
			t += slots[q * pb + i];
		acc[i] = t;
	}
}

/* The K-major copy of an operand x, R x C as declared (k its rows), into
 * y, C x P with P = R rounded up to 16 and zeros past R, as kcopy.cuh's
 * kernel writes it (docs/decisions/0033-kmajor-copies.md): the host
 * rendering's launcher (tests) runs it before the kernel. */
static inline void pm_host_kcopy(const float *x, float *y, long r, long c)
{
	const long p = (r + 15) / 16 * 16;

	for (long j = 0; j < c; ++j)
		for (long i = 0; i < p; ++i)
			y[j * p + i] = i < r ? x[i * c + j] : 0;
}

/* Pointwise functions of the spec language (host rendering). */
#include <math.h>
#define pm_f(x) ((float) (x))
static inline float pm_relu(float x) { return x > 0 ? x : 0; }
static inline float pm_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
static inline float pm_tanh(float x) { return tanhf(x); }
static inline float pm_gelu(float x) { return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x))); }
static inline float pm_gelu_erf(float x) { return 0.5f * x * (1.0f + erff(x * 0.7071067812f)); }
static inline float pm_silu(float x) { return x / (1.0f + expf(-x)); }
static inline float pm_exp(float x) { return expf(x); }
static inline float pm_abs(float x) { return fabsf(x); }
static inline float pm_max_f(float a, float b) { return a > b ? a : b; }
static inline float pm_min_f(float a, float b) { return a < b ? a : b; }
#endif

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

static inline void pm_host_store(int mm, int mn, const float *acc, float *c,
	int64_t c_sm, int64_t c_sn)
{
	for (int i = 0; i < mm; ++i)
		for (int j = 0; j < mn; ++j)
			c[i * c_sm + j * c_sn] = acc[i * mn + j];
}
#endif

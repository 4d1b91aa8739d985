/* The benchmark harness's numbers (see stats.h): the element types'
 * conversions, the median and the comparison gate. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- numbers ------------------------------------------------------------ */

float bench_half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t) (h & 0x8000) << 16;
	uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
	float f;

	if (exp == 0x1f) {			/* Inf, NaN */
		bits = sign | 0x7f800000u | (man << 13);
	} else if (exp) {			/* normal */
		bits = sign | ((exp + 112) << 23) | (man << 13);
	} else if (man) {			/* subnormal: man * 2^-24 */
		f = (float) man * 5.9604644775390625e-8f;
		return sign ? -f : f;
	} else {
		bits = sign;
	}
	memcpy(&f, &bits, sizeof f);
	return f;
}

uint16_t bench_float_to_half(float f)
{
	uint32_t x, sign, e, man;
	int exp;

	memcpy(&x, &f, sizeof x);
	sign = (x >> 16) & 0x8000;
	e = (x >> 23) & 0xff;
	man = x & 0x7fffff;
	if (e == 0xff)				/* Inf, NaN (keep a quiet NaN) */
		return (uint16_t) (sign | 0x7c00 | (man ? 0x200 : 0));
	exp = (int) e - 127 + 15;
	if (exp >= 0x1f)			/* overflow */
		return (uint16_t) (sign | 0x7c00);
	if (exp <= 0) {				/* subnormal or zero */
		uint32_t m, shift, half, rest, q;

		if (exp < -10)
			return (uint16_t) sign;
		m = man | 0x800000;
		shift = (uint32_t) (14 - exp);
		q = m >> shift;
		rest = m & ((1u << shift) - 1);
		half = 1u << (shift - 1);
		if (rest > half || (rest == half && (q & 1)))
			++q;
		return (uint16_t) (sign | q);
	}
	{
		uint32_t q = ((uint32_t) exp << 10) | (man >> 13);
		uint32_t rest = man & 0x1fff;

		if (rest > 0x1000 || (rest == 0x1000 && (q & 1)))
			++q;			/* may carry into Inf: correct */
		return (uint16_t) (sign | q);
	}
}

float bench_bf16_to_float(uint16_t h)
{
	uint32_t bits = (uint32_t) h << 16;
	float f;

	memcpy(&f, &bits, sizeof f);
	return f;
}

uint16_t bench_float_to_bf16(float f)
{
	uint32_t x;

	memcpy(&x, &f, sizeof x);
	if ((x & 0x7fffffffu) > 0x7f800000u)	/* NaN: keep it a (quiet) NaN */
		return (uint16_t) ((x >> 16) | 0x40);
	x += 0x7fffu + ((x >> 16) & 1);		/* round to nearest even */
	return (uint16_t) (x >> 16);
}

float bench_e4m3_to_float(uint8_t x)
{
	int exp = (x >> 3) & 0xf, man = x & 7;
	float f;

	if (exp == 0xf && man == 7)
		return NAN;
	f = exp ? ldexpf((float) (8 + man), exp - 10) :	/* 1.man * 2^(exp-7) */
		ldexpf((float) man, -9);			/* man/8 * 2^-6 */
	return x & 0x80 ? -f : f;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *) a, y = *(const double *) b;

	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	if (n <= 0)
		return NAN;
	qsort(v, (size_t) n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- the comparison gate ------------------------------------------------ */

/* Running error sums of a comparison. */
struct cmp_acc {
	double d2, r2, dmax, rmax;
	int64_t nonfinite;
};

static void cmp_add(struct cmp_acc *a, double o, double r)
{
	double d = fabs(o - r);

	a->d2 += d * d;
	a->r2 += r * r;
	if (d > a->dmax)
		a->dmax = d;
	if (fabs(r) > a->rmax)
		a->rmax = fabs(r);
}

static struct bench_cmp verdict(const struct cmp_acc *a, int64_t n,
	double tol_rel, double tol_max)
{
	struct bench_cmp c;

	c.nonfinite = a->nonfinite;
	if (a->r2 > 0) {
		c.rel_l2 = sqrt(a->d2) / sqrt(a->r2);
		c.max_err = a->dmax / a->rmax;
	} else {			/* all-zero reference: exact match only */
		c.rel_l2 = a->d2 > 0 ? INFINITY : 0;
		c.max_err = a->dmax > 0 ? INFINITY : 0;
	}
	c.ok = n > 0 && a->nonfinite == 0 && c.rel_l2 <= tol_rel &&
		c.max_err <= tol_max;
	return c;
}

struct bench_cmp bench_compare(const float *out, const float *ref, int64_t n,
	double tol_rel, double tol_max)
{
	struct cmp_acc a = { 0, 0, 0, 0, 0 };

	for (int64_t i = 0; i < n; ++i) {
		if (!isfinite(out[i]) || !isfinite(ref[i]))
			a.nonfinite++;
		else
			cmp_add(&a, out[i], ref[i]);
	}
	return verdict(&a, n, tol_rel, tol_max);
}

struct bench_cmp bench_compare_f16(const uint16_t *out, const uint16_t *ref,
	int64_t n, double tol_rel, double tol_max)
{
	static float lut[65536];
	static int lut_ready;
	struct cmp_acc a = { 0, 0, 0, 0, 0 };

	if (!lut_ready) {
		for (int64_t i = 0; i < 65536; ++i)
			lut[i] = bench_half_to_float((uint16_t) i);
		lut_ready = 1;
	}
	for (int64_t i = 0; i < n; ++i) {
		if ((out[i] & 0x7c00) == 0x7c00 || (ref[i] & 0x7c00) == 0x7c00)
			a.nonfinite++;
		else
			cmp_add(&a, lut[out[i]], lut[ref[i]]);
	}
	return verdict(&a, n, tol_rel, tol_max);
}

struct bench_cmp bench_compare_bf16(const uint16_t *out, const uint16_t *ref,
	int64_t n, double tol_rel, double tol_max)
{
	struct cmp_acc a = { 0, 0, 0, 0, 0 };

	for (int64_t i = 0; i < n; ++i) {
		if ((out[i] & 0x7f80) == 0x7f80 || (ref[i] & 0x7f80) == 0x7f80)
			a.nonfinite++;
		else
			cmp_add(&a, bench_bf16_to_float(out[i]),
				bench_bf16_to_float(ref[i]));
	}
	return verdict(&a, n, tol_rel, tol_max);
}

struct bench_cmp bench_compare_i32(const int32_t *out, const int32_t *ref,
	int64_t n, double tol_rel, double tol_max)
{
	struct cmp_acc a = { 0, 0, 0, 0, 0 };

	for (int64_t i = 0; i < n; ++i)
		cmp_add(&a, (double) out[i], (double) ref[i]);
	return verdict(&a, n, tol_rel, tol_max);
}

struct bench_cmp bench_compare_f64(const double *out, const double *ref,
	int64_t n, double tol_rel, double tol_max)
{
	struct cmp_acc a = { 0, 0, 0, 0, 0 };

	for (int64_t i = 0; i < n; ++i) {
		if (!isfinite(out[i]) || !isfinite(ref[i]))
			a.nonfinite++;
		else
			cmp_add(&a, out[i], ref[i]);
	}
	return verdict(&a, n, tol_rel, tol_max);
}

/* The language's reference semantics (frontend/eval.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/eval.h"

#define PM_EVAL_MAX_ELEMS ((int64_t) 1 << 40)

/* One statement being evaluated: its variables' extents, the strides of
 * every tensor, the tensors' values. */
struct ev {
	const struct pm_spec *spec;
	const struct pm_stmt *s;
	int64_t ext[PM_MAX_VARS];
	/* each variable's first value (0; a grouped product's first row of
	 * a run of one group's rows, and the group index): odometers walk
	 * [lo, ext), dense boxes hold ext - lo values */
	int64_t lo[PM_MAX_VARS];
	int64_t *stride;	/* [ntensors][PM_MAX_RANK] */
	double **val;		/* [ntensors] */
	int64_t *pt;		/* the current point, one value per variable */
	/* the variables from slowest to fastest: program order with the
	 * inner one (the last left-hand one: unit stride in the result)
	 * moved last; dense boxes and odometers follow it */
	int ord[PM_MAX_VARS];
	int inner;
};

/* x as a float of ebits exponent and mbits mantissa bits (IEEE-like, with
 * infinities), rounded to nearest even; its bit pattern. */
static unsigned to_mini(double x, int ebits, int mbits)
{
	int bias = (1 << (ebits - 1)) - 1, e;
	unsigned sign = signbit(x) ? 1u << (ebits + mbits) : 0, inf;
	double a = fabs(x), m;

	inf = ((1u << ebits) - 1) << mbits;
	if (isnan(x))
		return sign | inf | (1u << (mbits - 1));
	if (a < ldexp(1, 1 - bias))	/* subnormal (or the smallest normal) */
		return sign | (unsigned) nearbyint(ldexp(a, bias - 1 + mbits));
	frexp(a, &e);
	e -= 1;			/* a = 1.f * 2^e */
	m = nearbyint(ldexp(a, mbits - e)) - ldexp(1, mbits);
	if (m >= ldexp(1, mbits)) {
		m = 0;
		e += 1;
	}
	if (e + bias >= (1 << ebits) - 1)
		return sign | inf;
	return sign | (unsigned) (e + bias) << mbits | (unsigned) m;
}

static double from_mini(unsigned b, int ebits, int mbits)
{
	int bias = (1 << (ebits - 1)) - 1;
	unsigned e = (b >> mbits) & ((1u << ebits) - 1);
	unsigned m = b & ((1u << mbits) - 1);
	double s = (b >> (ebits + mbits)) & 1 ? -1 : 1;

	if (e == (1u << ebits) - 1)
		return m ? NAN : s * INFINITY;
	if (e == 0)
		return s * ldexp(m, 1 - bias - mbits);
	return s * ldexp(m + ldexp(1, mbits), (int) e - bias - mbits);
}

/* The 8-bit floats (docs/LANGUAGE.md §1): x rounded to nearest even with
 * mbits mantissa bits, saturated to +-max (as cvt.rn.satfinite: infinities
 * too), NaN to the NaN pattern nan with x's sign (CUDA's
 * __nv_cvt_double_to_fp8 with __NV_SATFINITE: the same bits for every
 * double); its bit pattern. */
static unsigned to_f8(double x, int ebits, int mbits, double max,
	unsigned nan)
{
	int bias = (1 << (ebits - 1)) - 1, e;
	unsigned sign = signbit(x) ? 0x80u : 0;
	double a = fabs(x), m;

	if (isnan(x))
		return sign | nan;
	a = a > max ? max : a;
	if (a < ldexp(1, 1 - bias))	/* subnormal (or the smallest normal) */
		return sign | (unsigned) nearbyint(ldexp(a, bias - 1 + mbits));
	frexp(a, &e);
	e -= 1;			/* a = 1.f * 2^e */
	m = nearbyint(ldexp(a, mbits - e)) - ldexp(1, mbits);
	if (m >= ldexp(1, mbits)) {	/* never past max: max is on the grid */
		m = 0;
		e += 1;
	}
	return sign | (unsigned) (e + bias) << mbits | (unsigned) m;
}

/* e4m3 has no infinities: exponent 15 is normal but for mantissa 7 (NaN). */
static double from_e4m3(unsigned b)
{
	if ((b & 0x7fu) == 0x7fu)
		return NAN;
	if ((b & 0x78u) == 0x78u)	/* 256 .. 448 */
		return (b & 0x80u ? -1 : 1) * ldexp(8 + (b & 7u), 5);
	return from_mini(b, 4, 3);
}

static double sat(double x, double lo, double hi)
{
	x = nearbyint(x);
	return isnan(x) ? 0 : x < lo ? lo : x > hi ? hi : x;
}

void pm_eval_store(enum pm_type t, void *p, int64_t i, double x)
{
	switch (t) {
	case PM_F16: ((uint16_t *) p)[i] = (uint16_t) to_mini(x, 5, 10); break;
	case PM_BF16: ((uint16_t *) p)[i] = (uint16_t) to_mini(x, 8, 7); break;
	case PM_F32: ((float *) p)[i] = (float) x; break;
	case PM_I8: ((int8_t *) p)[i] = (int8_t) sat(x, -128, 127); break;
	case PM_I32:
		((int32_t *) p)[i] = (int32_t) sat(x, -2147483648.0,
			2147483647.0);
		break;
	case PM_F8E4M3:
		((uint8_t *) p)[i] = (uint8_t) to_f8(x, 4, 3, 448, 0x7f);
		break;
	case PM_F8E5M2:
		((uint8_t *) p)[i] = (uint8_t) to_f8(x, 5, 2, 57344, 0x7e);
		break;
	}
}

double pm_eval_load(enum pm_type t, const void *p, int64_t i)
{
	switch (t) {
	case PM_F16: return from_mini(((const uint16_t *) p)[i], 5, 10);
	case PM_BF16: return from_mini(((const uint16_t *) p)[i], 8, 7);
	case PM_F32: return ((const float *) p)[i];
	case PM_I8: return ((const int8_t *) p)[i];
	case PM_I32: return ((const int32_t *) p)[i];
	case PM_F8E4M3: return from_e4m3(((const uint8_t *) p)[i]);
	case PM_F8E5M2: return from_mini(((const uint8_t *) p)[i], 5, 2);
	}
	return NAN;
}

static double call(enum pm_func f, double x, double y)
{
	switch (f) {
	case PM_FN_RELU: return x > 0 ? x : 0;
	case PM_FN_SIGMOID: return 1 / (1 + exp(-x));
	case PM_FN_TANH: return tanh(x);
	case PM_FN_GELU:
		return 0.5 * x * (1 + tanh(0.7978845608028654 *
			(x + 0.044715 * x * x * x)));
	case PM_FN_GELU_ERF: return 0.5 * x * (1 + erf(x * 0.7071067811865476));
	case PM_FN_SILU: return x / (1 + exp(-x));
	case PM_FN_EXP: return exp(x);
	case PM_FN_ABS: return fabs(x);
	case PM_FN_MAX: return fmax(x, y);
	case PM_FN_MIN: return fmin(x, y);
	}
	return NAN;
}

static double eval(const struct ev *v, const struct pm_expr *e)
{
	double a, b;
	int64_t off = 0;

	switch (e->kind) {
	case PM_E_NUM:
		return e->num;
	case PM_E_READ:
		for (int d = 0; d < e->nidx; ++d)
			off += v->pt[e->idx[d]] *
				v->stride[e->tensor * PM_MAX_RANK + d];
		return v->val[e->tensor][off];
	case PM_E_NEG:
		return -eval(v, e->args[0]);
	case PM_E_BIN:
		a = eval(v, e->args[0]);
		b = eval(v, e->args[1]);
		return e->op == '+' ? a + b : e->op == '-' ? a - b :
			e->op == '*' ? a * b : a / b;
	case PM_E_CALL:
		return call(e->fn, eval(v, e->args[0]),
			e->nargs > 1 ? eval(v, e->args[1]) : 0);
	}
	return NAN;
}

double pm_eval_pointwise(const struct pm_expr *e, double x)
{
	switch (e->kind) {
	case PM_E_NUM:
		return e->num;
	case PM_E_READ:
		return x;
	case PM_E_NEG:
		return -pm_eval_pointwise(e->args[0], x);
	case PM_E_BIN: {
		double a = pm_eval_pointwise(e->args[0], x);
		double b = pm_eval_pointwise(e->args[1], x);

		return e->op == '+' ? a + b : e->op == '-' ? a - b :
			e->op == '*' ? a * b : a / b;
	}
	case PM_E_CALL:
		return call(e->fn, pm_eval_pointwise(e->args[0], x),
			e->nargs > 1 ? pm_eval_pointwise(e->args[1], x) : 0);
	}
	return NAN;
}

/* The variables e reads, as a bit set. */
static unsigned vars_of(const struct pm_expr *e)
{
	unsigned set = 0;

	if (e->kind == PM_E_READ)
		for (int d = 0; d < e->nidx; ++d)
			set |= 1u << e->idx[d];
	for (int i = 0; i < e->nargs && e->kind != PM_E_READ; ++i)
		set |= vars_of(e->args[i]);
	return set;
}

/* Dimension d of tensor t (after the strides in v->stride). */
static int64_t extent(const struct ev *v, int t, int d)
{
	return v->stride[(v->spec->ntensors + t) * PM_MAX_RANK + d];
}

/* The extent of every variable of s: the size of a dimension it indexes. */
static void extents(struct ev *v, const struct pm_expr *e)
{
	if (e->kind == PM_E_READ) {
		for (int d = 0; d < e->nidx; ++d)
			v->ext[e->idx[d]] = extent(v, e->tensor, d);
		return;
	}
	for (int i = 0; i < e->nargs; ++i)
		extents(v, e->args[i]);
}

/* Every variable at its first value. */
static void start(struct ev *v)
{
	memcpy(v->pt, v->lo, sizeof(int64_t) * PM_MAX_VARS);
}

/* Advance the odometer over the variables in set (in v->ord, the last
 * one fastest); 0 when it wrapped around. */
static int next(struct ev *v, unsigned set)
{
	for (int o = v->s->nvars - 1; o >= 0; --o) {
		int x = v->ord[o];

		if (!(set >> x & 1))
			continue;
		if (++v->pt[x] < v->ext[x])
			return 1;
		v->pt[x] = v->lo[x];
	}
	return 0;
}

/* The offset of the current point in a dense array over the variables of
 * set (in v->ord), and its stride along variable x (0: not in set). */
static int64_t box_off(const struct ev *v, unsigned set, int x,
	int64_t *stride)
{
	int64_t off = 0, mul = 1;

	*stride = 0;
	for (int o = v->s->nvars - 1; o >= 0; --o) {
		int y = v->ord[o];

		if (!(set >> y & 1))
			continue;
		if (y == x)
			*stride = mul;
		off += (v->pt[y] - v->lo[y]) * mul;
		mul *= v->ext[y] - v->lo[y];
	}
	return off;
}

static int64_t box_size(const struct ev *v, unsigned set)
{
	int64_t n = 1;

	for (int y = 0; y < v->s->nvars; ++y)
		if (set >> y & 1)
			n *= v->ext[y] - v->lo[y];
	return n;
}

/* e at every point of its variables' box, densely. */
static double *materialize(struct ev *v, const struct pm_expr *e,
	unsigned set)
{
	double *f = malloc(sizeof(double) * (size_t) box_size(v, set));
	int64_t i = 0;

	if (!f)
		return NULL;
	start(v);
	do
		f[i++] = eval(v, e);
	while (next(v, set));
	return f;
}

/* res[lhs] += l * r over the whole domain: the factors dense over their
 * variables, an inner loop along v->inner (unit stride in res and in the
 * factors that have it). */
static void product(struct ev *v, double *res, const double *l, unsigned ls,
	const double *r, unsigned rs)
{
	int x = v->inner;
	unsigned all = (1u << v->s->nvars) - 1, lhs = (1u << v->s->nlhs) - 1;
	unsigned outer = all & ~(1u << x);
	int64_t n = v->ext[x] - v->lo[x], dl, dr, dres, ol, or, ores;

	start(v);
	do {
		ol = box_off(v, ls, x, &dl);
		or = box_off(v, rs, x, &dr);
		ores = box_off(v, lhs, x, &dres);
		for (int64_t i = 0; i < n; ++i)
			res[ores + i * dres] += l[ol + i * dl] * r[or + i * dr];
	} while (outer && next(v, outer));
}

/* A max=! or min=! statement into res (n elements): from -inf (+inf),
 * the largest (smallest) value; NaN is ignored as fmax and fmin do. */
static double *extremum(struct ev *v, double *res, int64_t n)
{
	const struct pm_stmt *s = v->s;
	unsigned lhs = (1u << s->nlhs) - 1, all = (1u << s->nvars) - 1;
	int max = s->red == PM_RED_MAX;
	int64_t stride;

	for (int64_t i = 0; i < n; ++i)
		res[i] = max ? -INFINITY : INFINITY;
	start(v);
	do {
		int64_t i = box_off(v, lhs, -1, &stride);
		double x = eval(v, s->rhs);

		res[i] = max ? fmax(res[i], x) : fmin(res[i], x);
	} while (all && next(v, all));
	return res;
}

static int64_t clamp_row(double x, int64_t rows)
{
	return !(x > 0) ? 0 : x > (double) rows ? rows : (int64_t) x;
}

/* A sum of products (T +=! l * r, T += l * r): the fast path. */
static int is_product(const struct pm_stmt *s)
{
	return s->kind != PM_S_ASSIGN && !(s->kind == PM_S_REDUCE &&
	    s->red != PM_RED_SUM) && s->rhs->kind == PM_E_BIN &&
	    s->rhs->op == '*';
}

/* A grouped product: product() over each run of consecutive rows of one
 * group e (grp[row], -1: none), the odometers from the run's first row,
 * the group index (variable nvars) fixed at e; res holds per values a
 * row. 0 when out of memory. */
static int grouped_product(struct ev *v, double *res, const int64_t *grp,
	int64_t rows, int64_t per)
{
	const struct pm_expr *e = v->s->rhs;
	unsigned ls = vars_of(e->args[0]), rs = vars_of(e->args[1]);
	int ok = 1;

	for (int64_t a = 0, b; a < rows && ok; a = b) {
		double *l, *r;

		for (b = a + 1; b < rows && grp[b] == grp[a]; ++b)
			;
		if (grp[a] < 0)
			continue;
		v->lo[0] = a, v->ext[0] = b, v->lo[v->s->nvars] = grp[a];
		l = materialize(v, e->args[0], ls);
		r = materialize(v, e->args[1], rs);
		ok = l && r;
		if (ok)
			product(v, res + a * per, l, ls, r, rs);
		free(l);
		free(r);
	}
	v->lo[0] = 0, v->ext[0] = rows, v->lo[v->s->nvars] = 0;
	return ok;
}

/* A grouped statement (docs/LANGUAGE.md, "Grouped contractions"): each
 * row (lhs variable 0) of group e = [offs(e - 1), offs(e)) (offs(-1) 0,
 * every bound clamped to the rows) computed with the group index
 * (variable nvars) e; a row of no group keeps its value. A product
 * runs grouped_product (the later group wins a row that overlapping
 * offsets give two: grp[] holds one group a row); any other statement
 * walks every point. */
static double *grouped(struct ev *v, double *res, int64_t n)
{
	const struct pm_stmt *s = v->s;
	const double *offs = v->val[v->spec->group_offs];
	const double *old = v->val[s->lhs];
	int64_t rows = v->ext[0], ng = extent(v, v->spec->group_offs, 0);
	int64_t *grp = malloc(sizeof(int64_t) * (size_t) rows), per, stride;
	unsigned all = (1u << s->nvars) - 1, lhs = (1u << s->nlhs) - 1;

	if (!grp) {
		free(res);
		return NULL;
	}
	for (int64_t r = 0; r < rows; ++r)
		grp[r] = -1;
	for (int64_t e = 0; e < ng; ++e) {
		int64_t lo = e ? clamp_row(offs[e - 1], rows) : 0;
		int64_t hi = clamp_row(offs[e], rows);

		for (int64_t r = lo; r < hi; ++r)
			grp[r] = e;
	}
	per = n / rows;
	if (is_product(s)) {
		if (!grouped_product(v, res, grp, rows, per)) {
			free(grp);
			free(res);
			return NULL;
		}
	} else {
		start(v);
		do {
			if (grp[v->pt[0]] < 0)
				continue;
			v->pt[s->nvars] = grp[v->pt[0]];
			res[box_off(v, lhs, -1, &stride)] += eval(v, s->rhs);
		} while (all && next(v, all));
	}
	for (int64_t r = 0; r < rows; ++r)
		if (grp[r] < 0)
			memcpy(res + r * per, old + r * per,
				sizeof(double) * (size_t) per);
	free(grp);
	return res;
}

/* One statement: the new values of its left side (a fresh array). */
static double *statement(struct ev *v, int64_t n)
{
	const struct pm_stmt *s = v->s;
	const struct pm_expr *e = s->rhs;
	unsigned lhs = (1u << s->nlhs) - 1, all = (1u << s->nvars) - 1;
	double *res = calloc((size_t) n, sizeof(double)), *l = NULL, *r = NULL;
	int64_t i = 0, stride;

	if (!res)
		return NULL;
	v->inner = s->nlhs > 0 ? s->nlhs - 1 : s->nvars - 1;
	for (int x = 0, o = 0; x < s->nvars; ++x)
		if (x != v->inner)
			v->ord[o++] = x;
	v->ord[s->nvars - 1] = v->inner;
	if (s->kind == PM_S_ACCUM)
		memcpy(res, v->val[s->lhs], sizeof(double) * (size_t) n);
	if (s->grouped)
		return grouped(v, res, n);
	if (s->kind == PM_S_REDUCE && s->red != PM_RED_SUM)
		return extremum(v, res, n);
	if (is_product(s)) {
		l = materialize(v, e->args[0], vars_of(e->args[0]));
		r = materialize(v, e->args[1], vars_of(e->args[1]));
		if (l && r)
			product(v, res, l, vars_of(e->args[0]), r,
				vars_of(e->args[1]));
		free(l);
		free(r);
		if (!l || !r) {
			free(res);
			return NULL;
		}
		return res;
	}
	start(v);
	do {
		i = box_off(v, lhs, -1, &stride);
		res[i] += eval(v, e);
	} while (all && next(v, all));
	return res;
}

static int64_t elems(const struct ev *v, int t)
{
	int64_t n = 1;

	for (int d = 0; d < v->spec->tensors[t].rank; ++d)
		n *= extent(v, t, d);
	return n;
}

/* v->stride: [t][d] the row-major strides of tensor t, then
 * [ntensors + t][d] its extents. */
static enum pm_eval_status shapes(struct ev *v, const int64_t *sizes)
{
	for (int t = 0; t < v->spec->ntensors; ++t) {
		const struct pm_tensor *T = &v->spec->tensors[t];
		int64_t *st = v->stride + t * PM_MAX_RANK, mul = 1, ext[8];

		for (int d = T->rank - 1; d >= 0; --d) {
			ext[d] = T->dims[d].sym < 0 ? T->dims[d].value :
				sizes[T->dims[d].sym];
			if (ext[d] < 1 || ext[d] > PM_EVAL_MAX_ELEMS / mul)
				return PM_EVAL_SIZE;
			st[d] = mul;
			mul *= ext[d];
		}
		for (int d = 0; d < T->rank; ++d)
			v->stride[(v->spec->ntensors + t) * PM_MAX_RANK + d] =
				ext[d];
	}
	return PM_EVAL_OK;
}

enum pm_eval_status pm_spec_eval(const struct pm_spec *spec,
	const int64_t *sizes, void *const *bufs)
{
	struct ev v = { .spec = spec };
	enum pm_eval_status rc = PM_EVAL_OK;
	int64_t pt[PM_MAX_VARS];
	int nt;

	if (!spec || !sizes || !bufs)
		return PM_EVAL_NULL;
	nt = spec->ntensors;
	if (nt < 1 || nt > PM_LIMIT_TENSORS)
		return PM_EVAL_NULL;
	for (int t = 0; t < nt; ++t)
		if (spec->tensors[t].role != PM_TEMP && !bufs[t])
			return PM_EVAL_NULL;
	v.pt = pt;
	v.stride = calloc((size_t) nt * 2 * PM_MAX_RANK, sizeof(int64_t));
	v.val = calloc((size_t) nt, sizeof(double *));
	if (!v.stride || !v.val)
		rc = PM_EVAL_NOMEM;
	if (rc == PM_EVAL_OK)
		rc = shapes(&v, sizes);
	for (int t = 0; t < nt && rc == PM_EVAL_OK; ++t) {
		const struct pm_tensor *T = &spec->tensors[t];
		int64_t n = elems(&v, t);

		v.val[t] = calloc((size_t) n, sizeof(double));
		if (!v.val[t])
			rc = PM_EVAL_NOMEM;
		for (int64_t i = 0; rc == PM_EVAL_OK && T->role != PM_TEMP &&
		     i < n; ++i)
			v.val[t][i] = pm_eval_load(T->type, bufs[t], i);
	}
	for (int k = 0; k < spec->nstmts && rc == PM_EVAL_OK; ++k) {
		double *res;

		v.s = &spec->stmts[k];
		memset(v.ext, 0, sizeof(v.ext));
		for (int d = 0; d < v.s->nlhs; ++d)
			v.ext[d] = extent(&v, v.s->lhs, d);
		extents(&v, v.s->rhs);
		res = statement(&v, elems(&v, v.s->lhs));
		if (!res) {
			rc = PM_EVAL_NOMEM;
			break;
		}
		free(v.val[v.s->lhs]);
		v.val[v.s->lhs] = res;
	}
	for (int t = 0; t < nt && rc == PM_EVAL_OK; ++t)
		if (spec->tensors[t].role == PM_OUTPUT)
			for (int64_t i = 0, n = elems(&v, t); i < n; ++i)
				pm_eval_store(spec->tensors[t].type, bufs[t], i,
					v.val[t][i]);
	for (int t = 0; v.val && t < nt; ++t)
		free(v.val[t]);
	free(v.val);
	free(v.stride);
	return rc;
}

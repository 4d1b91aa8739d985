/* The language's reference semantics (frontend/eval.c, polymma_reference):
 * the conversions at their edges, every shipped idiom against a naive
 * loop written here, statement kinds, and the API's spec introspection. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "frontend/eval.h"
#include "polymma.h"
#include "tests/util.h"

static uint16_t f16(double x)
{
	uint16_t b;

	pm_eval_store(PM_F16, &b, 0, x);
	return b;
}

static uint16_t bf16(double x)
{
	uint16_t b;

	pm_eval_store(PM_BF16, &b, 0, x);
	return b;
}

static unsigned f8(enum pm_type t, double x)
{
	uint8_t b;

	pm_eval_store(t, &b, 0, x);
	return b;
}

/* The 8-bit floats' edges: nearest even, subnormals, saturation to the
 * largest finite value (infinities too), NaN to 0x7f (e4m3) or 0x7e
 * (e5m2) with its sign, and every pattern read back and stored again
 * unchanged. */
static void test_f8_conversions(void **state)
{
	const enum pm_type e4 = PM_F8E4M3, e5 = PM_F8E5M2;
	(void) state;
	assert_int_equal(f8(e4, 1.0), 0x38);
	assert_int_equal(f8(e4, -2.0), 0xc0);
	assert_int_equal(f8(e4, 448), 0x7e);		/* max finite */
	assert_int_equal(f8(e4, 464), 0x7e);		/* saturates */
	assert_int_equal(f8(e4, 1e9), 0x7e);
	assert_int_equal(f8(e4, INFINITY), 0x7e);
	assert_int_equal(f8(e4, -INFINITY), 0xfe);
	assert_int_equal(f8(e4, NAN), 0x7f);
	assert_int_equal(f8(e4, -NAN), 0xff);
	assert_int_equal(f8(e4, ldexp(1, -9)), 0x01);	/* smallest subnormal */
	assert_int_equal(f8(e4, ldexp(1, -10)), 0x00);	/* tie to even: 0 */
	assert_int_equal(f8(e4, ldexp(3, -10)), 0x02);	/* tie to even: 2 */
	assert_int_equal(f8(e4, ldexp(1, -6)), 0x08);	/* smallest normal */
	assert_int_equal(f8(e4, 1 + ldexp(1, -4)), 0x38);	/* tie: even */
	assert_int_equal(f8(e4, 1 + ldexp(3, -4)), 0x3a);
	assert_int_equal(f8(e4, 15.5), 0x58);		/* 16 */
	assert_int_equal(f8(e4, -0.0), 0x80);
	assert_int_equal(f8(e5, 1.0), 0x3c);
	assert_int_equal(f8(e5, 57344), 0x7b);		/* max finite */
	assert_int_equal(f8(e5, 61440), 0x7b);		/* saturates */
	assert_int_equal(f8(e5, -INFINITY), 0xfb);
	assert_int_equal(f8(e5, NAN), 0x7e);
	assert_int_equal(f8(e5, -NAN), 0xfe);
	assert_int_equal(f8(e5, ldexp(1, -16)), 0x01);	/* smallest subnormal */
	assert_int_equal(f8(e5, ldexp(1, -17)), 0x00);
	assert_int_equal(f8(e5, 1 + ldexp(1, -3)), 0x3c);	/* tie: even */
	assert_int_equal(f8(e5, 1 + ldexp(3, -3)), 0x3e);
	for (unsigned b = 0; b < 256; ++b) {
		uint8_t x = (uint8_t) b;
		double v4 = pm_eval_load(e4, &x, 0), v5 = pm_eval_load(e5, &x, 0);

		if ((b & 0x7f) == 0x7f)
			assert_true(isnan(v4));
		else
			assert_int_equal(f8(e4, v4), b);
		if ((b & 0x7f) > 0x7c)
			assert_true(isnan(v5));
		else if ((b & 0x7f) == 0x7c)
			assert_true(isinf(v5));
		else
			assert_int_equal(f8(e5, v5), b);
	}
	{
		uint8_t m = 0x7e, n = 0x7b;

		assert_true(pm_eval_load(e4, &m, 0) == 448);
		assert_true(pm_eval_load(e5, &n, 0) == 57344);
	}
}

static void test_conversions(void **state)
{
	int8_t c;
	int32_t w;
	(void) state;
	assert_int_equal(f16(1.0), 0x3c00);
	assert_int_equal(f16(-2.0), 0xc000);
	assert_int_equal(f16(65504), 0x7bff);
	assert_int_equal(f16(65519.99), 0x7bff);
	assert_int_equal(f16(65520), 0x7c00);		/* ties up to inf */
	assert_int_equal(f16(ldexp(1, -24)), 0x0001);	/* smallest subnormal */
	assert_int_equal(f16(ldexp(1, -25)), 0x0000);	/* tie to even: 0 */
	assert_int_equal(f16(ldexp(3, -25)), 0x0002);	/* tie to even: 2 */
	assert_int_equal(f16(ldexp(1, -14)), 0x0400);	/* smallest normal */
	assert_int_equal(f16(1 + ldexp(1, -11)), 0x3c00);	/* tie: even */
	assert_int_equal(f16(1 + ldexp(3, -11)), 0x3c02);
	assert_int_equal(f16(2047.5), 0x67ff + 1);	/* 2048 */
	assert_int_equal(f16(-0.0), 0x8000);
	assert_int_equal(f16(NAN) & 0x7e00, 0x7e00);
	assert_int_equal(bf16(1.0), 0x3f80);
	assert_int_equal(bf16(1 + ldexp(1, -8)), 0x3f80);
	assert_int_equal(bf16(1 + ldexp(3, -8)), 0x3f82);
	assert_int_equal(bf16(ldexp(1, -133)), 0x0001);
	assert_int_equal(bf16(3.4e38), 0x7f80);	/* past bf16's max */
	assert_int_equal(bf16(-3.0), 0xc040);
	for (double x = -70000; x < 70000; x += 13.37) {
		uint16_t b = f16(x);

		assert_true(pm_eval_load(PM_F16, &b, 0) ==
			(fabs(x) < 65520 ? (double) (float) x : x) ||
			fabs(pm_eval_load(PM_F16, &b, 0) - x) <=
			ldexp(fabs(x), -11) || isinf(pm_eval_load(PM_F16, &b,
			0)));
	}
	pm_eval_store(PM_I8, &c, 0, 300.0);
	assert_int_equal(c, 127);
	pm_eval_store(PM_I8, &c, 0, -2.5);
	assert_int_equal(c, -2);
	pm_eval_store(PM_I32, &w, 0, 1e12);
	assert_int_equal(w, 2147483647);
	pm_eval_store(PM_I32, &w, 0, NAN);
	assert_int_equal(w, 0);
}

/* Small integers: every sum exact in f16's 11 bits for these sizes. */
static double val(int64_t i, int salt)
{
	return (double) ((i * (7 + salt) + 3 * salt + 1) % 7 - 3);
}

struct run {
	polymma_ctx *ctx;
	polymma_spec *s;
	int64_t sizes[8];
	void *t[8];
	int64_t n[8];
};

/* Parse path, allocate its tensors at sizes (named, in any order:
 * "M=5,N=7,K=9"), fill the inputs with val() as f16. */
static void setup_run(struct run *r, const char *path, const char *sizes)
{
	char *text = pm_test_read(path);

	assert_non_null(text);
	r->ctx = polymma_ctx_alloc();
	assert_int_equal(polymma_spec_parse(r->ctx, text, path, &r->s),
		POLYMMA_OK);
	free(text);
	for (int i = 0; i < polymma_spec_nsizes(r->s); ++i) {
		const char *name = polymma_spec_size_name(r->s, i), *p;
		size_t len = strlen(name);

		for (p = sizes; p; p = strchr(p, ',') ? strchr(p, ',') + 1 :
		     NULL)
			if (!strncmp(p, name, len) && p[len] == '=')
				break;
		assert_non_null(p);
		r->sizes[i] = atol(p + len + 1);
	}
	for (int i = 0; i < polymma_spec_ntensors(r->s); ++i) {
		r->n[i] = 1;
		for (int d = 0; d < polymma_spec_tensor_rank(r->s, i); ++d) {
			int64_t lit;
			int sym = polymma_spec_tensor_dim(r->s, i, d, &lit);

			r->n[i] *= sym >= 0 ? r->sizes[sym] : lit;
		}
		r->t[i] = calloc((size_t) r->n[i], 4);
		assert_non_null(r->t[i]);
		if (!polymma_spec_tensor_is_output(r->s, i))
			for (int64_t e = 0; e < r->n[i]; ++e)
				pm_eval_store(PM_F16, r->t[i], e, val(e, i));
	}
	assert_int_equal(polymma_reference(r->ctx, r->s, r->sizes, r->t),
		POLYMMA_OK);
}

static void free_run(struct run *r)
{
	for (int i = 0; i < polymma_spec_ntensors(r->s); ++i)
		free(r->t[i]);
	polymma_spec_free(r->s);
	polymma_ctx_free(r->ctx);
}

static double in(struct run *r, int t, int64_t i)
{
	return pm_eval_load(PM_F16, r->t[t], i);
}

static double out(struct run *r, int t, int64_t i)
{
	return pm_eval_load(PM_F16, r->t[t], i);
}

/* C = A * B in the four layouts: exact. */
static void test_gemm_layouts(void **state)
{
	const int64_t M = 13, N = 11, K = 37;
	(void) state;
	for (int l = 0; l < 4; ++l) {
		char path[64];
		struct run r = { 0 };
		int akm = l >= 2, bnk = l % 2;

		snprintf(path, sizeof(path), "examples/gemm_%s.tc",
			pm_test_layouts[l]);
		setup_run(&r, path, "M=13,N=11,K=37");
		for (int64_t i = 0; i < M; ++i)
			for (int64_t j = 0; j < N; ++j) {
				double s = 0;

				for (int64_t k = 0; k < K; ++k)
					s += in(&r, 0, akm ? k * M + i :
						i * K + k) * in(&r, 1, bnk ?
						j * K + k : k * N + j);
				assert_true(out(&r, 2, i * N + j) == s);
			}
		free_run(&r);
	}
}

/* bias + relu epilogue, the relu prologue, two contractions. */
static void test_idioms(void **state)
{
	struct run r = { 0 };
	(void) state;
	setup_run(&r, "examples/gemm_bias_relu.tc", "M=9,N=17,K=5");
	for (int64_t i = 0; i < 9; ++i)
		for (int64_t j = 0; j < 17; ++j) {
			double s = 0;

			for (int64_t k = 0; k < 5; ++k)
				s += in(&r, 0, i * 5 + k) * in(&r, 1, k * 17 + j);
			s += in(&r, 2, j);
			assert_true(out(&r, 3, i * 17 + j) == (s > 0 ? s : 0));
		}
	free_run(&r);
	setup_run(&r, "examples/relu_gemm.tc", "M=6,N=10,K=7");
	for (int64_t i = 0; i < 6; ++i)
		for (int64_t j = 0; j < 10; ++j) {
			double s = 0;

			for (int64_t k = 0; k < 7; ++k)
				s += fmax(in(&r, 0, i * 7 + k), 0) *
					in(&r, 1, k * 10 + j);
			assert_true(out(&r, 2, i * 10 + j) == s);
		}
	free_run(&r);
	setup_run(&r, "examples/add_gemm.tc", "M=5,N=6,K=7");
	assert_int_equal(polymma_spec_ntensors(r.s), 5);
	assert_string_equal(polymma_spec_tensor_name(r.s, 2), "E");
	assert_int_equal(polymma_spec_tensor_is_output(r.s, 4), 1);
	for (int64_t i = 0; i < 5; ++i)
		for (int64_t j = 0; j < 6; ++j) {
			double s = 0;

			for (int64_t k = 0; k < 7; ++k)
				s += in(&r, 0, i * 7 + k) * in(&r, 1, k * 6 + j) +
					in(&r, 2, i * 7 + k) * in(&r, 3, k * 6 + j);
			assert_true(out(&r, 4, i * 6 + j) == s);
		}
	free_run(&r);
}

/* `+=` adds to the output's own values; a sum without a product walks
 * the expression; a literal dimension; f32 and i32 outputs. */
static void test_statement_kinds(void **state)
{
	static const char spec[] =
		"def k(f16(M, 3) A, f32(3) w) -> (f32(M) S, i32(M, 3) T) {\n"
		"  S(i) += A(i, k) + w(k)\n"
		"  T(i, j) = A(i, j) * 2.5\n"
		"}\n";
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_spec *s = NULL;
	uint16_t A[12];
	float w[3] = { 0.5f, 1, -4 }, S[4] = { 10, 20, 30, 40 };
	int32_t T[12];
	int64_t M = 4, lit;
	void *t[4] = { A, w, S, T };
	(void) state;
	assert_int_equal(polymma_spec_parse(ctx, spec, "k.tc", &s), POLYMMA_OK);
	assert_int_equal(polymma_spec_nsizes(s), 1);
	assert_int_equal(polymma_spec_tensor_dim(s, 0, 1, &lit), -1);
	assert_int_equal(lit, 3);
	assert_int_equal(polymma_spec_tensor_dim(s, 0, 0, &lit), 0);
	assert_int_equal(polymma_spec_tensor_dim(s, 0, 2, &lit), -2);
	assert_string_equal(polymma_spec_tensor_type(s, 3), "i32");
	for (int i = 0; i < 12; ++i)
		pm_eval_store(PM_F16, A, i, i - 5);
	assert_int_equal(polymma_reference(ctx, s, &M, t), POLYMMA_OK);
	for (int i = 0; i < 4; ++i) {
		double e = (i + 1) * 10.0 - 2.5;

		for (int k = 0; k < 3; ++k)
			e += i * 3 + k - 5;
		assert_true(S[i] == (float) e);
		for (int j = 0; j < 3; ++j)	/* 2.5 * odd: ties to even */
			assert_int_equal(T[i * 3 + j], (int32_t) nearbyint(
				(i * 3 + j - 5) * 2.5));
	}
	M = 0;
	assert_int_equal(polymma_reference(ctx, s, &M, t), POLYMMA_ERR_USAGE);
	assert_non_null(strstr(polymma_diagnostics(ctx), "below 1"));
	assert_int_equal(polymma_reference(ctx, s, NULL, t), POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_reference(NULL, s, &M, t), POLYMMA_ERR_USAGE);
	polymma_spec_free(s);
	polymma_ctx_free(ctx);
}

/* i8 x i8 -> i32: exact integer sums (K = 2048 products of 127 * 127 sum
 * past f32's 24 bits) and saturation at the store; the f8 GEMM reads its
 * operands exactly in their type and applies per-row, per-column and
 * per-tensor (a scalar and a literal) scales to the exact sum before one
 * rounding. */
static void test_8bit_gemm(void **state)
{
	static const char i8spec[] =
		"def q(i8(M, K) A, i8(N, K) B) -> (i32(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * B(j, k)\n}\n";
	static const char f8spec[] =
		"def f(f8e4m3(M, K) A, f8e5m2(N, K) B, f32(M) sa, f32(N) sb, "
		"f32 s) -> (bf16(M, N) D) {\n"
		"  C(i, j) +=! A(i, k) * B(j, k)\n"
		"  D(i, j) = C(i, j) * sa(i) * sb(j) * s * 0.125\n}\n";
	enum { M = 3, N = 2, K = 2048 };
	static int8_t A[M * K], B[N * K];
	static uint8_t A8[M * K], B8[N * K];
	int32_t C[M * N];
	uint16_t D[M * N];
	float sa[M] = { 0.5f, -2, 3 }, sb[N] = { 0.25f, 1.5f }, sc = 0.75f;
	int64_t sz[3] = { M, K, N };
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_spec *s = NULL;
	void *t[7];
	(void) state;
	for (int i = 0; i < M * K; ++i)
		A[i] = (int8_t) (i % M == 2 ? -128 : 127 - i % 5);
	for (int i = 0; i < N * K; ++i)
		B[i] = (int8_t) (i / K ? 127 : -128 + i % 3);
	assert_int_equal(polymma_spec_parse(ctx, i8spec, "q.tc", &s),
		POLYMMA_OK);
	t[0] = A;
	t[1] = B;
	t[2] = C;
	assert_int_equal(polymma_reference(ctx, s, sz, t), POLYMMA_OK);
	for (int i = 0; i < M; ++i)
		for (int j = 0; j < N; ++j) {
			int64_t e = 0;

			for (int k = 0; k < K; ++k)
				e += A[i * K + k] * B[j * K + k];
			e = e > INT32_MAX ? INT32_MAX : e < INT32_MIN ?
				INT32_MIN : e;
			assert_int_equal(C[i * N + j], (int32_t) e);
		}
	polymma_spec_free(s);
	for (int i = 0; i < M * K; ++i)
		pm_eval_store(PM_F8E4M3, A8, i, (i % 7 - 3) * 0.375);
	for (int i = 0; i < N * K; ++i)
		pm_eval_store(PM_F8E5M2, B8, i, (i % 5 - 2) * 1.5);
	assert_int_equal(polymma_spec_parse(ctx, f8spec, "f.tc", &s),
		POLYMMA_OK);
	assert_string_equal(polymma_spec_tensor_type(s, 0), "f8e4m3");
	assert_string_equal(polymma_spec_tensor_type(s, 1), "f8e5m2");
	t[0] = A8;
	t[1] = B8;
	t[2] = sa;
	t[3] = sb;
	t[4] = &sc;
	t[5] = D;
	assert_int_equal(polymma_reference(ctx, s, sz, t), POLYMMA_OK);
	for (int i = 0; i < M; ++i)
		for (int j = 0; j < N; ++j) {
			double e = 0;

			for (int k = 0; k < K; ++k)
				e += pm_eval_load(PM_F8E4M3, A8, i * K + k) *
					pm_eval_load(PM_F8E5M2, B8, j * K + k);
			e = e * sa[i] * sb[j] * sc * 0.125;
			assert_true(pm_eval_load(PM_BF16, D, i * N + j) ==
				pm_eval_load(PM_BF16, (uint16_t[]) { bf16(e) },
				0));
		}
	polymma_spec_free(s);
	polymma_ctx_free(ctx);
}

static void test_api_errors(void **state)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_spec *s = (polymma_spec *) 1;
	(void) state;
	assert_int_equal(polymma_spec_parse(ctx, "def k(f16(M) A) -> "
		"(f16(M) B) {\n  B(i) = Z(i)\n}\n", "bad.tc", &s),
		POLYMMA_ERR_SPEC);
	assert_null(s);
	assert_non_null(strstr(polymma_diagnostics(ctx), "bad.tc:2:"));
	assert_int_equal(polymma_spec_parse(ctx, NULL, "x", &s),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_spec_parse(ctx, "def", "x", NULL),
		POLYMMA_ERR_USAGE);
	assert_null(polymma_spec_name(NULL));
	assert_int_equal(polymma_spec_ntensors(NULL), 0);
	assert_null(polymma_spec_tensor_name(NULL, 0));
	assert_int_equal(polymma_spec_tensor_rank(NULL, 0), -1);
	polymma_spec_free(NULL);
	polymma_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conversions),
		cmocka_unit_test(test_f8_conversions),
		cmocka_unit_test(test_8bit_gemm),
		cmocka_unit_test(test_gemm_layouts),
		cmocka_unit_test(test_idioms),
		cmocka_unit_test(test_statement_kinds),
		cmocka_unit_test(test_api_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

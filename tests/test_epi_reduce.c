#define _POSIX_C_SOURCE 200809L
/* Epilogue reductions (docs/LANGUAGE.md, "Epilogue reductions";
 * docs/decisions/0037-epilogue-reductions.md): the forms the front end
 * takes, the reference (frontend/eval.c) against naive loops written here
 * at odd sizes, check's polyhedral model of them (domains, initial
 * schedule, coincidence), what gen builds and what it refuses. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <isl/ctx.h>
#include <isl/schedule.h>
#include <isl/schedule_node.h>
#include <isl/union_map.h>

#include "frontend/eval.h"
#include "poly/poly.h"
#include "polymma.h"
#include "tests/host_render_util.h"
#include "tests/util.h"

/* The spec printed back (check's canonical form). */
static char *printed(const struct pm_spec *s)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	assert_non_null(f);
	pm_spec_print(f, s);
	fclose(f);
	return buf;
}

/* Every form of the subsection: its statement kind, operator, rank, and
 * which statements are epilogue reductions; printed back and parsed again
 * to the same text. */
static void test_forms(void **state)
{
	static const struct {
		const char *path;
		int stmt;		/* the reduction */
		enum pm_red_op op;
		int nlhs;
	} f[] = {
		{ "tests/specs/gemm_rowsum.tc", 2, PM_RED_SUM, 1 },
		{ "tests/specs/gemm_colsum.tc", 1, PM_RED_SUM, 1 },
		{ "tests/specs/gemm_rowmax.tc", 2, PM_RED_MAX, 1 },
		{ "tests/specs/gemm_amax.tc", 1, PM_RED_MAX, 0 },
	};
	(void) state;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); ++i) {
		struct pm_spec *s = pm_hr_parse_file(f[i].path), *t;
		const struct pm_stmt *st;
		char *a, *b;

		assert_non_null(s);
		st = &s->stmts[f[i].stmt];
		assert_int_equal(st->kind, PM_S_REDUCE);
		assert_int_equal(st->red, f[i].op);
		assert_int_equal(st->nlhs, f[i].nlhs);
		assert_int_equal(st->nvars, 2);
		for (int k = 0; k < s->nstmts; ++k)
			assert_int_equal(pm_stmt_is_epi_reduction(s, k),
				k == f[i].stmt);
		a = printed(s);
		t = pm_hr_parse(a);
		assert_non_null(t);
		b = printed(t);
		assert_string_equal(a, b);
		free(a);
		free(b);
		pm_spec_free(t);
		pm_spec_free(s);
	}
}

static void test_min_and_print(void **state)
{
	struct pm_spec *s = pm_hr_parse("def g(f32(M, N) x) -> (f32(N) lo, f32 hi) "
		"{\n  lo(j) min=! x(i, j)\n  hi max=! x(i, j)\n}\n");
	char *p;

	(void) state;
	assert_non_null(s);
	assert_int_equal(s->stmts[0].red, PM_RED_MIN);
	assert_int_equal(s->stmts[1].red, PM_RED_MAX);
	assert_int_equal(s->tensors[2].rank, 0);
	assert_int_equal(s->tensors[2].role, PM_OUTPUT);
	/* reductions over inputs alone are no epilogue reductions */
	assert_false(pm_stmt_is_epi_reduction(s, 0));
	assert_false(pm_stmt_is_epi_reduction(s, 1));
	p = printed(s);
	assert_non_null(strstr(p, "    lo(j) min=! x(i, j)\n"));
	assert_non_null(strstr(p, "    hi max=! x(i, j)\n"));
	free(p);
	pm_spec_free(s);
}

/* xorshift: deterministic test data */
static double rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return (double) (*x % 2001) / 500.0 - 2.0;
}

static void fill(enum pm_type t, void *p, int64_t n, uint32_t *seed)
{
	for (int64_t i = 0; i < n; ++i)
		pm_eval_store(t, p, i, rnd(seed));
}

/* C = A B (f16 row-major A M x K; B K x N, or N x K when bt) in double, k
 * in order (the reference's order). */
static double *naive_gemm(const uint16_t *A, const uint16_t *B, int64_t M,
	int64_t N, int64_t K, int bt)
{
	double *C = calloc((size_t) (M * N), sizeof(double));

	assert_non_null(C);
	for (int64_t i = 0; i < M; ++i)
		for (int64_t j = 0; j < N; ++j)
			for (int64_t k = 0; k < K; ++k)
				C[i * N + j] += pm_eval_load(PM_F16, A, i * K + k) *
					pm_eval_load(PM_F16, B, bt ? j * K + k :
					k * N + j);
	return C;
}

static uint16_t f16(double x)
{
	uint16_t b;

	pm_eval_store(PM_F16, &b, 0, x);
	return b;
}

enum form { ROWSUM, COLSUM, ROWMAX, AMAX };

/* One spec at M x N x K: the reference's outputs against the naive loops
 * (bit for bit: both sum in the same order in double and round once). */
static void check_form(enum form f, int64_t M, int64_t N, int64_t K)
{
	static const char *const path[] = { "tests/specs/gemm_rowsum.tc",
		"tests/specs/gemm_colsum.tc", "tests/specs/gemm_rowmax.tc",
		"tests/specs/gemm_amax.tc" };
	struct pm_spec *s = pm_hr_parse_file(path[f]);
	uint32_t seed = (uint32_t) (M * 7919 + N * 31 + K + f);
	uint16_t *A = malloc(sizeof(uint16_t) * (size_t) (M * K));
	uint16_t *B = malloc(sizeof(uint16_t) * (size_t) (K * N));
	uint16_t *bias = malloc(sizeof(uint16_t) * (size_t) N);
	uint16_t *D = calloc((size_t) (M * N), sizeof(uint16_t));
	float *R = calloc((size_t) (M > N ? M : N), sizeof(float)), sc = 0.75f;
	int64_t sizes[3] = { M, K, N };	/* M, K, N: first appearance */
	void *bufs[8] = { 0 };
	double *C, red;

	assert_non_null(s);
	assert_true(A && B && bias && D && R);
	fill(PM_F16, A, M * K, &seed);
	fill(PM_F16, B, K * N, &seed);
	fill(PM_F16, bias, N, &seed);
	bufs[0] = A;
	bufs[1] = B;
	switch (f) {
	case ROWSUM: bufs[2] = bias; bufs[3] = D; bufs[4] = R; break;
	case COLSUM: bufs[2] = D; bufs[3] = R; break;
	case ROWMAX: bufs[2] = &sc; bufs[3] = D; bufs[4] = R; break;
	case AMAX: bufs[2] = R; break;
	}
	assert_int_equal(pm_spec_eval(s, sizes, bufs), PM_EVAL_OK);
	C = naive_gemm(A, B, M, N, K, f == COLSUM);
	red = -INFINITY;
	for (int64_t o = 0; o < (f == COLSUM ? N : M); ++o) {
		double acc = f == ROWSUM || f == COLSUM ? 0 : -INFINITY;

		for (int64_t x = 0; x < (f == COLSUM ? M : N); ++x) {
			int64_t i = f == COLSUM ? x : o, j = f == COLSUM ? o : x;
			double v = C[i * N + j];

			if (f == ROWSUM)
				v += pm_eval_load(PM_F16, bias, j);
			if (f == ROWMAX)
				v *= sc;
			if (f != AMAX)	/* the full output, rounded once */
				assert_int_equal(D[i * N + j], f16(v));
			if (f == ROWSUM)
				acc += v * v;
			else if (f == COLSUM)
				acc += v;
			else if (f == ROWMAX)
				acc = fmax(acc, v);
			else
				red = fmax(red, fabs(v));
		}
		if (f != AMAX && R[o] != (float) acc)
			fprintf(stderr, "form %d %ldx%ldx%ld at %ld: %.9g vs "
				"%.9g\n", f, (long) M, (long) N, (long) K,
				(long) o, R[o], acc);
		if (f != AMAX)
			assert_true(R[o] == (float) acc);
	}
	if (f == AMAX && R[0] != (float) red)
		fprintf(stderr, "amax %ldx%ldx%ld: %.9g vs %.9g\n", (long) M,
			(long) N, (long) K, R[0], red);
	if (f == AMAX)
		assert_true(R[0] == (float) red && red > 0);
	free(C);
	free(A);
	free(B);
	free(bias);
	free(D);
	free(R);
	pm_spec_free(s);
}

/* Row sums, column sums, row maxima and the largest magnitude at odd
 * sizes (1, 7, 127, 129 for M and N). */
static void test_reference_odd_sizes(void **state)
{
	static const int64_t n[] = { 1, 7, 127, 129 };
	(void) state;
	for (int f = ROWSUM; f <= AMAX; ++f)
		for (int a = 0; a < 4; ++a)
			for (int b = 0; b < 4; ++b)
				check_form((enum form) f, n[a], n[b], a == b ? 9 : 3);
}

/* max=! and min=! ignore NaN (fmax, fmin) and start from -inf, +inf. */
static void test_reference_nan(void **state)
{
	struct pm_spec *s = pm_hr_parse("def g(f32(M, N) x) -> (f32(M) hi, f32(M) "
		"lo) {\n  T(i, j) +=! x(i, j)\n  hi(i) max=! T(i, j)\n  lo(i) "
		"min=! T(i, j)\n}\n");
	float x[6] = { 1, NAN, -3, NAN, NAN, NAN }, hi[2], lo[2];
	int64_t sizes[2] = { 2, 3 };
	void *bufs[5] = { x, hi, lo };

	(void) state;
	assert_non_null(s);
	assert_true(pm_stmt_is_epi_reduction(s, 1));
	assert_int_equal(pm_spec_eval(s, sizes, bufs), PM_EVAL_OK);
	assert_true(hi[0] == 1 && lo[0] == -3);
	assert_true(hi[1] == -INFINITY && lo[1] == INFINITY);
	pm_spec_free(s);
}

/* check's model: the reduction as an init over its left side and an
 * update over (i, j), both in the output band, the update's band taking
 * the chain's (i, j) whatever its variables' order; the members it
 * reduces along are not coincident; no "red" band of its own. */
static void test_model(void **state)
{
	static const struct {
		const char *path, *sched;
		int coincident[2];
	} f[] = {
		{ "tests/specs/gemm_rowsum.tc", "[M, K, N] -> { "
		  "S_0_init[i, j] -> [i, j]; S_0[i, j, k] -> [i, j]; "
		  "S_1[i, j] -> [i, j]; S_2_init[i] -> [i, 0]; "
		  "S_2[i, j] -> [i, j] }", { 1, 0 } },
		{ "tests/specs/gemm_colsum.tc", "[M, K, N] -> { "
		  "S_0_init[i, j] -> [i, j]; S_0[i, j, k] -> [i, j]; "
		  "S_1_init[j] -> [0, j]; S_1[j, i] -> [i, j] }", { 0, 1 } },
		{ "tests/specs/gemm_amax.tc", "[M, K, N] -> { "
		  "S_0_init[i, j] -> [i, j]; S_0[i, j, k] -> [i, j]; "
		  "S_1_init[] -> [0, 0]; S_1[i, j] -> [i, j] }", { 0, 0 } },
	};
	(void) state;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); ++i) {
		isl_ctx *ctx = isl_ctx_alloc();
		struct pm_spec *s = pm_hr_parse_file(f[i].path);
		struct pm_config c = { .split_k = 1 };
		struct pm_diags d;
		struct pm_scop *scop;
		isl_schedule_node *node;
		isl_union_map *m, *want;
		char *str, *dom;

		pm_diags_init(&d, f[i].path, NULL);
		scop = pm_scop_build(ctx, s, &c, &d);
		if (!scop)
			fprintf(stderr, "%s", pm_diags_text(&d));
		pm_diags_clear(&d);
		assert_non_null(scop);
		node = isl_schedule_get_root(scop->schedule);
		node = isl_schedule_node_child(node, 0);	/* mark out */
		node = isl_schedule_node_child(node, 0);	/* band */
		assert_int_equal(isl_schedule_node_get_type(node),
			isl_schedule_node_band);
		for (int b = 0; b < 2; ++b)
			assert_int_equal(isl_schedule_node_band_member_get_coincident(
				node, b), f[i].coincident[b]);
		m = isl_schedule_node_band_get_partial_schedule_union_map(node);
		str = isl_union_map_to_str(m);
		isl_union_map_free(m);
		m = isl_union_map_read_from_str(ctx, str);
		m = isl_union_map_intersect_params(m,
			isl_set_copy(scop->context));
		dom = isl_union_set_to_str(scop->domain);
		want = isl_union_map_intersect_domain(isl_union_map_read_from_str(
			ctx, f[i].sched), isl_union_set_read_from_str(ctx, dom));
		free(dom);
		if (isl_union_map_is_equal(m, want) != isl_bool_true)
			fprintf(stderr, "got %s\n", str);
		assert_true(isl_union_map_is_equal(m, want) == isl_bool_true);
		free(str);
		isl_union_map_free(m);
		isl_union_map_free(want);
		/* the sequence's last filter (the update) has no red band */
		node = isl_schedule_node_child(node, 0);
		node = isl_schedule_node_child(node,
			isl_schedule_node_n_children(node) - 1);
		assert_int_equal(isl_schedule_node_get_type(node),
			isl_schedule_node_filter);
		node = isl_schedule_node_child(node, 0);
		assert_int_equal(isl_schedule_node_get_type(node),
			isl_schedule_node_leaf);
		isl_schedule_node_free(node);
		pm_scop_free(scop);
		pm_spec_free(s);
		isl_ctx_free(ctx);
	}
}

/* What gen writes for path (text: its text, NULL: the file's) on target
 * with opt = val (opt NULL: none): the source (malloc'ed), or NULL where it
 * refuses, with its diagnostics in *diag (malloc'ed) where diag is given. */
static char *gen(const char *path, const char *text, const char *target,
	const char *opt, const char *val, char **diag)
{
	char *t = text ? strdup(text) : pm_test_read(path), *src = NULL;
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;

	assert_true(t && ctx && o);
	assert_int_equal(polymma_options_set(o, "target", target, NULL),
		POLYMMA_OK);
	if (opt)
		assert_int_equal(polymma_options_set(o, opt, val, NULL),
			POLYMMA_OK);
	if (polymma_generate(ctx, t, path, o, &r) == POLYMMA_OK)
		src = strdup(polymma_result_source(r));
	else if (!diag)
		fprintf(stderr, "%s", polymma_diagnostics(ctx));
	if (diag)
		*diag = strdup(polymma_diagnostics(ctx));
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(t);
	return src;
}

/* gen builds the row sum, the column sum and the row max (emit/epired.c;
 * the host rendering's results: tests/test_host_render_red.c), on every
 * target; it refuses, at the statement, what it does not build
 * (docs/decisions/0037): a reduction of a temporary (amax), a second
 * reduction, a statement after one, and --split-k. On sm_90a the
 * persistent rows reduce too (docs/decisions/0056), and --persistent on
 * builds one. */
static void test_gen(void **state)
{
	static const char *const built[] = { "tests/specs/gemm_rowsum.tc",
		"tests/specs/gemm_colsum.tc", "tests/specs/gemm_rowmax.tc" };
	static const char *const targets[] = { "sm_90a", "sm_80", "sm_70" };
	static const struct {
		const char *path, *text, *opt, *val, *where, *msg;
	} f[] = {
		{ "tests/specs/gemm_amax.tc", NULL, NULL, NULL,
		  "tests/specs/gemm_amax.tc:5:5: error: unsupported: ",
		  "the one it reduces is a temporary" },
		{ "two.tc", "def t(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C, "
		  "f32(M) S, f32(M) R) {\n  C(i, j) +=! A(i, k) * B(k, j)\n"
		  "  S(i) +=! C(i, j)\n  R(i) max=! C(i, j)\n}\n", NULL, NULL,
		  "two.tc:4:3: error: unsupported: ",
		  "one epilogue reduction per kernel" },
		{ "tests/specs/gemm_rowsum.tc", NULL, "split-k", "2",
		  "error: ", "is not split" },
	};
	(void) state;
	for (size_t i = 0; i < 9; ++i) {
		char *src = gen(built[i / 3], NULL, targets[i % 3], NULL, NULL,
			NULL);

		assert_non_null(src);
		assert_non_null(strstr(src, "if (pm_red_arrive<"));
		/* no split row: the reason in the comment */
		assert_null(strstr(src, "pm_kernel_gemm_rowsum_split("));
		assert_null(strstr(src, "_persist_split("));
		/* sm_90a's persistent rows reduce, their consumers alone
		 * (256 threads of _persist's 288) */
		if (i % 3 == 0)
			assert_non_null(strstr(src, "pm_red_arrive<256>("));
		free(src);
	}
	/* --persistent on: one persistent kernel that reduces */
	{
		char *src = gen("tests/specs/gemm_rowsum.tc", NULL, "sm_90a",
			"persistent", "on", NULL);

		assert_non_null(src);
		assert_non_null(strstr(src, "pm_red_arrive<256>("));
		free(src);
	}
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); ++i) {
		char *diag = NULL, *src = gen(f[i].path, f[i].text, "sm_90a",
			f[i].opt, f[i].val, &diag);

		assert_null(src);
		if (!strstr(diag, f[i].where) || !strstr(diag, f[i].msg))
			fprintf(stderr, "got: %s", diag);
		assert_non_null(strstr(diag, f[i].where));
		assert_non_null(strstr(diag, f[i].msg));
		free(diag);
	}
}

static void test_max_contraction_refused(void **state)
{
	const char *text = "def g(f16(M, K) A, f16(K, N) B) -> (f32(M, N) C) "
		"{\n  C(i, j) max=! A(i, k) * B(k, j)\n}\n";
	struct pm_spec *s = pm_hr_parse(text);
	struct pm_diags d;

	(void) state;
	assert_non_null(s);
	pm_diags_init(&d, "t.tc", text);
	assert_int_equal(pm_spec_check_gen_limits(s, &d), -1);
	assert_non_null(strstr(pm_diags_text(&d), "t.tc:2:3: error: "
		"unsupported: a 'max=!' contraction"));
	pm_diags_clear(&d);
	pm_spec_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_min_and_print),
		cmocka_unit_test(test_reference_odd_sizes),
		cmocka_unit_test(test_reference_nan),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_gen),
		cmocka_unit_test(test_max_contraction_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#define _POSIX_C_SOURCE 200809L
/* poly: domains, accesses, dependences, initial schedule, -D. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <isl/ctx.h>
#include <isl/schedule.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "poly/poly.h"
#include "target/target.h"
#include "tests/util.h"

/* Compare an isl object printed as text with an expected isl text, by
 * re-reading both (names only: the ids' user pointers are dropped). */
static int same_umap(isl_ctx *ctx, __isl_keep isl_union_map *m,
	const char *expect)
{
	char *s = isl_union_map_to_str(m);
	isl_union_map *a = isl_union_map_read_from_str(ctx, s);
	isl_union_map *b = isl_union_map_read_from_str(ctx, expect);
	isl_bool eq = isl_union_map_is_equal(a, b);

	if (eq != isl_bool_true)
		fprintf(stderr, "got:      %s\nexpected: %s\n", s, expect);
	free(s);
	isl_union_map_free(a);
	isl_union_map_free(b);
	return eq == isl_bool_true;
}

static int same_uset(isl_ctx *ctx, __isl_keep isl_union_set *m,
	const char *expect)
{
	char *s = isl_union_set_to_str(m);
	isl_union_set *a = isl_union_set_read_from_str(ctx, s);
	isl_union_set *b = isl_union_set_read_from_str(ctx, expect);
	isl_bool eq = isl_union_set_is_equal(a, b);

	if (eq != isl_bool_true)
		fprintf(stderr, "got:      %s\nexpected: %s\n", s, expect);
	free(s);
	isl_union_set_free(a);
	isl_union_set_free(b);
	return eq == isl_bool_true;
}

static struct pm_scop *build(isl_ctx *ctx, struct pm_spec *spec,
	struct pm_config *c)
{
	struct pm_diags d;
	struct pm_scop *scop;

	pm_diags_init(&d, "t", NULL);
	scop = pm_scop_build(ctx, spec, c, &d);
	if (!scop)
		fprintf(stderr, "%s", pm_diags_text(&d));
	pm_diags_clear(&d);
	return scop;
}

static void test_tn_model(void **state)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_spec *spec = pm_test_spec("tn");
	struct pm_config c = { .split_k = 1 };
	struct pm_scop *scop;

	(void) state;
	assert_non_null(spec);
	scop = build(ctx, spec, &c);
	assert_non_null(scop);
	assert_int_equal(scop->nstmts, 2);
	assert_true(same_uset(ctx, scop->domain, "[K, M, N] -> { "
		"S_0_init[i, j] : 0 <= i < M and 0 <= j < N and K > 0; "
		"S_0[i, j, k] : 0 <= i < M and 0 <= j < N and 0 <= k < K }"));
	/* A is declared (K, M) and read A(k, i) */
	assert_true(same_umap(ctx, scop->reads, "[K, M, N] -> { "
		"S_0[i, j, k] -> A[k, i] : 0 <= i < M and 0 <= j < N and 0 <= k < K; "
		"S_0[i, j, k] -> B[k, j] : 0 <= i < M and 0 <= j < N and 0 <= k < K; "
		"S_0[i, j, k] -> C[i, j] : 0 <= i < M and 0 <= j < N and 0 <= k < K }"));
	assert_true(same_umap(ctx, scop->writes, "[K, M, N] -> { "
		"S_0_init[i, j] -> C[i, j] : 0 <= i < M and 0 <= j < N and K > 0; "
		"S_0[i, j, k] -> C[i, j] : 0 <= i < M and 0 <= j < N and 0 <= k < K }"));
	/* flow: the init feeds k = 0, each k feeds k + 1 */
	assert_true(same_umap(ctx, scop->dep_flow, "[K, M, N] -> { "
		"S_0_init[i, j] -> S_0[i, j, 0] : 0 <= i < M and 0 <= j < N and K > 0; "
		"S_0[i, j, k] -> S_0[i, j, k + 1] : 0 <= i < M and 0 <= j < N and "
		"0 <= k < K - 1 }"));
	pm_scop_free(scop);
	pm_spec_free(spec);
	isl_ctx_free(ctx);
}

/* Split-K: the contraction's k is a chunk [0, pm_kn_0) read at
 * k + pm_k0_0; the chunk lies inside [0, K); the init is unchanged. */
static void test_split_model(void **state)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_spec *spec = pm_test_spec("tn");
	struct pm_config c = { .split_k = 0 };
	struct pm_scop *scop;

	(void) state;
	assert_non_null(spec);
	scop = build(ctx, spec, &c);
	assert_non_null(scop);
	assert_int_equal(scop->nsplit, 1);
	assert_string_equal(scop->split_ext[0], "K");
	assert_true(same_uset(ctx, scop->domain, "[K, M, N, pm_k0_0, pm_kn_0] "
		"-> { S_0_init[i, j] : 0 <= i < M and 0 <= j < N and K > 0 and "
		"pm_k0_0 >= 0 and 0 < pm_kn_0 <= K - pm_k0_0; "
		"S_0[i, j, k] : 0 <= i < M and 0 <= j < N and 0 <= k < pm_kn_0 "
		"and pm_k0_0 >= 0 and pm_kn_0 <= K - pm_k0_0 }"));
	assert_true(same_umap(ctx, scop->reads, "[K, M, N, pm_k0_0, pm_kn_0] "
		"-> { S_0[i, j, k] -> A[k + pm_k0_0, i] : 0 <= i < M and "
		"0 <= j < N and 0 <= k < pm_kn_0 and pm_k0_0 >= 0 and "
		"pm_kn_0 <= K - pm_k0_0; "
		"S_0[i, j, k] -> B[k + pm_k0_0, j] : 0 <= i < M and 0 <= j < N "
		"and 0 <= k < pm_kn_0 and pm_k0_0 >= 0 and pm_kn_0 <= K - pm_k0_0; "
		"S_0[i, j, k] -> C[i, j] : 0 <= i < M and 0 <= j < N and "
		"0 <= k < pm_kn_0 and pm_k0_0 >= 0 and pm_kn_0 <= K - pm_k0_0 }"));
	pm_scop_free(scop);
	pm_spec_free(spec);
	isl_ctx_free(ctx);
}

/* -D substitutes literals: no parameter left for it. */
static void test_defines(void **state)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_spec *spec = pm_test_spec("nn");
	struct pm_config c = { .split_k = 1 };
	struct pm_scop *scop;

	(void) state;
	c.ndefines = 2;
	strcpy(c.defines[0].name, "K"), c.defines[0].value = 64;
	strcpy(c.defines[1].name, "N"), c.defines[1].value = 256;
	scop = build(ctx, spec, &c);
	assert_non_null(scop);
	assert_int_equal(scop->nparams, 1);
	assert_true(same_uset(ctx, scop->domain, "[M] -> { "
		"S_0_init[i, j] : 0 <= i < M and 0 <= j < 256; "
		"S_0[i, j, k] : 0 <= i < M and 0 <= j < 256 and 0 <= k < 64 }"));
	pm_scop_free(scop);
	pm_spec_free(spec);
	isl_ctx_free(ctx);
}

static void test_bad_define(void **state)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_spec *spec = pm_test_spec("nn");
	struct pm_config c = { .split_k = 1 };
	struct pm_diags d;

	(void) state;
	c.ndefines = 1;
	strcpy(c.defines[0].name, "Q"), c.defines[0].value = 64;
	pm_diags_init(&d, "t", NULL);
	assert_null(pm_scop_build(ctx, spec, &c, &d));
	assert_non_null(strstr(pm_diags_text(&d), "not a size symbol"));
	pm_diags_clear(&d);
	pm_spec_free(spec);
	isl_ctx_free(ctx);
}

/* The initial schedule: out band over all statements, then a sequence in
 * program order with the reduction band below the update; it respects
 * every dependence. */
static void test_initial_schedule(void **state)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_spec *spec = pm_test_spec("tt");
	struct pm_config c = { .split_k = 1 };
	struct pm_scop *scop;
	isl_union_map *sched, *lt, *deps;

	(void) state;
	scop = build(ctx, spec, &c);
	assert_non_null(scop);
	sched = isl_schedule_get_map(scop->schedule);
	assert_true(same_umap(ctx, sched, "[K, M, N] -> { "
		"S_0_init[i, j] -> [i, j, 0, 0] : 0 <= i < M and 0 <= j < N and K > 0; "
		"S_0[i, j, k] -> [i, j, 1, k] : 0 <= i < M and 0 <= j < N and "
		"0 <= k < K }"));
	lt = isl_union_map_lex_lt_union_map(isl_union_map_copy(sched), sched);
	deps = pm_scop_deps(scop);
	assert_true(isl_union_map_is_subset(deps, lt) == isl_bool_true);
	isl_union_map_free(deps);
	isl_union_map_free(lt);
	pm_scop_free(scop);
	pm_spec_free(spec);
	isl_ctx_free(ctx);
}

static void test_check_report(void **state)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_spec *spec = pm_test_spec("nt");
	struct pm_config c = { .split_k = 1 };
	struct pm_scop *scop;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void) state;
	scop = build(ctx, spec, &c);
	assert_non_null(scop);
	f = open_memstream(&buf, &len);
	pm_scop_print(f, scop);
	fclose(f);
	assert_non_null(strstr(buf, "def gemm_nt"));
	assert_non_null(strstr(buf, "S_0[d0, d1, d2] -> B[d1, d2]"));
	assert_non_null(strstr(buf, "flow dependences"));
	assert_non_null(strstr(buf, "mark: \"red\""));
	free(buf);
	pm_scop_free(scop);
	pm_spec_free(spec);
	isl_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tn_model),
		cmocka_unit_test(test_split_model),
		cmocka_unit_test(test_defines),
		cmocka_unit_test(test_bad_define),
		cmocka_unit_test(test_initial_schedule),
		cmocka_unit_test(test_check_report),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Helpers of the frontend tests (tests/test_frontend*.c). */
#ifndef PM_TEST_FRONTEND_UTIL_H
#define PM_TEST_FRONTEND_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

#define HDR "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"

/* Parse text that must be valid; the diagnostics must stay empty. */
static inline struct pm_spec *parse_ok(const char *text)
{
	struct pm_diags d;
	struct pm_spec *s;

	pm_diags_init(&d, "t.tc", text);
	s = pm_spec_parse(text, "t.tc", &d);
	if (!s || d.nerrors)
		fprintf(stderr, "unexpected diagnostics:\n%s", pm_diags_text(&d));
	assert_non_null(s);
	assert_int_equal(d.nerrors, 0);
	assert_string_equal(pm_diags_text(&d), "");
	pm_diags_clear(&d);
	return s;
}

/* Parse text that must be invalid: the diagnostics start with prefix
 * (e.g. "t.tc:3:17: error: ") and contain msg. */
static inline void parse_err(const char *text, const char *prefix, const char *msg)
{
	struct pm_diags d;
	struct pm_spec *s;
	const char *out;

	pm_diags_init(&d, "t.tc", text);
	s = pm_spec_parse(text, "t.tc", &d);
	out = pm_diags_text(&d);
	if (s || strncmp(out, prefix, strlen(prefix)) || !strstr(out, msg))
		fprintf(stderr, "want: %s...%s\ngot:\n%s", prefix, msg, out);
	assert_null(s);
	assert_true(d.nerrors >= 1);
	assert_int_equal(strncmp(out, prefix, strlen(prefix)), 0);
	assert_non_null(strstr(out, msg));
	pm_diags_clear(&d);
}

/* The printed form of expression rhs of statement i. */
static inline char *expr_text(const struct pm_spec *s, int i)
{
	static char buf[1024];
	FILE *f = tmpfile();
	size_t n;

	assert_non_null(f);
	pm_expr_print(f, s, &s->stmts[i], s->stmts[i].rhs);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static inline char *spec_text(const struct pm_spec *s)
{
	static char buf[4096];
	FILE *f = tmpfile();
	size_t n;

	assert_non_null(f);
	pm_spec_print(f, s);
	rewind(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static inline void assert_read(const struct pm_spec *s, const struct pm_expr *e,
	const char *tensor, int nidx, const int *idx)
{
	int i;

	assert_int_equal(e->kind, PM_E_READ);
	assert_string_equal(s->tensors[e->tensor].name, tensor);
	assert_int_equal(e->nidx, nidx);
	for (i = 0; i < nidx; i++)
		assert_int_equal(e->idx[i], idx[i]);
}

static inline void assert_dim_sym(const struct pm_spec *s, const struct pm_tensor *t,
	int d, const char *sym)
{
	assert_true(t->dims[d].sym >= 0);
	assert_string_equal(s->syms[t->dims[d].sym].name, sym);
}


static const char *const gemm_bias_relu =
	"# GEMM + bias + ReLU, row-major A (M x K) and B (K x N)\n"
	"def gemm_bias_relu(f16(M, K) A, f16(K, N) B, f16(N) bias) -> (f16(M, N) C) {\n"
	"    C(i, j) +=! A(i, k) * B(k, j)\n"
	"    C(i, j)  =  relu(C(i, j) + bias(j))\n"
	"}\n";

#endif

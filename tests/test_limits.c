/* Limits (frontend/limits.h, docs/LANGUAGE.md "Limits"): each one at the
 * limit and one past it; the reserved names; -D ranges; the isl budget;
 * refusals that used to be crashes. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <isl/ctx.h>
#include <isl/options.h>

#include "tests/frontend_util.h"
#include "frontend/limits.h"
#include "poly/poly.h"
#include "api/options.h"
#include "schedule_tree/tree.h"
#include "variant/variant.h"
#include "polymma.h"

/* A growing string for generated specs. */
struct text {
	char *s;
	size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert_true(n >= 0);
	if (t->len + (size_t)n + 1 > t->cap) {
		t->cap = 2 * (t->len + (size_t)n + 1);
		t->s = realloc(t->s, t->cap);
		assert_non_null(t->s);
	}
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* polymma_generate on text: its status, the diagnostics in *diag (owned
 * by the caller). */
static int generate(const char *text, char **diag)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	int rc;

	assert_non_null(ctx);
	assert_non_null(o);
	rc = polymma_generate(ctx, text, "t.tc", o, &r);
	*diag = strdup(polymma_diagnostics(ctx));
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	return rc;
}

/* gen must refuse text with exit 1 and a diagnostic starting with prefix
 * and containing msg. */
static void gen_err(const char *text, const char *prefix, const char *msg)
{
	char *diag;
	int rc = generate(text, &diag);

	if (rc != POLYMMA_ERR_SPEC || strncmp(diag, prefix, strlen(prefix)) ||
	    !strstr(diag, msg))
		fprintf(stderr, "rc %d, want %s...%s\ngot:\n%s", rc, prefix,
			msg, diag);
	assert_int_equal(rc, POLYMMA_ERR_SPEC);
	assert_int_equal(strncmp(diag, prefix, strlen(prefix)), 0);
	assert_non_null(strstr(diag, msg));
	free(diag);
}

/* The front-end checks of gen on text: 0, or -1 with msg at prefix. */
static void gen_limits(const char *text, const char *prefix, const char *msg)
{
	struct pm_spec *s = parse_ok(text);
	struct pm_diags d;
	int rc;

	pm_diags_init(&d, "t.tc", text);
	rc = pm_spec_check_gen_limits(s, &d);
	if (!prefix) {
		if (rc)
			fprintf(stderr, "%s", pm_diags_text(&d));
		assert_int_equal(rc, 0);
	} else {
		if (rc == 0 || strncmp(pm_diags_text(&d), prefix, strlen(prefix)) ||
		    !strstr(pm_diags_text(&d), msg))
			fprintf(stderr, "want %s...%s\ngot:\n%s", prefix, msg,
				pm_diags_text(&d));
		assert_int_equal(rc, -1);
		assert_int_equal(strncmp(pm_diags_text(&d), prefix,
			strlen(prefix)), 0);
		assert_non_null(strstr(pm_diags_text(&d), msg));
	}
	pm_diags_clear(&d);
	pm_spec_free(s);
}

/* polymma_check on text: its status, the diagnostics in *diag (owned by
 * the caller). */
static int check(const char *text, char **diag)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	char *report = NULL;
	int rc;

	assert_non_null(ctx);
	assert_non_null(o);
	rc = polymma_check(ctx, text, "t.tc", o, &report);
	*diag = strdup(polymma_diagnostics(ctx));
	free(report);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	return rc;
}

/* check and gen on text refuse it (exit 1) with prefix...msg, and with
 * exactly the diagnostics of the kernel's limits (a front-end function:
 * no isl context exists when it runs), class unsupported; or (prefix
 * NULL) the limits pass and check succeeds. */
static void kernel_limits(const char *text, const char *prefix,
	const char *msg)
{
	struct pm_spec *s = parse_ok(text);
	struct pm_diags d;
	char *diag;
	int rc;

	pm_diags_init(&d, "t.tc", text);
	rc = pm_spec_check_kernel_limits(s, &d);
	if (!prefix) {
		assert_int_equal(rc, 0);
		assert_int_equal(check(text, &diag), POLYMMA_OK);
	} else {
		assert_int_equal(rc, -1);
		assert_int_equal(pm_diags_class(&d), PM_ERR_UNSUPPORTED);
		assert_int_equal(check(text, &diag), POLYMMA_ERR_SPEC);
		if (strcmp(diag, pm_diags_text(&d)))
			fprintf(stderr, "check said:\n%s\nthe limits:\n%s",
				diag, pm_diags_text(&d));
		assert_string_equal(diag, pm_diags_text(&d));
		assert_int_equal(strncmp(diag, prefix, strlen(prefix)), 0);
		assert_non_null(strstr(diag, msg));
		gen_err(text, prefix, msg);
	}
	free(diag);
	pm_diags_clear(&d);
	pm_spec_free(s);
}

/* ---- identifiers ---- */

static void test_identifier_length(void **state)
{
	struct text t = { 0 };
	(void)state;

	/* a size symbol of 63 characters: parsed, and into the isl strings */
	add(&t, "def g(f16(M, %.*s) A) -> (f16(M, %.*s) C) {\n"
		"  C(i, j) = A(i, j)\n}\n", PM_LIMIT_IDENT,
		"KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK",
		PM_LIMIT_IDENT,
		"KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK");
	pm_spec_free(parse_ok(t.s));
	free(t.s);
	memset(&t, 0, sizeof(t));
	add(&t, "def g(f16(M, %.*s) A) -> (f16(M, N) C) {\n"
		"  C(i, j) = A(i, j)\n}\n", PM_LIMIT_IDENT + 1,
		"KKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKKK");
	parse_err(t.s, "t.tc:1:14: error: ", "is too long (64 characters, "
		"at most 63)");
	free(t.s);
}

/* The size symbols of kernel.c's old 1024-byte string: 32 symbols of 63
 * characters (2 KB of names) go into the isl strings of the scop and the
 * kernel (up to the first pass: the rest does not read them). */
static void test_many_long_symbols(void **state)
{
	struct text t = { 0 };
	polymma_options *o = polymma_options_alloc();
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_config cfg;
	struct pm_diags d;
	struct pm_spec *s;
	struct pm_kernel *k;
	(void)state;

	add(&t, "def g(f16(M, K) A, f16(K, N) B");
	for (int i = 0; i < PM_LIMIT_SYMS - 3; ++i)
		add(&t, ", f32(S%02d%.60s) X%d", i,
			"SSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSSS",
			i);
	add(&t, ") -> (f16(M, N) C) {\n  C(i, j) +=! A(i, k) * B(k, j)\n}\n");
	s = parse_ok(t.s);
	assert_int_equal(s->nsyms, PM_LIMIT_SYMS);
	assert_int_equal((int)strlen(s->syms[PM_LIMIT_SYMS - 1].name),
		PM_LIMIT_IDENT);
	cfg = *pm_options_config(o);
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	pm_diags_init(&d, "t.tc", t.s);
	k = pm_pipeline_until(ctx, s, &cfg, "tile_block", &d);
	if (!k)
		fprintf(stderr, "%s", pm_diags_text(&d));
	assert_non_null(k);
	assert_true(k->scop->nsplit > 0);
	pm_pipeline_kernel_free(k);
	pm_diags_clear(&d);
	isl_ctx_free(ctx);
	polymma_options_free(o);
	pm_spec_free(s);
	free(t.s);
}

static void test_size_symbols(void **state)
{
	struct text t = { 0 };
	(void)state;

	add(&t, "def g(");
	for (int i = 0; i < PM_LIMIT_SYMS; ++i)
		add(&t, "%sf32(S%d) X%d", i ? ", " : "", i, i);
	add(&t, ") -> (f32(S0) y) {\n  y(i) = X0(i)\n}\n");
	pm_spec_free(parse_ok(t.s));
	free(t.s);
	memset(&t, 0, sizeof(t));
	add(&t, "def g(");
	for (int i = 0; i <= PM_LIMIT_SYMS; ++i)
		add(&t, "%sf32(S%d) X%d", i ? ", " : "", i, i);
	add(&t, ") -> (f32(S0) y) {\n  y(i) = X0(i)\n}\n");
	/* "def g(" then 32 declarations "f32(Sn) Xn, " before S32 */
	parse_err(t.s, "t.tc:1:", "too many size symbols (at most 32)");
	assert_non_null(strstr(t.s, "f32(S32)"));
	{
		char prefix[32];
		snprintf(prefix, sizeof(prefix), "t.tc:1:%d: error: ",
			(int)(strstr(t.s, "S32)") - t.s) + 1);
		parse_err(t.s, prefix, "too many size symbols");
	}
	free(t.s);
}

/* ---- counts ---- */

/* n declared tensors: n - 1 inputs and one output */
static char *tensors_spec(int n)
{
	struct text t = { 0 };

	add(&t, "def g(");
	for (int i = 0; i < n - 1; ++i)
		add(&t, "%sf32(M) X%d", i ? ", " : "", i);
	add(&t, ") -> (f32(M) y) {\n  y(i) = X0(i)\n}\n");
	return t.s;
}

static void test_tensors(void **state)
{
	char *s = tensors_spec(PM_LIMIT_TENSORS), prefix[32];
	struct text t = { 0 };
	(void)state;

	pm_spec_free(parse_ok(s));
	free(s);
	s = tensors_spec(PM_LIMIT_TENSORS + 1);
	snprintf(prefix, sizeof(prefix), "t.tc:1:%d: error: ",
		(int)(strstr(s, "f32(M) y") - s) + 1);
	parse_err(s, prefix, "too many tensors (at most 128)");
	free(s);
	/* temporaries count: 120 declared, 8 temporaries, then one more */
	add(&t, "def g(");
	for (int i = 0; i < 119; ++i)
		add(&t, "%sf32(M) X%d", i ? ", " : "", i);
	add(&t, ") -> (f32(M) y) {\n");
	for (int i = 0; i < 9; ++i)
		add(&t, "  T%d(i) = X0(i)\n", i);
	add(&t, "  y(i) = T0(i)\n}\n");
	parse_err(t.s, "t.tc:10:3: error: ", "too many tensors (at most 128, "
		"temporaries included)");
	free(t.s);
}

/* n statements: an input chain x -> T0 -> ... -> y */
static char *stmts_spec(int n)
{
	struct text t = { 0 };

	add(&t, "def g(f32(M) x) -> (f32(M) y) {\n");
	for (int i = 0; i < n - 1; ++i)
		add(&t, "  T%d(i) = x(i)\n", i);
	add(&t, "  y(i) = x(i)\n}\n");
	return t.s;
}

static void test_statements(void **state)
{
	char *s = stmts_spec(PM_LIMIT_STMTS);
	(void)state;

	pm_spec_free(parse_ok(s));
	free(s);
	s = stmts_spec(PM_LIMIT_STMTS + 1);
	parse_err(s, "t.tc:66:3: error: ", "too many statements (at most 64)");
	free(s);
}

/* ---- expressions ---- */

/* rhs: n nested parentheses around 1 (the rhs itself is level 1) */
static char *nested_spec(int n)
{
	struct text t = { 0 };

	add(&t, "def g(f32(M) x) -> (f32(M) y) {\n  y(i) = x(i) + ");
	for (int i = 0; i < n; ++i)
		add(&t, "(");
	add(&t, "1");
	for (int i = 0; i < n; ++i)
		add(&t, ")");
	add(&t, "\n}\n");
	return t.s;
}

/* rhs: a flat sum of n terms, a tree n high */
static char *sum_spec(int n)
{
	struct text t = { 0 };

	add(&t, "def g(f32(M) x) -> (f32(M) y) {\n  y(i) = 1");
	for (int i = 1; i < n; ++i)
		add(&t, " + 1");
	add(&t, "\n}\n");
	return t.s;
}

static void test_expression_depth(void **state)
{
	char *s = nested_spec(PM_LIMIT_NESTING - 1);
	(void)state;

	pm_spec_free(parse_ok(s));
	free(s);
	s = nested_spec(PM_LIMIT_NESTING);
	parse_err(s, "t.tc:2:", "nested too deeply");
	free(s);
	s = sum_spec(PM_LIMIT_HEIGHT);
	pm_spec_free(parse_ok(s));
	free(s);
	s = sum_spec(PM_LIMIT_HEIGHT + 1);
	parse_err(s, "t.tc:2:", "nested too deeply (more than 1000 levels)");
	free(s);
	/* far past: no stack overflow */
	s = nested_spec(400000);
	parse_err(s, "t.tc:2:", "nested too deeply");
	free(s);
}

/* ---- spec size ---- */

/* A valid spec padded with a comment to exactly n bytes. */
static char *sized_spec(size_t n)
{
	const char *body = "def g(f32(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n}\n#";
	size_t len = strlen(body);
	char *s = malloc(n + 1);

	assert_non_null(s);
	assert_true(n > len);
	memcpy(s, body, len);
	memset(s + len, 'x', n - len);
	s[n] = '\0';
	return s;
}

static void test_spec_bytes(void **state)
{
	char *s = sized_spec(PM_LIMIT_SPEC_BYTES);
	(void)state;

	pm_spec_free(parse_ok(s));
	free(s);
	s = sized_spec(PM_LIMIT_SPEC_BYTES + 1);
	parse_err(s, "polymma: error: ", "the spec is too large (1048577 "
		"bytes, at most 1048576)");
	free(s);
}

/* The command line: `polymma check FILE [ARGS]`'s exit status. */
static int cli_check_args(const char *file, const char *args)
{
	const char *p = getenv("POLYMMA");
	char cmd[512];
	int st;

	snprintf(cmd, sizeof(cmd), "%s check %s %s >/dev/null 2>&1",
		p ? p : "./build/polymma", file, args);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int cli_check(const char *file)
{
	return cli_check_args(file, "");
}

static void cli_file(const char *path, size_t n)
{
	char *s = sized_spec(n);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(s, 1, n, f), n);
	fclose(f);
	free(s);
}

static void test_spec_file_size(void **state)
{
	char path[] = "/tmp/pm_limits_XXXXXX";
	int fd = mkstemp(path);
	(void)state;

	assert_true(fd >= 0);
	close(fd);
	cli_file(path, PM_LIMIT_SPEC_BYTES);
	assert_int_equal(cli_check(path), 0);
	cli_file(path, PM_LIMIT_SPEC_BYTES + 1);
	assert_int_equal(cli_check(path), 1);
	assert_int_equal(cli_check("/dev/zero"), 1);
	unlink(path);
}

/* ---- gen: epilogues and contractions, before the isl work ---- */

/* ncon contractions then n pointwise statements */
static char *epilogue_spec(int ncon, int n)
{
	struct text t = { 0 };

	add(&t, "def g(f16(M, K) A, f16(K, N) B, f16(N) bias) -> "
		"(f16(M, N) Y) {\n  T(i, j) +=! A(i, k) * B(k, j)\n");
	if (ncon == 2)
		add(&t, "  D(i, j) +=! A(i, k) * B(k, j)\n");
	for (int i = 0; i < n; ++i) {
		char out[16], prev[16];

		snprintf(out, sizeof(out), i == n - 1 ? "Y" : "E%d", i);
		snprintf(prev, sizeof(prev), i ? "E%d" : "T", i - 1);
		if (i == 0 && ncon == 2)
			add(&t, "  %s(i, j) = T(i, j) + D(i, j)\n", out);
		else
			add(&t, "  %s(i, j) = relu(%s(i, j) + bias(j))\n", out,
				prev);
	}
	add(&t, "}\n");
	return t.s;
}

/* n contractions of their own operands (line 2 on), summed */
static char *contractions_spec(int n)
{
	struct text t = { 0 };

	add(&t, "def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) Y) {\n");
	for (int c = 0; c < n; ++c)
		add(&t, "  T%d(i, j) +=! A(i, k) * B(k, j)\n", c);
	add(&t, "  Y(i, j) = T0(i, j)");
	for (int c = 1; c < n; ++c)
		add(&t, " + T%d(i, j)", c);
	add(&t, "\n}\n");
	return t.s;
}

static void test_epilogue(void **state)
{
	char *s;
	(void)state;

	s = epilogue_spec(1, PM_LIMIT_EPILOGUE);
	gen_limits(s, NULL, NULL);
	free(s);
	s = epilogue_spec(1, PM_LIMIT_EPILOGUE + 1);
	gen_limits(s, "t.tc:11:3: error: unsupported: ",
		"more than 8 epilogue statements");
	free(s);
	s = epilogue_spec(2, PM_LIMIT_EPILOGUE);
	gen_limits(s, NULL, NULL);
	free(s);
	s = epilogue_spec(2, PM_LIMIT_EPILOGUE + 1);
	gen_limits(s, "t.tc:12:3: error: unsupported: ",
		"more than 8 epilogue statements");
	free(s);
	/* the whole of gen refuses 64 statements at once (was minutes) */
	s = epilogue_spec(1, PM_LIMIT_STMTS - 1);
	gen_err(s, "t.tc:11:3: error: unsupported: ",
		"more than 8 epilogue statements");
	free(s);
	s = contractions_spec(PM_LIMIT_CONTRACTIONS);
	gen_limits(s, NULL, NULL);
	free(s);
	s = contractions_spec(PM_LIMIT_CONTRACTIONS + 1);
	gen_limits(s, "t.tc:6:3: error: unsupported: ",
		"more than 4 contractions in one kernel");
	free(s);
}

/* check is bounded as gen is: the kernel's limits refuse, before any isl
 * work, what check's dependence analysis (quadratic in the statements)
 * would spend seconds on; at the limits check still reports. */
static void test_check_bounded(void **state)
{
	char *s;
	(void)state;

	s = epilogue_spec(2, PM_LIMIT_EPILOGUE);
	kernel_limits(s, NULL, NULL);
	free(s);
	s = epilogue_spec(2, PM_LIMIT_EPILOGUE + 1);
	kernel_limits(s, "t.tc:12:3: error: unsupported: ",
		"more than 8 epilogue statements");
	free(s);
	/* the statement limit (64): the same refusal */
	s = epilogue_spec(1, PM_LIMIT_STMTS - 1);
	kernel_limits(s, "t.tc:11:3: error: unsupported: ",
		"more than 8 epilogue statements");
	free(s);
	/* pointwise statements only: the first one counts as gen's */
	s = stmts_spec(1 + PM_LIMIT_EPILOGUE);
	kernel_limits(s, NULL, NULL);
	free(s);
	s = stmts_spec(2 + PM_LIMIT_EPILOGUE);
	kernel_limits(s, "t.tc:11:3: error: unsupported: ",
		"more than 8 epilogue statements");
	free(s);
	s = contractions_spec(PM_LIMIT_CONTRACTIONS);
	kernel_limits(s, NULL, NULL);
	free(s);
	s = contractions_spec(PM_LIMIT_CONTRACTIONS + 1);
	kernel_limits(s, "t.tc:6:3: error: unsupported: ",
		"more than 4 contractions in one kernel");
	free(s);
}

/* ---- names ---- */

static void test_reserved_names(void **state)
{
	(void)state;
	/* C/C++ keywords: tensor, size symbol, def */
	parse_err("def g(f32(M) int) -> (f32(M) y) {\n  y(i) = int(i)\n}\n",
		"t.tc:1:14: error: ", "'int': it is a C or C++ keyword");
	parse_err("def g(f32(float) x) -> (f32(float) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:11: error: ", "'float': it is a C or C++ keyword");
	parse_err("def void(f32(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:5: error: ", "'void': it is a C or C++ keyword");
	/* a temporary */
	parse_err("def g(f32(M) x) -> (f32(M) y) {\n  class(i) = x(i)\n"
		"  y(i) = class(i)\n}\n", "t.tc:2:3: error: ",
		"'class': it is a C or C++ keyword");
	/* CUDA built-ins and types */
	parse_err("def g(f32(M) threadIdx) -> (f32(M) y) {\n  y(i) = threadIdx(i)\n}\n",
		"t.tc:1:14: error: ", "'threadIdx': it is a CUDA built-in");
	parse_err("def g(f32(warpSize) x) -> (f32(warpSize) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:11: error: ", "'warpSize': it is a CUDA built-in");
	parse_err("def dim3(f32(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:5: error: ", "'dim3': it is a CUDA built-in");
	/* prefixes */
	parse_err("def g(f32(M) __half) -> (f32(M) y) {\n  y(i) = __half(i)\n}\n",
		"t.tc:1:14: error: ", "'__half': names starting with '__'");
	parse_err("def g(f32(M) x) -> (f32(M) cudaMalloc) {\n"
		"  cudaMalloc(i) = x(i)\n}\n", "t.tc:1:28: error: ",
		"names starting with 'cuda'");
	parse_err("def pm_gemm(f32(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:5: error: ", "'pm_gemm': names starting with 'pm_'");
	parse_err("def g(f32(PM_NV) x) -> (f32(PM_NV) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:11: error: ", "names starting with 'PM_'");
	/* isl's keywords, in any case, as size symbols (its parser read
	 * them as keywords: an internal error before); as an index or a
	 * tensor they never reach it */
	parse_err("def g(f16(M, K) A, f16(miN, K) B) -> (f32(M, miN) C) {\n"
		"  C(i, j) +=! A(i, k) * B(j, k)\n}\n", "t.tc:1:24: error: ",
		"'miN': size symbols may not be a keyword of isl's parser");
	parse_err("def g(f32(Exists) x) -> (f32(Exists) y) {\n  y(i) = x(i)\n}"
		"\n", "t.tc:1:11: error: ", "'Exists': size symbols may not");
	parse_err("def g(f32(infinity) x) -> (f32(infinity) y) {\n"
		"  y(i) = x(i)\n}\n", "t.tc:1:11: error: ", "'infinity'");
	gen_limits("def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		"  C(mod, j) +=! A(mod, k) * B(k, j)\n}\n", NULL, NULL);
	assert_null(pm_isl_keyword("minimum"));
	assert_null(pm_isl_keyword("mo"));
	assert_non_null(pm_isl_keyword("NAN"));
	/* C library names the generated file uses; main as the def */
	parse_err("def main(f32(M) x) -> (f32(M) y) {\n  y(i) = x(i)\n}\n",
		"t.tc:1:5: error: ", "'main': it is a C library name");
	parse_err("def g(f32(M) size_t) -> (f32(M) y) {\n  y(i) = size_t(i)\n}\n",
		"t.tc:1:14: error: ", "'size_t': it is a C library name");
	/* the launcher's locals: refused by gen, accepted by check */
	gen_err("def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) stream) {\n"
		"  stream(i, j) +=! A(i, k) * B(k, j)\n}\n",
		"t.tc:1:47: error: ", "'stream': the generated launcher "
		"declares it");
	gen_err("def g(f16(M, workspace) A, f16(workspace, N) B) -> "
		"(f16(M, N) C) {\n  C(i, j) +=! A(i, k) * B(k, j)\n}\n",
		"t.tc:1:14: error: ", "'workspace': the generated launcher");
	gen_limits("def g(f16(M, K) A, f16(K, workspace_bytes) B) -> "
		"(f16(M, workspace_bytes) C) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n}\n", "t.tc:1:27: error: ",
		"'workspace_bytes': the generated launcher");
	gen_limits("def g(f16(M, K) c, f16(K, N) B) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! c(i, k) * B(k, j)\n}\n", "t.tc:1:17: error: ",
		"'c': the generated launcher");
	gen_limits("def g(f16(M, K) A, f16(K, N) B) -> (f16(M, N) c12) {\n"
		"  c12(i, j) +=! A(i, k) * B(k, j)\n}\n", "t.tc:1:47: error: ",
		"'c12': 'c' followed by digits names the loop counters");
	gen_limits("def g(f16(M, K) A, f16(K, N) A_shared) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * A_shared(k, j)\n}\n",
		"t.tc:1:30: error: ", "names ending in '_shared'");
	/* the def may be named like a launcher local */
	gen_limits("def c(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n}\n", NULL, NULL);
	/* close to a reserved name is fine */
	assert_null(pm_reserved_name("integer", false, false));
	assert_null(pm_reserved_name("cu", false, false));
	assert_null(pm_reserved_name("c1x", false, true));
	assert_null(pm_reserved_name("streams", false, true));
	assert_null(pm_reserved_name("_shared", false, true));
}

/* ---- -D values ---- */

static void test_define_range(void **state)
{
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;
	(void)state;

	assert_non_null(o);
	assert_int_equal(polymma_options_set(o, "define", "M=1", &err), POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "define", "M=2147483392", &err),
		POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "define", "M=2147483393", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "from 1 to 2147483392"));
	assert_int_equal(polymma_options_set(o, "define", "M=2147483648", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define",
		"M=99999999999999999999999", &err), POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define", "M=0", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define", "M=-5", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define", "M=12x", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define", "M=", &err),
		POLYMMA_ERR_USAGE);
	polymma_options_free(o);
	/* the command line: exit 2, at the limit 0 */
	assert_int_equal(cli_check_args("examples/gemm_nn.tc",
		"-D M=2147483392"), 0);
	assert_int_equal(cli_check_args("examples/gemm_nn.tc",
		"-D M=2147483393"), 2);
	assert_int_equal(cli_check_args("examples/gemm_nn.tc",
		"-D K=18446744073709551617"), 2);
}

/* ---- isl budget ---- */

static void test_isl_quota(void **state)
{
	struct pm_spec *s = parse_ok(gemm_bias_relu);
	isl_ctx *ctx = isl_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	struct pm_config cfg;
	struct pm_diags d;
	struct pm_scop *scop;
	(void)state;

	assert_non_null(o);
	cfg = *pm_options_config(o);
	cfg.split_k = 1;
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	isl_ctx_set_max_operations(ctx, 10);
	pm_diags_init(&d, "t.tc", gemm_bias_relu);
	scop = pm_scop_build(ctx, s, &cfg, &d);
	if (scop || !strstr(pm_diags_text(&d), "too large"))
		fprintf(stderr, "scop %p, last error %d:\n%s", (void *)scop,
			(int)isl_ctx_last_error(ctx), pm_diags_text(&d));
	assert_null(scop);
	assert_non_null(strstr(pm_diags_text(&d),
		"error: the spec is too large to schedule"));
	assert_null(strstr(pm_diags_text(&d), "internal error"));
	assert_int_equal(pm_diags_class(&d), PM_ERR_SPEC);
	pm_diags_clear(&d);
	isl_ctx_free(ctx);
	polymma_options_free(o);
	pm_spec_free(s);
}

/* ---- refusals that were crashes ---- */

static void test_own_operand(void **state)
{
	(void)state;
	gen_err("def g(f16(M, M) A, f16(M, M) B) -> (f16(M, M) C) {\n"
		"  C(i, j) +=! C(i, k) * B(k, j)\n}\n",
		"t.tc:2:15: error: unsupported: ",
		"the contraction reads its own result 'C'");
	gen_err("def g(f16(M, M) A) -> (f16(M, M) C) {\n"
		"  C(i, j) +=! A(i, k) * C(k, j)\n}\n",
		"t.tc:2:25: error: unsupported: ",
		"the contraction reads its own result 'C'");
}

/* Two contractions reading one tensor: one copy when the reads are the
 * same (tests/specs/swiglu.tc generates); else a clear refusal, never a
 * file nvcc rejects (X_shared declared twice). */
static void test_shared_operand(void **state)
{
	static const char *const other[] = {
		/* another access of X */
		"  U(i, j) +=! X(j, k) * V(k, i)\n",
		/* a prologue on the shared read */
		"  U(i, j) +=! relu(X(i, k)) * V(k, j)\n",
		/* the same product twice */
		"  U(i, j) +=! X(i, k) * W(k, j)\n",
	};
	static const char *const where[] = { "3:15", "3:20", "3:25" };
	char text[512];
	char *diag = NULL;

	(void)state;
	assert_int_equal(generate("def g(f16(M, K) X, f16(K, N) W, "
		"f16(K, N) V) -> (f16(M, N) O) {\n"
		"  G(i, j) +=! X(i, k) * W(k, j)\n"
		"  U(i, j) +=! X(i, k) * V(k, j)\n"
		"  O(i, j) = silu(G(i, j)) * U(i, j)\n}\n", &diag), 0);
	free(diag);
	for (int i = 0; i < 3; ++i) {
		char prefix[64];

		snprintf(text, sizeof(text), "def g(f16(M, M) X, f16(M, M) W, "
			"f16(M, M) V) -> (f16(M, M) O) {\n"
			"  G(i, j) +=! X(i, k) * W(k, j)\n%s"
			"  O(i, j) = silu(G(i, j)) * U(i, j)\n}\n", other[i]);
		snprintf(prefix, sizeof(prefix), "t.tc:%s: error: unsupported: ",
			where[i]);
		gen_err(text, prefix, "both contractions read '");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identifier_length),
		cmocka_unit_test(test_size_symbols),
		cmocka_unit_test(test_many_long_symbols),
		cmocka_unit_test(test_tensors),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_expression_depth),
		cmocka_unit_test(test_spec_bytes),
		cmocka_unit_test(test_spec_file_size),
		cmocka_unit_test(test_epilogue),
		cmocka_unit_test(test_check_bounded),
		cmocka_unit_test(test_reserved_names),
		cmocka_unit_test(test_define_range),
		cmocka_unit_test(test_isl_quota),
		cmocka_unit_test(test_own_operand),
		cmocka_unit_test(test_shared_operand),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

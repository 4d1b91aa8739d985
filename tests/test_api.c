/* The public library API (include/polymma.h): NULL everywhere, the
 * diagnostics of one call never seen after a later one, a failed setting
 * that leaves the options as they were, and the header's example, compiled
 * with $CC against the library and run on examples/gemm_nn.tc. Run from the
 * repository root. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "polymma.h"
#include "tests/util.h"

/* The build directory of this program (BUILD/tests/test_api), set by
 * main. */
static char *build_dir;

static const char bad_spec[] =
	"def bad(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
	"    C(i, j) +=! A(i, k) * Bias(k, j)\n"
	"}\n";

/* ---- NULL ---- */

static void test_null_objects(void **state)
{
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;

	(void)state;
	assert_non_null(o);
	polymma_ctx_free(NULL);
	polymma_options_free(NULL);
	polymma_result_free(NULL);
	polymma_options_set_dump_stream(NULL, stderr);
	polymma_options_set_dump_stream(o, NULL);
	assert_string_equal(polymma_diagnostics(NULL), "");
	assert_null(polymma_result_source(NULL));
	assert_null(polymma_result_header(NULL));
	assert_null(polymma_result_meta(NULL));

	assert_int_equal(polymma_options_set(NULL, "target", "sm_80", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(err);
	err = NULL;
	assert_int_equal(polymma_options_set(o, NULL, "sm_80", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(err);
	err = NULL;
	assert_int_equal(polymma_options_set(o, "target", NULL, &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(err);
	assert_int_equal(polymma_options_set(NULL, NULL, NULL, NULL),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "target", "sm_90a", NULL),
		POLYMMA_OK);
	polymma_options_free(o);
}

/* One entry point with one NULL argument: POLYMMA_ERR_USAGE, the output
 * pointer set to NULL, and (with a ctx) a diagnostic naming the argument
 * instead of the previous call's. */
typedef int (*entry_fn)(polymma_ctx *, const char *, const char *,
	const polymma_options *, void **);

static int call_generate(polymma_ctx *ctx, const char *text,
	const char *name, const polymma_options *o, void **out)
{
	polymma_result *r = out ? *out : NULL;
	int rc = polymma_generate(ctx, text, name, o, out ? &r : NULL);

	if (out)
		*out = r;
	return rc;
}

static int call_check(polymma_ctx *ctx, const char *text, const char *name,
	const polymma_options *o, void **out)
{
	char *report = out ? *out : NULL;
	int rc = polymma_check(ctx, text, name, o, out ? &report : NULL);

	if (out)
		*out = report;
	return rc;
}

static void expect_usage(entry_fn fn, polymma_ctx *ctx, const char *text,
	const polymma_options *o, void **out, const char *word)
{
	/* a failure first, so that a stale message would show */
	polymma_options *fine = polymma_options_alloc();
	void *junk = NULL;

	assert_int_equal(fn(ctx, bad_spec, "bad.tc", fine, &junk),
		POLYMMA_ERR_SPEC);
	assert_null(junk);
	polymma_options_free(fine);
	assert_non_null(strstr(polymma_diagnostics(ctx), "bad.tc"));
	if (out)
		*out = (void *)&junk;	/* not NULL: must be reset */
	assert_int_equal(fn(ctx, text, "x.tc", o, out), POLYMMA_ERR_USAGE);
	if (out)
		assert_null(*out);
	assert_null(strstr(polymma_diagnostics(ctx), "bad.tc"));
	assert_non_null(strstr(polymma_diagnostics(ctx), word));
}

static void null_arguments(entry_fn fn, const char *out_word)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	char *text = pm_test_read("examples/gemm_nn.tc");
	void *out = (void *)&out;

	assert_non_null(ctx);
	assert_non_null(o);
	assert_non_null(text);
	assert_int_equal(fn(NULL, text, "x.tc", o, &out), POLYMMA_ERR_USAGE);
	assert_null(out);
	expect_usage(fn, ctx, NULL, o, &out, "spec_text");
	expect_usage(fn, ctx, text, NULL, &out, "options");
	expect_usage(fn, ctx, text, o, NULL, out_word);
	assert_int_equal(fn(NULL, NULL, NULL, NULL, NULL), POLYMMA_ERR_USAGE);
	free(text);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

static void test_null_generate(void **state)
{
	(void)state;
	null_arguments(call_generate, "result");
}

static void test_null_check(void **state)
{
	(void)state;
	null_arguments(call_check, "report");
}

/* A NULL filename is "<spec>". */
static void test_null_filename(void **state)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *report = NULL;

	(void)state;
	assert_int_equal(polymma_generate(ctx, bad_spec, NULL, o, &r),
		POLYMMA_ERR_SPEC);
	assert_null(r);
	assert_non_null(strstr(polymma_diagnostics(ctx), "<spec>:2:"));
	assert_int_equal(polymma_check(ctx, bad_spec, NULL, o, &report),
		POLYMMA_ERR_SPEC);
	assert_null(report);
	assert_non_null(strstr(polymma_diagnostics(ctx), "<spec>:2:"));
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

/* ---- diagnostics of the last call only ---- */

static void test_diagnostics_cleared(void **state)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	char *text = pm_test_read("examples/gemm_nn.tc"), *report = NULL;
	polymma_result *r = NULL;

	(void)state;
	assert_non_null(text);
	assert_int_equal(polymma_generate(ctx, bad_spec, "bad.tc", o, &r),
		POLYMMA_ERR_SPEC);
	assert_non_null(strstr(polymma_diagnostics(ctx), "bad.tc:2:"));
	assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o, &r),
		POLYMMA_OK);
	assert_non_null(r);
	assert_null(strstr(polymma_diagnostics(ctx), "bad.tc"));
	polymma_result_free(r);

	assert_int_equal(polymma_check(ctx, bad_spec, "bad.tc", o, &report),
		POLYMMA_ERR_SPEC);
	assert_non_null(strstr(polymma_diagnostics(ctx), "bad.tc:2:"));
	assert_int_equal(polymma_check(ctx, text, "gemm_nn.tc", o, &report),
		POLYMMA_OK);
	assert_non_null(report);
	assert_null(strstr(polymma_diagnostics(ctx), "bad.tc"));
	free(report);

	/* generate after a failed check: the check's message is gone */
	assert_int_equal(polymma_check(ctx, bad_spec, "bad.tc", o, &report),
		POLYMMA_ERR_SPEC);
	assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o, &r),
		POLYMMA_OK);
	assert_null(strstr(polymma_diagnostics(ctx), "bad.tc"));
	polymma_result_free(r);
	free(text);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

/* ---- options ---- */

/* A refused setting leaves the earlier one; a test-only key is refused. */
static void test_failed_set_keeps_options(void **state)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	char *text = pm_test_read("examples/gemm_nn.tc");
	polymma_result *r = NULL;
	const char *err = NULL;

	(void)state;
	assert_non_null(text);
	assert_int_equal(polymma_options_set(o, "target", "sm_90a", &err),
		POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "target", "sm_99", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(err);
	assert_int_equal(polymma_options_set(o, "host-target", "", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o, &r),
		POLYMMA_OK);
	assert_non_null(strstr(polymma_result_meta(r), "\"sm_90a\""));
	polymma_result_free(r);
	free(text);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

/* ---- the header's example ---- */

/* The program between "BEGIN EXAMPLE" and "END EXAMPLE" in header, each
 * line without its leading " * " (malloc'ed). */
static char *extract_example(const char *header)
{
	const char *p = strstr(header, "BEGIN EXAMPLE\n");
	const char *end = strstr(header, "END EXAMPLE");
	char *out, *q;

	assert_non_null(p);
	assert_non_null(end);
	p += strlen("BEGIN EXAMPLE\n");
	while (end > p && end[-1] != '\n')	/* the marker's line */
		end--;
	assert_true(p < end);
	out = q = malloc((size_t)(end - p) + 1);
	assert_non_null(out);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n;

		assert_non_null(nl);
		while (p < nl && (*p == ' ' || *p == '\t'))
			p++;
		if (p < nl && *p == '*')
			p++;
		if (p < nl && *p == ' ')
			p++;
		n = (size_t)(nl - p) + 1;
		memcpy(q, p, n);
		q += n;
		p = nl + 1;
	}
	*q = '\0';
	return out;
}

/* The compiler: $CC, else the one this test was built with. */
static const char *compiler(void)
{
	const char *cc = getenv("CC");

	if (cc && *cc)
		return cc;
#ifdef __clang__
	return "clang";
#else
	return "gcc";
#endif
}

/* The sanitizers the library was built with (make asan), to link the
 * example with. */
static const char *sanitize_flags(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return "-fsanitize=address,undefined";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
	return "-fsanitize=address,undefined";
#else
	return "";
#endif
#else
	return "";
#endif
}

/* system(fmt, ...) with the command printed; its exit status. */
static int run_cmd(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int n, st;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	assert_true(n > 0);
	cmd = malloc((size_t)n + 1);
	assert_non_null(cmd);
	va_start(ap, fmt);
	vsnprintf(cmd, (size_t)n + 1, fmt, ap);
	va_end(ap);
	print_message("$ %s\n", cmd);
	st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

static char *path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	assert_non_null(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static void test_header_example(void **state)
{
	char dir[] = "/tmp/polymma-test-api.XXXXXX";
	char *header = pm_test_read("include/polymma.h"), *example, *text;
	char *src, *bin, *out;
	int rc;

	(void)state;
	assert_non_null(header);
	assert_non_null(mkdtemp(dir));
	assert_null(strchr(build_dir, '\''));
	example = extract_example(header);
	src = path_in(dir, "example.c");
	bin = path_in(dir, "example");
	out = path_in(dir, "gemm_nn.cu");
	write_file(src, example);
	rc = run_cmd("'%s' -std=c11 -Wall -Wextra -Werror %s -Iinclude "
		"'%s' '%s/libpolymma.a' -Wl,-Bstatic -lisl -lgmp "
		"-Wl,-Bdynamic -lm -o '%s'", compiler(), sanitize_flags(),
		src, build_dir, bin);
	if (rc == 0)
		rc = run_cmd("'%s' examples/gemm_nn.tc > '%s'", bin, out);
	text = rc == 0 ? pm_test_read(out) : NULL;
	if (rc != 0)
		print_message("the example:\n%s", example);
	unlink(src);
	unlink(bin);
	unlink(out);
	rmdir(dir);
	assert_int_equal(rc, 0);
	assert_non_null(text);
	assert_non_null(strstr(text, "__global__"));
	assert_non_null(strstr(text, "gemm_nn"));
	free(text);
	free(src);
	free(bin);
	free(out);
	free(example);
	free(header);
}

/* BUILD from argv[0] = ".../BUILD/tests/test_api"; "build" otherwise. */
static char *find_build_dir(const char *argv0)
{
	const char *end = strstr(argv0, "/tests/test_api");
	size_t n = end ? (size_t)(end - argv0) : 0;
	char *dir;

	if (n > 2 && !strncmp(argv0, "./", 2)) {
		argv0 += 2;
		n -= 2;
	}
	dir = malloc(n ? n + 1 : sizeof("build"));
	if (!dir)
		return NULL;
	if (n) {
		memcpy(dir, argv0, n);
		dir[n] = '\0';
	} else {
		strcpy(dir, "build");
	}
	return dir;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_objects),
		cmocka_unit_test(test_null_generate),
		cmocka_unit_test(test_null_check),
		cmocka_unit_test(test_null_filename),
		cmocka_unit_test(test_diagnostics_cleared),
		cmocka_unit_test(test_failed_set_keeps_options),
		cmocka_unit_test(test_header_example),
	};
	int rc;

	(void)argc;
	build_dir = find_build_dir(argv[0]);
	if (!build_dir)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	free(build_dir);
	return rc;
}

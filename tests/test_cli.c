/* The command line as a subprocess: options, exit codes, diagnostics,
 * gen and check (shared/SPEC.md §2); the outputs' all-or-nothing rules are
 * tests/test_cli_out.c. Run from the repository root; the binary is
 * $POLYMMA or build/polymma. */
#define _XOPEN_SOURCE 700

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "api/build_id.h"
#include "tests/cli_util.h"

/* ---- the tests ---- */

static void test_help(void **state)
{
	struct run r = RUN("--help");
	const char *words[] = { "gen", "check", "-o", "--target", "sm_70",
		"sm_80", "sm_90a", "-D", "--block", "--warp", "--mma",
		"--split-k", "--stages", "--smem", "--header", "--meta",
		"--dump-schedule", "--version" };
	size_t i;

	(void)state;
	EXPECT_STATUS(r, 0);
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strstr(r.out, words[i]))
			print_message("--help does not mention %s\n", words[i]);
		assert_non_null(strstr(r.out, words[i]));
	}
	run_free(&r);
	r = RUN("gen", "--help");
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "--target"));
	run_free(&r);
}

static void test_version(void **state)
{
	struct run r = RUN("--version");

	(void)state;
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "polymma " POLYMMA_VERSION " (build "));
	/* the generator's identity: 16 hex digits, the JIT key's */
	assert_non_null(strstr(r.out, pm_build_id));
	assert_int_equal(strlen(pm_build_id), 16);
	assert_int_equal(strspn(pm_build_id, "0123456789abcdef"), 16);
	run_free(&r);
}

static void test_bad_command_lines(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "x.cu");
	struct run r;

	r = RUN("--bogus");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("frobnicate", "examples/gemm_nn.tc");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--bogus");
	EXPECT_STATUS(r, 2);
	assert_non_null(strstr(r.err, "--bogus"));
	assert_non_null(strstr(r.err, "--help"));
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--target");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc");	/* no -o */
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "examples/gemm_nt.tc", "-o", out);
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("check", "examples/gemm_nn.tc", "-o", out);
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--header", out);
	EXPECT_STATUS(r, 2);
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);
	free(out);
}

static void test_no_args(void **state)
{
	struct run r = RUN("gen");

	(void)state;
	EXPECT_STATUS(r, 2);
	assert_non_null(strstr(r.err, "--help"));
	run_free(&r);
	r = run_in(NULL, (const char *const[]){ NULL });
	EXPECT_STATUS(r, 2);
	run_free(&r);
}

static void test_bad_option_values(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "x.cu");
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--target", "sm_99");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--block", "12");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--smem=fancy");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);
	free(out);
}

static void test_missing_spec_file(void **state)
{
	const char *dir = *state;
	char *spec = path_in(dir, "nope.tc"), *out = path_in(dir, "x.cu");
	struct run r;

	r = RUN("gen", spec, "-o", out);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, "nope.tc"));
	run_free(&r);
	r = RUN("check", spec);
	EXPECT_STATUS(r, 1);
	run_free(&r);
	r = RUN("check", dir);	/* a directory is not a spec */
	EXPECT_STATUS(r, 1);
	run_free(&r);
	r = RUN("gen", "-o", out);	/* no SPEC argument */
	EXPECT_STATUS(r, 2);
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);
	free(spec);
	free(out);
}

static void test_spec_error(void **state)
{
	const char *dir = *state;
	char *spec = path_in(dir, "bad.tc"), *out = path_in(dir, "out.cu");
	char *hdr = path_in(dir, "out.h"), *meta = path_in(dir, "out.json");
	struct run r;

	write_text(spec, bad_spec);
	r = RUN("check", spec);
	EXPECT_STATUS(r, 1);
	if (!has_located_error(r.err, "bad.tc"))
		show(&r);
	assert_true(has_located_error(r.err, "bad.tc"));
	assert_non_null(strstr(r.err, "bad.tc:3:"));
	assert_non_null(strstr(r.err, "^"));
	run_free(&r);

	/* A failed gen leaves nothing behind. */
	r = RUN("gen", spec, "-o", out, "--header", hdr, "--meta", meta);
	EXPECT_STATUS(r, 1);
	assert_true(has_located_error(r.err, "bad.tc"));
	run_free(&r);
	assert_int_equal(count_entries(dir), 1);

	/* ... and does not clobber an existing output. */
	write_text(out, "keep me\n");
	r = RUN("gen", spec, "-o", out);
	EXPECT_STATUS(r, 1);
	run_free(&r);
	{
		char *text = read_text(out);

		assert_non_null(text);
		assert_string_equal(text, "keep me\n");
		free(text);
	}
	assert_int_equal(count_entries(dir), 2);
	free(spec);
	free(out);
	free(hdr);
	free(meta);
}

/* The header cannot be written: the source must not be left either. */
static void test_failed_header_leaves_nothing(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "out.cu");
	char *hdr = path_in(dir, "missing/out.h");
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--header", hdr);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, "out.h"));
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);

	/* An output path that is a directory. */
	r = RUN("gen", "examples/gemm_nn.tc", "-o", dir);
	EXPECT_STATUS(r, 1);
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);
	free(out);
	free(hdr);
}

static void test_gen(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "gemm_nn.cu"), *text;
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", out);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	text = read_text(out);
	assert_non_null(text);
	assert_non_null(strstr(text, "__global__"));
	assert_non_null(strstr(text, "extern \"C\""));
	assert_non_null(strstr(text, "gemm_nn"));
	free(text);
	/* No temporary file is left next to it. */
	assert_int_equal(count_entries(dir), 1);
	free(out);
}

static void test_gen_header_meta(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "k.cu"), *hdr = path_in(dir, "k.h");
	char *meta = path_in(dir, "k.json"), *text;
	struct run r;

	r = RUN("gen", "examples/gemm_nt.tc", "--header", hdr, "-o", out,
		"--meta=", meta);
	EXPECT_STATUS(r, 2);	/* --meta= with an empty name */
	run_free(&r);
	r = RUN("gen", "examples/gemm_nt.tc", "--header", hdr, "-o", out,
		"--meta", meta);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	text = read_text(hdr);
	assert_non_null(text);
	assert_non_null(strstr(text, "gemm_nt"));
	free(text);
	text = read_text(meta);
	assert_non_null(text);
	assert_non_null(strchr(text, '{'));
	free(text);
	text = read_text(out);
	assert_non_null(text);
	assert_non_null(strstr(text, "__global__"));
	free(text);
	assert_int_equal(count_entries(dir), 3);
	free(out);
	free(hdr);
	free(meta);
}

static void test_gen_stdout(void **state)
{
	struct run r = RUN("gen", "examples/gemm_nn.tc", "-o", "-");

	(void)state;
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "__global__"));
	assert_non_null(strstr(r.out, "extern \"C\""));
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o-");
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "__global__"));
	run_free(&r);
}

/* Every spelling of the options, and a schedule dump on stderr. */
static void test_gen_option_forms(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "a.cu");
	struct run r;

	r = RUN("gen", "--target=sm_80", "-DM=256", "-D", "N=384",
		"examples/gemm_tn.tc", "-o", out, "--dump-schedule");
	EXPECT_STATUS(r, 0);
	assert_true(strlen(r.err) > 0);	/* the schedule trees */
	run_free(&r);
	r = RUN("gen", "examples/gemm_tt.tc", "-o", out, "--target", "sm_70",
		"--mma", "16x16x8", "-D", "K=512");
	EXPECT_STATUS(r, 0);
	run_free(&r);
	assert_int_equal(count_entries(dir), 1);
	free(out);
}

/* Beyond what is supported: refused, nothing written. */
static void test_unsupported_refused(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "a.cu");
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--split-k", "65");
	EXPECT_STATUS(r, 1);
	assert_true(strlen(r.err) > 0);
	run_free(&r);
	/* a fixed size must be a multiple of its tile (a runtime one need
	 * not: ragged tiles), said at the contraction */
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "-D", "M=1000");
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, "examples/gemm_nn.tc:4:5: error: "
		"unsupported: the extent M (rows of the output) is 1000, not a "
		"multiple of the block tile 128"));
	assert_non_null(strstr(r.err, "left a runtime size it need not be"));
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);

	/* The fused epilogue: generated, or refused with a message. */
	r = RUN("gen", "examples/gemm_bias_relu.tc", "-o", out);
	if (r.status == 1) {
		assert_non_null(strstr(r.err, "error"));
		assert_int_equal(count_entries(dir), 0);
	} else {
		char *text;

		EXPECT_STATUS(r, 0);
		text = read_text(out);
		assert_non_null(text);
		assert_non_null(strstr(text, "__global__"));
		free(text);
	}
	run_free(&r);
	free(out);
}

static void test_check(void **state)
{
	const char *specs[] = { "examples/gemm_nn.tc", "examples/gemm_nt.tc",
		"examples/gemm_tn.tc", "examples/gemm_tt.tc",
		"examples/gemm_bias_relu.tc" };
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		r = RUN("check", specs[i]);
		EXPECT_STATUS(r, 0);
		if (!strstr(r.out, "S_") && !strchr(r.out, '{'))
			show(&r);
		assert_true(strstr(r.out, "S_") || strchr(r.out, '{'));
		/* the spec's program, not a split-K kernel's */
		assert_null(strstr(r.out, "pm_k0_"));
		run_free(&r);
	}
	/* The spec from standard input. */
	r = run_in("examples/gemm_nn.tc", (const char *const[]){ "check", "-",
		NULL });
	EXPECT_STATUS(r, 0);
	assert_true(strstr(r.out, "S_") || strchr(r.out, '{'));
	run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_no_args),
		cmocka_unit_test_setup_teardown(test_bad_command_lines,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_bad_option_values,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_missing_spec_file,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_spec_error,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(
			test_failed_header_leaves_nothing, setup_dir,
			teardown_dir),
		cmocka_unit_test_setup_teardown(test_gen, setup_dir,
			teardown_dir),
		cmocka_unit_test_setup_teardown(test_gen_header_meta,
			setup_dir, teardown_dir),
		cmocka_unit_test(test_gen_stdout),
		cmocka_unit_test_setup_teardown(test_gen_option_forms,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_unsupported_refused,
			setup_dir, teardown_dir),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests(tests, pm_test_cli_group_setup, NULL);
}

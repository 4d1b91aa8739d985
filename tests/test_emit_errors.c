#define _POSIX_C_SOURCE 200809L
/* emit and the library API, refusals: bad options, configurations the
 * target cannot build, --mma-inflight without its stages, a spec
 * error's diagnostic. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"
#include "tests/plan_util.h"

static void test_bad_options(void **state)
{
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;

	(void) state;
	assert_int_equal(polymma_options_set(o, "target", "sm_99", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(err);
	assert_int_equal(polymma_options_set(o, "target", "host", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "sm_90a"));
	assert_int_equal(polymma_options_set(o, "mma-inflight", "1", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--mma-inflight expects on or off"));
	assert_int_equal(polymma_options_set(o, "block", "128x128", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define", "M", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "define", "M=-3", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "smem", "fancy", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "frag-pipeline", "yes", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--frag-pipeline expects on or off"));
	assert_int_equal(polymma_options_set(o, "staged-store", "1", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--staged-store expects on or off"));
	assert_int_equal(polymma_options_set(o, "reg-stage", "2", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--reg-stage expects on or off"));
	assert_int_equal(polymma_options_set(o, "small-variant", "on", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "--small-variant expects auto or off"));
	assert_int_equal(polymma_options_set(o, "nonsense", "1", &err),
		POLYMMA_ERR_USAGE);
	polymma_options_free(o);
}

/* Requests the generator cannot do are POLYMMA_ERR_SPEC with a message. */
static void test_refused_configs(void **state)
{
	/* the fragment pipeline required where it cannot be built: one
	 * stage, a macro k of 32, an odd number of k-steps per tile */
	const char *fp = "--frag-pipeline on: not possible here";
	const char *cases[][5] = {
		{ "mma", "8x8x4" }, { "split-k", "65" }, { "stages", "17" },
		{ "warp", "48x64" },
		{ "frag-pipeline", "on", "stages", "1", fp },
		{ "frag-pipeline", "on", "mma", "32x32x32", fp },
		{ "frag-pipeline", "on", "block", "128x128x48", fp },
		{ "mma-inflight", "on", NULL, NULL, "--mma-inflight on: target "
		  "sm_80 has no asynchronous MMAs" },
		{ "cluster", "2", NULL, NULL, "--cluster 2: target sm_80 has "
		  "no thread-block clusters" },
		{ "cluster", "2", "target", "sm_70", "--cluster 2: target "
		  "sm_70 has no thread-block clusters" },
		{ "cluster", "2", "tma", "off", "--cluster 2: its multicast "
		  "copies are TMA's (--tma off given)" },
		{ "target", "sm_90a", "smem", "pad", "needs --smem swizzle" },
		{ "target", "sm_90a", "block", "128x128x48", "rows of 16, 32, "
		  "64 or more than 64 elements in multiples of 16" },
	};
	char *text = pm_test_read("examples/gemm_nn.tc");

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		polymma_ctx *ctx = polymma_ctx_alloc();
		polymma_options *o = polymma_options_alloc();
		polymma_result *r = (polymma_result *) 1;

		assert_int_equal(polymma_options_set(o, cases[i][0],
			cases[i][1], NULL), POLYMMA_OK);
		if (cases[i][2])
			assert_int_equal(polymma_options_set(o, cases[i][2],
				cases[i][3], NULL), POLYMMA_OK);
		assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o,
			&r), POLYMMA_ERR_SPEC);
		assert_null(r);
		assert_true(strlen(polymma_diagnostics(ctx)) > 0);
		if (cases[i][4])
			assert_non_null(strstr(polymma_diagnostics(ctx),
				cases[i][4]));
		polymma_options_free(o);
		polymma_ctx_free(ctx);
	}
	free(text);
}

/* --mma-inflight on keeps one k tile of MMAs in flight: 3 stages at least */
static void test_inflight_needs_stages(void **state)
{
	char *text = pm_test_read("examples/gemm_nn.tc");
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = (polymma_result *) 1;

	(void) state;
	assert_int_equal(polymma_options_set(o, "target", "sm_90a", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "mma-inflight", "on", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "stages", "2", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o, &r),
		POLYMMA_ERR_SPEC);
	assert_null(r);
	assert_non_null(strstr(polymma_diagnostics(ctx),
		"it needs --stages 3 or more"));
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
}

static void test_spec_error_diagnostic(void **state)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *report = NULL;
	const char *bad = "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		"  C(i, j) +=! A(i, k) * Bias(k, j)\n}\n";

	(void) state;
	assert_int_equal(polymma_generate(ctx, bad, "bad.tc", o, &r),
		POLYMMA_ERR_SPEC);
	assert_non_null(strstr(polymma_diagnostics(ctx), "bad.tc:2:"));
	assert_int_equal(polymma_check(ctx, bad, "bad.tc", o, &report),
		POLYMMA_ERR_SPEC);
	assert_null(report);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_refused_configs),
		cmocka_unit_test(test_inflight_needs_stages),
		cmocka_unit_test(test_spec_error_diagnostic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

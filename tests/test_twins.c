#define _POSIX_C_SOURCE 200809L
/* The exact twins (emit/file.c def_twins, emit/launch.c): each kernel with
 * ragged guards also printed without them, and the launcher's dispatch. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"
#include "tests/plan_util.h"

/* Each kernel with ragged sizes also comes as its exact twin (emit/print.h
 * pm_emit_twin): the code without guards, which the launcher runs where
 * the kernel's tile divides M and N; the wide and tall variants too
 * since their stores are TMA's (docs/decisions/0065-ragged-wide-tall.md),
 * exact only with an epilogue chain (0018). */
static void test_exact_twins(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *text = pm_test_read("examples/gemm_nn.tc"), *k;
	const char *src;
	static const char *const twins[] = { "", "_split", "_small", "_medium",
		"_persist", "_persist_split", "_persist_split_cl", "_small_tma",
		"_persist_mid", "_persist_sq", "_persist_narrow", "_persist_slim",
		"_persist_wide", "_persist_tall" };

	(void) state;
	assert_int_equal(polymma_options_set(o, opts[0], opts[1], NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_generate(ctx, text, "t.tc", o, &r), POLYMMA_OK);
	src = polymma_result_source(r);
	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); ++i) {
		char name[96], launch[128];

		snprintf(name, sizeof(name), " pm_kernel_gemm_nn%s(", twins[i]);
		k = kernel_text(src, name);
		assert_non_null(strstr(k, "pm_tM"));
		free(k);
		snprintf(name, sizeof(name), " pm_kernel_gemm_nn%s_x(", twins[i]);
		k = kernel_text(src, name);
		assert_null(strstr(k, "pm_tM"));
		/* nor past K (decisions/0030) */
		assert_null(strstr(k, "pm_tK"));
		assert_null(strstr(k, "_z("));
		assert_null(strstr(k, ") < M && "));
		assert_null(strstr(k, " : M - 1)"));
		assert_null(strstr(k, " : N - 8)"));
		assert_non_null(strstr(k, " < M / "));
		free(k);
		snprintf(launch, sizeof(launch), "pm_kernel_gemm_nn%s_x", twins[i]);
		/* raised and launched */
		assert_true(count(src, launch) >= 3);
	}
	/* the wide kernel: its ragged K too (its TMA boxes past K are
	 * zeros: decisions/0030) */
	k = kernel_text(src, " pm_kernel_gemm_nn_persist_wide(");
	assert_non_null(strstr(k, "c2 < pm_tK / 64"));
	free(k);
	/* the twin where the tile divides the sizes (sm_90a's launches: in
	 * pm_launch_pdl, docs/decisions/0068-pdl.md) */
	assert_non_null(strstr(src, "pm_launch_pdl((M % 64 == 0 && K % 64 == 0 "
		"&& N % 64 == 0) ? "));
	assert_non_null(strstr(src, "pm_launch_pdl((M % 128 == 0 && K % 64 == 0 "
		"&& N % 128 == 0) ? "));
	assert_non_null(strstr(src, "pm_launch_pdl((M % 128 == 0 && K % 64 == 0 "
		"&& N % 192 == 0) ? "));
	/* the variant table: a twin flag on each of those rows; the plan's
	 * choice launches the twin where the row's tile divides M and N
	 * (H100 model), the wide row's guarded kernel on ragged M */
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		struct pm_rt_choice c;
		const int nv = pm_test_rows("gemm_nn", "sm_90a", NULL, rows, &f);

		for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); ++i) {
			const int r = pm_test_row(rows, nv, twins[i]);

			assert_true(r >= 0);
			assert_int_equal(rows[r].flags & (PM_RT_TWIN | PM_RT_EXACT),
				PM_RT_TWIN);
		}
		pm_test_plan_suffix("gemm_nn", "sm_90a", NULL, 4095, 4096,
			4096, &c);
		assert_true(c.v == pm_test_row(rows, nv, "_persist_wide") &&
			!c.exact);
		pm_test_plan_suffix("gemm_nn", "sm_90a", NULL, 4096, 4096,
			4096, &c);
		assert_true(c.v == pm_test_row(rows, nv, "_persist_wide") &&
			c.exact);
		pm_test_plan_suffix("gemm_nn", "sm_90a", NULL, 2560, 3840, 3968,
			&c);
		assert_true(c.v == pm_test_row(rows, nv, "_persist") && c.exact);
		pm_test_plan_suffix("gemm_nn", "sm_90a", NULL, 2560, 3776, 3968,
			&c);
		assert_true(c.v == pm_test_row(rows, nv, "_persist") && !c.exact);
		pm_test_plan_suffix("gemm_nn", "sm_90a", NULL, 1920, 3840, 1664,
			&c);
		assert_true(c.v == pm_test_row(rows, nv, "_persist_wide") &&
			c.exact);
		/* the fill rule counts elements, not tiles: 1281x8000 is 11 x
		 * 32 wide tiles, 89 % of 3 waves, but their last row and
		 * column are mostly empty: 1281 x 8000 / (3 x 132 x 128 x
		 * 256) = 79 % (without the mid row, which the plan takes
		 * there after the fill rule) */
		assert_string_equal(pm_test_launch_without("gemm_nn", "sm_90a",
			NULL, 1281, 8000, 4096, "_persist_mid"),
			"_persist_split,s=4");
		assert_string_equal(pm_test_launch_without("gemm_nn", "sm_90a",
			NULL, 4095, 4096, 4096, "_persist_mid"), "_persist_wide");
	}
	/* an epilogue chain keeps them exact (0018), and the plan off them
	 * on ragged sizes */
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		struct pm_rt_choice c;
		const int nv = pm_test_rows("gemm_epilogue_chain", "sm_90a",
			NULL, rows, &f);

		assert_int_equal(rows[pm_test_row(rows, nv, "_persist_wide")].flags,
			PM_RT_EXACT);
		assert_int_equal(rows[pm_test_row(rows, nv, "_persist_tall")].flags,
			PM_RT_EXACT);
		pm_test_plan_suffix("gemm_epilogue_chain", "sm_90a", NULL, 4096,
			14336, 4096, &c);
		assert_true(c.v == pm_test_row(rows, nv, "_persist_wide"));
		pm_test_plan_suffix("gemm_epilogue_chain", "sm_90a", NULL, 4095,
			14336, 4096, &c);
		assert_true(c.v != pm_test_row(rows, nv, "_persist_wide") &&
			c.v != pm_test_row(rows, nv, "_persist_tall"));
	}
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
}

/* The spec the generated file prints (its plan's facts and cost models)
 * is the library's, every field in order (a field the printer forgot
 * reads 0 in the file and silently turns its rule off). */
static void test_printed_spec(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *text = pm_test_read("examples/gemm_nn.tc");
	struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	int want[sizeof(f) / sizeof(int)], n = 0;
	const char *p;

	(void) state;
	assert_int_equal(sizeof(f) % sizeof(int), 0);
	assert_true(pm_test_rows("gemm_nn", "sm_90a", NULL, rows, &f) > 0);
	memcpy(want, &f, sizeof(f));
	assert_int_not_equal(f.big.mid, 0);
	assert_int_equal(polymma_options_set(o, opts[0], opts[1], NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_generate(ctx, text, "t.tc", o, &r), POLYMMA_OK);
	p = strstr(polymma_result_source(r), "pm_spec_gemm_nn = {");
	assert_non_null(p);
	for (p += strlen("pm_spec_gemm_nn = {"); *p && *p != ';'; ++p) {
		char *end;
		long v;

		if (*p != '-' && (*p < '0' || *p > '9'))
			continue;
		v = strtol(p, &end, 10);
		assert_true(n < (int) (sizeof(want) / sizeof(int)));
		assert_int_equal(v, want[n]);
		++n;
		p = end - 1;
	}
	assert_int_equal(n, (int) (sizeof(want) / sizeof(int)));
	/* i32 accumulators: no rates for the rule among the big rows
	 * (docs/decisions/0066), wide where the f16 file runs mid */
	assert_true(pm_test_rows("../tests/specs/gemm_i8_nt", "sm_90a", NULL,
		rows, &f) > 0);
	assert_int_equal(f.big.wide + f.big.tall + f.big.mid + f.big.sq, 0);
	assert_string_equal(pm_test_launch("../tests/specs/gemm_i8_nt",
		"sm_90a", NULL, 4096, 14336, 4096), "_persist_wide");
	assert_string_equal(pm_test_launch("gemm_nn", "sm_90a", NULL, 4096,
		14336, 4096), "_persist_mid");
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_twins),
		cmocka_unit_test(test_printed_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#define _POSIX_C_SOURCE 200809L
/* The variant set per spec and target (variant/variant.c), as a golden:
 * tests/golden/variants.txt has one block per case, one line per row of
 * the target's table (built, with its resolved configuration, or why
 * not).  PM_UPDATE_GOLDEN=1 rewrites it; review the diff: a changed line
 * is a kernel a file gains, loses or builds differently.  Also: the
 * tables themselves (roles unique, in file order, derived rows after
 * their source). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <isl/ctx.h>

#include "api/options.h"
#include "polymma.h"
#include "schedule_tree/tree.h"
#include "target/target.h"
#include "tests/util.h"
#include "variant/variant.h"

struct vcase {
	const char *spec, *target, *opt;
};

/* The configuration polymma_options_set makes of target and opt
 * ("key=value" or ""). */
static void config(struct pm_config *c, const char *target, const char *opt)
{
	polymma_options *o = polymma_options_alloc();
	char key[64];
	const char *eq = strchr(opt, '=');

	assert_non_null(o);
	assert_int_equal(pm_options_set_internal(o, strcmp(target, "host") ?
		"target" : "host-target", strcmp(target, "host") ? target :
		"on", NULL), 0);
	if (eq) {
		snprintf(key, sizeof(key), "%.*s", (int) (eq - opt), opt);
		assert_int_equal(polymma_options_set(o, key, eq + 1, NULL), 0);
	}
	*c = *pm_options_config(o);
	polymma_options_free(o);
}

static const struct vcase cases[] = {
	{ "gemm_nn", "sm_70", "" }, { "gemm_nn", "sm_80", "" },
	{ "gemm_nn", "sm_90a", "" }, { "gemm_nt", "sm_90a", "" },
	{ "gemm_tn", "sm_90a", "" }, { "gemm_tt", "sm_90a", "" },
	{ "gemm_bias_relu", "sm_80", "" }, { "gemm_bias_relu", "sm_90a", "" },
	{ "relu_gemm", "sm_80", "" }, { "relu_gemm", "sm_90a", "" },
	{ "add_gemm", "sm_80", "" }, { "add_gemm", "sm_90a", "" },
	{ "gemm_epilogue_chain", "sm_90a", "" },
	{ "gemm_nn", "sm_90a", "persistent=on" },
	{ "gemm_nn", "sm_90a", "mma-inflight=on" },
	{ "gemm_nn", "sm_90a", "cluster=1" },
	{ "gemm_nn", "sm_90a", "tma=off" },
	{ "gemm_nn", "sm_90a", "split-k=2" },
	{ "gemm_nn", "sm_90a", "small-variant=off" },
	{ "gemm_nn", "sm_90a", "block=128x128x64" },
	{ "relu_gemm", "sm_90a", "cluster=1" },
	{ "gemm_nn", "host", "smem=pad" },
	{ "tests/specs/gemm_f32out", "sm_90a", "" },
	{ "tests/specs/gemm_f32out", "sm_90a", "block=256x256x64" },
	/* bf16 operands (docs/decisions/0026): the rows of f16 */
	{ "tests/specs/gemm_bf16_nn", "sm_70", "" },
	{ "tests/specs/gemm_bf16_nn", "sm_80", "" },
	{ "tests/specs/gemm_bf16_nn", "sm_90a", "" },
	{ "tests/specs/gemm_bf16_nt", "sm_90a", "" },
	{ "tests/specs/gemm_bf16_tn", "sm_90a", "" },
	{ "tests/specs/gemm_bf16_tt", "sm_90a", "" },
	{ "tests/specs/gemm_bf16_f32out", "sm_90a", "" },
	{ "tests/specs/gemm_bf16_bias_relu", "sm_80", "" },
	{ "tests/specs/gemm_bf16_bias_relu", "sm_90a", "" },
	{ "tests/specs/relu_gemm_bf16", "sm_90a", "" },
	{ "tests/specs/add_gemm_bf16", "sm_90a", "" },
	{ "tests/specs/gemm_bf16_nn", "sm_90a", "persistent=on" },
	{ "tests/specs/gemm_bf16_nn", "host", "smem=pad" },
	/* two accumulators: no row past 128 accumulator registers a thread
	 * (docs/decisions/0028) */
	{ "tests/specs/add_gemm_res_pro", "sm_90a", "" },
	/* 8-bit floats (docs/decisions/0029): sm_90a only; tiles of the
	 * f16 rows, half their shared memory (1-byte elements) */
	{ "tests/specs/gemm_f8e4m3_nt", "sm_80", "" },
	{ "tests/specs/gemm_f8e4m3_nt", "sm_90a", "" },
	{ "tests/specs/gemm_f8e4m3_nt", "sm_90a", "persistent=on" },
	{ "tests/specs/gemm_f8e4m3_nt", "sm_90a", "block=128x128x128" },
	{ "tests/specs/gemm_f8e5m2_nt", "sm_90a", "" },
	{ "tests/specs/gemm_f8e4m3_scale", "sm_90a", "" },
	{ "tests/specs/add_gemm_f8e4m3", "sm_90a", "" },
	/* i8: i32 accumulators are not split (no split-K rows) */
	{ "tests/specs/gemm_i8_nt", "sm_90a", "" },
	{ "tests/specs/gemm_i8_nt", "sm_90a", "persistent=on" },
	{ "tests/specs/gemm_i8_dequant", "sm_90a", "" },
	/* i8 on sm_80 (docs/decisions/0032): block k 64 (64-byte rows),
	 * macro k 32, base and small rows */
	{ "tests/specs/gemm_i8_nt", "sm_80", "" },
	{ "tests/specs/gemm_i8_dequant", "sm_80", "" },
	{ "tests/specs/add_gemm_i8", "sm_80", "" },
	{ "tests/specs/gemm_i8_nt", "sm_80", "smem=pad" },
	/* MN-major 8-bit operands: the kernels read K-major copies, the
	 * rows are those of K-major specs (docs/decisions/0033) */
	{ "tests/specs/gemm_f8e4m3_nn", "sm_90a", "" },
	{ "tests/specs/gemm_i8_nn", "sm_90a", "" },
	{ "tests/specs/gemm_f8e5m2_tn", "host", "smem=pad" },
	/* a shared operand (scop->join): two accumulators in one k loop */
	{ "tests/specs/swiglu", "sm_70", "" },
	{ "tests/specs/swiglu", "sm_80", "" },
	{ "tests/specs/swiglu", "sm_90a", "" },
	{ "tests/specs/swiglu", "sm_90a", "persistent=on" },
	{ "tests/specs/swiglu_shared_b", "sm_90a", "" },
	/* batched: the batch in blockIdx.z, no split nor persistent rows
	 * (docs/decisions/0036) */
	{ "tests/specs/bmm_nn", "sm_70", "" },
	{ "tests/specs/bmm_nn", "sm_80", "" },
	{ "tests/specs/bmm_nn", "sm_90a", "" },
	{ "tests/specs/bmm_bcast_b", "sm_90a", "" },
	{ "tests/specs/bmm_bias", "sm_80", "" },
	{ "tests/specs/bmm_bias", "sm_90a", "" },
	{ "tests/specs/bmm_nn", "host", "smem=pad" },
	/* grouped: no persistent, split nor _medium rows (0045) */
	{ "tests/specs/moe_up", "sm_70", "" },
	{ "tests/specs/moe_up", "sm_80", "" },
	{ "tests/specs/moe_up", "sm_90a", "" },
	{ "tests/specs/moe_up", "host", "smem=pad" },
	/* epilogue reductions (docs/decisions/0037): no split, no
	 * persistent rows, the reasons recorded */
	{ "tests/specs/gemm_rowsum", "sm_70", "" },
	{ "tests/specs/gemm_rowsum", "sm_80", "" },
	{ "tests/specs/gemm_rowsum", "sm_90a", "" },
	{ "tests/specs/gemm_colsum", "sm_90a", "" },
	{ "tests/specs/gemm_rowmax", "host", "smem=pad" },
	/* prologues reading vectors (docs/decisions/0039): applied in
	 * shared memory, no TMA for that contraction on sm_90a (the rows of
	 * tests/specs/pro_b_gemm.tc) */
	{ "tests/specs/gemm_dequant_b", "sm_70", "" },
	{ "tests/specs/gemm_dequant_b", "sm_80", "" },
	{ "tests/specs/gemm_dequant_b", "sm_90a", "" },
	{ "tests/specs/gemm_scale_a_k", "sm_90a", "" },
	{ "tests/specs/gemm_dequant_zs", "sm_90a", "" },
	/* i8 weights (docs/decisions/0047): the persistent rows read the
	 * operand the launcher widened (docs/decisions/0059) */
	{ "tests/specs/gemm_w8", "sm_80", "" },
	{ "tests/specs/gemm_w8", "sm_90a", "" },
	{ "tests/specs/gemm_w8_zp", "sm_90a", "" },
	{ "tests/specs/gemm_w8_bf16", "sm_90a", "" },
	{ "tests/specs/bmm_dequant", "sm_90a", "" },
	{ "tests/specs/moe_w8", "sm_90a", "" },
	/* three contractions: tiles fitted to three accumulators, the rows
	 * past 128 accumulator registers a thread not built */
	{ "tests/specs/gemm3", "sm_70", "" },
	{ "tests/specs/gemm3", "sm_80", "" },
	{ "tests/specs/gemm3", "sm_90a", "" },
	{ "tests/specs/gemm3", "host", "smem=pad" },
};

static struct pm_spec *load(const char *name)
{
	char path[128], *text;
	struct pm_diags d;
	struct pm_spec *spec;

	snprintf(path, sizeof(path), strchr(name, '/') ? "%s.tc" :
		"examples/%s.tc", name);
	text = pm_test_read(path);
	assert_non_null(text);
	pm_diags_init(&d, path, text);
	spec = pm_spec_parse(text, path, &d);
	pm_diags_clear(&d);
	free(text);
	return spec;
}

/* The report of one case into f. */
static void report(const struct vcase *vc, FILE *f)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_spec *spec = load(vc->spec);
	struct pm_variant_set *vs = malloc(sizeof(*vs));
	struct pm_config c;
	struct pm_diags d;

	assert_non_null(spec);
	assert_non_null(vs);
	config(&c, vc->target, vc->opt);
	pm_diags_init(&d, vc->spec, NULL);
	fprintf(f, "== %s %s %s\n", vc->spec, vc->target, vc->opt);
	if (pm_variant_set_build(ctx, spec, &c, vs, &d) == 0)
		pm_variant_set_report(vs, f);
	else
		fprintf(f, "error: %s", pm_diags_text(&d));
	pm_variant_set_clear(vs);
	pm_diags_clear(&d);
	free(vs);
	pm_spec_free(spec);
	isl_ctx_free(ctx);
}

static void test_variant_sets_golden(void **state)
{
	const char *path = "tests/golden/variants.txt";
	char *buf = NULL, *golden;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void) state;
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i)
		report(&cases[i], f);
	fclose(f);
	if (getenv("PM_UPDATE_GOLDEN")) {
		FILE *g = fopen(path, "w");

		assert_non_null(g);
		fputs(buf, g);
		fclose(g);
	}
	golden = pm_test_read(path);
	assert_non_null(golden);
	if (strcmp(golden, buf)) {
		fprintf(stderr, "the variant sets differ from %s:\n%s", path,
			buf);
		fail();
	}
	free(golden);
	free(buf);
}

/* Every target's table: roles unique, row 0 the base, derived rows after
 * the row they derive from, suffixes distinct. */
static void test_tables_well_formed(void **state)
{
	const char *names[] = { "sm_70", "sm_80", "sm_90a", "host" };

	(void) state;
	for (int i = 0; i < 4; ++i) {
		const struct pm_target *t = pm_target_find(names[i]);
		int seen[PM_RT_NROLES] = { 0 };

		assert_non_null(t);
		assert_true(t->nvariants >= 1);
		assert_int_equal(t->variants[0].role, PM_RT_BASE);
		for (int r = 0; r < t->nvariants; ++r) {
			const struct pm_variant_desc *v = &t->variants[r];

			assert_true(v->role < PM_RT_NROLES);
			assert_false(seen[v->role]);
			seen[v->role] = 1;
			assert_true(v->from == PM_RT_NROLES || seen[v->from]);
			assert_ptr_equal(pm_target_variant(t, v->role), v);
			for (int q = 0; q < r; ++q)
				assert_string_not_equal(t->variants[q].suffix,
					v->suffix);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_well_formed),
		cmocka_unit_test(test_variant_sets_golden),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

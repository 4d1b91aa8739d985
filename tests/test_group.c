/* Grouped contractions (docs/LANGUAGE.md "Grouped contractions",
 * docs/decisions/0045-grouped-contractions.md):
 *  - the front end: `group e by offs` parsed, printed back, its misuses
 *    diagnosed at their place; the reference's per-group rows on a case
 *    computed by hand;
 *  - the spec the kernels see (variant/group.c) and its refusals, with
 *    their class and location;
 *  - isl: one group's domain, every dependence inside one row (the rows
 *    may be split among groups), the kernel legal after every pass on
 *    every target;
 *  - host renderings of tests/specs/moe_*.tc (one contraction, a
 *    per-group scale with a row scale and a residual, two contractions
 *    sharing X) called once per group, as
 *    blockIdx.z runs them, against the reference (frontend/eval.c) with
 *    groups of 0, 1, 7, 127 and 129 rows, E 1, 2 and 3, rows past
 *    offs(E - 1) and offsets past the rows, the outputs poisoned (rows
 *    of no group must stay so), built with AddressSanitizer;
 *  - the CUDA kernels' units (group, tile): the unit search of the
 *    generated file, compiled as C, finds every tile of every group
 *    exactly once over the launch's grid (empty groups, one-row groups,
 *    offsets past T, 64 groups);
 *  - the sm_90a file: no persistent rows, the unit search, the group's
 *    first row in X's TMA coordinate, W's 3-D map. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isl/ctx.h>
#include <isl/map.h>
#include <isl/union_map.h>

#include "api/pipeline.h"
#include "frontend/eval.h"
#include "poly/poly.h"
#include "poly/strbuf.h"
#include "schedule_tree/tree.h"
#include "target/target.h"
#include "tests/frontend_util.h"
#include "tests/host_render_util.h"
#include "tests/util.h"
#include "variant/group.h"
#include "polymma.h"

#define MOE_HDR "def f(f16(T, K) X, f16(E, K, N) W, f16(E, N) bias, " \
	"i32(E) offs) -> (f16(T, N) Y) {\n"

static struct pm_spec *parse_file(const char *path)
{
	char *text = pm_test_read(path);
	struct pm_spec *s;

	assert_non_null(text);
	s = parse_ok(text);
	free(text);
	return s;
}

/* ---- The front end ---- */

static void test_parse(void **state)
{
	struct pm_spec *s = parse_file("tests/specs/moe_up.tc"), *r;
	const struct pm_stmt *st = &s->stmts[0];
	const struct pm_expr *w = st->rhs->args[1];
	char *text;

	(void) state;
	assert_int_equal(s->grouped, 1);
	assert_string_equal(s->tensors[s->group_offs].name, "offs");
	/* Z(i, j) +=! X(i, k) * W(e, k, j): i j k, then e past them */
	assert_int_equal(st->grouped, 1);
	assert_int_equal(st->nvars, 3);
	assert_string_equal(st->vars[3], "e");
	assert_int_equal(w->idx[0], 3);
	assert_int_equal(w->idx[1], 2);
	/* Y(i, j) = silu(Z(i, j) + bias(e, j)): e bound, variable 2 */
	assert_int_equal(s->stmts[1].grouped, 1);
	assert_int_equal(s->stmts[1].nvars, 2);
	assert_string_equal(s->stmts[1].vars[2], "e");
	assert_string_equal(expr_text(s, 1), "silu(Z(i, j) + bias(e, j))");
	/* printed back with the clause, and parsed again to the same */
	text = strdup(spec_text(s));
	assert_non_null(strstr(text, "    Z(i, j) +=! X(i, k) * W(e, k, j)   "
		"group e by offs\n    Y(i, j) = silu"));
	r = parse_ok(text);
	assert_string_equal(spec_text(r), text);
	free(text);
	pm_spec_free(r);
	/* a copy keeps the group index */
	r = pm_spec_copy(s);
	assert_non_null(r);
	assert_string_equal(r->stmts[0].vars[3], "e");
	assert_int_equal(r->grouped, 1);
	pm_spec_free(r);
	pm_spec_free(s);
	/* without the clause e is a reduction index as before */
	s = parse_ok("def f(f16(T, K) X, f16(E, K, N) W) -> (f16(T, N) Y) {\n"
		"  Y(i, j) +=! X(i, k) * W(e, k, j)\n}\n");
	assert_int_equal(s->grouped, 0);
	assert_int_equal(s->stmts[0].nvars, 4);
	pm_spec_free(s);
}

static void test_parse_errors(void **state)
{
	(void) state;
	/* the clause after an assignment */
	parse_err("def f(f16(T, N) X, f16(E, N) b, i32(E) offs) -> (f16(T, N) Y) "
		"{\n  Y(i, j) = X(i, j) + b(e, j) group e by offs\n}\n",
		"t.tc:2:31: error: ", "'group' follows a contraction ('+=!')");
	/* no 'by' */
	parse_err(MOE_HDR "  Y(i, j) +=! X(i, k) * W(e, k, j) group e offs\n}\n",
		"t.tc:2:44: error: ", "expected 'by' after the group index");
	/* offs undeclared, of another type, of another rank, an output */
	parse_err(MOE_HDR "  Y(i, j) +=! X(i, k) * W(e, k, j) group e by o\n}\n",
		"t.tc:2:47: error: ", "tensor 'o' is not declared");
	parse_err("def f(f16(T, K) X, f16(E, K, N) W, f32(E) offs) -> "
		"(f16(T, N) Y) {\n  Y(i, j) +=! X(i, k) * W(e, k, j) group e "
		"by offs\n}\n", "t.tc:2:47: error: ", "'offs' must be an input "
		"of type i32 and rank 1");
	parse_err("def f(f16(T, K) X, f16(E, K, N) W, i32(E, E) offs) -> "
		"(f16(T, N) Y) {\n  Y(i, j) +=! X(i, k) * W(e, k, j) group e "
		"by offs\n}\n", "t.tc:2:47: error: ", "'offs' must be an input "
		"of type i32 and rank 1");
	parse_err("def f(f16(T, K) X, f16(E, K, N) W) -> (f16(T, N) Y, i32(E) "
		"offs) {\n  Y(i, j) +=! X(i, k) * W(e, k, j) group e by offs\n"
		"  offs(e) = W(e, 0, 0)\n}\n", "t.tc:2:47: error: ", "'offs' "
		"must be an input");
	/* e an index of the output, here and later in the chain */
	parse_err(MOE_HDR "  Y(e, j) +=! X(i, k) * W(e, k, j) group e by offs\n}\n",
		"t.tc:2:5: error: ", "the group index 'e' is an index of 'Y'; "
		"it indexes no output");
	parse_err(MOE_HDR "  Z(i, j) +=! X(i, k) * W(e, k, j) group e by offs\n"
		"  Y(i, e) = Z(i, e)\n}\n", "t.tc:3:8: error: ",
		"the group index 'e' is an index of 'Y'");
	/* e not the first index of a per-group tensor */
	parse_err("def f(f16(T, K) X, f16(K, E, N) W, i32(E) offs) -> "
		"(f16(T, N) Y) {\n  Y(i, j) +=! X(i, k) * W(k, e, j) group e "
		"by offs\n}\n", "t.tc:2:30: error: ", "the group index 'e' is "
		"index 2 of 'W'; a per-group tensor has it first");
	/* extents: W's groups are not offs' */
	parse_err("def f(f16(T, K) X, f16(F, K, N) W, i32(E) offs) -> "
		"(f16(T, N) Y) {\n  Y(i, j) +=! X(i, k) * W(e, k, j) group e "
		"by offs\n}\n", "t.tc:2:27: error: ", "index 'e' ranges over F "
		"here (dimension 1 of 'W') but over E in 'offs'");
	/* a reduction after the grouped contraction */
	parse_err(MOE_HDR "  Y(i, j) +=! X(i, k) * W(e, k, j) group e by offs\n"
		"  S(i) +=! Y(i, j)\n}\n", "t.tc:3:3: error: ",
		"after a grouped contraction every statement writes rows of "
		"groups");
	/* two clauses of different indices */
	parse_err("def f(f16(T, K) X, f16(E, K, N) W, f16(E, K, N) V, i32(E) "
		"offs) -> (f16(T, N) Y) {\n  A(i, j) +=! X(i, k) * W(e, k, j) "
		"group e by offs\n  B(i, j) +=! X(i, k) * V(g, k, j) group g by "
		"offs\n  Y(i, j) = A(i, j) + B(i, j)\n}\n", "t.tc:3:36: error: ",
		"one group index per spec: 'group g by offs' after 'group e "
		"by offs'");
	/* a reserved name */
	parse_err("def f(f16(T, K) X, f16(E, K, N) W, i32(E) offs) -> "
		"(f16(T, N) Y) {\n  Y(i, j) +=! X(i, k) * W(pm_e, k, j) group "
		"pm_e by offs\n}\n", "t.tc:2:", "'pm_e': names starting with "
		"'pm_' are reserved");
}

/* The reference by hand: T 5, K 1, N 1, E 3, offs 1 1 3 (group 1
 * empty): row 0 group 0, rows 1 and 2 group 2, rows 3 and 4 of none
 * keep their value. */
static void test_reference(void **state)
{
	struct pm_spec *s = parse_ok("def f(f32(T, K) X, f32(E, K, N) W, "
		"f32(E, N) b, i32(E) offs) -> (f32(T, N) Y) {\n"
		"  Z(i, j) +=! X(i, k) * W(e, k, j) group e by offs\n"
		"  Y(i, j) = Z(i, j) + b(e, j)\n}\n");
	float X[5] = { 1, 2, 3, 4, 5 }, W[3] = { 10, 100, 1000 };
	float b[3] = { 1, 2, 3 }, Y[5] = { -1, -1, -1, -7, -9 };
	int32_t offs[3] = { 1, 1, 3 };
	int64_t sizes[4];
	void *bufs[6] = { X, W, b, offs, Y, NULL };
	static const float want[5] = { 11, 2003, 3003, -7, -9 };

	(void) state;
	for (int i = 0; i < s->nsyms; ++i)
		sizes[i] = s->syms[i].name[0] == 'T' ? 5 :
			s->syms[i].name[0] == 'E' ? 3 : 1;
	assert_int_equal(pm_spec_eval(s, sizes, bufs), PM_EVAL_OK);
	for (int i = 0; i < 5; ++i)
		assert_true(Y[i] == want[i]);
	/* offsets past the rows are clamped: offs 2 9 9, rows 2.. group 1 */
	offs[0] = 2, offs[1] = 9, offs[2] = 9;
	assert_int_equal(pm_spec_eval(s, sizes, bufs), PM_EVAL_OK);
	assert_true(Y[0] == 11 && Y[1] == 21 && Y[4] == 502);
	pm_spec_free(s);
}

/* ---- The kernels' spec and the refusals ---- */

static void test_view(void **state)
{
	struct pm_spec *s = parse_file("tests/specs/moe_scale.tc"), *k;
	struct pm_diags d;

	(void) state;
	pm_diags_init(&d, "t", NULL);
	assert_int_equal(pm_group_spec(s, &k, &d), 0);
	pm_diags_clear(&d);
	assert_non_null(k);
	assert_int_equal(k->nbatch, 1);
	assert_int_equal(k->bdims[0].sym, s->tensors[5].dims[0].sym);
	assert_string_equal(k->syms[k->group_rows].name, "T");
	/* X W scale s R offs Y Z: per group W scale; rows X s R Y Z */
	for (int t = 0; t < k->ntensors; ++t) {
		const char *n = k->tensors[t].name;
		int per = !strcmp(n, "W") || !strcmp(n, "scale");

		assert_int_equal(k->tensors[t].batch, per);
		assert_int_equal(k->tensors[t].grows, !per && strcmp(n, "offs"));
		assert_int_equal(k->tensors[t].rank, s->tensors[t].rank - per);
	}
	assert_int_equal(k->stmts[0].grouped, 0);
	assert_null(k->stmts[0].vars[3]);
	assert_int_equal(k->stmts[0].rhs->args[1]->nidx, 2);
	assert_int_equal(k->stmts[0].rhs->args[1]->idx[0], 1);
	/* the user's spec is untouched */
	assert_int_equal(s->stmts[0].rhs->args[1]->nidx, 3);
	pm_spec_free(k);
	pm_spec_free(s);
}

static void test_refusals(void **state)
{
	static const struct {
		const char *text, *target, *msg, *loc;
		int split, persistent;
		const char *define;
	} cases[] = {
		/* the rows read as columns */
		{ "def f(f16(K, T) X, f16(E, K, N) W, i32(E) offs) -> "
		  "(f16(T, N) Y) {\n  Y(i, j) +=! X(k, i) * W(e, k, j) group e "
		  "by offs\n}\n", "sm_80", "'X': a grouped contraction reads "
		  "its rows", "t.tc:2:15: error: unsupported: ", 1, -1, NULL },
		/* fixed rows */
		{ "def f(f16(64, K) X, f16(E, K, N) W, i32(E) offs) -> "
		  "(f16(64, N) Y) {\n  Y(i, j) +=! X(i, k) * W(e, k, j) group e "
		  "by offs\n}\n", "sm_80", "the rows of a grouped contraction "
		  "have a fixed extent", "t.tc:2:3: error: unsupported: ", 1, -1,
		  NULL },
		/* a per-group tensor with rows */
		{ "def f(f16(T, K) X, f16(E, K, N) W, f16(E, T, N) R, i32(E) "
		  "offs) -> (f16(T, N) Y) {\n  Z(i, j) +=! X(i, k) * W(e, k, j) "
		  "group e by offs\n  Y(i, j) = Z(i, j) + R(e, i, j)\n}\n",
		  "sm_80", "'R': a grouped contraction reads its rows",
		  "t.tc:3:23: error: unsupported: ", 1, -1, NULL },
		/* a statement before the grouped contraction */
		{ "def f(f16(T, K) X, f16(E, K, N) W, f16(K, N) V, i32(E) offs) "
		  "-> (f16(T, N) Y) {\n  A(i, j) +=! X(i, k) * V(k, j)\n"
		  "  Y(i, j) +=! X(i, k) * W(e, k, j) group e by offs\n}\n",
		  "sm_80", "a statement before the grouped contraction",
		  "t.tc:2:3: error: unsupported: ", 1, -1, NULL },
		/* batch indices beside the group */
		{ "def f(f16(B, T, K) X, f16(E, K, N) W, i32(E) offs) -> "
		  "(f16(B, T, N) Y) {\n  Y(b, i, j) +=! X(b, i, k) * W(e, k, j) "
		  "group e by offs\n}\n", "sm_80", "'Y': a grouped spec's "
		  "statements write matrices", "t.tc:2:3: error: unsupported: ",
		  1, -1, NULL },
		/* options: split, the rows fixed */
		{ MOE_HDR "  Y(i, j) +=! X(i, k) * W(e, k, j) group e by offs\n}\n",
		  "sm_80", "--split-k 2: a grouped spec's blocks run units "
		  "(group, tile)", "error: ", 2, -1, NULL },
		{ MOE_HDR "  Y(i, j) +=! X(i, k) * W(e, k, j) group e by offs\n}\n",
		  "sm_80", "-D T: the rows of a grouped contraction are each "
		  "group's", "t.tc:1:11: error: unsupported: ", 1, -1, "T" },
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct pm_spec *s = parse_ok(cases[i].text);
		struct pm_config cfg;
		struct pm_output out = { 0 };
		struct pm_diags d;

		memset(&cfg, 0, sizeof(cfg));
		cfg.target = pm_target_find(cases[i].target);
		cfg.split_k = cases[i].split;
		cfg.persistent = cases[i].persistent;
		cfg.tma = -1;
		if (cases[i].define) {
			snprintf(cfg.defines[0].name, sizeof(cfg.defines[0].name),
				"%s", cases[i].define);
			cfg.defines[0].value = 256;
			cfg.ndefines = 1;
		}
		pm_diags_init(&d, "t.tc", cases[i].text);
		assert_int_not_equal(pm_pipeline_generate(s, &cfg, &out, &d), 0);
		if (!strstr(pm_diags_text(&d), cases[i].msg) ||
		    !strstr(pm_diags_text(&d), cases[i].loc))
			fail_msg("case %zu: %s", i, pm_diags_text(&d));
		assert_null(strstr(pm_diags_text(&d), "internal"));
		pm_diags_clear(&d);
		pm_output_clear(&out);
		pm_spec_free(s);
	}
}

/* `check` (the library's polymma_check): one group's program under a
 * line naming the offsets; a refused read is a spec error there too; the
 * offsets' tensor through polymma_spec_group_offsets. */
static void test_check(void **state)
{
	char *text = pm_test_read("tests/specs/moe_up.tc"), *report = NULL;
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_spec *ps = NULL;

	(void) state;
	assert_non_null(text);
	assert_int_equal(polymma_check(ctx, text, "moe_up.tc", o, &report),
		POLYMMA_OK);
	assert_non_null(strstr(report, "# grouped by 'offs': below, one "
		"group's program (rows 'T': the group's"));
	assert_non_null(strstr(report, "S_0[d0, d1, d2] -> W[d2, d1]"));
	free(report);
	assert_int_equal(polymma_spec_parse(ctx, text, "moe_up.tc", &ps),
		POLYMMA_OK);
	assert_int_equal(polymma_spec_group_offsets(ps), 3);
	polymma_spec_free(ps);
	free(text);
	report = NULL;
	assert_int_equal(polymma_check(ctx, "def f(f16(K, T) X, f16(E, K, N) W, "
		"i32(E) offs) -> (f16(T, N) Y) {\n  Y(i, j) +=! X(k, i) * "
		"W(e, k, j) group e by offs\n}\n", "t.tc", o, &report),
		POLYMMA_ERR_SPEC);
	assert_null(report);
	assert_non_null(strstr(polymma_diagnostics(ctx), "t.tc:2:15: error: "
		"unsupported: 'X': a grouped contraction reads its rows"));
	assert_int_equal(polymma_spec_parse(ctx, "def f(f16(M, K) A, f16(K, N) "
		"B) -> (f16(M, N) C) {\n  C(i, j) +=! A(i, k) * B(k, j)\n}\n",
		"g.tc", &ps), POLYMMA_OK);
	assert_int_equal(polymma_spec_group_offsets(ps), -1);
	polymma_spec_free(ps);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

/* ---- isl ---- */

/* One group's domain: every dependence keeps its row (dimension 0 of
 * every statement equal on both sides), so the rows may be split among
 * groups, each group's on its own blocks; the kernel (one group) is
 * legal after every pass on every target. */
static void test_legal(void **state)
{
	static const char *const specs[] = { "tests/specs/moe_up.tc",
		"tests/specs/moe_scale.tc", "tests/specs/moe_swiglu.tc" };
	static const char *const passes[] = { "tile_block", "strip_k",
		"tile_warp", "contract" };
	static const char *const targets[] = { "sm_70", "sm_80", "sm_90a" };

	(void) state;
	for (size_t f = 0; f < sizeof(specs) / sizeof(specs[0]); ++f) {
		struct pm_spec *s = parse_file(specs[f]), *g;
		isl_ctx *ctx = isl_ctx_alloc();
		struct pm_config cfg;
		struct pm_diags d;
		struct pm_scop *scop;
		isl_union_map *deps;
		isl_bool ok = isl_bool_true;

		memset(&cfg, 0, sizeof(cfg));
		cfg.target = pm_target_find("sm_80");
		cfg.split_k = 1;
		pm_diags_init(&d, "t", NULL);
		assert_int_equal(pm_group_spec(s, &g, &d), 0);
		scop = pm_scop_build(ctx, g, &cfg, &d);
		assert_non_null(scop);
		deps = pm_scop_deps(scop);
		assert_false(isl_union_map_is_empty(deps));
		for (int m = 0; m < isl_union_map_n_map(deps) && ok; ++m) {
			isl_map_list *l = isl_union_map_get_map_list(deps);
			isl_map *x = isl_map_list_get_at(l, m);
			isl_map *same = isl_map_equate(isl_map_copy(x),
				isl_dim_in, 0, isl_dim_out, 0);

			ok = isl_map_is_subset(x, same);
			isl_map_free(same);
			isl_map_free(x);
			isl_map_list_free(l);
		}
		assert_true(ok == isl_bool_true);
		isl_union_map_free(deps);
		pm_scop_free(scop);
		pm_spec_free(g);
		for (int t = 0; t < 3; ++t)
			for (int p = 0; p < 4; ++p) {
				struct pm_kernel *k;

				memset(&cfg, 0, sizeof(cfg));
				cfg.target = pm_target_find(targets[t]);
				cfg.split_k = cfg.stages = 1;
				cfg.tma = -1;
				k = pm_pipeline_until(ctx, s, &cfg, passes[p], &d);
				if (!k)
					fail_msg("%s %s: %s", specs[f], targets[t],
						pm_diags_text(&d));
				assert_int_equal(k->scop->spec->grouped, 1);
				assert_int_equal(k->scop->spec->nbatch, 1);
				if (pm_check_legal(k) != 1)
					fail_msg("%s %s: illegal after %s", specs[f],
						targets[t], passes[p]);
				pm_pipeline_kernel_free(k);
			}
		pm_diags_clear(&d);
		isl_ctx_free(ctx);
		pm_spec_free(s);
	}
}

/* The sizes the launchers ask (schedule_tree/sizes.c
 * pm_kernel_sym_align): a per-token vector read only in the epilogue,
 * moe_scale's s(T) and gemm_f16_scale's sa(M) (its swapped rows load it
 * element by element), leaves the tokens any count on every target. */
static int sym_of(const struct pm_spec *s, const char *name)
{
	for (int i = 0; i < s->nsyms; ++i)
		if (!strcmp(s->syms[i].name, name))
			return i;
	return -1;
}

static void test_row_vector_sizes(void **state)
{
	static const char *const targets[] = { "sm_70", "sm_80", "sm_90a" };
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_diags d;

	(void) state;
	pm_diags_init(&d, "t", NULL);
	for (int t = 0; t < 3; ++t) {
		const char *f[2] = { "tests/specs/moe_scale.tc",
			"tests/specs/gemm_f16_scale.tc" };

		for (int i = 0; i < 2; ++i) {
			struct pm_spec *s = parse_file(f[i]);
			struct pm_config cfg;
			struct pm_kernel *k;
			const char *rows = i ? "M" : "T";

			memset(&cfg, 0, sizeof(cfg));
			cfg.target = pm_target_find(targets[t]);
			cfg.split_k = cfg.stages = 1;
			cfg.tma = -1;
			k = pm_pipeline_until(ctx, s, &cfg, "contract", &d);
			if (!k)
				fail_msg("%s %s: %s", f[i], targets[t],
					pm_diags_text(&d));
			assert_int_equal(pm_kernel_sym_align(k,
				sym_of(k->scop->spec, rows)), 1);
			pm_pipeline_kernel_free(k);
			pm_spec_free(s);
		}
	}
	pm_diags_clear(&d);
	isl_ctx_free(ctx);
}

#include "tests/group_render.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_legal),
		cmocka_unit_test(test_row_vector_sizes),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_host_can_fail),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_sm90a_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

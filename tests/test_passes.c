#define _POSIX_C_SOURCE 200809L
/* Schedule-tree passes: legality after every pass (and a legality check
 * that can fail), the tree's shape, promotion footprints. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <isl/ctx.h>
#include <isl/schedule.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "api/pipeline.h"
#include "target/target.h"
#include "promote/promote.h"
#include "schedule_tree/tree.h"
#include "tests/util.h"

static const char *const passes[] = {
	"tile_block", "strip_k", "tile_warp", "contract", "promote"
};

static void config(struct pm_config *c, const char *target, int mm, int mn,
	int mk)
{
	memset(c, 0, sizeof(*c));
	c->target = pm_target_find(target);
	c->split_k = c->stages = 1;
	c->mm = mm, c->mn = mn, c->mk = mk;
}

static struct pm_kernel *until(isl_ctx *ctx, struct pm_spec *spec,
	struct pm_config *c, const char *pass)
{
	struct pm_diags d;
	struct pm_kernel *k;

	pm_diags_init(&d, "t", NULL);
	k = pm_pipeline_until(ctx, spec, c, pass, &d);
	if (!k)
		fprintf(stderr, "%s", pm_diags_text(&d));
	pm_diags_clear(&d);
	return k;
}

/* Every pass up to contraction keeps every dependence, in all layouts,
 * for every target and macro shape. */
static void test_legal_after_every_pass(void **state)
{
	struct { const char *t; int m, n, k; } cfgs[] = {
		{ "sm_80", 0, 0, 0 }, { "sm_80", 16, 8, 16 },
		{ "sm_70", 16, 16, 8 }, { "sm_70", 32, 32, 8 },
		{ "sm_90a", 0, 0, 0 }, { "sm_90a", 64, 64, 16 },
	};

	(void) state;
	for (int l = 0; l < 4; ++l) {
		struct pm_spec *spec = pm_test_spec(pm_test_layouts[l]);

		assert_non_null(spec);
		for (size_t c = 0; c < sizeof(cfgs) / sizeof(cfgs[0]); ++c)
			for (int p = 0; p < 4; ++p) {
				isl_ctx *ctx = isl_ctx_alloc();
				struct pm_config cfg;
				struct pm_kernel *k;

				config(&cfg, cfgs[c].t, cfgs[c].m, cfgs[c].n,
					cfgs[c].k);
				k = until(ctx, spec, &cfg, passes[p]);
				assert_non_null(k);
				if (pm_check_legal(k) != 1)
					fail_msg("illegal after %s (%s, %s)",
						passes[p], pm_test_layouts[l],
						cfgs[c].t);
				pm_pipeline_kernel_free(k);
				isl_ctx_free(ctx);
			}
		pm_spec_free(spec);
	}
}

/* The check must reject schedules that break a dependence: the
 * initialisation after the update, and the reduction run backwards. */
static void test_legality_check_can_fail(void **state)
{
	struct pm_spec *spec = pm_test_spec("nn");
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_config cfg;
	struct pm_kernel *k;
	isl_schedule_node *node;
	isl_schedule *orig;
	isl_union_set *init;

	(void) state;
	config(&cfg, "sm_80", 0, 0, 0);
	k = until(ctx, spec, &cfg, "tile_block");
	assert_non_null(k);
	assert_int_equal(pm_check_legal(k), 1);
	orig = isl_schedule_copy(k->scop->schedule);

	/* S_0_init after S_0 */
	node = isl_schedule_get_root(orig);
	node = pm_node_below_mark(node, k->scop->mark_out);
	node = isl_schedule_node_child(node, 0);		/* sequence */
	init = isl_union_set_from_set(isl_set_universe(isl_space_set_tuple_id(
		isl_space_set_alloc(ctx, 0, 2), isl_dim_set, isl_id_copy(
		pm_scop_stmt_id(k->scop, 0, PM_ROLE_INIT)))));
	node = isl_schedule_node_order_after(node, init);
	isl_schedule_free(k->schedule);
	k->schedule = isl_schedule_node_get_schedule(node);
	isl_schedule_node_free(node);
	assert_int_equal(pm_check_legal(k), 0);

	/* the reduction backwards: [k] -> [-k] */
	node = isl_schedule_get_root(orig);
	node = pm_node_below_mark(node, k->scop->mark_red);
	{
		isl_multi_union_pw_aff *mupa =
			isl_schedule_node_band_get_partial_schedule(node);
		node = isl_schedule_node_delete(node);
		node = isl_schedule_node_insert_partial_schedule(node,
			isl_multi_union_pw_aff_neg(mupa));
	}
	isl_schedule_free(k->schedule);
	k->schedule = isl_schedule_node_get_schedule(node);
	isl_schedule_node_free(node);
	assert_int_equal(pm_check_legal(k), 0);

	/* and the original is legal */
	isl_schedule_free(k->schedule);
	k->schedule = orig;
	assert_int_equal(pm_check_legal(k), 1);
	pm_pipeline_kernel_free(k);
	isl_ctx_free(ctx);
	pm_spec_free(spec);
}

/* After contraction only macro statements are left, one MMA instance per
 * MM x MN x MK block. */
static void test_contraction_domain(void **state)
{
	struct pm_spec *spec = pm_test_spec("tn");
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_config cfg;
	struct pm_kernel *k;
	isl_union_set *dom, *expect;

	(void) state;
	config(&cfg, "sm_70", 16, 16, 8);
	cfg.ndefines = 3;
	strcpy(cfg.defines[0].name, "M"), cfg.defines[0].value = 256;
	strcpy(cfg.defines[1].name, "N"), cfg.defines[1].value = 128;
	strcpy(cfg.defines[2].name, "K"), cfg.defines[2].value = 64;
	k = until(ctx, spec, &cfg, "contract");
	assert_non_null(k);
	dom = isl_schedule_get_domain(k->schedule);
	expect = isl_union_set_read_from_str(ctx, "{ FILL[i, j] : 0 <= i < 16 "
		"and 0 <= j < 8; MMA[i, j, k] : 0 <= i < 16 and 0 <= j < 8 and "
		"0 <= k < 8 }");
	/* compare by name: the ids carry user pointers */
	{
		char *a = isl_union_set_to_str(dom);
		char *b = isl_union_set_to_str(expect);
		isl_union_set *a2 = isl_union_set_read_from_str(ctx, a);
		assert_true(isl_union_set_is_equal(a2, expect) == isl_bool_true);
		isl_union_set_free(a2);
		free(a);
		free(b);
	}
	isl_union_set_free(dom);
	isl_union_set_free(expect);
	pm_pipeline_kernel_free(k);
	isl_ctx_free(ctx);
	pm_spec_free(spec);
}

/* Shared footprints follow the declared layout: one block k-step of A is
 * BM x BK for A(M,K) and BK x BM for A(K,M); likewise B. */
static void test_promotion_boxes(void **state)
{
	struct { const char *l; long a0, a1, b0, b1; } cases[] = {
		{ "nn", 128, 32, 32, 128 }, { "nt", 128, 32, 128, 32 },
		{ "tn", 32, 128, 32, 128 }, { "tt", 32, 128, 128, 32 },
	};

	(void) state;
	for (int i = 0; i < 4; ++i) {
		struct pm_spec *spec = pm_test_spec(cases[i].l);
		isl_ctx *ctx = isl_ctx_alloc();
		struct pm_config cfg;
		struct pm_kernel *k;

		config(&cfg, "sm_80", 0, 0, 0);
		k = until(ctx, spec, &cfg, "promote");
		assert_non_null(k);
		assert_int_equal(k->nbufs, 2);
		assert_int_equal(k->bufs[0].size[0], cases[i].a0);
		assert_int_equal(k->bufs[0].size[1], cases[i].a1);
		assert_int_equal(k->bufs[1].size[0], cases[i].b0);
		assert_int_equal(k->bufs[1].size[1], cases[i].b1);
		assert_int_equal(k->bufs[0].vec, 8);
		pm_pipeline_kernel_free(k);
		isl_ctx_free(ctx);
		pm_spec_free(spec);
	}
}

/* The tree after promotion has the paper's shape: blocks, the k loop with
 * copies, syncs and warp-level macro-MMAs, then the stores. */
static void test_promoted_tree_shape(void **state)
{
	struct pm_spec *spec = pm_test_spec("nn");
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_config cfg;
	struct pm_kernel *k;
	char *s;
	const char *order[] = { "FILL", "MMA", "COPY_A", "COPY_B",
		"COMMIT_PRO", "WAIT", "COPY_A", "COPY_B", "COMMIT", "STORE" };
	const char *p;

	(void) state;
	config(&cfg, "sm_80", 0, 0, 0);
	cfg.stages = 3;
	k = until(ctx, spec, &cfg, "promote");
	assert_non_null(k);
	s = isl_schedule_to_str(k->schedule);
	/* the filters in tree order */
	p = s;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); ++i) {
		char want[64];

		snprintf(want, sizeof(want), "filter: \"{ %s[", order[i]);
		p = strstr(p, "filter: \"{ ");
		if (!p || strncmp(p, want, strlen(want)))
			fail_msg("filter %zu is not %s", i, order[i]);
		p++;
	}
	assert_null(strstr(p, "filter: \"{ "));
	assert_non_null(strstr(s, "unroll"));
	free(s);
	pm_pipeline_kernel_free(k);
	isl_ctx_free(ctx);
	pm_spec_free(spec);
}

/* Unsupported requests are refused with a message, not a crash. */
static void test_refusals(void **state)
{
	struct { const char *text; const char *msg; } cases[] = {
		{ "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		  "  T(i, j) +=! A(i, k) * B(k, j)\n  U(i, j) = T(i, j) + 1\n"
		  "  C(i, j) = U(i, j) * T(i, j)\n}\n", "unsupported" },
		{ "def f(f32(M, K) A, f32(K, N) B) -> (f32(M, N) C) {\n"
		  "  C(i, j) +=! A(i, k) * B(k, j)\n}\n", "f16" },
		{ "def f(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		  "  C(i, j) +=! (A(i, k) + B(k, j)) * B(k, j)\n}\n", "unsupported" },
	};

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		struct pm_diags d;
		struct pm_spec *spec;
		struct pm_config cfg;
		isl_ctx *ctx = isl_ctx_alloc();

		pm_diags_init(&d, "t.tc", cases[i].text);
		spec = pm_spec_parse(cases[i].text, "t.tc", &d);
		assert_non_null(spec);
		config(&cfg, "sm_80", 0, 0, 0);
		assert_null(pm_pipeline_until(ctx, spec, &cfg, NULL, &d));
		assert_non_null(strstr(pm_diags_text(&d), cases[i].msg));
		assert_null(strstr(pm_diags_text(&d), "internal"));
		assert_int_equal(pm_diags_class(&d), PM_ERR_UNSUPPORTED);
		pm_diags_clear(&d);
		pm_spec_free(spec);
		isl_ctx_free(ctx);
	}
}

/* -D sizes that are not multiples of the block tile are refused. */
static void test_fixed_size_not_multiple(void **state)
{
	struct pm_spec *spec = pm_test_spec("nn");
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_config cfg;
	struct pm_diags d;

	(void) state;
	config(&cfg, "sm_80", 0, 0, 0);
	cfg.ndefines = 1;
	strcpy(cfg.defines[0].name, "M"), cfg.defines[0].value = 100;
	pm_diags_init(&d, "t", NULL);
	assert_null(pm_pipeline_until(ctx, spec, &cfg, NULL, &d));
	assert_non_null(strstr(pm_diags_text(&d), "multiple of the block"));
	pm_diags_clear(&d);
	isl_ctx_free(ctx);
	pm_spec_free(spec);
}

/* Two contractions and an epilogue: legal after every pass. */
static void test_two_contractions_legal(void **state)
{
	char *text = pm_test_read("examples/add_gemm.tc");
	struct pm_diags d;
	struct pm_spec *spec;

	(void) state;
	assert_non_null(text);
	pm_diags_init(&d, "add_gemm.tc", text);
	spec = pm_spec_parse(text, "add_gemm.tc", &d);
	assert_non_null(spec);
	pm_diags_clear(&d);
	for (int p = 0; p < 5; ++p) {
		isl_ctx *ctx = isl_ctx_alloc();
		struct pm_config cfg;
		struct pm_kernel *k;

		config(&cfg, "sm_80", 0, 0, 0);
		k = until(ctx, spec, &cfg, passes[p]);
		assert_non_null(k);
		assert_int_equal(k->ncon, 2);
		if (p < 4 && pm_check_legal(k) != 1)
			fail_msg("illegal after %s", passes[p]);
		if (p == 4)
			assert_int_equal(k->nbufs, 4);
		pm_pipeline_kernel_free(k);
		isl_ctx_free(ctx);
	}
	pm_spec_free(spec);
	free(text);
}

/* Occurrences of needle in s. */
static int count(const char *s, const char *needle)
{
	int n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/* A shared operand (tests/specs/swiglu.tc, X read by both contractions;
 * swiglu_shared_b.tc, W): legal after every pass, one k loop (one "red"
 * mark) with both contractions' MMAs, one buffer and one copy statement
 * for the shared tensor read by both MMAs, on every target. */
static void test_shared_operand(void **state)
{
	static const char *const specs[] = { "tests/specs/swiglu.tc",
		"tests/specs/swiglu_shared_b.tc" };
	static const char *const targets[] = { "sm_70", "sm_80", "sm_90a",
		"host" };

	(void) state;
	for (int s = 0; s < 2; ++s)
	for (int t = 0; t < 4; ++t)
	for (int p = 0; p < 5; ++p) {
		char *text = pm_test_read(specs[s]), *tree;
		struct pm_diags d;
		struct pm_spec *spec;
		isl_ctx *ctx = isl_ctx_alloc();
		struct pm_config cfg;
		struct pm_kernel *k;
		int shared, copies = 0;

		pm_diags_init(&d, specs[s], text);
		spec = pm_spec_parse(text, specs[s], &d);
		assert_non_null(spec);
		pm_diags_clear(&d);
		config(&cfg, targets[t], 0, 0, 0);
		cfg.stages = t ? 3 : 2;
		cfg.smem = t == 2 ? 2 : 0;	/* sm_90a: swizzled */
		k = until(ctx, spec, &cfg, passes[p]);
		assert_non_null(k);
		assert_int_equal(k->scop->join, 1);
		if (p < 4 && pm_check_legal(k) != 1)
			fail_msg("%s %s: illegal after %s", specs[s],
				targets[t], passes[p]);
		tree = isl_schedule_to_str(k->schedule);
		assert_int_equal(count(tree, "\"red\""), 1);
		free(tree);
		shared = s ? k->con[0].b : k->con[0].a;
		for (int i = 0; p == 4 && i < k->nops; ++i)
			copies += k->ops[i].kind == PM_OP_COPY &&
				k->bufs[k->ops[i].buffer].tensor == shared;
		if (p == 4) {
			assert_int_equal(k->nbufs, 3);
			assert_int_equal(copies, 1);
			assert_int_equal(s ? k->con[1].buf_b : k->con[1].buf_a,
				s ? k->con[0].buf_b : k->con[0].buf_a);
			assert_int_not_equal(s ? k->con[1].buf_a :
				k->con[1].buf_b, s ? k->con[0].buf_a :
				k->con[0].buf_b);
		}
		pm_pipeline_kernel_free(k);
		isl_ctx_free(ctx);
		pm_spec_free(spec);
		free(text);
	}
}

/* Golden trees: the dump of every pass for gemm_tn on sm_80 must match
 * tests/golden/tn_sm80.tree (PM_UPDATE_GOLDEN=1 rewrites it; review the
 * diff: a change here is a change of the generated kernels). */
/* The trees dumped by the passes (all of them, or pass only) against the
 * golden file path. */
static void check_golden(const char *path, const char *target, int pipelined,
	const char *pass)
{
	struct pm_spec *spec = pm_test_spec("tn");
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_config cfg;
	struct pm_kernel *k;
	char *buf = NULL, *golden;
	size_t len = 0;

	config(&cfg, target, 0, 0, 0);
	cfg.stages = 3;
	cfg.smem = 2;
	cfg.frag_pipe = pipelined;
	cfg.staged_store = pipelined;
	/* sm_90a: one k tile of wgmma in flight, copies S - 2 ahead */
	if (!strcmp(target, "sm_90a")) {
		cfg.stages = 4;
		cfg.frag_pipe = 0;
		cfg.mma_inflight = pipelined;
	}
	cfg.dump_all = !pass;
	if (pass)
		snprintf(cfg.dump_pass, sizeof(cfg.dump_pass), "%s", pass);
	cfg.dump = open_memstream(&buf, &len);
	k = until(ctx, spec, &cfg, NULL);
	fclose(cfg.dump);
	assert_non_null(k);
	if (getenv("PM_UPDATE_GOLDEN")) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(buf, f);
		fclose(f);
	}
	golden = pm_test_read(path);
	assert_non_null(golden);
	if (strcmp(golden, buf)) {
		FILE *f = fopen("/tmp/pm_tree.got", "w");
		if (f) {
			fputs(buf, f);
			fclose(f);
		}
		fail_msg("the schedule trees differ from %s (got: "
			"/tmp/pm_tree.got)", path);
	}
	free(golden);
	free(buf);
	pm_pipeline_kernel_free(k);
	isl_ctx_free(ctx);
	pm_spec_free(spec);
}

static void test_golden_trees(void **state)
{
	(void) state;
	check_golden("tests/golden/tn_sm80.tree", "sm_80", 0, NULL);
}

/* The sm_80 defaults after promotion: the k loop body as a sequence of
 * MMA[s < T-1] with LDF(kt, s+1), the barrier and the copies of tile
 * kt+3, LDF(kt+1, 0) and MMA[s = T-1]; the prologue's WAIT and LDF(0, 0);
 * the staged store (SYNC_ST, STS, SYNC_ST2, STG) after the block. */
static void test_golden_pipelined(void **state)
{
	(void) state;
	check_golden("tests/golden/tn_sm80_pipelined.tree", "sm_80", 1,
		"promote");
}

/* sm_90a after promotion, --mma-inflight on, 4 stages: warpgroup bands
 * (two 64x128 warpgroups of a 128x128 block), the copies of tile kt+2 in
 * the k loop after WAIT, 2 tiles in the prologue, the staged store. */
static void test_golden_sm90a(void **state)
{
	(void) state;
	check_golden("tests/golden/tn_sm90a_inflight.tree", "sm_90a", 1,
		"promote");
}

/* A filter node of one copy statement (COPY, LDR or STR) without a
 * thread_x mark below it: a copy every thread would run whole. */
static isl_bool unmapped_copy(__isl_keep isl_schedule_node *node, void *user)
{
	struct pm_kernel *k = user;
	isl_union_set *f;
	isl_set *set;
	isl_id *id;
	const struct pm_op *op;
	int found = 0;

	if (isl_schedule_node_get_type(node) != isl_schedule_node_filter)
		return isl_bool_true;
	f = isl_schedule_node_filter_get_filter(node);
	if (isl_union_set_n_set(f) != 1) {
		isl_union_set_free(f);
		return isl_bool_true;
	}
	set = isl_set_from_union_set(f);
	id = isl_set_get_tuple_id(set);
	isl_set_free(set);
	op = id ? pm_kernel_op_of(k, id) : NULL;
	isl_id_free(id);
	if (!op || (op->kind != PM_OP_COPY && op->kind != PM_OP_LDR &&
	    op->kind != PM_OP_STR) || k->bufs[op->buffer].tma)
		return isl_bool_true;
	for (isl_schedule_node *n = isl_schedule_node_copy(node); n && !found;) {
		if (isl_schedule_node_get_type(n) == isl_schedule_node_mark) {
			isl_id *m = isl_schedule_node_mark_get_id(n);
			const struct pm_mark *pm = isl_id_get_user(m);

			for (int i = 0; i < k->nmarks; ++i)
				found |= pm == &k->marks[i] &&
					pm->hw == PM_HW_THREAD_X;
			isl_id_free(m);
		}
		if (isl_schedule_node_n_children(n) < 1) {
			isl_schedule_node_free(n);
			break;
		}
		n = isl_schedule_node_first_child(n);
		if (found)
			isl_schedule_node_free(n);
	}
	if (!found)
		fail_msg("copy %s of buffer %d has no thread_x mark",
			op->kind == PM_OP_COPY ? "COPY" : op->kind == PM_OP_LDR ?
			"LDR" : "STR", op->buffer);
	return isl_bool_false;
}

/* Three and four contractions, with register staging (sm_70) and
 * cp.async stages: every copy, prologue and in-loop, is distributed
 * over the threads (a kernel's marks once ran out at the third
 * contraction's copies, which every thread then ran whole). */
static void test_many_contractions_mapped(void **state)
{
	static const char *const texts[] = {
		"def g(f16(M, K) A, f16(K, N) B, f16(M, L) E, f16(N, L) F,\n"
		"      f16(M, P) G, f16(P, N) H) -> (f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  D(i, j) +=! E(i, l) * F(j, l)\n"
		"  X(i, j) +=! G(i, p) * H(p, j)\n"
		"  O(i, j) = C(i, j) + D(i, j) + X(i, j)\n}\n",
		"def g(f16(M, K) A, f16(K, N) B, f16(K, M) E, f16(K, N) F,\n"
		"      f16(M, K) G, f16(N, K) H, f16(K, M) U, f16(N, K) V)\n"
		"      -> (f16(M, N) O) {\n"
		"  C(i, j) +=! A(i, k) * B(k, j)\n"
		"  D(i, j) +=! E(k, i) * F(k, j)\n"
		"  X(i, j) +=! G(i, k) * H(j, k)\n"
		"  Y(i, j) +=! U(k, i) * V(j, k)\n"
		"  O(i, j) = C(i, j) * D(i, j) + X(i, j) - Y(i, j)\n}\n",
	};
	struct { const char *t; int stages, reg; } cfgs[] = {
		{ "sm_70", 2, 1 }, { "sm_80", 3, 0 }, { "sm_90a", 4, 0 },
	};

	(void) state;
	for (int x = 0; x < 2; ++x) {
		struct pm_diags d;
		struct pm_spec *spec;

		pm_diags_init(&d, "t.tc", texts[x]);
		spec = pm_spec_parse(texts[x], "t.tc", &d);
		assert_non_null(spec);
		pm_diags_clear(&d);
		for (int c = 0; c < 3; ++c) {
			isl_ctx *ctx = isl_ctx_alloc();
			struct pm_config cfg;
			struct pm_kernel *k;
			isl_schedule_node *root;

			config(&cfg, cfgs[c].t, 0, 0, 0);
			cfg.stages = cfgs[c].stages;
			cfg.reg_stage = cfgs[c].reg;
			cfg.smem = -1;
			cfg.tma = 0;
			k = until(ctx, spec, &cfg, "promote");
			assert_non_null(k);
			assert_int_equal(k->ncon, 3 + x);
			assert_false(k->marks_full);
			root = isl_schedule_get_root(k->schedule);
			assert_int_equal(isl_schedule_node_foreach_descendant_top_down(
				root, &unmapped_copy, k), isl_stat_ok);
			isl_schedule_node_free(root);
			pm_pipeline_kernel_free(k);
			isl_ctx_free(ctx);
		}
		pm_spec_free(spec);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legal_after_every_pass),
		cmocka_unit_test(test_legality_check_can_fail),
		cmocka_unit_test(test_contraction_domain),
		cmocka_unit_test(test_promotion_boxes),
		cmocka_unit_test(test_promoted_tree_shape),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_fixed_size_not_multiple),
		cmocka_unit_test(test_golden_trees),
		cmocka_unit_test(test_golden_pipelined),
		cmocka_unit_test(test_golden_sm90a),
		cmocka_unit_test(test_two_contractions_legal),
		cmocka_unit_test(test_shared_operand),
		cmocka_unit_test(test_many_contractions_mapped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

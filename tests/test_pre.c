/* Launcher-applied prologues (variant/pre.c, emit/pre.c, runtime/plan.c;
 * docs/decisions/0059-launcher-applied-prologues.md): the spec a row with
 * copies sees, its refusals, the rows flagged PM_RT_PRE in the table the
 * library makes of an i8-weight spec, and the plan over that table: the
 * rows hidden below PM_RT_PRE_MIN_REUSE reused rows, the copies' room in
 * the workspace, a fallback without a workspace that reads no copy. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "runtime/plan.h"
#include "tests/plan_util.h"
#include "variant/pre.h"

static struct pm_spec *parse(const char *text)
{
	struct pm_diags d;
	struct pm_spec *s;

	pm_diags_init(&d, "t.tc", text);
	s = pm_spec_parse(text, "t.tc", &d);
	pm_diags_clear(&d);
	assert_non_null(s);
	return s;
}

static int tensor(const struct pm_spec *s, const char *name)
{
	for (int t = 0; t < s->ntensors; ++t)
		if (!strcmp(s->tensors[t].name, name))
			return t;
	fail();
	return -1;
}

static const char *const ZP = "def zp(f16(M, K) A, i8(K, N) Bq, f16(N) z, "
	"f16(N) s) -> (f16(M, N) C) {\n"
	"    C(i, j) +=! A(i, k) * ((Bq(k, j) - z(j)) * s(j))\n}\n";

/* The operand read plainly, the copy's type the partner's, the user's
 * spec untouched. */
static void test_pre_spec(void **state)
{
	struct pm_spec *s = parse(ZP), *k = NULL;
	int bq = tensor(s, "Bq"), st, a;
	struct pm_diags d;
	const struct pm_expr *r;

	(void) state;
	pm_diags_init(&d, "t.tc", NULL);
	assert_int_equal(pm_pre_operand(s, bq, &st, &a), 0);
	assert_int_equal(st, 0);
	assert_int_equal(a, 1);
	assert_int_equal(pm_pre_operand(s, tensor(s, "z"), &st, &a), -1);
	assert_int_equal(pm_pre_type(s, bq), PM_F16);
	assert_null(pm_pre_refused(s, &bq, 1));
	assert_int_equal(pm_pre_spec(s, &bq, 1, &k, &d), 0);
	assert_non_null(k);
	assert_int_equal(k->tensors[bq].type, PM_F16);
	assert_true(k->tensors[bq].pre);
	r = k->stmts[0].rhs->args[1];
	assert_int_equal(r->kind, PM_E_READ);
	assert_int_equal(r->tensor, bq);
	assert_int_equal(r->nidx, 2);
	assert_int_equal(r->idx[0], 2);	/* k */
	assert_int_equal(r->idx[1], 1);	/* j */
	/* the user's spec keeps its prologue and type */
	assert_int_equal(s->tensors[bq].type, PM_I8);
	assert_false(s->tensors[bq].pre);
	assert_int_equal(s->stmts[0].rhs->args[1]->kind, PM_E_BIN);
	pm_spec_free(k);
	pm_diags_clear(&d);
	pm_spec_free(s);
}

/* What has no copy: a grouped spec's row operand, an operand of rank 3,
 * an operand read twice, a tensor that is no operand. */
static void test_pre_refused(void **state)
{
	struct pm_spec *b = parse("def b(f16(Bt, M, K) A, f16(Bt, K, N) B, "
		"f16(N) z) -> (f16(Bt, M, N) C) {\n    C(b, i, j) +=! A(b, i, k) "
		"* (B(b, k, j) - z(j))\n}\n");
	struct pm_spec *two = parse("def two(f16(M, K) A, f16(M, K) X, "
		"f16(K, N) B, f16(N) z) -> (f16(M, N) O) {\n"
		"    G(i, j) +=! A(i, k) * (B(k, j) - z(j))\n"
		"    U(i, j) +=! X(i, k) * B(k, j)\n"
		"    O(i, j) = G(i, j) * U(i, j)\n}\n");
	struct pm_spec *s = parse(ZP), *k = NULL;
	int t = tensor(b, "B"), u = tensor(two, "B"), z = tensor(s, "z");
	struct pm_diags d;

	(void) state;
	pm_diags_init(&d, "t.tc", NULL);
	/* as the user's (rank 3), and as one group's rows (variant/group.h
	 * marks them) */
	assert_non_null(pm_pre_refused(b, &t, 1));
	b->tensors[t].rank = 2;
	assert_null(pm_pre_refused(b, &t, 1));
	b->tensors[t].grows = 1;
	assert_non_null(pm_pre_refused(b, &t, 1));
	b->tensors[t].rank = 3;
	assert_non_null(pm_pre_refused(two, &u, 1));
	assert_non_null(pm_pre_refused(s, &z, 1));
	assert_int_equal(pm_pre_spec(two, &u, 1, &k, &d), -1);
	assert_null(k);
	assert_true(d.nerrors > 0);
	pm_diags_clear(&d);
	pm_spec_free(b);
	pm_spec_free(two);
	pm_spec_free(s);
}

/* The table of tests/specs/gemm_w8_zp on sm_90a without its swapped rows
 * (which widen the weights in the registers, docs/decisions/0062): the
 * table of weights with a prologue along k, whose swapped rows are not
 * built. The persistent rows, and only they, read the copies; the
 * skinny row is not built. */
static int w8_rows(struct pm_rt_variant *rows, struct pm_rt_spec *f)
{
	int nv = pm_test_rows("../tests/specs/gemm_w8_zp", "sm_90a", NULL,
		rows, f), npre = 0, n = 0;

	assert_true(nv > 4);
	for (int i = 0; i < nv; ++i)
		if (!(rows[i].flags & PM_RT_SWAP))
			rows[n++] = rows[i];
	assert_int_equal(n, nv - 3);
	nv = n;
	for (int i = 0; i < nv; ++i) {
		const int role = rows[i].role;
		const int persist = role >= PM_RT_PERSIST &&
			role <= PM_RT_PERSIST_SWAP64;

		assert_int_equal(!!(rows[i].flags & PM_RT_PRE), persist);
		assert_true(role != PM_RT_PERSIST_SKINNY);
		npre += persist;
	}
	assert_true(npre >= 6);
	return nv;
}

/* The plan of the file's launcher: the copy of Bq (K x N f16) reused
 * over M rows (emit/pre.c, pm_emit_pre_plan). */
static struct pm_rt_choice plan(const struct pm_rt_spec *f,
	const struct pm_rt_variant *v, int nv, int64_t m, int64_t n,
	int64_t k, const char *force, int *rc)
{
	struct pm_rt_problem p;

	memset(&p, 0, sizeof(p));
	p.m = m, p.n = n, p.k[0] = k;
	p.pre_bytes = ((size_t) (k * n) * 2 + 255) / 256 * 256;
	p.pre_reuse = m;
	return pm_test_plan_p(f, v, nv, &p, force, rc);
}

static void test_pre_plan(void **state)
{
	static const int64_t ms[] = { 1, 16, 64, 128, 255, 256, 384, 1000,
		2048, 4096, 8192 };
	static const int64_t nk[][2] = { { 4096, 4096 }, { 11008, 4096 },
		{ 4096, 14336 }, { 1024, 1024 } };
	struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	int nv = w8_rows(v, &f), rc, npre = 0;

	(void) state;
	for (size_t i = 0; i < sizeof(ms) / sizeof(*ms); ++i)
		for (size_t j = 0; j < sizeof(nk) / sizeof(*nk); ++j) {
			const int64_t n = nk[j][0], k = nk[j][1];
			struct pm_rt_choice c = plan(&f, v, nv, ms[i], n, k, NULL,
				&rc), w;
			struct pm_rt_device d = pm_test_h100(v, nv);
			struct pm_rt_problem p;

			assert_int_equal(rc, PM_RT_OK);
			/* below the reuse the rules do not see the copies */
			if (ms[i] < PM_RT_PRE_MIN_REUSE &&
			    ms[i] > PM_RT_PRE_DECODE)
				assert_false(v[c.v].flags & PM_RT_PRE);
			if (!(v[c.v].flags & PM_RT_PRE)) {
				assert_int_equal(c.pre_off, 0);
				continue;
			}
			npre++;
			/* the copy after the split's part, the counters kept */
			assert_true(c.pre_off >= PM_RT_CNT_BYTES);
			assert_int_equal(c.pre_off % 256, 0);
			assert_int_equal(c.ws_bytes, c.pre_off +
				((size_t) (k * n) * 2 + 255) / 256 * 256);
			/* without a workspace: a row that reads no copy */
			assert_false(v[c.v_nows].flags & PM_RT_PRE);
			memset(&p, 0, sizeof(p));
			p.m = ms[i], p.n = n, p.k[0] = k;
			w = c;
			assert_int_equal(pm_rt_no_workspace(v, nv, &d, &p, &f,
				&w), PM_RT_OK);
			assert_false(v[w.v].flags & PM_RT_PRE);
			assert_int_equal(w.ws_bytes, 0);
		}
	/* the large grids take the copies */
	assert_true(npre >= 10);
}

/* Below the reuse: the base row where its one wave is at least half full
 * and its tiles 3/4 filled (docs/decisions/0061), else the rules' row;
 * from PM_RT_PRE_MIN_REUSE the copies, their persistent row of fewest
 * rounds where the rules keep a row that widens in shared memory. */
static void test_pre_widen(void **state)
{
	static const struct {
		int64_t m, n;
		int base, pre, role;	/* role -1: the rules' */
	} cases[] = {
		{ 128, 11008, 1, 0, -1 }, { 128, 14336, 1, 0, -1 },
		{ 96, 11008, 1, 0, -1 },
		{ 128, 4096, 0, 0, -1 },	/* 32 tiles */
		{ 64, 11008, 0, 0, -1 },	/* half-filled tiles */
		{ 16, 14336, 0, 0, -1 }, { 144, 11008, 0, 1, -1 },
		{ 129, 4096, 0, 1, -1 }, { 192, 11008, 0, 1, -1 },
		{ 192, 4096, 0, 1, -1 },
		/* decode on few small tiles: the copies' split row */
		{ 1, 4096, 0, 1, PM_RT_PERSIST_SPLIT },
		{ 48, 4096, 0, 1, PM_RT_PERSIST_SPLIT },
		{ 64, 4096, 0, 0, PM_RT_SMALL },
		{ 64, 2048, 0, 1, PM_RT_PERSIST_SPLIT },
		{ 16, 5120, 0, 1, PM_RT_PERSIST_SPLIT },
		{ 32, 5120, 0, 0, PM_RT_SMALL }, { 16, 11008, 0, 0, PM_RT_SMALL },
		/* the base row kept by the rules: the copies' rounds */
		{ 144, 14336, 0, 1, PM_RT_PERSIST_SQ },
		{ 192, 14336, 0, 1, PM_RT_PERSIST_SQ },
		{ 256, 14336, 1, 0, -1 },	/* full tiles: the base */
	};
	struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	int nv = w8_rows(v, &f), rc;

	(void) state;
	assert_int_equal(PM_RT_PRE_MIN_REUSE, 129);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); ++i) {
		struct pm_rt_choice c = plan(&f, v, nv, cases[i].m, cases[i].n,
			4096, NULL, &rc);
		struct pm_rt_problem p;

		assert_int_equal(rc, PM_RT_OK);
		assert_int_equal(v[c.v].role == PM_RT_BASE && c.s == 1,
			cases[i].base);
		assert_int_equal(!!(v[c.v].flags & PM_RT_PRE), cases[i].pre);
		/* a split in clusters counts as the split row */
		if (cases[i].role >= 0)
			assert_int_equal(v[c.v].role == PM_RT_PERSIST_SPLIT_CL ?
				PM_RT_PERSIST_SPLIT : v[c.v].role, cases[i].role);
		/* the rule needs copies the file could make */
		memset(&p, 0, sizeof(p));
		p.m = cases[i].m, p.n = cases[i].n, p.k[0] = 4096;
		p.pre_reuse = cases[i].m;
		c = pm_test_plan_p(&f, v, nv, &p, NULL, &rc);
		assert_false(cases[i].base && cases[i].m < PM_RT_PRE_MIN_REUSE &&
			v[c.v].role == PM_RT_BASE && c.s == 1);
	}
}

/* A forced row reads its copies at any size. */
static void test_pre_forced(void **state)
{
	struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	int nv = w8_rows(v, &f), rc;
	struct pm_rt_choice c = plan(&f, v, nv, 7, 4096, 4096, "_persist",
		&rc);

	(void) state;
	assert_int_equal(rc, PM_RT_OK);
	assert_string_equal(v[c.v].suffix, "_persist");
	assert_int_equal(c.pre_off, PM_RT_CNT_BYTES);
	assert_int_equal(c.ws_bytes, PM_RT_CNT_BYTES + 4096 * 4096 * 2);
	assert_int_equal(c.v_nows, -1);
}

/* i8 weights with a factor or a zero point along j (tests/specs/gemm_w8,
 * gemm_w8_zp): the swapped rows widen them in the MMA's registers,
 * reading no copy, and run every decode size (docs/decisions/0062). */
static void swap_regs(const char *spec)
{
	static const int64_t ms[] = { 1, 7, 16, 17, 32, 33, 48, 64 };
	static const int64_t ns[] = { 4096, 11008, 14336, 28672 };
	struct pm_rt_variant v[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	int nv = pm_test_rows(spec, "sm_90a", NULL, v, &f), rc, nswap = 0;

	for (int i = 0; i < nv; ++i) {
		const int swap = !!(v[i].flags & PM_RT_SWAP);

		nswap += swap;
		assert_int_equal(!!(v[i].flags & PM_RT_CONV_REGS), swap);
		if (swap)
			assert_false(v[i].flags & PM_RT_PRE);
	}
	assert_int_equal(nswap, 3);
	for (size_t i = 0; i < sizeof(ms) / sizeof(*ms); ++i)
		for (size_t j = 0; j < sizeof(ns) / sizeof(*ns); ++j) {
			struct pm_rt_choice c = plan(&f, v, nv, ms[i], ns[j],
				4096, NULL, &rc);

			assert_int_equal(rc, PM_RT_OK);
			if (getenv("PM_TEST_VERBOSE"))
				printf("%ldx%ldx4096: %s s=%d\n", (long) ms[i],
					(long) ns[j], v[c.v].suffix, c.s);
			assert_true(v[c.v].flags & PM_RT_SWAP);
			assert_true(v[c.v].bn >= ms[i]);
			assert_int_equal(c.pre_off, 0);
		}
	/* past 64 rows: not a swapped row */
	{
		struct pm_rt_choice c = plan(&f, v, nv, 65, 4096, 4096, NULL,
			&rc);

		assert_int_equal(rc, PM_RT_OK);
		assert_false(v[c.v].flags & PM_RT_SWAP);
	}
}

static void test_pre_swap_regs(void **state)
{
	(void) state;
	swap_regs("../tests/specs/gemm_w8");
	/* a zero point along the rows: in the registers too */
	swap_regs("../tests/specs/gemm_w8_zp");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pre_spec),
		cmocka_unit_test(test_pre_refused),
		cmocka_unit_test(test_pre_plan),
		cmocka_unit_test(test_pre_widen),
		cmocka_unit_test(test_pre_forced),
		cmocka_unit_test(test_pre_swap_regs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The sizes a kernel runs (tree.h): the multiples its tiles ask of each
 * size symbol, which sizes may be ragged (guarded last tiles, a partial
 * last k tile), the 16-byte units the launcher checks, and the context
 * "every size a multiple of its tile" of the exact twins. */
#include <math.h>

#include <isl/aff.h>
#include <isl/map.h>
#include <isl/set.h>

#include "frontend/eval.h"
#include "poly/strbuf.h"
#include "schedule_tree/tree.h"
#include "target/target.h"

static int gcd(int a, int b)
{
	while (b) {
		int t = a % b;

		a = b;
		b = t;
	}
	return a;
}

static int lcm(int a, int b)
{
	return a / gcd(a, b) * b;
}

/* Does symbol s index k in one of k's contractions' reads? */
static int sym_is_k(const struct pm_kernel *k, int s)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int c = 0; c < k->ncon; ++c) {
		const struct pm_expr *r[2] = { k->con[c].ra, k->con[c].rb };

		for (int i = 0; i < 2; ++i)
			for (int d = 0; d < r[i]->nidx; ++d)
				if (r[i]->idx[d] == 2 && spec->tensors[
				    r[i]->tensor].dims[d].sym == s)
					return 1;
	}
	return 0;
}

int pm_kernel_size_multiple(const struct pm_kernel *k, int s)
{
	const struct pm_spec *spec = k->scop->spec;
	int m = 1;

	for (int d = 0; d < 2; ++d)
		if (spec->tensors[k->con[0].out].dims[d].sym == s)
			m = lcm(m, d ? k->cfg->bn : k->cfg->bm);
	if (sym_is_k(k, s))
		m = lcm(m, k->cfg->bk);
	return m;
}

/* Is symbol s an extent of the output (its rows or columns)? */
static int sym_is_out(const struct pm_kernel *k, int s)
{
	const struct pm_tensor *c = &k->scop->spec->tensors[k->con[0].out];

	return c->dims[0].sym == s || c->dims[1].sym == s;
}

/* Do k's contractions all copy by TMA (zero boxes past the sizes)? */
static int all_tma(const struct pm_kernel *k)
{
	for (int c = 0; c < pm_kernel_npipes(k); ++c)
		if (!k->tma[c])
			return 0;
	return 1;
}

/* Is s a grouped spec's rows (a group's rows: any count, in every
 * kernel; docs/decisions/0045-grouped-contractions.md)? */
static int group_rows(const struct pm_kernel *k, int s)
{
	return k->scop->spec->grouped && s == k->scop->spec->group_rows;
}

int pm_kernel_sym_ragged(const struct pm_kernel *k, int s)
{
	int out = sym_is_out(k, s), kk = sym_is_k(k, s);

	if (group_rows(k, s))
		return 1;

	if (pm_scop_sym_fixed(k->scop, s, NULL) || (!out && !kk))
		return 0;
	/* docs/decisions/0030-ragged-k.md: k past its tile */
	if (kk && (!k->kragged || (k->exact && !all_tma(k))))
		return 0;
	return !out || !k->exact;
}

/* Is t a type of one byte (i8, f8e4m3, f8e5m2)? */
static int byte_type(enum pm_type t)
{
	return t == PM_I8 || t == PM_F8E4M3 || t == PM_F8E5M2;
}

/* Is tensor t written by the kernels' epilogue reduction (kept past the
 * statements: variant/epired.h)? */
static int epi_red_output(const struct pm_spec *spec, int t)
{
	return spec->nepired && spec->stmts[spec->nstmts].lhs == t;
}

/* Does e (NULL: none) read tensor t? */
static int reads(const struct pm_expr *e, int t)
{
	if (!e)
		return 0;
	if (e->kind == PM_E_READ)
		return e->tensor == t;
	for (int i = 0; i < e->nargs; ++i)
		if (reads(e->args[i], t))
			return 1;
	return 0;
}

/* Is t a vector along the output's rows that only the epilogue reads (a
 * per-token scale: `C(i, j) = X(i, j) * sa(i)`)? Each thread loads its
 * rows' elements one by one (emit/pointwise.c pairs only along the
 * columns; a swapped row's, variant/swap.h, whose columns are these
 * rows, loads them element by element too), so sa(M) leaves M any
 * (docs/decisions/0064-per-token-vectors-any-rows.md). */
static int row_vector(const struct pm_kernel *k, int t)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_tensor *T = &spec->tensors[t];

	if (T->rank != 1 || T->role == PM_OUTPUT ||
	    T->dims[0].sym != spec->tensors[k->con[0].out].dims[0].sym ||
	    T->dims[0].sym == spec->tensors[k->con[0].out].dims[1].sym)
		return 0;
	for (int c = 0; c < k->ncon; ++c)
		if (k->con[c].a == t || k->con[c].b == t ||
		    reads(k->con[c].pa, t) || reads(k->con[c].pb, t))
			return 0;
	return 1;
}

int pm_kernel_sym_align(const struct pm_kernel *k, int s)
{
	const struct pm_spec *spec = k->scop->spec;
	int m = 1;

	if (!pm_kernel_sym_ragged(k, s))
		return pm_kernel_size_multiple(k, s);
	/* narrow copies: any size (docs/decisions/0046-narrow-copies.md) */
	if (k->cfg->narrow_copies)
		return 1;
	/* whole 16-byte rows: 8 elements, 16 of one byte; an epilogue
	 * reduction's output is stored element by element (emit/epired.c),
	 * a per-row vector loaded so (row_vector) */
	for (int t = 0; t < spec->ntensors; ++t)
		if (spec->tensors[t].rank > 0 && !epi_red_output(spec, t) &&
		    !row_vector(k, t) && spec->tensors[t].dims[pm_tensor_contig(
		    &spec->tensors[t])].sym == s)
			m = byte_type(spec->tensors[t].type) ? 16 :
				m > 8 ? m : 8;
	return m;
}

/* Is every operand prologue of k finite at 0, in its operand type (at
 * most 65504, f16's largest value)? */
static int prologues_finite_at_zero(const struct pm_kernel *k)
{
	for (int c = 0; c < k->ncon; ++c) {
		const struct pm_expr *p[2] = { k->con[c].pa, k->con[c].pb };

		for (int i = 0; i < 2; ++i) {
			double v = p[i] ? pm_eval_pointwise(p[i], 0) : 0;

			if (!(fabs(v) <= 65504))
				return 0;
		}
	}
	return 1;
}

int pm_kernel_kragged_ok(const struct pm_kernel *k)
{
	const struct pm_target *t = k->cfg->target;

	/* sm_70 (no cp.async: register-staged copies) keeps K a multiple of
	 * the k tile: its guarded 16x16x8 kernels spilled 8-16 bytes with
	 * the k predicate (docs/decisions/0030-ragged-k.md) */
	if (t->emits_cuda && !t->async_copy)
		return 0;
	return prologues_finite_at_zero(k) && (!k->exact || all_tma(k));
}

int pm_kernel_k_guard_dim(const struct pm_kernel *k,
	const struct pm_buffer *buf)
{
	const struct pm_dim *dim;
	long v = 0;

	if (buf->kdim < 0)
		return -1;
	dim = &k->scop->spec->tensors[buf->tensor].dims[buf->kdim];
	if (dim->sym < 0)
		v = dim->value;
	else if (!pm_scop_sym_fixed(k->scop, dim->sym, &v))
		return pm_kernel_sym_ragged(k, dim->sym) ? buf->kdim : -1;
	/* fixed: the domain runs to the padded value (poly.h) */
	return v % k->cfg->bk ? buf->kdim : -1;
}

/* "[M, N, ..., pm_k0_0, pm_kn_0] -> { : " over the runtime symbols (the
 * spec's names: any number, any length up to PM_LIMIT_IDENT). */
static void multiples_params(const struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	int first = 1;

	pm_strbuf_add(b, "[");
	for (int s = 0; s < spec->nsyms; ++s) {
		if (pm_scop_sym_fixed(k->scop, s, NULL))
			continue;
		pm_strbuf_printf(b, "%s%s", first ? "" : ", ",
			spec->syms[s].name);
		first = 0;
	}
	for (int r = 0; r < k->scop->nsplit; ++r) {
		pm_strbuf_printf(b, "%spm_k0_%d, pm_kn_%d", first ? "" : ", ",
			r, r);
		first = 0;
	}
	pm_strbuf_add(b, "] -> { : ");
}

int pm_kernel_require_multiples(struct pm_kernel *k)
{
	const struct pm_spec *spec = k->scop->spec;
	struct pm_strbuf b;
	int any = 0;
	isl_set *set = NULL;

	pm_strbuf_init(&b);
	multiples_params(k, &b);
	for (int s = 0; s < spec->nsyms; ++s) {
		if (pm_scop_sym_fixed(k->scop, s, NULL))
			continue;
		pm_strbuf_printf(&b, "%s%s mod %d = 0", any ? " and " : "",
			spec->syms[s].name, pm_kernel_size_multiple(k, s));
		any = 1;
	}
	/* split-K chunks are whole k tiles */
	for (int r = 0; r < k->scop->nsplit; ++r) {
		pm_strbuf_printf(&b, "%spm_k0_%d mod %d = 0 and pm_kn_%d mod "
			"%d = 0", any ? " and " : "", r, k->cfg->bk, r,
			k->cfg->bk);
		any = 1;
	}
	pm_strbuf_add(&b, " }");
	if (any && !b.failed)
		set = isl_set_read_from_str(k->ctx, b.s);
	pm_strbuf_free(&b);
	if (!any)
		return 0;
	k->scop->context = isl_set_intersect_params(k->scop->context, set);
	return k->scop->context ? 0 : -1;
}

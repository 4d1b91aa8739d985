/* Printing the pointwise parts of ops: the epilogue on the accumulator
 * registers (its inputs in the accumulators' distribution, two columns per
 * load), and the fp32 expressions of the spec language that it and the
 * prologues (prologue.c) print (pwexpr.h). */
#include <string.h>

#include "emit/pointwise.h"
#include "emit/pwexpr.h"
#include "target/target.h"

static const char *const fn_c[] = {
	[PM_FN_RELU] = "pm_relu", [PM_FN_SIGMOID] = "pm_sigmoid",
	[PM_FN_TANH] = "pm_tanh", [PM_FN_GELU] = "pm_gelu",
	[PM_FN_GELU_ERF] = "pm_gelu_erf", [PM_FN_SILU] = "pm_silu",
	[PM_FN_EXP] = "pm_exp", [PM_FN_ABS] = "pm_abs",
	[PM_FN_MAX] = "pm_max_f", [PM_FN_MIN] = "pm_min_f",
};

/* An epilogue's reads loaded two elements at a time (pm_print_epi): read q
 * of reads[] is the register pair pm_x<q>[pm_e]. */
struct epi_pairs {
	int n;
	const struct pm_expr *reads[PM_EPI_MAX_PAIRS];
};

/* The contraction c < ncon - 1 whose accumulator is tensor t (read by the
 * epilogue as an accumulator register), or -1. */
static int acc_con(const struct pm_kernel *k, int t)
{
	for (int c = 0; c + 1 < k->ncon; ++c)
		if (t == k->con[c].acc)
			return c;
	return -1;
}

/* Is read e of an epilogue statement's right-hand side (not the chain
 * tensor, not another contraction's accumulator) indexed by j in its
 * last, contiguous dimension: two columns' elements are adjacent? */
static int pairable(const struct pm_kernel *k, const struct pm_expr *e,
	int chain)
{
	enum pm_type t;

	if (e->kind != PM_E_READ)
		return 0;
	t = k->scop->spec->tensors[e->tensor].type;
	return e->tensor != chain && (pm_elem_of(t) || t == PM_F32) &&
		acc_con(k, e->tensor) < 0 && e->nidx > 0 &&
		e->idx[e->nidx - 1] == 1;
}

static void collect_pairs(const struct pm_kernel *k, const struct pm_expr *e,
	int chain, struct epi_pairs *pr)
{
	if (pairable(k, e, chain)) {
		if (pr->n < PM_EPI_MAX_PAIRS)
			pr->reads[pr->n++] = e;
		return;
	}
	if (e->kind != PM_E_READ && e->kind != PM_E_NUM)
		for (int i = 0; i < e->nargs; ++i)
			collect_pairs(k, e->args[i], chain, pr);
}

/* Is the output's dimension d (0 rows i, 1 columns j) of a ragged size? */
static int out_ragged(const struct pm_kernel *k, int d)
{
	int s = k->scop->spec->tensors[k->con[0].out].dims[d].sym;

	return s >= 0 && pm_kernel_sym_ragged(k, s);
}

/* "const int64_t pm_<v>c = (int) pm_<v> < X ? pm_<v> : X - 1; " where the
 * output's dimension d (rows X = M, columns N) is ragged: the row or
 * column clamped to the size (the host's elements past the sizes). */
static void print_clamp(struct pm_kernel *k, struct pm_strbuf *b, int d,
	const char *v)
{
	const char *n;

	if (!out_ragged(k, d))
		return;
	n = k->scop->spec->syms[k->scop->spec->tensors[k->con[0].out].dims[
		d].sym].name;
	pm_strbuf_printf(b, "const int64_t pm_%sc = (int) pm_%s < %s ? pm_%s : "
		"%s - 1; (void) pm_%sc; ", v, v, n, v, n, v);
}

/* The element of read e at row i, column j (variables' names). */
static void print_read_at(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, const char *j, const char *i)
{
	pm_strbuf_printf(b, "%s[", k->scop->spec->tensors[e->tensor].name);
	if (!e->nidx)		/* a scalar */
		pm_strbuf_add(b, "0");
	for (int d = 0; d < e->nidx; ++d) {
		pm_strbuf_printf(b, "%s(int64_t) %s", d ? " + " : "",
			e->idx[d] ? j : i);
		if (d + 1 < e->nidx ||
		    k->scop->spec->tensors[e->tensor].tposed) {
			pm_strbuf_add(b, " * ");
			pm_print_stride(k, b, e->tensor, d);
		}
	}
	pm_strbuf_add(b, "]");
}


/* The element of broadcast read e at the index variables' names vars[]
 * (a prologue's). */
static void print_read_vars(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, const char *const *vars)
{
	pm_strbuf_printf(b, "%s[", k->scop->spec->tensors[e->tensor].name);
	if (!e->nidx)		/* a scalar */
		pm_strbuf_add(b, "0");
	for (int d = 0; d < e->nidx; ++d) {
		pm_strbuf_printf(b, "%s(int64_t) %s", d ? " + " : "",
			vars[e->idx[d]]);
		if (d + 1 < e->nidx ||
		    k->scop->spec->tensors[e->tensor].tposed) {
			pm_strbuf_add(b, " * ");
			pm_print_stride(k, b, e->tensor, d);
		}
	}
	pm_strbuf_add(b, "]");
}

/* A pointwise expression in fp32: the chain tensor at (i, j) is pm_v,
 * inputs are loaded at pm_i / pm_j (those in pr: their pair registers;
 * a prologue's at its vars). */
void pm_pw_expr(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, const struct pw *w)
{
	const struct epi_pairs *pr = w->pr;
	int cl = w->cl, c;

	switch (e->kind) {
	case PM_E_NUM: {
		char num[64];

		snprintf(num, sizeof(num), "%.9g", e->num);
		pm_strbuf_printf(b, "%s%sf", num, strpbrk(num, ".e") ? "" :
			".0");
		return;
	}
	case PM_E_READ:
		if (e->tensor == w->chain) {
			pm_strbuf_add(b, "pm_v");
			return;
		}
		if ((c = acc_con(k, e->tensor)) >= 0 && w->other[c]) {
			pm_strbuf_add(b, w->other[c]);
			return;
		}
		for (int q = 0; pr && q < pr->n; ++q)
			if (pr->reads[q] == e) {
				pm_strbuf_printf(b, "pm_x%d[pm_e]", q);
				return;
			}
		for (int q = 0; q < w->nctx; ++q)
			if (w->ctx[q] == e) {
				pm_strbuf_printf(b, "pm_c[%d]", q);
				return;
			}
		/* one element (the host's: at the row and column clamped to
		 * the sizes; the GPU's pairs past them compute nothing) */
		pm_strbuf_add(b, "pm_f(");
		if (w->vars[0])
			print_read_vars(k, b, e, w->vars);
		else
			print_read_at(k, b, e, cl && out_ragged(k, 1) ? "pm_jc" :
				"pm_j", cl && out_ragged(k, 0) ? "pm_ic" : "pm_i");
		pm_strbuf_add(b, ")");
		return;
	case PM_E_NEG:
		pm_strbuf_add(b, "(-");
		pm_pw_expr(k, b, e->args[0], w);
		pm_strbuf_add(b, ")");
		return;
	case PM_E_BIN:
		pm_strbuf_add(b, "(");
		pm_pw_expr(k, b, e->args[0], w);
		pm_strbuf_printf(b, " %c ", e->op);
		pm_pw_expr(k, b, e->args[1], w);
		pm_strbuf_add(b, ")");
		return;
	case PM_E_CALL:
		pm_strbuf_printf(b, "%s(", fn_c[e->fn]);
		for (int i = 0; i < e->nargs; ++i) {
			if (i)
				pm_strbuf_add(b, ", ");
			pm_pw_expr(k, b, e->args[i], w);
		}
		pm_strbuf_add(b, ")");
		return;
	}
}

/* The chain tensor an epilogue statement reads: the previous statement's
 * result. */
static int chain_of(struct pm_kernel *k, int stmt)
{
	return k->scop->spec->stmts[stmt - 1].lhs;
}

/* Are k's accumulators s32 (held as bits in the float registers)? The
 * host rendering's hold their values. */
static int int_acc(const struct pm_kernel *k)
{
	const struct pm_operand_row *r = pm_target_operand(k->cfg->target,
		pm_kernel_ab(k));

	return k->cfg->target->emits_cuda && r && r->acc == PM_I32;
}

/* "(int) pm_i < M && (int) pm_j0 < N": the pair inside the output's
 * ragged sizes (N is a multiple of 8: the pair's second column too). */
static void print_inside(struct pm_kernel *k, struct pm_strbuf *b)
{
	static const char *const v[2] = { "pm_i", "pm_j0" };

	for (int d = 0, any = 0; d < 2; ++d) {
		if (!out_ragged(k, d))
			continue;
		pm_strbuf_printf(b, "%s(int) %s < %s", any ? " && " : "", v[d],
			k->scop->spec->syms[k->scop->spec->tensors[
			k->con[0].out].dims[d].sym].name);
		any = 1;
	}
}

/* The _unaligned row's pair loads (pm_ld2f_n, element by element):
 * ", pm_j0 + 1 < N" where the pair's second column may be past the
 * output's N (guarded and N ragged), else ", true"
 * (docs/decisions/0046-narrow-copies.md). */
static void print_second(struct pm_kernel *k, struct pm_strbuf *b,
	int guarded)
{
	char n[64];

	if (!guarded || !out_ragged(k, 1)) {
		pm_strbuf_add(b, ", true");
		return;
	}
	pm_scop_dim_str(k->scop, k->con[0].out, 1, n, sizeof(n));
	pm_strbuf_printf(b, ", pm_j0 + 1 < %s", n);
}

/* Is read e, in kernel k, a vector along a swapped row's columns
 * (variant/swap.h: the user's rows, any count: docs/decisions/0064)?
 * Its pairs load element by element (pm_ld2f_n: any alignment), the
 * second inside the columns where they are ragged. */
static int swapped_vector(const struct pm_kernel *k, const struct pm_expr *e)
{
	const struct pm_spec *spec = k->scop->spec;

	return spec->tensors[k->con[0].out].tposed &&
		spec->tensors[e->tensor].rank == 1;
}

int pm_emit_has_swapped(const struct pm_kernel *k)
{
	for (int r = 0; r < PM_RT_NROLES; ++r)
		if (k->var[r] && k->var[r]->scop->spec->tensors[
		    k->var[r]->con[0].out].tposed)
			return 1;
	return 0;
}

/* pm_print_epi's loop over the register pairs of macro tile a (fragment
 * frag; w: the other contractions' values, the reads loaded in pairs);
 * guarded: only the pairs inside the ragged sizes load their
 * inputs and compute (the others are never stored; their registers keep
 * what they held). */
static void epi_loop(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, const struct pw *w, const char *frag,
	int guarded)
{
	const struct epi_pairs *pr = w->pr;
	const struct pm_config *c = k->cfg;
	const struct pm_stmt *st = &k->scop->spec->stmts[a->op->stmt];
	const int clamp = guarded &&
		k->scop->spec->tensors[k->con[0].out].tposed;
	struct pw wc = *w;

	wc.cl = clamp;
	pm_strbuf_printf(b, "_Pragma(\"unroll\") for (int pm_r = 0; "
		"pm_r < %d; pm_r += 2) { int pm_m, pm_n; %s_acc_coord<%d, "
		"%d>(pm_r, %s(), &pm_m, &pm_n); const int64_t pm_i = ",
		c->mm * c->mn / pm_config_unit(c), c->target->mma_fn, c->mm,
		c->mn, c->target->unit_thread);
	pm_print_expr(b, a->e[2]);
	pm_strbuf_add(b, " + pm_m, pm_j0 = ");
	pm_print_expr(b, a->e[3]);
	pm_strbuf_add(b, " + pm_n; (void) pm_i; ");
	if (guarded) {
		/* addresses of the loads from one base and offsets, as in
		 * the common path (indices clamped per pair, each load its
		 * own address, spilled: docs/decisions/0034) */
		pm_strbuf_add(b, "if (");
		print_inside(k, b);
		pm_strbuf_add(b, ") { ");
	}
	for (int q = 0; q < pr->n; ++q) {
		int el = k->cfg->narrow_copies ||
			swapped_vector(k, pr->reads[q]);

		pm_strbuf_printf(b, "float pm_x%d[2]; pm_ld2f%s(&", q,
			el ? "_n" : "");
		print_read_at(k, b, pr->reads[q], "pm_j0", "pm_i");
		if (el)
			print_second(k, b, guarded);
		pm_strbuf_printf(b, ", &pm_x%d[0], &pm_x%d[1]); ", q, q);
	}
	pm_strbuf_printf(b, "_Pragma(\"unroll\") for (int pm_e = 0; pm_e < 2; "
		"++pm_e) { float *pm_p = &%s%s[pm_r + pm_e]; const int64_t "
		"pm_j = pm_j0 + pm_e; ", pm_emit_acc_name(k, a->op->con), frag);
	/* a swapped row's ragged columns are the tokens, any count: the
	 * second of a pair may be past them, its reads at the last one
	 * (docs/decisions/0064-per-token-vectors-any-rows.md) */
	if (clamp) {
		print_clamp(k, b, 0, "i");
		print_clamp(k, b, 1, "j");
	}
	/* s32 accumulators (i8 operands): their bits until the first
	 * epilogue statement makes them f32 values */
	pm_strbuf_add(b, int_acc(k) && a->op->stmt == k->ncon ?
		"const float pm_v = (float) __float_as_int(*pm_p); " :
		"const float pm_v = *pm_p; ");
	pm_strbuf_add(b, "(void) pm_j; (void) pm_v; *pm_p = ");
	pm_pw_expr(k, b, st->rhs, &wc);
	pm_strbuf_add(b, guarded ? "; } } }" : "; } }");
}

/* The epilogue on a macro tile's accumulators, in registers. On the GPU
 * the registers come in pairs (r, r + 1) at columns (n, n + 1) of one row
 * (as pm_store_acc's pair stores assume), so each input indexed by j in
 * its last dimension is loaded two elements at a time (paper VII-A: in
 * the accumulator's own distribution, vector loads; the launcher checks
 * those inputs' alignment, pm_epi_pairs_tensor). */
void pm_print_epi(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_config *c = k->cfg;
	const struct pm_stmt *st = &k->scop->spec->stmts[a->op->stmt];
	const char *acc = pm_emit_acc_name(k, a->op->con);
	struct pm_strbuf frag, other[PM_MAX_CON];
	struct epi_pairs pr = { 0 };
	struct pw w = { .chain = chain_of(k, a->op->stmt), .pr = &pr };

	/* "[W][F]" (host) or "[F]" (GPU): this macro tile's fragment */
	pm_strbuf_init(&frag);
	pm_strbuf_add(&frag, "[");
	if (host) {
		pm_print_expr(&frag, a->e[1]);
		pm_strbuf_add(&frag, "][");
	}
	pm_print_expr(&frag, a->e[0]);
	pm_strbuf_add(&frag, "]");
	/* the other contractions' values at the same element (0 where the
	 * second accumulated onto the first: the one read is C in C + D) */
	for (int n = 0; n + 1 < k->ncon; ++n) {
		struct pm_strbuf *o = &other[n];

		pm_strbuf_init(o);
		if (k->acc_shared)
			pm_strbuf_add(o, "0.0f");
		else if (int_acc(k))	/* s32 bits, never converted */
			pm_strbuf_printf(o, "((float) __float_as_int(%s%s[pm_r "
				"+ pm_e]))", pm_emit_acc_name(k, n), frag.s);
		else
			pm_strbuf_printf(o, "%s%s%s", pm_emit_acc_name(k, n),
				frag.s, host ? "" : "[pm_r + pm_e]");
		if (host && !k->acc_shared)
			pm_strbuf_printf(o, "[pm_m * %d + pm_n]", c->mn);
		w.other[n] = o->s;
	}
	if (host) {
		pm_strbuf_printf(b, "for (int pm_m = 0; pm_m < %d; ++pm_m) "
			"for (int pm_n = 0; pm_n < %d; ++pm_n) { float *pm_p = "
			"&%s%s[pm_m * %d + pm_n]; ", c->mm, c->mn, acc, frag.s,
			c->mn);
		pm_strbuf_add(b, "const int64_t pm_i = ");
		pm_print_expr(b, a->e[2]);
		pm_strbuf_add(b, " + pm_m, pm_j = ");
		pm_print_expr(b, a->e[3]);
		pm_strbuf_add(b, " + pm_n; ");
		print_clamp(k, b, 0, "i");
		print_clamp(k, b, 1, "j");
		pm_strbuf_add(b, "const float pm_v = *pm_p; (void) pm_i; "
			"(void) pm_j; (void) pm_v; *pm_p = ");
		w.pr = NULL;
		w.cl = 1;
		pm_pw_expr(k, b, st->rhs, &w);
		pm_strbuf_add(b, "; }\n");
		goto out;
	}
	collect_pairs(k, st->rhs, w.chain, &pr);
	if (!out_ragged(k, 0) && !out_ragged(k, 1)) {
		epi_loop(k, b, a, &w, frag.s, 0);
		pm_strbuf_add(b, "\n");
	} else {
		/* a ragged last tile: a macro tile inside the sizes reads its
		 * inputs as any other, one past them only its pairs inside
		 * the sizes (the others are never stored); two paths, so
		 * that the guards do not weigh on the common one */
		pm_strbuf_add(b, "if (");
		for (int d = 0, any = 0; d < 2; ++d) {
			const char *n = k->scop->spec->syms[k->scop->spec->tensors[
				k->con[0].out].dims[d].sym].name;

			if (!out_ragged(k, d))
				continue;
			pm_strbuf_add(b, any ? " && (int) " : "(int) ");
			pm_print_expr(b, a->e[2 + d]);
			pm_strbuf_printf(b, " + %d <= %s", d ? c->mn : c->mm, n);
			any = 1;
		}
		pm_strbuf_add(b, ") { ");
		epi_loop(k, b, a, &w, frag.s, 0);
		pm_strbuf_add(b, " } else { ");
		epi_loop(k, b, a, &w, frag.s, 1);
		pm_strbuf_add(b, " }\n");
	}
out:
	pm_strbuf_free(&frag);
	for (int n = 0; n + 1 < k->ncon; ++n)
		pm_strbuf_free(&other[n]);
}

void pm_print_epi_value(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, int chain, int cl)
{
	const struct pw w = { .chain = chain, .cl = cl };

	pm_pw_expr(k, b, e, &w);
}

void pm_print_epi_clamps(struct pm_kernel *k, struct pm_strbuf *b)
{
	print_clamp(k, b, 0, "i");
	print_clamp(k, b, 1, "j");
}

int pm_epi_pairs_tensor(struct pm_kernel *k, int t)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int s = k->ncon; s < spec->nstmts; ++s) {
		struct epi_pairs pr = { 0 };

		collect_pairs(k, spec->stmts[s].rhs, spec->stmts[s - 1].lhs, &pr);
		for (int q = 0; q < pr.n; ++q)
			if (pr.reads[q]->tensor == t)
				return 1;
	}
	return 0;
}

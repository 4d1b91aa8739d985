/* Printing one op: helper calls with their operands. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit/print.h"
#include "emit/target.h"

static int read_pos(const struct pm_expr *r, int v)
{
	for (int i = 0; i < r->nidx; ++i)
		if (r->idx[i] == v)
			return i;
	return -1;
}

int pm_emit_contiguous(const struct pm_buffer *buf, const struct pm_expr *r,
	int var)
{
	return read_pos(r, var) == buf->rank - 1;
}

/* "A_shared + (stage) * 4096" (k->ws: the slot is the tile kt, the stage
 * its position in the ring, pm_print_ring) */
static void stage_base(struct pm_kernel *k, struct pm_strbuf *b, int i,
	__isl_keep isl_ast_expr *stage)
{
	pm_strbuf_printf(b, "%s_shared + ",
		k->scop->spec->tensors[k->bufs[i].tensor].name);
	if (k->ws)
		pm_print_ring(k, b, stage, 0, k->bufs[i].con);
	else
		pm_print_expr(b, stage);
	pm_strbuf_printf(b, " * %ld", k->bufs[i].stage_elems);
}

const char *pm_emit_acc_name(const struct pm_kernel *k, int c)
{
	return c && !k->acc_shared ? "pm_acc1" : "pm_acc";
}


/* The shared operand tiles of an MMA or LDF annotation and the end of the
 * call: "As + stage, a_r0, a_c0, [host: b layout,] Bs + stage, b_r0,
 * b_c0);" (slots 2-5 the tile origins, 6 the stage). */
static void print_tiles(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_contraction *con = &k->con[a->op->con];
	const struct pm_buffer *bb = &k->bufs[con->buf_b];

	stage_base(k, b, con->buf_a, a->e[6]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[2]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[3]);
	if (host)
		pm_strbuf_printf(b, ", %d, %d, %d, ",
			pm_emit_contiguous(bb, con->rb, 1), bb->pitch, bb->swz);
	else
		pm_strbuf_add(b, ", ");
	stage_base(k, b, con->buf_b, a->e[6]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[4]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[5]);
	/* a prologue on A through the MMA's registers: its functor */
	if (k->bufs[con->buf_a].pro_regs)
		pm_strbuf_printf(b, ", pm_pro%d", con->buf_a);
	pm_strbuf_add(b, ");\n");
}

/* "pm_fa[W][F], pm_fb[W][F]" (host, W the warp) or "pm_fa[F], pm_fb[F]":
 * the fragment buffers F of the fragment pipeline. */
static void frag_bufs(struct pm_strbuf *b, __isl_keep isl_ast_expr *w,
	__isl_keep isl_ast_expr *f)
{
	for (int i = 0; i < 2; ++i) {
		pm_strbuf_add(b, i ? ", pm_fb[" : "pm_fa[");
		if (w) {
			pm_print_expr(b, w);
			pm_strbuf_add(b, "][");
		}
		pm_print_expr(b, f);
		pm_strbuf_add(b, "]");
	}
}

/* A macro tile from the warp's fragments (the fragment pipeline):
 * annotation slots 7 (buffer), 8, 9 (origin of the tile in the warp's
 * fragments, in elements). */
static void print_mma_frag(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_config *c = k->cfg;
	const char *acc = pm_emit_acc_name(k, a->op->con);

	if (host) {
		pm_strbuf_printf(b, "pm_host_mma_frag(%d, %d, %d, %s[", c->mm,
			c->mn, c->mk, acc);
		pm_print_expr(b, a->e[1]);
		pm_strbuf_add(b, "][");
		pm_print_expr(b, a->e[0]);
		pm_strbuf_add(b, "], ");
		frag_bufs(b, a->e[1], a->e[7]);
		pm_strbuf_printf(b, ", %d, ", c->wn);
		pm_print_expr(b, a->e[8]);
		pm_strbuf_add(b, ", ");
		pm_print_expr(b, a->e[9]);
		pm_strbuf_add(b, ");\n");
		return;
	}
	pm_strbuf_printf(b, "%s_mma_frag<%d, %d>(%s[", c->target->mma_fn,
		c->mm, c->mn, acc);
	pm_print_expr(b, a->e[0]);
	pm_strbuf_add(b, "], ");
	frag_bufs(b, NULL, a->e[7]);
	pm_strbuf_add(b, ", (");
	pm_print_expr(b, a->e[8]);
	pm_strbuf_printf(b, ") / %d, (", c->target->im);
	pm_print_expr(b, a->e[9]);
	pm_strbuf_printf(b, ") / %d);\n", c->target->in);
}

/* The shared tiles' layouts of contraction con: "A_KC, PA, SWZA, B_NC, PB,
 * SWZB" (GPU template arguments) or "a_kc, pa, swza, " (host: B's come
 * with the tiles, print_tiles). */
static void layout_args(struct pm_kernel *k, struct pm_strbuf *b, int con,
	int host)
{
	const struct pm_contraction *cn = &k->con[con];
	const struct pm_buffer *ba = &k->bufs[cn->buf_a];
	const struct pm_buffer *bb = &k->bufs[cn->buf_b];

	pm_strbuf_printf(b, "%d, %d, %d", pm_emit_contiguous(ba, cn->ra, 2),
		ba->pitch, ba->swz);
	if (host)
		pm_strbuf_add(b, ", ");
	else
		pm_strbuf_printf(b, ", %d, %d, %d",
			pm_emit_contiguous(bb, cn->rb, 1), bb->pitch, bb->swz);
	/* descriptor layouts: the tiles' row counts (SWZ 2 blocks) */
	if (!host && k->cfg->target->desc_smem)
		pm_strbuf_printf(b, ", %ld, %ld", ba->size[0], bb->size[0]);
}

/* One k-step of the warp's fragments (annotation: buffer, warp, A and B
 * origins, stage). */
static void print_ldf(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_config *c = k->cfg;

	if (host) {
		pm_strbuf_printf(b, "pm_host_ldf(%d, %d, %d, ", c->wm, c->wn,
			c->mk);
	} else {
		pm_strbuf_printf(b, "%s_ldf<%d, %d, ", c->target->mma_fn,
			c->wm, c->wn);
		layout_args(k, b, a->op->con, 0);
		pm_strbuf_add(b, ">(");
	}
	frag_bufs(b, host ? a->e[1] : NULL, a->e[0]);
	pm_strbuf_add(b, ", ");
	if (host)
		layout_args(k, b, a->op->con, 1);
	print_tiles(k, b, a, host);
}

static void print_mma(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_config *c = k->cfg;
	const char *acc = pm_emit_acc_name(k, a->op->con);

	const char *ra = k->bufs[k->con[a->op->con].buf_a].pro_regs ? "_ra" :
		"";

	if (host) {
		pm_strbuf_printf(b, "pm_host_mma_tile%s(%d, %d, %d, %s[", ra,
			c->mm, c->mn, c->mk, acc);
		pm_print_expr(b, a->e[1]);
		pm_strbuf_add(b, "][");
		pm_print_expr(b, a->e[0]);
		pm_strbuf_add(b, "], ");
		layout_args(k, b, a->op->con, 1);
	} else {
		pm_strbuf_printf(b, "%s_mma_tile%s<%d, %d, %d, ",
			c->target->mma_fn, ra, c->mm, c->mn, c->mk);
		layout_args(k, b, a->op->con, 0);
		pm_strbuf_printf(b, ">(%s[", acc);
		pm_print_expr(b, a->e[0]);
		pm_strbuf_add(b, "], ");
	}
	print_tiles(k, b, a, host);
}

/* "&X_shared[stage * S + pm_smem_off<P, SWZ>(l0, c)" of a copy or
 * prologue unit (annotation slots 2, 3, 4), without the closing bracket. */
static void print_unit_addr(struct pm_strbuf *b, const struct pm_buffer *buf,
	const char *name, const struct pm_annot *a, int host)
{
	pm_strbuf_printf(b, "&%s_shared[", name);
	pm_print_expr(b, a->e[4]);
	pm_strbuf_printf(b, " * %ld + ", buf->stage_elems);
	if (host)
		pm_strbuf_printf(b, "pm_smem_off_h(%d, %d, ", buf->pitch,
			buf->swz);
	else if (buf->swz == 2)
		pm_strbuf_printf(b, "pm_smem_off<%d, 2, %ld>(", buf->pitch,
			buf->size[0]);
	else
		pm_strbuf_printf(b, "pm_smem_off<%d, %d>(", buf->pitch,
			buf->swz);
	pm_print_expr(b, a->e[2]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[3]);
	pm_strbuf_add(b, ")");
}

/* "&X[linear index]": the global address of a copy unit (slots 0, 1). */
static void global_unit(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_buffer *buf, const struct pm_annot *a)
{
	pm_strbuf_printf(b, "&%s[", k->scop->spec->tensors[buf->tensor].name);
	pm_print_linear(k, b, buf->tensor, a->e);
	pm_strbuf_add(b, "]");
}

/* A copy unit; with pred, only where pred holds (a predicated cp.async:
 * the source address is formed but not read otherwise). */
static void print_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;
	int async = !host && buf->vec == 8;

	if (buf->tma) {
		pm_print_tma_copy(k, b, a, host, pred);
		return;
	}
	if (pred && !async)
		pm_strbuf_printf(b, "if (%s) ", pred);
	if (host)
		pm_strbuf_printf(b, "pm_host_copy(%d, ", buf->vec);
	else if (async)
		pm_strbuf_add(b, pred ? "pm_cp_async16_if(" : "pm_cp_async16(");
	else
		pm_strbuf_printf(b, "pm_copy_elems(%d, ", buf->vec);
	print_unit_addr(b, buf, name, a, host);
	pm_strbuf_add(b, "], ");
	global_unit(k, b, buf, a);
	if (pred && async)
		pm_strbuf_printf(b, ", %s);\n", pred);
	else
		pm_strbuf_add(b, ");\n");
}

/* The staging register of an LDR / STR unit: "pm_rs<b>[u]" (host:
 * "pm_rs<b>[thread][u]", 8 floats). */
static void rstage_reg(struct pm_strbuf *b, const struct pm_annot *a,
	int host)
{
	pm_strbuf_printf(b, "pm_rs%d[", a->op->buffer);
	if (host) {
		pm_print_expr(b, a->e[6]);
		pm_strbuf_add(b, "][");
	}
	pm_print_expr(b, a->e[5]);
	pm_strbuf_add(b, "]");
}

/* LDR: a 16-byte unit of the global tile into its staging register
 * (isl's guard around it stays a branch: only copies are predicated);
 * STR: the register into the shared tile. */
static void print_rstage(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;

	if (a->op->kind == PM_OP_LDR) {
		pm_strbuf_add(b, host ? "pm_host_copy(8, " : "");
		rstage_reg(b, a, host);
		pm_strbuf_add(b, host ? ", " : " = *(const uint4 *) ");
		global_unit(k, b, buf, a);
		pm_strbuf_add(b, host ? ");\n" : ";\n");
		return;
	}
	if (host)
		pm_strbuf_add(b, "pm_host_copy(8, ");
	else
		pm_strbuf_add(b, "*(uint4 *) ");
	print_unit_addr(b, buf, name, a, host);
	pm_strbuf_add(b, host ? "], " : "] = ");
	rstage_reg(b, a, host);
	pm_strbuf_add(b, host ? ");\n" : ";\n");
}

void pm_print_stride(struct pm_kernel *k, struct pm_strbuf *b, int t, int d)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];
	char dim[64];
	int first = 1;

	for (int e = d + 1; e < tt->rank; ++e) {
		pm_scop_dim_str(k->scop, t, e, dim, sizeof(dim));
		pm_strbuf_printf(b, "%s(int64_t) %s", first ? "" : " * ", dim);
		first = 0;
	}
	if (first)
		pm_strbuf_add(b, "1");
}

void pm_print_linear(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];

	for (int d = 0; d < tt->rank; ++d) {
		pm_strbuf_add(b, d ? " + (int64_t) " : "(int64_t) ");
		pm_print_expr(b, e[d]);
		if (d + 1 < tt->rank) {
			pm_strbuf_add(b, " * ");
			pm_print_stride(k, b, t, d);
		}
	}
}

static const char *tname(struct pm_kernel *k, int t)
{
	return k->scop->spec->tensors[t].name;
}

static const char *const fn_c[] = {
	[PM_FN_RELU] = "pm_relu", [PM_FN_SIGMOID] = "pm_sigmoid",
	[PM_FN_TANH] = "pm_tanh", [PM_FN_GELU] = "pm_gelu",
	[PM_FN_GELU_ERF] = "pm_gelu_erf", [PM_FN_SILU] = "pm_silu",
	[PM_FN_EXP] = "pm_exp", [PM_FN_ABS] = "pm_abs",
	[PM_FN_MAX] = "pm_max_f", [PM_FN_MIN] = "pm_min_f",
};

/* An epilogue's reads loaded two elements at a time (print_epi): read q
 * of reads[] is the register pair pm_x<q>[pm_e]. */
struct epi_pairs {
	int n;
	const struct pm_expr *reads[PM_EPI_MAX_PAIRS];
};

/* Is read e of an epilogue statement's right-hand side (not the chain
 * tensor, not the first contraction's accumulator) indexed by j in its
 * last, contiguous dimension: two columns' elements are adjacent? */
static int pairable(const struct pm_kernel *k, const struct pm_expr *e,
	int chain)
{
	enum pm_type t;

	if (e->kind != PM_E_READ)
		return 0;
	t = k->scop->spec->tensors[e->tensor].type;
	return e->tensor != chain && (t == PM_F16 || t == PM_F32) &&
		!(k->ncon > 1 && e->tensor == k->con[0].acc) && e->nidx > 0 &&
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

/* The element of read e at row pm_i, column j (a variable's name). */
static void print_read_at(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, const char *j)
{
	pm_strbuf_printf(b, "%s[", k->scop->spec->tensors[e->tensor].name);
	for (int d = 0; d < e->nidx; ++d) {
		pm_strbuf_printf(b, "%s(int64_t) %s", d ? " + " : "",
			e->idx[d] ? j : "pm_i");
		if (d + 1 < e->nidx) {
			pm_strbuf_add(b, " * ");
			pm_print_stride(k, b, e->tensor, d);
		}
	}
	pm_strbuf_add(b, "]");
}

/* An epilogue expression in fp32: the chain tensor at (i, j) is pm_v,
 * inputs are loaded at pm_i / pm_j (those in pr: their pair registers). */
static void print_expr_c(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, int chain, const char *other,
	const struct epi_pairs *pr)
{

	switch (e->kind) {
	case PM_E_NUM: {
		char num[64];

		snprintf(num, sizeof(num), "%.9g", e->num);
		pm_strbuf_printf(b, "%s%sf", num, strpbrk(num, ".e") ? "" :
			".0");
		return;
	}
	case PM_E_READ:
		if (e->tensor == chain) {
			pm_strbuf_add(b, "pm_v");
			return;
		}
		if (other && k->ncon > 1 && e->tensor == k->con[0].acc) {
			pm_strbuf_add(b, other);
			return;
		}
		for (int q = 0; pr && q < pr->n; ++q)
			if (pr->reads[q] == e) {
				pm_strbuf_printf(b, "pm_x%d[pm_e]", q);
				return;
			}
		pm_strbuf_add(b, "pm_f(");
		print_read_at(k, b, e, "pm_j");
		pm_strbuf_add(b, ")");
		return;
	case PM_E_NEG:
		pm_strbuf_add(b, "(-");
		print_expr_c(k, b, e->args[0], chain, other, pr);
		pm_strbuf_add(b, ")");
		return;
	case PM_E_BIN:
		pm_strbuf_add(b, "(");
		print_expr_c(k, b, e->args[0], chain, other, pr);
		pm_strbuf_printf(b, " %c ", e->op);
		print_expr_c(k, b, e->args[1], chain, other, pr);
		pm_strbuf_add(b, ")");
		return;
	case PM_E_CALL:
		pm_strbuf_printf(b, "%s(", fn_c[e->fn]);
		for (int i = 0; i < e->nargs; ++i) {
			if (i)
				pm_strbuf_add(b, ", ");
			print_expr_c(k, b, e->args[i], chain, other, pr);
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

/* The epilogue on a macro tile's accumulators, in registers. On the GPU
 * the registers come in pairs (r, r + 1) at columns (n, n + 1) of one row
 * (as pm_store_acc's pair stores assume), so each input indexed by j in
 * its last dimension is loaded two elements at a time (paper VII-A: in
 * the accumulator's own distribution, vector loads; the launcher checks
 * those inputs' alignment, pm_epi_pairs_tensor). */
static void print_epi(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_config *c = k->cfg;
	const struct pm_stmt *st = &k->scop->spec->stmts[a->op->stmt];
	const char *acc = pm_emit_acc_name(k, a->op->con);
	int chain = chain_of(k, a->op->stmt);
	struct pm_strbuf frag, other;
	struct epi_pairs pr = { 0 };

	/* "[W][F]" (host) or "[F]" (GPU): this macro tile's fragment */
	pm_strbuf_init(&frag);
	pm_strbuf_add(&frag, "[");
	if (host) {
		pm_print_expr(&frag, a->e[1]);
		pm_strbuf_add(&frag, "][");
	}
	pm_print_expr(&frag, a->e[0]);
	pm_strbuf_add(&frag, "]");
	/* the first contraction's value at the same element (0 where the
	 * second accumulated onto it: the one read is C in C + D) */
	pm_strbuf_init(&other);
	if (k->acc_shared)
		pm_strbuf_add(&other, "0.0f");
	else
		pm_strbuf_printf(&other, "%s%s%s", pm_emit_acc_name(k, 0), frag.s,
			host ? "" : "[pm_r + pm_e]");
	if (host && !k->acc_shared)
		pm_strbuf_printf(&other, "[pm_m * %d + pm_n]", c->mn);
	if (host) {
		pm_strbuf_printf(b, "for (int pm_m = 0; pm_m < %d; ++pm_m) "
			"for (int pm_n = 0; pm_n < %d; ++pm_n) { float *pm_p = "
			"&%s%s[pm_m * %d + pm_n]; ", c->mm, c->mn, acc, frag.s,
			c->mn);
		pm_strbuf_add(b, "const int64_t pm_i = ");
		pm_print_expr(b, a->e[2]);
		pm_strbuf_add(b, " + pm_m, pm_j = ");
		pm_print_expr(b, a->e[3]);
		pm_strbuf_add(b, " + pm_n; const float pm_v = *pm_p; (void) pm_i; "
			"(void) pm_j; (void) pm_v; *pm_p = ");
		print_expr_c(k, b, st->rhs, chain, other.s, NULL);
		pm_strbuf_add(b, "; }\n");
		pm_strbuf_free(&frag);
		pm_strbuf_free(&other);
		return;
	}
	collect_pairs(k, st->rhs, chain, &pr);
	pm_strbuf_printf(b, "_Pragma(\"unroll\") for (int pm_r = 0; "
		"pm_r < %d; pm_r += 2) { int pm_m, pm_n; %s_acc_coord<%d, "
		"%d>(pm_r, %s(), &pm_m, &pm_n); const int64_t pm_i = ",
		c->mm * c->mn / pm_config_unit(c), c->target->mma_fn, c->mm,
		c->mn, c->target->unit_thread);
	pm_print_expr(b, a->e[2]);
	pm_strbuf_add(b, " + pm_m, pm_j0 = ");
	pm_print_expr(b, a->e[3]);
	pm_strbuf_add(b, " + pm_n; (void) pm_i; ");
	for (int q = 0; q < pr.n; ++q) {
		pm_strbuf_printf(b, "float pm_x%d[2]; pm_ld2f(&", q);
		print_read_at(k, b, pr.reads[q], "pm_j0");
		pm_strbuf_printf(b, ", &pm_x%d[0], &pm_x%d[1]); ", q, q);
	}
	pm_strbuf_printf(b, "_Pragma(\"unroll\") for (int pm_e = 0; pm_e < 2; "
		"++pm_e) { float *pm_p = &%s%s[pm_r + pm_e]; const int64_t "
		"pm_j = pm_j0 + pm_e; const float pm_v = *pm_p; (void) pm_j; "
		"(void) pm_v; *pm_p = ", acc, frag.s);
	print_expr_c(k, b, st->rhs, chain, other.s, &pr);
	pm_strbuf_add(b, "; } }\n");
	pm_strbuf_free(&frag);
	pm_strbuf_free(&other);
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

/* Is num exactly an f16 value (normal or zero)? */
static int f16_exact(double num)
{
	int ex;
	double m = frexp(fabs(num), &ex);	/* num = m * 2^ex, m in [.5, 1) */

	if (num == 0)
		return 1;
	m = ldexp(m, 11);			/* 11 significant bits */
	return m == floor(m) && ex - 1 >= -14 && ex - 1 <= 15;
}

/* Is prologue e, computed in fp32 and rounded to f16, exactly the same
 * computed on f16 pairs?  True for max, min, abs, relu and negation of the
 * element and f16 constants: their result is one of their (f16) inputs. */
static int pro_h2_exact(const struct pm_expr *e)
{
	switch (e->kind) {
	case PM_E_NUM:
		return f16_exact(e->num);
	case PM_E_READ:
		return 1;
	case PM_E_NEG:
		return pro_h2_exact(e->args[0]);
	case PM_E_CALL:
		if (e->fn != PM_FN_RELU && e->fn != PM_FN_ABS &&
		    e->fn != PM_FN_MAX && e->fn != PM_FN_MIN)
			return 0;
		for (int i = 0; i < e->nargs; ++i)
			if (!pro_h2_exact(e->args[i]))
				return 0;
		return 1;
	default:
		return 0;
	}
}

/* e (pro_h2_exact) on the __half2 pm_x. */
static void print_pro_h2(struct pm_strbuf *b, const struct pm_expr *e)
{
	static const char *const fn[] = {
		[PM_FN_RELU] = "__hmax2", [PM_FN_ABS] = "__habs2",
		[PM_FN_MAX] = "__hmax2", [PM_FN_MIN] = "__hmin2",
	};

	switch (e->kind) {
	case PM_E_NUM:
		pm_strbuf_printf(b, "__float2half2_rn(%.9gf)", e->num);
		return;
	case PM_E_READ:
		pm_strbuf_add(b, "pm_x");
		return;
	case PM_E_NEG:
		pm_strbuf_add(b, "__hneg2(");
		print_pro_h2(b, e->args[0]);
		pm_strbuf_add(b, ")");
		return;
	case PM_E_CALL:
		pm_strbuf_printf(b, "%s(", fn[e->fn]);
		for (int i = 0; i < e->nargs; ++i) {
			if (i)
				pm_strbuf_add(b, ", ");
			print_pro_h2(b, e->args[i]);
		}
		pm_strbuf_add(b, e->fn == PM_FN_RELU ?
			", __float2half2_rn(0.0f))" : ")");
		return;
	default:
		return;
	}
}

/* The prologue on the vec elements this thread copied:
 * x = f(x) in fp32, in place in shared memory; on pairs of halves where
 * that gives the same result (pro_h2_exact): 4 instructions per 16-byte
 * unit instead of 8 conversions there and back. */
static void print_pro(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;

	int vec = !host && buf->vec == 8;

	if (vec && pro_h2_exact(buf->pro)) {
		pm_strbuf_add(b, "{ __half *pm_q = ");
		print_unit_addr(b, buf, name, a, host);
		pm_strbuf_add(b, "]; uint4 pm_u = *(const uint4 *) pm_q; "
			"__half2 *pm_h2 = (__half2 *) &pm_u; _Pragma(\"unroll\") "
			"for (int pm_e = 0; pm_e < 4; ++pm_e) { const __half2 pm_x "
			"= pm_h2[pm_e]; (void) pm_x; pm_h2[pm_e] = ");
		print_pro_h2(b, buf->pro);
		pm_strbuf_add(b, "; } *(uint4 *) pm_q = pm_u; }\n");
		return;
	}

	pm_strbuf_printf(b, "{ %s *pm_q = ", host ? "float" : "__half");
	print_unit_addr(b, buf, name, a, host);
	pm_strbuf_add(b, "]; ");
	/* 16-byte units: one shared load and store, the elements in
	 * registers */
	if (vec)
		pm_strbuf_add(b, "uint4 pm_u = *(const uint4 *) pm_q; __half *pm_h "
			"= (__half *) &pm_u; ");
	pm_strbuf_printf(b, "%sfor (int pm_e = 0; pm_e < %d; ++pm_e) { "
		"const float pm_v = pm_f(%s[pm_e]); %s[pm_e] = %s(",
		host ? "" : "_Pragma(\"unroll\") ", buf->vec,
		vec ? "pm_h" : "pm_q", vec ? "pm_h" : "pm_q",
		host ? "" : "__float2half_rn");
	print_expr_c(k, b, buf->pro, buf->tensor, NULL, NULL);
	pm_strbuf_printf(b, "); }%s }\n", vec ? " *(uint4 *) pm_q = pm_u;" :
		"");
}

void pm_print_pro_fn(struct pm_kernel *k, struct pm_strbuf *b, int i,
	int host)
{
	const struct pm_buffer *buf = &k->bufs[i];

	if (host) {
		pm_strbuf_printf(b, "\nstatic float pm_pro%d(float pm_v)\n{\n"
			"\treturn (float) (", i);
		print_expr_c(k, b, buf->pro, buf->tensor, NULL, NULL);
		pm_strbuf_add(b, ");\n}\n");
		return;
	}
	pm_strbuf_printf(b, "\tconst auto pm_pro%d = [](uint32_t pm_w) -> "
		"uint32_t { ", i);
	if (pro_h2_exact(buf->pro)) {
		pm_strbuf_add(b, "const __half2 pm_x = *reinterpret_cast<const "
			"__half2 *>(&pm_w); (void) pm_x; const __half2 pm_y = ");
		print_pro_h2(b, buf->pro);
		pm_strbuf_add(b, "; return *reinterpret_cast<const uint32_t *>"
			"(&pm_y); };\n");
		return;
	}
	pm_strbuf_add(b, "__half *pm_h = reinterpret_cast<__half *>(&pm_w); "
		"_Pragma(\"unroll\") for (int pm_e = 0; pm_e < 2; ++pm_e) { "
		"const float pm_v = pm_f(pm_h[pm_e]); pm_h[pm_e] = "
		"__float2half_rn(");
	print_expr_c(k, b, buf->pro, buf->tensor, NULL, NULL);
	pm_strbuf_add(b, "); } return pm_w; };\n");
}

/* Asynchronous MMAs kept in flight (--mma-inflight): before an op that
 * reads or writes accumulators or passes a barrier, wait for them
 * ("pm_sm90_drain<N>((float *) pm_acc); ..."); the k loop's WAIT waits for
 * all but the last group.  FILL drains only the other accumulators: ptxas
 * serializes the wgmma when registers of one in flight are written, and a
 * register fence on the tile being zeroed counts as a write. */
static void print_drain(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_op *op, int host)
{
	enum pm_op_kind kind = op->kind;
	const struct pm_config *c = k->cfg;
	int n = c->wm * c->wn / pm_config_unit(c);	/* floats per thread */

	if (host || !c->mma_inflight || (kind != PM_OP_SYNC &&
	    kind != PM_OP_FILL && kind != PM_OP_WAIT && kind != PM_OP_EPI &&
	    kind != PM_OP_STORE && kind != PM_OP_STS && kind != PM_OP_FIXUP))
		return;
	if (kind == PM_OP_WAIT) {
		pm_strbuf_printf(b, "%s ", c->target->mma_wait_prev);
		return;
	}
	for (int i = 0; i < (k->acc_shared ? 1 : k->ncon); ++i)
		if (kind != PM_OP_FILL || i != op->con)
			pm_strbuf_printf(b, "%s<%d>((float *) %s); ",
				c->target->mma_drain, n, pm_emit_acc_name(k, i));
}

int pm_print_op(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *tg = c->target;

	if (a->op->kind != PM_OP_FIXUP || host || k->emit_fixup)
		print_drain(k, b, a->op, host);
	switch (a->op->kind) {
	case PM_OP_FILL:
		if (k->acc_shared && a->op->con) {
			pm_strbuf_add(b, "/* accumulates onto pm_acc */;\n");
			return 0;
		}
		if (host) {
			pm_strbuf_printf(b, "pm_host_fill(%s[",
				pm_emit_acc_name(k, a->op->con));
			pm_print_expr(b, a->e[1]);
			pm_strbuf_add(b, "][");
			pm_print_expr(b, a->e[0]);
			pm_strbuf_printf(b, "], %d);\n", c->mm * c->mn);
		} else {
			pm_strbuf_printf(b, "pm_fill_zero(%s[",
				pm_emit_acc_name(k, a->op->con));
			pm_print_expr(b, a->e[0]);
			pm_strbuf_printf(b, "], %d);\n",
				c->mm * c->mn / pm_config_unit(c));
		}
		return 0;
	case PM_OP_MMA:
		if (k->frag[a->op->con])
			print_mma_frag(k, b, a, host);
		else
			print_mma(k, b, a, host);
		/* asynchronous MMAs, not kept in flight: wait right away,
		 * on the same line */
		if (!host && tg->mma_drain && !c->mma_inflight &&
		    !k->pro_late[a->op->con] && !k->tma[a->op->con]) {
			if (b->len && b->s[b->len - 1] == '\n')
				b->s[--b->len] = '\0';
			pm_strbuf_printf(b, " %s<%d>(%s[", tg->mma_drain,
				c->mm * c->mn / pm_config_unit(c),
				pm_emit_acc_name(k, a->op->con));
			pm_print_expr(b, a->e[0]);
			pm_strbuf_add(b, "]);\n");
		}
		return 0;
	case PM_OP_LDF:
		print_ldf(k, b, a, host);
		return 0;
	case PM_OP_STORE:
		if (host)
			pm_strbuf_printf(b, "pm_host_store(%d, %d, %s[",
				c->mm, c->mn, pm_emit_acc_name(k, a->op->con));
		else
			pm_strbuf_printf(b, "%s_store<%d, %d>(%s[",
				tg->mma_fn, c->mm, c->mn, pm_emit_acc_name(k, a->op->con));
		if (host) {
			pm_print_expr(b, a->e[1]);
			pm_strbuf_add(b, "][");
		}
		pm_print_expr(b, a->e[0]);
		pm_strbuf_printf(b, "], %s + ", tname(k, k->con[0].out));
		pm_print_linear(k, b, k->con[0].out, a->e + 2);
		pm_strbuf_add(b, ", ");
		pm_print_stride(k, b, k->con[0].out, 0);
		pm_strbuf_add(b, ", 1);\n");
		return 0;
	case PM_OP_STS:
		/* the macro tile into the shared C tile, converted */
		if (host) {
			pm_strbuf_printf(b, "pm_host_store(%d, %d, %s[", c->mm,
				c->mn, pm_emit_acc_name(k, a->op->con));
			pm_print_expr(b, a->e[1]);
			pm_strbuf_add(b, "][");
		} else {
			pm_strbuf_printf(b, "%s_store<%d, %d>(%s[",
				tg->mma_fn, c->mm, c->mn, pm_emit_acc_name(k, a->op->con));
		}
		pm_print_expr(b, a->e[0]);
		pm_strbuf_add(b, "], pm_cst + (");
		pm_print_expr(b, a->e[2]);
		pm_strbuf_printf(b, ") * %d + ", k->cst_pitch);
		pm_print_expr(b, a->e[3]);
		pm_strbuf_printf(b, ", %d, 1);\n", k->cst_pitch);
		return 0;
	case PM_OP_STG:
		/* one 16-byte unit of the C tile to global memory */
		pm_print_strip_pred(k, b, a->e[2]);
		if (host)
			pm_strbuf_printf(b, "pm_host_copy(%d, ", k->cst_vec);
		else
			pm_strbuf_add(b, "pm_copy16_s2g(");
		pm_strbuf_printf(b, "&%s[", tname(k, k->con[0].out));
		pm_print_linear(k, b, k->con[0].out, a->e);
		pm_strbuf_add(b, "], &pm_cst[(");
		pm_print_expr(b, a->e[2]);
		pm_strbuf_printf(b, ") * %d + ", k->cst_pitch);
		pm_print_expr(b, a->e[3]);
		pm_strbuf_add(b, "]);\n");
		return 0;
	case PM_OP_LDR:
	case PM_OP_STR:
		print_rstage(k, b, a, host);
		return 0;
	case PM_OP_COPY:
		print_copy(k, b, a, host, pred);
		return 0;
	case PM_OP_EPI:
		print_epi(k, b, a, host);
		return 0;
	case PM_OP_PRO:
		print_pro(k, b, a, host);
		return 0;
	case PM_OP_DRAIN:
		if (host || !tg->mma_drain)
			pm_strbuf_add(b, "/* the MMAs are done */;\n");
		else
			pm_strbuf_printf(b, "%s<%d>((float *) %s);\n",
				tg->mma_drain, c->wm * c->wn / pm_config_unit(c),
				pm_emit_acc_name(k, a->op->con));
		return 0;
	case PM_OP_FIXUP:
		if (host || k->emit_fixup)
			pm_print_fixup(k, b, a, host);
		else
			pm_strbuf_add(b, "/* split-K fixup: in the _split kernel */;"
				"\n");
		return 0;
	case PM_OP_SYNC:
		/* warp-specialized: the consumer warps only (the producer
		 * warp is on its next tile's copies) */
		if (!host && k->ws)
			pm_strbuf_printf(b, "pm_fence_proxy_async(); "
				"pm_bar_sync_n<%d>();\n", pm_config_threads(c));
		else
			pm_strbuf_add(b, host ? "/* __syncthreads() */;\n" :
				tg->desc_smem ? "pm_fence_proxy_async(); "
				"__syncthreads();\n" : "__syncthreads();\n");
		return 0;
	case PM_OP_COMMIT:
		pm_strbuf_add(b, k->tma[a->op->con] ? "/* TMA: the boxes "
			"complete on the stage's barrier */;\n" : host ?
			"/* commit */;\n" : "pm_cp_async_commit();\n");
		return 0;
	case PM_OP_RELEASE:
		pm_print_release(k, b, a, host);
		return 0;
	case PM_OP_WAIT:
		if (k->tma[a->op->con]) {
			pm_print_tma_wait(k, b, a, host);
			return 0;
		}
		if (host)
			pm_strbuf_add(b, "/* wait, __syncthreads() */;\n");
		else
			pm_strbuf_printf(b, "pm_cp_async_wait<%d>();%s\n",
				a->op->pending >= 0 ? a->op->pending :
				c->stages > 1 ? c->stages - 2 : 0,
				a->op->buffer ? "" : tg->desc_smem ?
				" pm_fence_proxy_async(); __syncthreads();" :
				" __syncthreads();");
		return 0;
	}
	return -1;
}

/* Printing one op: helper calls with their operands, one printer per op
 * kind (op_printers). The copy units are copies.c's, the pointwise ops
 * pointwise.c's, the TMA pipeline's tma.c's, the split-K fixup fixup.c's;
 * the shared pieces (expressions, addresses, the ring, accumulator names)
 * are the kernel frame's (frame.c). None of them calls back here. */
#include <stdio.h>
#include <string.h>

#include "emit/batch.h"
#include "emit/copies.h"
#include "emit/epired.h"
#include "emit/fixup.h"
#include "emit/narrow.h"
#include "emit/ops.h"
#include "emit/pointwise.h"
#include "emit/tma.h"
#include "target/target.h"

/* The shared operand tiles of an MMA or LDF annotation and the end of the
 * call: "As + stage, a_r0, a_c0, [host: b layout,] Bs + stage, b_r0,
 * b_c0);" (slots 2-5 the tile origins, 6 the stage). */
static void print_tiles(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_contraction *con = &k->con[a->op->con];
	const struct pm_buffer *bb = &k->bufs[con->buf_b];

	pm_print_stage_base(k, b, con->buf_a, a->e[6]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[2]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[3]);
	if (host)
		pm_strbuf_printf(b, ", %d, %d, %d, ",
			pm_emit_contiguous(bb, con->rb, 1), bb->pitch, bb->swz);
	else
		pm_strbuf_add(b, ", ");
	pm_print_stage_base(k, b, con->buf_b, a->e[6]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[4]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[5]);
	/* a prologue on A through the MMA's registers: its functor; on A
	 * widened there, with the macro tile's first row (ast.c) */
	if (k->bufs[con->buf_a].pro_regs)
		pm_strbuf_printf(b, ", pm_pro%d", con->buf_a);
	if (k->bufs[con->buf_a].conv_regs && k->bufs[con->buf_a].pro) {
		pm_strbuf_add(b, ", ");
		pm_print_expr(b, a->e[7]);
		pm_strbuf_printf(b, ", pm_cv%d, pm_cvr%d", con->buf_a,
			con->buf_a);
	}
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

	const struct pm_buffer *ba = &k->bufs[k->con[a->op->con].buf_a];
	/* A through the registers: a prologue on them, or widened there
	 * from its stored type (docs/decisions/0062) */
	const char *ra = ba->pro_regs ? "_ra" : ba->conv_regs ? "_rc" : "";

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

/* The limits of a store of the output's macro tile at (e[0], e[1]):
 * ", rows, cols" with rows = SYM - e[0] where the output's rows are ragged
 * (the helper's default elsewhere; host: 1 << 30). first: print nothing,
 * only check (returns whether any dimension is ragged). */
static int store_limits(struct pm_kernel *k, struct pm_strbuf *b,
	isl_ast_expr *const *e, int host, int first)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[k->con[0].out];
	int r[2];

	for (int d = 0; d < 2; ++d)
		r[d] = tt->dims[d].sym >= 0 &&
			pm_kernel_sym_ragged(k, tt->dims[d].sym);
	if (first)
		return r[0] || r[1];
	if (!r[0] && !r[1] && !host)
		return 0;
	for (int d = 0; d < 2; ++d) {
		if (!r[d]) {
			pm_strbuf_add(b, host ? ", 1 << 30" : ", 1LL << 40");
			continue;
		}
		pm_strbuf_printf(b, ", (%s) %s - ", host ? "int64_t" :
			"long long", k->scop->spec->syms[tt->dims[d].sym].name);
		pm_print_expr(b, e[d]);
	}
	return 1;
}

static const char *tname(struct pm_kernel *k, int t)
{
	return k->scop->spec->tensors[t].name;
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
		/* TMA: the DRAIN before it left one group (emit/tma.c) */
		if (!k->tma[op->con])
			pm_strbuf_printf(b, "%s ", c->target->mma_wait_prev);
		return;
	}
	for (int i = 0; i < (k->acc_shared ? 1 : k->ncon); ++i)
		if (kind != PM_OP_FILL || i != op->con)
			pm_strbuf_printf(b, "%s<%d>((float *) %s); ",
				c->target->mma_drain, n, pm_emit_acc_name(k, i));
}

/* The op printers, one per op kind (pm_print_op's table): each prints
 * annotation a's statement with its trailing newline; pred (or NULL) the
 * copies' predicate. */
typedef void op_printer(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred);

/* FILL: zero the macro tile's accumulators (a second contraction onto a
 * shared accumulator: nothing). */
static void op_fill(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_config *c = k->cfg;

	(void) pred;
	if (k->acc_shared && a->op->con) {
		pm_strbuf_add(b, "/* accumulates onto pm_acc */;\n");
		return;
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
}

/* MMA: a macro tile from the shared tiles or the warp's fragments;
 * asynchronous MMAs not kept in flight are waited for on the same line. */
static void op_mma(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *tg = c->target;

	(void) pred;
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
}

/* LDF: one k-step of the warp's fragments. */
static void op_ldf(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) pred;
	print_ldf(k, b, a, host);
}

/* STORE: the macro tile's accumulators to the output in global memory. */
static void op_store(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *tg = c->target;

	(void) pred;
	if (pm_emit_has_red(k))
		pm_print_red_tile(k, b, a, a->e[2], a->e[3], host);
	if (host)
		pm_strbuf_printf(b, "pm_host_store(%d, %d, %s[",
			c->mm, c->mn, pm_emit_acc_name(k, a->op->con));
	else
		pm_strbuf_printf(b, "%s_store%s<%d, %d>(%s[", tg->mma_fn,
			pm_emit_narrow(k) ? "_n" : "", c->mm, c->mn,
			pm_emit_acc_name(k, a->op->con));
	if (host) {
		pm_print_expr(b, a->e[1]);
		pm_strbuf_add(b, "][");
	}
	pm_print_expr(b, a->e[0]);
	pm_strbuf_printf(b, "], %s + ", tname(k, k->con[0].out));
	pm_print_linear(k, b, k->con[0].out, a->e + 2);
	pm_strbuf_add(b, ", ");
	pm_print_stride(k, b, k->con[0].out, 0);
	pm_strbuf_add(b, ", ");
	/* 1, or a swapped row's transposed output's (variant/swap.h) */
	pm_print_stride(k, b, k->con[0].out, 1);
	store_limits(k, b, a->e + 2, host, 0);
	pm_strbuf_add(b, ");\n");
}

/* STS: the macro tile into the shared C tile, converted. */
static void op_sts(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *tg = c->target;

	(void) pred;
	if (pm_emit_has_red(k))
		pm_print_red_tile(k, b, a, a->e[4], a->e[5], host);
	if (k->tma_store && !host) {
		/* 128-byte swizzled column blocks (TSTG, below) */
		pm_strbuf_printf(b, "%s_store_swz<%d, %d, %s>(%s[", tg->mma_fn,
			c->mm, c->mn, pm_emit_ctype(k, k->con[0].out, 0),
			pm_emit_acc_name(k, a->op->con));
		pm_print_expr(b, a->e[0]);
		pm_strbuf_printf(b, "], (unsigned char *) pm_cst, %d, ", c->bm);
		pm_print_expr(b, a->e[2]);
		pm_strbuf_add(b, ", ");
		pm_print_expr(b, a->e[3]);
		pm_strbuf_add(b, ");\n");
		return;
	}
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
	pm_strbuf_printf(b, ", %d, 1%s);\n", k->cst_pitch, host ?
		", 1 << 30, 1 << 30" : "");
}

/* STG of a transposed output (a swapped row's, variant/swap.h): the
 * unit's elements along the output's dimension 1, strided in memory,
 * those inside its extent. */
static void stg_strided(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const int t = k->con[0].out;
	char ext[64];

	if (host) {
		b->failed = 1;
		return;
	}
	pm_scop_dim_str(k->scop, t, 1, ext, sizeof(ext));
	pm_strbuf_printf(b, "pm_s2g_strided<%d>(&%s[", k->cst_vec,
		tname(k, t));
	pm_print_linear(k, b, t, a->e);
	pm_strbuf_add(b, "], &pm_cst[(");
	pm_print_expr(b, a->e[2]);
	pm_strbuf_printf(b, ") * %d + ", k->cst_pitch);
	pm_print_expr(b, a->e[3]);
	pm_strbuf_add(b, "], ");
	pm_print_stride(k, b, t, 1);
	pm_strbuf_printf(b, ", (int64_t) %s - ", ext);
	pm_print_expr(b, a->e[1]);
	pm_strbuf_add(b, ");\n");
}

/* STG: one 16-byte unit of the C tile to global memory (not past a
 * ragged size; the split persistent kernel's strip only). */
static void op_stg(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	struct pm_strbuf g;

	(void) pred;
	pm_print_strip_pred(k, b, a->e[2]);
	pm_strbuf_init(&g);
	if (pm_print_bounds(k, &g, k->con[0].out, a->e))
		pm_strbuf_printf(b, "if (%s) ", g.s ? g.s : "0");
	if (g.failed)
		b->failed = 1;
	pm_strbuf_free(&g);
	if (pm_emit_narrow(k)) {
		/* the _unaligned row: the elements inside the output's row */
		pm_strbuf_printf(b, host ? "pm_host_s2g_n(%d, " :
			"pm_s2g_narrow<%d>(", k->cst_vec);
		pm_print_narrow_src(k, b, k->con[0].out, -1, a->e);
		pm_strbuf_add(b, ", &pm_cst[(");
		pm_print_expr(b, a->e[2]);
		pm_strbuf_printf(b, ") * %d + ", k->cst_pitch);
		pm_print_expr(b, a->e[3]);
		pm_strbuf_add(b, "]);\n");
		return;
	}
	if (k->scop->spec->tensors[k->con[0].out].tposed) {
		stg_strided(k, b, a, host);
		return;
	}
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
}

/* TSTG (docs/decisions/0048-tma-stores.md): one thread stores column
 * block e[2] of the swizzled C tile at
 * global (e[0], e[1]) by TMA, the map pm_tm<nbufs> clipping it at the
 * sizes (launch.c); TSTG_WAIT: that thread waits until its earlier stores
 * have read the tile (the barrier of SYNC_ST follows).  CUDA only: the
 * host target has no warp-specialized kernels. */
static void op_tstg(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) pred;
	if (host) {
		b->failed = 1;
		return;
	}
	/* a cluster's block past the last tile row stores nothing
	 * (fixup.c, pm_print_strip_pred) */
	pm_strbuf_printf(b, "if (threadIdx.x == 0%s) { pm_tma_store_%s("
		"&pm_tm%d, (unsigned char *) pm_cst + (", k->mc ?
		" && pm_own" : "", pm_emit_batched(k) ? "3d" : "2d", k->nbufs);
	pm_print_expr(b, a->e[2]);
	pm_strbuf_printf(b, ") * %d, ", k->cfg->bm * 128);
	pm_print_expr(b, a->e[1]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[0]);
	/* a batched output: its unit's batch (emit/batch.c) */
	pm_strbuf_printf(b, "%s); pm_bulk_commit(); }\n", pm_emit_batched(k) ?
		", (int) pm_bz" : "");
}

static void op_tstg_wait(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) k;
	(void) a;
	(void) pred;
	if (host)
		b->failed = 1;
	else
		pm_strbuf_add(b, "if (threadIdx.x == 0) pm_bulk_wait_read();\n");
}

/* LDR, STR: a register-staged copy unit. */
static void op_rstage(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) pred;
	pm_print_rstage(k, b, a, host);
}

/* EPI: the epilogue (pointwise.c). */
static void op_epi(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) pred;
	pm_print_epi(k, b, a, host);
}

/* PRO: a prologue on the copied units (pointwise.c); none on the
 * zeros past k (they stay zeros: docs/decisions/0030-ragged-k.md). */
static void op_pro(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];

	(void) pred;
	/* a converting copy's PRO writes every unit: zeros past k */
	if (pm_kernel_k_guard_dim(k, buf) >= 0) {
		pm_strbuf_add(b, "if (");
		pm_print_k_pred(k, b, buf, a);
		pm_strbuf_add(b, ") ");
	}
	pm_print_pro(k, b, a, host);
	if (buf->conv && pm_kernel_k_guard_dim(k, buf) >= 0) {
		b->s[--b->len] = '\0';
		pm_strbuf_add(b, " else ");
		pm_print_pro_zero(k, b, a, host);
	}
	if (pm_emit_narrow(k))
		pm_print_narrow_pro_tail(k, b, a, host);
}

/* DRAIN: wait for the contraction's asynchronous MMAs (warp-specialized
 * with MMAs in flight: tma.c). */
static void op_drain(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *tg = c->target;

	(void) pred;
	if (host || !tg->mma_drain)
		pm_strbuf_add(b, "/* the MMAs are done */;\n");
	else if (k->ws && c->mma_inflight > 0)
		pm_print_ws_drain(k, b, a);
	else {
		pm_print_drains(k, b, a->op->con, tg->mma_drain,
			c->wm * c->wn / pm_config_unit(c));
		b->s[b->len - 1] = '\n';
	}
}

/* FIXUP: the split-K fixup (fixup.c), in the _split kernels only. */
static void op_fixup(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) pred;
	if (host || k->emit_fixup)
		pm_print_fixup(k, b, a, host);
	else
		pm_strbuf_add(b, "/* split-K fixup: in the _split kernel */;"
			"\n");
}

/* RED: an epilogue reduction's block and blocks (epired.c). */
static void op_red(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) pred;
	pm_print_red_block(k, b, a, host);
}

/* SYNC: the block's barrier (warp-specialized: the consumer warps only,
 * the producer warp is on its next tile's copies). */
static void op_sync(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *tg = c->target;

	(void) a;
	(void) pred;
	if (!host && k->ws)
		pm_strbuf_printf(b, "pm_fence_proxy_async(); "
			"pm_bar_sync_n<%d>();\n", pm_config_threads(c));
	else
		pm_strbuf_add(b, host ? "/* __syncthreads() */;\n" :
			tg->desc_smem ? "pm_fence_proxy_async(); "
			"__syncthreads();\n" : "__syncthreads();\n");
}

/* COMMIT: close the group of asynchronous copies (TMA: nothing). */
static void op_commit(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) pred;
	pm_strbuf_add(b, k->tma[a->op->con] ? "/* TMA: the boxes "
		"complete on the stage's barrier */;\n" : host ?
		"/* commit */;\n" : "pm_cp_async_commit();\n");
}

/* RELEASE: the warp is done with the stage (tma.c). */
static void op_release(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	(void) pred;
	pm_print_release(k, b, a, host);
}

/* WAIT: the stage's copies have landed (TMA: tma.c), then the barrier. */
static void op_wait(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *tg = c->target;

	(void) pred;
	if (k->tma[a->op->con]) {
		pm_print_tma_wait(k, b, a, host);
		return;
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
}

static op_printer *const op_printers[] = {
	[PM_OP_FILL] = op_fill,
	[PM_OP_MMA] = op_mma,
	[PM_OP_STORE] = op_store,
	[PM_OP_COPY] = pm_print_copy,
	[PM_OP_SYNC] = op_sync,
	[PM_OP_COMMIT] = op_commit,
	[PM_OP_WAIT] = op_wait,
	[PM_OP_EPI] = op_epi,
	[PM_OP_PRO] = op_pro,
	[PM_OP_LDF] = op_ldf,
	[PM_OP_STS] = op_sts,
	[PM_OP_STG] = op_stg,
	[PM_OP_LDR] = op_rstage,
	[PM_OP_STR] = op_rstage,
	[PM_OP_FIXUP] = op_fixup,
	[PM_OP_DRAIN] = op_drain,
	[PM_OP_RELEASE] = op_release,
	[PM_OP_RED] = op_red,
	[PM_OP_TSTG_WAIT] = op_tstg_wait,
	[PM_OP_TSTG] = op_tstg,
};

/* pm_print_op (ops.h): the drain an op needs first (print_drain), then
 * its kind's printer. */
int pm_print_op(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	unsigned kind = (unsigned) a->op->kind;

	if (a->op->kind != PM_OP_FIXUP || host || k->emit_fixup)
		print_drain(k, b, a->op, host);
	if (kind >= sizeof(op_printers) / sizeof(op_printers[0]) ||
	    !op_printers[kind])
		return -1;
	op_printers[kind](k, b, a, host, pred);
	return 0;
}

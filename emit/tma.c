/* Printing the TMA pipeline's ops (promote/tma.c): the copies of a tile
 * by one thread, the waits on the stages' "full" mbarriers and the warps'
 * releases on their "empty" ones. pm_bar (file.c) holds, per contraction c,
 * S full barriers from 2 S c, then S empty ones. */
#include <stdio.h>

#include "emit/group.h"
#include "emit/tma.h"
#include "target/target.h"

/* Index of contraction c's first "full" barrier in pm_bar (file.c): each
 * contraction has S full barriers, then S empty ones. */
static int bar_full(struct pm_kernel *k, int c)
{
	/* warp-specialized: the contractions' tiles share one ring */
	return k->ws ? 0 : 2 * k->cfg->stages * c;
}

/* The bytes of one k tile of contraction c (all its buffers): whole
 * boxes, as TMA counts them. */
static long tma_tile_bytes(struct pm_kernel *k, int c)
{
	long bytes = 0;

	for (int i = 0; i < k->nbufs; ++i)
		if (k->bufs[i].con == c)
			bytes += k->bufs[i].size[0] * pm_buffer_boxes(&k->bufs[i]) *
				pm_buffer_box_cols(&k->bufs[i]) *
				pm_buffer_eb(k, i);
	return bytes;
}

/* The B tile's boxes in a cluster of two blocks (k->mc): block
 * pm_rk copies boxes 2 jj + pm_rk (a tile of one box: rows pm_rk R / 2 ..
 * of its R, the tensor map's box half as tall) into both blocks, each
 * completing the bytes on its own full barrier f + pm_s. The rest of
 * ws_copy's braces ({ const unsigned pm_q ..) is open. */
static void mc_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int f)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;
	long n = pm_buffer_boxes(buf), w = pm_buffer_box_cols(buf);
	long h = buf->size[0] / 2;

	for (long jj = 0; jj < (n > 1 ? n / 2 : 1); ++jj) {
		pm_strbuf_printf(b, "pm_tma_load_2d_mc(&%s_shared[pm_s * %ld + ",
			name, buf->stage_elems);
		if (n > 1)
			pm_strbuf_printf(b, "(%ld + pm_rk) * %ld", 2 * jj,
				buf->size[0] * w);
		else
			pm_strbuf_printf(b, "pm_rk * %ld", h * w);
		pm_strbuf_printf(b, "], &pm_tm%d, &pm_bar[%d + pm_s], ",
			a->op->buffer, f);
		pm_print_expr(b, a->e[1]);
		if (n > 1)
			pm_strbuf_printf(b, " + (%ld + (int) pm_rk) * %ld, ",
				2 * jj, w);
		else
			pm_strbuf_add(b, ", ");
		pm_print_expr(b, a->e[0]);
		if (n == 1)
			pm_strbuf_printf(b, " + (int) pm_rk * %ld", h);
		pm_strbuf_add(b, ", 3); ");
	}
	pm_strbuf_add(b, "}\n");
}

/* The stage of a copy: the expression `stage`, or (NULL) pm_s, a
 * warp-specialized kernel's ring position. */
static void print_stage(struct pm_strbuf *b, __isl_keep isl_ast_expr *stage)
{
	if (stage)
		pm_print_expr(b, stage);
	else
		pm_strbuf_add(b, "pm_s");
}

/* The boxes of copy a (slots 0, 1 its origin) into stage `stage`
 * (print_stage), one per 64-column block, each completing its bytes on
 * full barrier f + stage. */
static void print_boxes(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, __isl_keep isl_ast_expr *stage, int f)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;
	int batch = k->scop->spec->tensors[buf->tensor].batch;
	long w = pm_buffer_box_cols(buf);

	for (long j = 0; j < pm_buffer_boxes(buf); ++j) {
		pm_strbuf_printf(b, "pm_tma_load_%s(&%s_shared[", batch ? "3d" :
			"2d", name);
		print_stage(b, stage);
		pm_strbuf_printf(b, " * %ld + %ld], &pm_tm%d, &pm_bar[%d + ",
			buf->stage_elems, j * buf->size[0] * w, a->op->buffer, f);
		print_stage(b, stage);
		pm_strbuf_add(b, "], ");
		pm_print_expr(b, a->e[1]);
		pm_strbuf_printf(b, " + %ld, ", j * w);
		pm_print_expr(b, a->e[0]);
		/* a grouped spec's rows: the group's first row (emit/group.h) */
		pm_strbuf_add(b, pm_emit_group_row0(k, buf->tensor));
		/* a batched operand's map: z the unit's batch (emit/batch.h) */
		pm_strbuf_add(b, batch ? ", (int) pm_bz); " : "); ");
	}
}

/* pm_print_tma_copy of a warp-specialized kernel: on the producer's
 * thread (emit/print.c guards the subtree), at ring position pm_qc + q. */
static void ws_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, const char *pred, int lead)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	int S = k->cfg->stages, f = bar_full(k, buf->con);

	pm_strbuf_printf(b, "%s%s%s{ const unsigned pm_q = pm_qc + ",
		pred ? "if (" : "", pred ? pred : "", pred ? ") " : "");
	pm_print_ktiles_before(k, b, buf->con);
	pm_strbuf_add(b, "(");
	pm_print_expr(b, a->e[5]);
	pm_strbuf_printf(b, "), pm_s = pm_q %% %d; ", S);
	if (lead)
		pm_strbuf_printf(b, "if (pm_q >= %d) pm_mbar_wait(&pm_bar[%d + "
			"pm_s], (pm_q / %d + 1) & 1); pm_mbar_arrive_tx(&pm_bar"
			"[%d + pm_s], %ld); ", S, f + S, S, f,
			tma_tile_bytes(k, buf->con));
	if (k->mc && pm_buffer_is_b(k, a->op->buffer)) {
		mc_copy(k, b, a, f);
		return;
	}
	print_boxes(k, b, a, NULL, f);
	pm_strbuf_add(b, "}\n");
}

/* A TMA copy: the whole tile q of a buffer (one instance per tile, slots
 * 0, 1 its origin, 4 its stage, 5 q), issued by thread 0. The contraction's
 * first buffer first waits until every warp released the stage (tile
 * q - S's "empty" phase) and arms its "full" barrier with the tile's
 * bytes; each box completes its bytes there. A tile wider than 64 columns
 * (SWZ 2) is one box per 64-column block. Host: the tile copied in place. */
void pm_print_tma_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;
	int S = k->cfg->stages, f = bar_full(k, buf->con), lead = 1;

	for (int i = 0; i < a->op->buffer; ++i)
		lead &= k->bufs[i].con != buf->con;
	if (host) {
		if (pred)
			pm_strbuf_printf(b, "if (%s) ", pred);
		pm_strbuf_printf(b, "pm_host_tma(&%s_shared[", name);
		pm_print_expr(b, a->e[4]);
		pm_strbuf_printf(b, " * %ld], ", buf->stage_elems);
		pm_strbuf_printf(b, "&%s[", name);
		pm_print_linear(k, b, buf->tensor, a->e);
		pm_strbuf_add(b, "]");
		pm_strbuf_printf(b, ", %ld, %ld, ", buf->size[0], buf->size[1]);
		pm_print_stride(k, b, buf->tensor, 0);
		pm_strbuf_printf(b, ", %d, %d", buf->pitch, buf->swz);
		/* past a ragged size or k: zeros, as TMA's out-of-bounds
		 * boxes */
		for (int d = 0; d < 2; ++d) {
			int s = k->scop->spec->tensors[buf->tensor].dims[d].sym;
			char n[64];

			if (d != pm_kernel_k_guard_dim(k, buf) &&
			    (s < 0 || !pm_kernel_sym_ragged(k, s))) {
				pm_strbuf_add(b, ", 1L << 30");
				continue;
			}
			pm_scop_dim_str(k->scop, buf->tensor, d, n, sizeof(n));
			pm_strbuf_printf(b, ", %s - ", n);
			pm_print_expr(b, a->e[d]);
		}
		pm_strbuf_add(b, ");\n");
		return;
	}
	if (k->ws) {
		ws_copy(k, b, a, pred, lead);
		return;
	}
	pm_strbuf_printf(b, "if (threadIdx.x == 0%s%s) { ", pred ? " && " : "",
		pred ? pred : "");
	if (lead) {
		pm_strbuf_add(b, "if (");
		pm_print_expr(b, a->e[5]);
		pm_strbuf_printf(b, " >= %d) pm_mbar_wait(&pm_bar[%d + ", S,
			f + S);
		pm_print_expr(b, a->e[4]);
		pm_strbuf_add(b, "], ((");
		pm_print_expr(b, a->e[5]);
		pm_strbuf_printf(b, ") / %d + 1) & 1); pm_mbar_arrive_tx(&pm_bar"
			"[%d + ", S, f);
		pm_print_expr(b, a->e[4]);
		pm_strbuf_printf(b, "], %ld); ", tma_tile_bytes(k, buf->con));
	}
	print_boxes(k, b, a, a->e[4], f);
	pm_strbuf_add(b, "}\n");
}

/* WAIT: tile kt's boxes have landed (phase kt / S of full[kt mod S]). */
void pm_print_tma_wait(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	int S = k->cfg->stages;

	if (host) {
		pm_strbuf_add(b, "/* wait for the tile's boxes */;\n");
		return;
	}
	if (k->ws) {
		pm_strbuf_printf(b, "pm_mbar_wait(&pm_bar[%d + ",
			bar_full(k, a->op->con));
		pm_print_ring(k, b, a->e[0], 0, a->op->con);
		pm_strbuf_add(b, "], ");
		pm_print_ring(k, b, a->e[0], 1, a->op->con);
		pm_strbuf_add(b, ");\n");
		return;
	}
	pm_strbuf_printf(b, "pm_mbar_wait(&pm_bar[%d + (",
		bar_full(k, a->op->con));
	pm_print_expr(b, a->e[0]);
	pm_strbuf_printf(b, ") %% %d], ((", S);
	pm_print_expr(b, a->e[0]);
	pm_strbuf_printf(b, ") / %d) & 1);\n", S);
}

/* "(unsigned) (kt) + 1u < KT" (last = 0) or ">= KT" (last = 1): tile kt
 * of contraction c is not / is the last of the unit (unsplit). */
static void print_last(struct pm_kernel *k, struct pm_strbuf *b,
	__isl_keep isl_ast_expr *kt, int c, int last)
{
	pm_strbuf_add(b, "(unsigned) (");
	pm_print_expr(b, kt);
	pm_strbuf_printf(b, ") + 1u %s ", last ? ">=" : "<");
	pm_print_ktiles(k, b, c);
}

/* DRAIN of a warp-specialized kernel with one k tile of MMAs in flight:
 * all but tile kt's group, all of them after the last tile. */
void pm_print_ws_drain(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a)
{
	const struct pm_config *c = k->cfg;
	int two = k->scop->join && !k->acc_shared;

	pm_strbuf_add(b, "if (");
	print_last(k, b, a->e[0], a->op->con, 0);
	pm_strbuf_printf(b, ") %s else %s", c->target->mma_wait_prev,
		two ? "{ " : "");
	pm_print_drains(k, b, a->op->con, c->target->mma_drain,
		c->wm * c->wn / pm_config_unit(c));
	if (two)
		pm_strbuf_add(b, "}\n");
	else
		b->s[b->len - 1] = '\n';
}

/* The warp's arrival on the "empty" barrier of k tile q (expression e)
 * of contraction c; a cluster of two (k->mc): on both blocks'. */
static void ws_arrive(struct pm_kernel *k, struct pm_strbuf *b,
	__isl_keep isl_ast_expr *e, int c)
{
	int S = k->cfg->stages, mc = k->mc;

	pm_strbuf_printf(b, "%spm_mbar_arrive(&pm_bar[%d + ", mc ? "{ " : "",
		bar_full(k, c) + S);
	pm_print_ring(k, b, e, 0, c);
	pm_strbuf_add(b, "]);");
	if (mc) {
		pm_strbuf_printf(b, " pm_mbar_arrive_peer(&pm_bar[%d + ",
			bar_full(k, c) + S);
		pm_print_ring(k, b, e, 0, c);
		pm_strbuf_add(b, "], pm_rk ^ 1u); }");
	}
}

/* RELEASE: each warp, done with stage kt mod S (its MMAs drained); with
 * one k tile of MMAs in flight (warp-specialized), stage kt - 1, and after
 * the last tile its own stage too. */
void pm_print_release(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	int S = k->cfg->stages, con = a->op->con;

	if (host) {
		pm_strbuf_add(b, "/* release the stage */;\n");
		return;
	}
	if (k->ws && k->cfg->mma_inflight > 0) {
		isl_ctx *ctx = isl_ast_expr_get_ctx(a->e[0]);
		isl_ast_expr *prev = isl_ast_expr_sub(isl_ast_expr_copy(a->e[0]),
			isl_ast_expr_from_val(isl_val_one(ctx)));

		pm_strbuf_add(b, "if (pm_lane_id() == 0) { if ((");
		pm_print_expr(b, a->e[0]);
		pm_strbuf_add(b, ") >= 1) ");
		ws_arrive(k, b, prev, con);
		pm_strbuf_add(b, " if (");
		print_last(k, b, a->e[0], con, 1);
		pm_strbuf_add(b, ") ");
		ws_arrive(k, b, a->e[0], con);
		pm_strbuf_add(b, " }\n");
		isl_ast_expr_free(prev);
		return;
	}
	if (k->ws) {
		pm_strbuf_add(b, "if (pm_lane_id() == 0) ");
		ws_arrive(k, b, a->e[0], con);
		pm_strbuf_add(b, "\n");
		return;
	}
	pm_strbuf_printf(b, "if (pm_lane_id() == 0) pm_mbar_arrive(&pm_bar"
		"[%d + (", bar_full(k, a->op->con) + S);
	pm_print_expr(b, a->e[0]);
	pm_strbuf_printf(b, ") %% %d]);\n", S);
}

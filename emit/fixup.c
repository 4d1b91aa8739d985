/* Printing the split-K fixup (the FIXUP op of promote/store.c). */
#include <stdio.h>

#include "emit/fixup.h"
#include "target/target.h"

/* Split-K: the block's partial accumulators into its workspace slot; the
 * last block of the tile to arrive sums every slot (its own included) in
 * z order (the same rounding whichever block is last) and goes on, the
 * others stop; the arrival flag lives in the (then unused) shared memory:
 *   workspace = [tile][z][accumulator][register / 4][thread] float4
 * with the tiles in raster order (blockIdx.x; host: row-major)
 * (host: [tile][z][accumulator][BM x BN]). */
/* Persistent (k->ws; sm90_split.cuh's pm_rs_*), reduce-scatter: every
 * unit of the tile puts the accumulators of the warps outside its strip
 * [pm_w0, pm_w1) (file.c), waits for the tile's other units and adds
 * their partials of its strip onto its own, in z order (the same rounding
 * in every run); the STG ops store the strip's rows only
 * (pm_print_strip_pred):
 *   workspace = [tile][z][accumulator][register / 4][thread] float4
 * with the split tiles in raster order (pm_ts, file.c). */
/* The split persistent kernel launched in clusters (_persist_split_cl,
 * not --cluster 1): its fixup reduces through distributed shared memory
 * only, _persist_split's through the workspace only (each kernel without
 * the other's code: ~2 % on the k loops; docs/PERF.md). */

/* Launched in clusters (pm_cl > 1): the same reduce-scatter with the
 * partials in the strip owner's shared memory, the stages (sm90_split.cuh's
 * pm_dsm_*; the plan makes sure they hold them). */
static void dsm_fixup(struct pm_kernel *k, struct pm_strbuf *b, long n,
	int nacc)
{
	long nt = pm_config_threads(k->cfg);
	int nb = pm_kernel_nbars(k);

	pm_strbuf_printf(b, " if (pm_cl > 1) { pm_dsm_ready<%ld>(&pm_bar[%d], "
		"pm_z, pm_nz);", nt, nb - 2);
	for (int i = 0; i < nacc; ++i)
		pm_strbuf_printf(b, " pm_dsm_put<%ld, %ld>((const float *) %s, "
			"(float *) pm_smem, %d, &pm_bar[%d], pm_z, pm_nz);", n,
			nt, pm_emit_acc_name(k, i), i, nb - 2);
	pm_strbuf_printf(b, " pm_dsm_sent<%ld>(&pm_bar[%d], pm_z, pm_nz);",
		nt, nb - 1);
	for (int i = 0; i < nacc; ++i)
		pm_strbuf_printf(b, " pm_dsm_add<%ld, %ld>((float *) %s, "
			"(const float *) pm_smem, %d, &pm_bar[%d], pm_z, pm_nz);",
			n, nt, pm_emit_acc_name(k, i), i, nb - 1);
	pm_strbuf_add(b, " }");
}

/* The last chunk to arrive sums (k->last, a row's; no chunk waits for
 * another, so the plan need not keep a tile's chunks resident together):
 * every unit of a split tile puts its whole accumulators into its slot;
 * the last of the tile's pm_nz to arrive sums the slots in z order (the
 * same rounding whichever is last) and stores the whole tile, the others
 * go on to their next unit (sm90_split.cuh's pm_la_last, pm_la_sum):
 *   workspace = [tile][z][accumulator][register / 4][thread] float4. */
static void last_fixup(struct pm_kernel *k, struct pm_strbuf *b, long n,
	int nacc)
{
	long nt = pm_config_threads(k->cfg), pb = nacc * n * nt;
	int nb = pm_kernel_nbars(k);

	pm_strbuf_add(b, "if (pm_nz > 1) {");
	for (int i = 0; i < nacc; ++i)
		pm_strbuf_printf(b, " pm_splitk_put<%ld, %ld>((const float *) "
			"%s, pm_ws + ((int64_t) pm_ts * pm_nz + pm_z) * %ld + "
			"%ld);", n, nt, pm_emit_acc_name(k, i), pb, i * n * nt);
	pm_strbuf_printf(b, " if (!pm_la_last<%ld>(pm_cnt + pm_ts, pm_nz, "
		"(volatile int *) &pm_bar[%d])) continue;", nt, nb - 1);
	for (int i = 0; i < nacc; ++i)
		pm_strbuf_printf(b, " pm_la_sum<%ld, %ld>((float *) %s, "
			"pm_ws + (int64_t) pm_ts * pm_nz * %ld + %ld, %ld, pm_nz);",
			n, nt, pm_emit_acc_name(k, i), pb, i * n * nt, pb);
	pm_strbuf_add(b, " }\n");
}

static void ws_fixup(struct pm_kernel *k, struct pm_strbuf *b, long n,
	int nacc)
{
	long nt = pm_config_threads(k->cfg), pb = nacc * n * nt;

	if (k->last) {
		last_fixup(k, b, n, nacc);
		return;
	}

	pm_strbuf_add(b, "if (pm_nz > 1) {");
	/* the kernel launched in clusters reduces through them only (the
	 * plan gives it no other split); the other through the workspace */
	if (k->dsm) {
		dsm_fixup(k, b, n, nacc);
		pm_strbuf_add(b, " }\n");
		return;
	}
	for (int i = 0; i < nacc; ++i)
		pm_strbuf_printf(b, " pm_rs_put<%ld, %ld>((const float *) %s, "
			"pm_ws + ((int64_t) pm_ts * pm_nz + pm_z) * %ld + %ld, "
			"pm_w0, pm_w1);", n, nt, pm_emit_acc_name(k, i), pb,
			i * n * nt);
	pm_strbuf_printf(b, " pm_rs_sync<%ld>(pm_cnt + pm_ts, (unsigned) pm_nz);",
		nt);
	pm_strbuf_add(b, " for (int pm_q = 0; pm_q < pm_nz; ++pm_q) if (pm_q "
		"!= pm_z) {");
	for (int i = 0; i < nacc; ++i)
		pm_strbuf_printf(b, " pm_rs_add<%ld, %ld>((float *) %s, pm_ws + "
			"((int64_t) pm_ts * pm_nz + pm_q) * %ld + %ld, pm_w0, "
			"pm_w1);", n, nt, pm_emit_acc_name(k, i), pb, i * n * nt);
	pm_strbuf_add(b, " } pm_rs_done(pm_cnt + pm_ts, (unsigned) pm_nz); }\n");
}

/* The split persistent kernel: the STG of the C tile's unit at row e
 * stores only in the unit's strip (warp w holds rows 16w .. 16w + 15 on
 * the wgmma layout; api/ builds the variant only where the warpgroups
 * are stacked along m, each over the tile's columns). */
void pm_print_strip_pred(struct pm_kernel *k, struct pm_strbuf *b,
	__isl_keep isl_ast_expr *e)
{
	/* a cluster's block past the last tile row (file.c's mc_loop) */
	if (k->mc) {
		pm_strbuf_add(b, "if (pm_own) ");
		return;
	}
	/* the last chunk to arrive stores the whole tile */
	if (!k->ws || !k->scop->nsplit || !k->emit_fixup || k->last)
		return;
	pm_strbuf_add(b, "if (pm_nz == 1 || (");
	pm_print_expr(b, e);
	pm_strbuf_add(b, " / 16 >= pm_w0 && ");
	pm_print_expr(b, e);
	pm_strbuf_add(b, " / 16 < pm_w1)) ");
}

void pm_print_fixup(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_config *c = k->cfg;
	int nacc = k->acc_shared ? 1 : k->ncon;
	long n = host ? (long) c->bm * c->bn :
		(long) (c->wm / c->mm) * (c->wn / c->mn) *
		(c->mm * c->mn / pm_config_unit(c));
	long nt = host ? 1 : pm_config_threads(c), pb = nacc * n * nt;
	char ntx[64], tile[256];
	struct pm_strbuf t;

	pm_scop_dim_str(k->scop, k->con[0].out, 1, ntx, sizeof(ntx));
	pm_strbuf_init(&t);
	if (host) {
		pm_strbuf_add(&t, "(int64_t) (");
		pm_print_expr(&t, a->e[0]);
		pm_strbuf_printf(&t, ") * ((%s + %d) / %d) + (", ntx,
			c->bn - 1, c->bn);
		pm_print_expr(&t, a->e[1]);
		pm_strbuf_add(&t, ")");
	} else {
		/* the tile's place in the raster order (file.c) */
		pm_strbuf_add(&t, "(int64_t) blockIdx.x");
	}
	snprintf(tile, sizeof(tile), "(%s)", t.s ? t.s : "0");
	pm_strbuf_free(&t);
	if (k->ws) {
		ws_fixup(k, b, n, nacc);
		return;
	}
	pm_strbuf_add(b, "if (pm_nz > 1) {");
	for (int i = 0; i < nacc; ++i) {
		if (host)
			pm_strbuf_printf(b, " pm_host_splitk_put(&%s[0][0][0], "
				"%ld, ", pm_emit_acc_name(k, i), n);
		else
			pm_strbuf_printf(b, " pm_splitk_put<%ld, %ld>((const "
				"float *) %s, ", n, nt, pm_emit_acc_name(k, i));
		pm_strbuf_printf(b, "pm_ws + (%s * pm_nz + pm_z) * %ld + %ld);",
			tile, pb, i * n * nt);
	}
	pm_strbuf_printf(b, " if (!pm_%ssplitk_arrive(pm_cnt + %s, pm_nz%s)) "
		"%s;", host ? "host_" : "", tile, host ? "" : ", (int *) pm_smem",
		host ? "continue" : "return");
	for (int i = 0; i < nacc; ++i) {
		if (host)
			pm_strbuf_printf(b, " pm_host_splitk_sum(&%s[0][0][0], "
				"%ld, ", pm_emit_acc_name(k, i), n);
		else
			pm_strbuf_printf(b, " pm_splitk_sum<%ld, %ld>((float *) "
				"%s, ", n, nt, pm_emit_acc_name(k, i));
		pm_strbuf_printf(b, "pm_ws + %s * pm_nz * %ld + %ld, %ld, "
			"pm_nz);", tile, pb, i * n * nt, pb);
	}
	pm_strbuf_add(b, " }\n");
}

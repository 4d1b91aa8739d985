/* Printing the split-K fixup (the FIXUP op of promote/store.c). */
#include <stdio.h>

#include "emit/print.h"
#include "emit/target.h"

/* Split-K: the block's partial accumulators into its workspace slot; the
 * last block of the tile to arrive sums every slot (its own included) in
 * z order (the same rounding whichever block is last) and goes on, the
 * others stop; the arrival flag lives in the (then unused) shared memory:
 *   workspace = [tile][z][accumulator][register / 4][thread] float4
 * with the tiles in raster order (blockIdx.x; host: row-major)
 * (host: [tile][z][accumulator][BM x BN]). */
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

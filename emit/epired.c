/* Printing an epilogue reduction (epired.h,
 * docs/decisions/0037-epilogue-reductions.md). */
#include <stdio.h>

#include "emit/epired.h"
#include "emit/pointwise.h"
#include "promote/promote.h"
#include "target/target.h"
#include "variant/epired.h"

int pm_emit_has_red(const struct pm_kernel *k)
{
	return k->scop->spec->nepired > 0;
}

static const struct pm_stmt *red_stmt(const struct pm_kernel *k)
{
	return pm_epired_stmt(k->scop->spec);
}

/* The output's dimension d (0 rows, 1 columns): its size, and is it
 * ragged in this kernel? */
static int out_dim(struct pm_kernel *k, int d, char *n, int len)
{
	int s = k->scop->spec->tensors[k->con[0].out].dims[d].sym;

	pm_scop_dim_str(k->scop, k->con[0].out, d, n, len);
	return s >= 0 && pm_kernel_sym_ragged(k, s);
}

/* "pm_a = pm_a + (", "pm_a = fmaxf(pm_a, ": the combine of x into pm_a
 * (closed by ")"). */
static void op_open(struct pm_kernel *k, struct pm_strbuf *b, const char *a)
{
	static const char *const f[] = { "", "fmaxf", "fminf" };
	int op = red_stmt(k)->red;

	if (op == PM_RED_SUM)
		pm_strbuf_printf(b, "%s = %s + (", a, a);
	else
		pm_strbuf_printf(b, "%s = %s(%s, ", a, f[op], a);
}

/* The operator's identity. */
static void ident(struct pm_kernel *k, struct pm_strbuf *b, int host)
{
	static const char *const h[] = { "0.0f", "-INFINITY", "INFINITY" };

	if (host)
		pm_strbuf_add(b, h[red_stmt(k)->red]);
	else
		pm_strbuf_printf(b, "pm_red_ident<%d>()", red_stmt(k)->red);
}

/* "(inside ? (expr) : identity)" of the element at pm_i, pm_j (value
 * pm_v). */
static void value(struct pm_kernel *k, struct pm_strbuf *b, int host)
{
	char n[2][64];
	int r0 = out_dim(k, 0, n[0], 64), r1 = out_dim(k, 1, n[1], 64);

	pm_strbuf_add(b, "(");
	if (r0 || r1)
		pm_strbuf_printf(b, "%s%s%s%s%s ? ", r0 ? "(int) pm_i < " : "",
			r0 ? n[0] : "", r0 && r1 ? " && " : "", r1 ?
			"(int) pm_j < " : "", r1 ? n[1] : "");
	pm_strbuf_add(b, "(");
	pm_print_epi_value(k, b, red_stmt(k)->rhs, k->con[0].out, host);
	pm_strbuf_add(b, ")");
	if (r0 || r1) {
		pm_strbuf_add(b, " : ");
		ident(k, b, host);
	}
	pm_strbuf_add(b, ")");
}

/* "pm_red_s[GROUP * KEXT + X]" of the tile at (gi, gj) (the row / column
 * pm_m / pm_n in it; wiu: the warp in the unit). */
static void slot(struct pm_kernel *k, struct pm_strbuf *b, isl_ast_expr *gi,
	isl_ast_expr *gj, const char *wiu, int host)
{
	const struct pm_config *c = k->cfg;
	long kext, g = pm_kernel_red_groups(k, host, &kext);
	long wpu = host ? 1 : pm_config_unit(c) / 32;
	int kd = pm_epired_kept(k->scop->spec);

	pm_strbuf_add(b, "pm_red_s[");
	if (kd != 0) {	/* the macro tile's rows, the warp's in the unit */
		pm_strbuf_add(b, "((int) (((");
		pm_print_expr(b, gi);
		pm_strbuf_printf(b, ") %% %d) / %d) * %ld + %s)", c->bm, c->mm,
			wpu, wpu > 1 ? wiu : "0");
	}
	if (kd == 2)
		pm_strbuf_printf(b, " * %d + ", c->bn / c->mn);
	if (kd != 1) {	/* the macro tile's columns */
		pm_strbuf_add(b, "(int) (((");
		pm_print_expr(b, gj);
		pm_strbuf_printf(b, ") %% %d) / %d)", c->bn, c->mn);
	}
	if (kd != 2) {
		pm_strbuf_printf(b, " * %ld + (int) (((", kext);
		pm_print_expr(b, kd ? gj : gi);
		pm_strbuf_printf(b, ") + %s) %% %d)", kd ? "pm_n" : "pm_m",
			kd ? c->bn : c->bm);
	}
	pm_strbuf_add(b, "]");
	(void) g;
}

static void tile_host(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, isl_ast_expr *gi, isl_ast_expr *gj)
{
	const struct pm_config *c = k->cfg;
	int kd = pm_epired_kept(k->scop->spec);
	const char *o = kd == 1 ? "pm_n" : "pm_m", *in = kd == 1 ? "pm_m" :
		"pm_n";

	pm_strbuf_add(b, "{ float pm_a; ");
	if (kd == 2) {
		pm_strbuf_add(b, "pm_a = ");
		ident(k, b, 1);
		pm_strbuf_add(b, "; ");
	}
	pm_strbuf_printf(b, "for (int %s = 0; %s < %d; ++%s) { ", o, o,
		kd == 1 ? c->mn : c->mm, o);
	if (kd != 2) {
		pm_strbuf_add(b, "pm_a = ");
		ident(k, b, 1);
		pm_strbuf_add(b, "; ");
	}
	pm_strbuf_printf(b, "for (int %s = 0; %s < %d; ++%s) { const int64_t "
		"pm_i = ", in, in, kd == 1 ? c->mm : c->mn, in);
	pm_print_expr(b, gi);
	pm_strbuf_add(b, " + pm_m, pm_j = ");
	pm_print_expr(b, gj);
	pm_strbuf_add(b, " + pm_n; ");
	pm_print_epi_clamps(k, b);
	pm_strbuf_printf(b, "const float pm_v = %s[", pm_emit_acc_name(k,
		a->op->con));
	pm_print_expr(b, a->e[1]);
	pm_strbuf_add(b, "][");
	pm_print_expr(b, a->e[0]);
	pm_strbuf_printf(b, "][pm_m * %d + pm_n]; (void) pm_v; ", c->mn);
	op_open(k, b, "pm_a");
	value(k, b, 1);
	pm_strbuf_add(b, "); } ");
	if (kd != 2) {
		slot(k, b, gi, gj, "0", 1);
		pm_strbuf_add(b, " = pm_a; } }\n");
		return;
	}
	pm_strbuf_add(b, "} ");
	slot(k, b, gi, gj, "0", 1);
	pm_strbuf_add(b, " = pm_a; }\n");
}

void pm_print_red_tile(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, isl_ast_expr *gi, isl_ast_expr *gj, int host)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *t = c->target;
	int kd = pm_epired_kept(k->scop->spec), op = red_stmt(k)->red;
	char wiu[64];

	if (host) {
		tile_host(k, b, a, gi, gj);
		return;
	}
	pm_strbuf_printf(b, "{ typedef %s_red<%d, %d> pm_L; float pm_rp["
		"pm_L::nslot(%d)]; _Pragma(\"unroll\") for (int pm_s = 0; pm_s < "
		"pm_L::nslot(%d); ++pm_s) pm_rp[pm_s] = pm_red_ident<%d>(); "
		"_Pragma(\"unroll\") for (int pm_r = 0; pm_r < %d; ++pm_r) { int "
		"pm_m, pm_n; %s_acc_coord<%d, %d>(pm_r, %s(), &pm_m, &pm_n); "
		"const int64_t pm_i = ", t->mma_fn, c->mm, c->mn, kd, kd, op,
		c->mm * c->mn / pm_config_unit(c), t->mma_fn, c->mm, c->mn,
		t->unit_thread);
	pm_print_expr(b, gi);
	pm_strbuf_add(b, " + pm_m, pm_j = ");
	pm_print_expr(b, gj);
	pm_strbuf_printf(b, " + pm_n; (void) pm_i; (void) pm_j; const float "
		"pm_v = %s[", pm_emit_acc_name(k, a->op->con));
	pm_print_expr(b, a->e[0]);
	pm_strbuf_printf(b, "][pm_r]; (void) pm_v; float *pm_p = &pm_rp[pm_L::"
		"slot(pm_r, %d)]; ", kd);
	op_open(k, b, "*pm_p");
	value(k, b, 0);
	pm_strbuf_printf(b, "); } _Pragma(\"unroll\") for (int pm_s = 0; pm_s "
		"< pm_L::nslot(%d); ++pm_s) { int pm_m, pm_n; %s_acc_coord<%d, "
		"%d>(pm_L::rep(pm_s, %d), %s(), &pm_m, &pm_n); const float pm_w = "
		"pm_red_lanes<pm_L::lanes(%d), %d>(pm_rp[pm_s]); if ((pm_lane_id() "
		"& pm_L::lanes(%d)) == 0) ", kd, t->mma_fn, c->mm, c->mn, kd,
		t->unit_thread, kd, op, kd);
	snprintf(wiu, sizeof(wiu), "(%s() >> 5)", t->unit_thread);
	slot(k, b, gi, gj, wiu, 0);
	pm_strbuf_add(b, " = pm_w; } }\n");
}

/* "if (<group pm_g's first row / column inside the sizes>) " (nothing
 * where the sizes are not ragged). */
static void group_valid(struct pm_kernel *k, struct pm_strbuf *b, int host)
{
	const struct pm_config *c = k->cfg;
	long wpu = host ? 1 : pm_config_unit(c) / 32, gn = c->bn / c->mn;
	int kd = pm_epired_kept(k->scop->spec);
	char n[2][64];
	int r[2] = { out_dim(k, 0, n[0], 64), out_dim(k, 1, n[1], 64) };

	r[0] &= kd != 0;
	r[1] &= kd != 1;
	if (!r[0] && !r[1])
		return;
	pm_strbuf_add(b, "if (");
	if (r[0])
		pm_strbuf_printf(b, "(int64_t) pm_p0 * %d + (pm_g / %ld) * %d < "
			"%s", c->bm, kd == 2 ? gn * wpu : wpu, c->mm, n[0]);
	if (r[0] && r[1])
		pm_strbuf_add(b, " && ");
	if (r[1]) {
		pm_strbuf_printf(b, "(int64_t) pm_p1 * %d + (pm_g", c->bn);
		if (kd == 2)
			pm_strbuf_printf(b, " %% %ld", gn);
		pm_strbuf_printf(b, ") * %d < %s", c->mn, n[1]);
	}
	pm_strbuf_add(b, ") ");
}

/* "S[pm_gx] = pm_a;" (converted to S's type). */
static void store_s(struct pm_kernel *k, struct pm_strbuf *b, const char *x,
	int host)
{
	const struct pm_tensor *s = &k->scop->spec->tensors[
		red_stmt(k)->lhs];
	const struct pm_elem *e = pm_elem_of(s->type);

	pm_strbuf_printf(b, "%s[%s] = %s(pm_a); ", s->name, x, !host && e ?
		e->from_f32 : "");
}

/* The threads that reduce: the block's, or a warp-specialized kernel's
 * consumers (threads [0, pm_config_threads); its producer warp never
 * joins: docs/decisions/0056-epilogue-reductions-persistent.md). */
static int red_threads(const struct pm_kernel *k, int host)
{
	return host ? 1 : k->ws ? pm_config_threads(k->cfg) :
		pm_kernel_threads(k);
}

/* Their barrier: __syncthreads, or the consumers' named barrier. */
static void red_sync(const struct pm_kernel *k, struct pm_strbuf *b)
{
	if (k->ws)
		pm_strbuf_printf(b, "pm_bar_sync_n<%d>(); ",
			pm_config_threads(k->cfg));
	else
		pm_strbuf_add(b, "__syncthreads(); ");
}

/* The block's partials into the workspace (KD 0: [row][pm_p1], 1:
 * [column][pm_p0], 2: [pm_p0][pm_p1]). */
static void block_put(struct pm_kernel *k, struct pm_strbuf *b, int host)
{
	const struct pm_config *c = k->cfg;
	long kext, g = pm_kernel_red_groups(k, host, &kext);
	int kd = pm_epired_kept(k->scop->spec);
	int nt = red_threads(k, host);
	char n[2][64];

	out_dim(k, 0, n[0], 64);
	out_dim(k, 1, n[1], 64);
	pm_strbuf_printf(b, "for (int pm_x = %s; pm_x < %ld; pm_x += %d) { "
		"float pm_a = ", host ? "0" : "(int) threadIdx.x", kext, nt);
	ident(k, b, host);
	pm_strbuf_printf(b, "; for (int pm_g = 0; pm_g < %ld; ++pm_g) ", g);
	group_valid(k, b, host);
	op_open(k, b, "pm_a");
	pm_strbuf_printf(b, "pm_red_s[pm_g * %ld + pm_x]); ", kext);
	if (kd == 2)
		pm_strbuf_add(b, "{ const int64_t pm_at = (int64_t) pm_p0 * pm_n1 "
			"+ pm_p1; ");
	else
		pm_strbuf_printf(b, "const int64_t pm_gx = (int64_t) pm_p%d * %d "
			"+ pm_x; if (pm_gx < %s) { const int64_t pm_at = pm_gx * "
			"pm_n%d + pm_p%d; ", kd, kd ? c->bn : c->bm, n[kd], 1 - kd,
			1 - kd);
	pm_strbuf_add(b, host ? "pm_rws[pm_at] = pm_a; } } " :
		"__stcg(&pm_rws[pm_at], pm_a); } } ");
}

/* The last block of the panel: the panel's partials combined in block
 * order into the output (a scalar: strided over the threads, then their
 * sums in thread order). */
static void block_sum(struct pm_kernel *k, struct pm_strbuf *b, int host)
{
	const struct pm_config *c = k->cfg;
	long kext, g = pm_kernel_red_groups(k, host, &kext);
	int kd = pm_epired_kept(k->scop->spec);
	int nt = red_threads(k, host);
	/* read and left 0 (runtime/device/red.cuh: pm_red_take) */
	const char *ld = "pm_red_take(&pm_rws[", *le = "])";
	char n[2][64];

	out_dim(k, 0, n[0], 64);
	out_dim(k, 1, n[1], 64);
	if (kd == 2) {
		pm_strbuf_add(b, "float pm_a = ");
		ident(k, b, host);
		pm_strbuf_printf(b, "; for (int64_t pm_q = %s; pm_q < pm_np; "
			"pm_q += %d) ", host ? "0" : "threadIdx.x", nt);
		op_open(k, b, "pm_a");
		pm_strbuf_printf(b, "%spm_q%s); ", ld, le);
		if (host) {
			store_s(k, b, "0", host);
			return;
		}
		pm_strbuf_printf(b, "pm_red_s[%ld + threadIdx.x] = pm_a; ",
			g * kext);
		red_sync(k, b);
		pm_strbuf_add(b, "if (threadIdx.x == 0) { pm_a = ");
		ident(k, b, host);
		pm_strbuf_printf(b, "; for (int pm_t = 0; pm_t < %d; ++pm_t) ",
			nt);
		op_open(k, b, "pm_a");
		pm_strbuf_printf(b, "pm_red_s[%ld + pm_t]); ", g * kext);
		store_s(k, b, "0", host);
		pm_strbuf_add(b, "} ");
		return;
	}
	pm_strbuf_printf(b, "for (int pm_x = %s; pm_x < %ld; pm_x += %d) { "
		"const int64_t pm_gx = (int64_t) pm_p%d * %d + pm_x; if (pm_gx < "
		"%s) { float pm_a = ", host ? "0" : "(int) threadIdx.x", kext, nt,
		kd, kd ? c->bn : c->bm, n[kd]);
	ident(k, b, host);
	pm_strbuf_add(b, "; for (int64_t pm_q = 0; pm_q < pm_np; ++pm_q) ");
	op_open(k, b, "pm_a");
	pm_strbuf_printf(b, "%spm_gx * pm_np + pm_q%s); ", ld, le);
	store_s(k, b, "pm_gx", host);
	pm_strbuf_add(b, "} } ");
}

void pm_print_red_block(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_config *c = k->cfg;
	int kd = pm_epired_kept(k->scop->spec);
	static const char *const np[] = { "pm_n1", "pm_n0", "pm_n0 * pm_n1" };
	static const char *const panel[] = { "pm_p0", "pm_p1", "0" };
	char n[2][64];

	out_dim(k, 0, n[0], 64);
	out_dim(k, 1, n[1], 64);
	pm_strbuf_add(b, "{ const int64_t pm_p0 = ");
	pm_print_expr(b, a->e[0]);
	pm_strbuf_add(b, ", pm_p1 = ");
	pm_print_expr(b, a->e[1]);
	pm_strbuf_printf(b, "; const int64_t pm_n0 = ((int64_t) %s + %d) / %d, "
		"pm_n1 = ((int64_t) %s + %d) / %d, pm_np = %s; (void) pm_n0; "
		"(void) pm_n1; ", n[0], c->bm - 1, c->bm, n[1], c->bn - 1,
		c->bn, np[kd]);
	if (!host)
		red_sync(k, b);
	block_put(k, b, host);
	if (host)
		pm_strbuf_printf(b, "if (++pm_rcnt[%s] == (unsigned) pm_np) { "
			"pm_rcnt[%s] = 0; ", panel[kd], panel[kd]);
	else
		pm_strbuf_printf(b, "if (pm_red_arrive<%d>(pm_rcnt + %s, "
			"(unsigned) pm_np, pm_red_flag)) { ", k->ws ?
			pm_config_threads(c) : 0, panel[kd]);
	block_sum(k, b, host);
	pm_strbuf_add(b, "} ");
	/* a persistent kernel's next tile reuses pm_red_s and the flag:
	 * every consumer past them first */
	if (!host && k->ws)
		red_sync(k, b);
	pm_strbuf_add(b, "}\n");
}

void pm_print_red_locals(struct pm_kernel *k, struct pm_strbuf *b, int host)
{
	long at = pm_kernel_red_at(k, host);

	if (!pm_emit_has_red(k))
		return;
	pm_strbuf_printf(b, "\t%sint *pm_red_flag = (%sint *) (%s + %ld);\n"
		"\tfloat *pm_red_s = (float *) (%s + %ld);\n\t(void) pm_red_flag;"
		"\n", host ? "" : "volatile ", host ? "" : "volatile ",
		host ? "(char *) pm_smem" : "pm_smem", at, host ?
		"(char *) pm_smem" : "pm_smem", at + 16);
}

void pm_emit_red_fns(struct pm_kernel *k, struct pm_strbuf *b, int bm, int bn)
{
	const char *name = k->scop->spec->name;
	int kd = pm_epired_kept(k->scop->spec);
	char n[2][64];

	if (!pm_emit_has_red(k))
		return;
	out_dim(k, 0, n[0], 64);
	out_dim(k, 1, n[1], 64);
	pm_strbuf_printf(b, "\n/* The epilogue reduction's workspace "
		"(docs/decisions/0037-epilogue-reductions.md):\n * a counter per "
		"panel of blocks of 16 %s at least, then the blocks' partials\n"
		" * (blocks of %dx%d at least). */\nstatic size_t pm_red_cnt_%s(",
		kd == 0 ? "rows" : kd == 1 ? "columns" : "tiles", bm, bn, name);
	pm_emit_size_list(k, b, 2);
	pm_strbuf_printf(b, ")\n{\n\treturn ((size_t) (%s + 15) / 16 * 4 + "
		"255) / 256 * 256;\n}\n\nstatic size_t pm_red_bytes_%s(",
		kd == 2 ? "16" : n[kd], name);
	pm_emit_size_list(k, b, 2);
	pm_strbuf_printf(b, ")\n{\n\treturn pm_red_cnt_%s(", name);
	pm_emit_size_list(k, b, 0);
	if (kd == 0)
		pm_strbuf_printf(b, ") + (size_t) %s * ((%s + %d) / %d) * 4;\n}\n",
			n[0], n[1], bn - 1, bn);
	else if (kd == 1)
		pm_strbuf_printf(b, ") + (size_t) %s * ((%s + %d) / %d) * 4;\n}\n",
			n[1], n[0], bm - 1, bm);
	else
		pm_strbuf_printf(b, ") + (size_t) ((%s + %d) / %d) * ((%s + %d) / "
			"%d) * 4;\n}\n", n[0], bm - 1, bm, n[1], bn - 1, bn);
}

void pm_emit_red_tile(const struct pm_variant_set *vs, int *bm, int *bn)
{
	*bm = vs->main->cfg->bm, *bn = vs->main->cfg->bn;
	for (int i = 0; i < PM_RT_NROLES; ++i)
		if (vs->v[i].k) {
			if (vs->v[i].k->cfg->bm < *bm)
				*bm = vs->v[i].k->cfg->bm;
			if (vs->v[i].k->cfg->bn < *bn)
				*bn = vs->v[i].k->cfg->bn;
		}
}

/* Grouped specs in the generated file (group.h). */
#include <stdio.h>

#include "emit/group.h"

int pm_emit_grouped(const struct pm_kernel *k)
{
	return k->scop->spec->grouped;
}

const char *pm_emit_param_name(const struct pm_kernel *k, int s)
{
	const struct pm_spec *spec = k->scop->spec;

	return spec->grouped && s == spec->group_rows ? "pm_rows" :
		spec->syms[s].name;
}

const char *pm_emit_group_row0(const struct pm_kernel *k, int t)
{
	return pm_emit_grouped(k) && k->scop->spec->tensors[t].grows ?
		" + (int) pm_glo" : "";
}

/* "(int64_t) (K)": the elements of one row of tensor t (its dimensions
 * after the rows). */
static void row_elems(const struct pm_kernel *k, int t, char *buf,
	size_t len)
{
	const struct pm_tensor *x = &k->scop->spec->tensors[t];
	size_t off = (size_t) snprintf(buf, len, "(int64_t) 1");

	for (int d = 1; d < x->rank && off < len; ++d) {
		char e[64];

		pm_scop_dim_str(k->scop, t, d, e, sizeof(e));
		off += (size_t) snprintf(buf + off, len - off, " * (%s)", e);
	}
}

const char *pm_emit_group_block(const struct pm_kernel *k)
{
	return pm_emit_grouped(k) ? "pm_gu" : "blockIdx.x";
}

void pm_emit_group_units(const struct pm_kernel *k, char *buf, size_t len)
{
	char e[64], n[64];

	pm_scop_dim_str(k->scop, k->scop->spec->group_offs, 0, e, sizeof(e));
	pm_scop_dim_str(k->scop, k->con[0].out, 1, n, sizeof(n));
	snprintf(buf, len, "(((int64_t) (%s) + %d) / %d + (int64_t) (%s)) * "
		"(((int64_t) (%s) + %d) / %d)", k->scop->spec->syms[
		k->scop->spec->group_rows].name, k->cfg->bm - 1, k->cfg->bm, e,
		n, k->cfg->bn - 1, k->cfg->bn);
}

/* "const unsigned pm_gtx": the tiles across the output's columns. */
static void print_gtx(struct pm_kernel *k, struct pm_strbuf *b)
{
	char n[64];

	pm_scop_dim_str(k->scop, k->con[0].out, 1, n, sizeof(n));
	pm_strbuf_printf(b, "\tconst unsigned pm_gtx = ((unsigned) %s + %du) / "
		"%du;\n", n, k->cfg->bn - 1, k->cfg->bn);
}

/* The row tensors' pointers moved by (by) rows (ind: indentation). */
static void row_shift(struct pm_kernel *k, struct pm_strbuf *b,
	const char *by, const char *ind)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int t = 0; t < spec->ntensors; ++t) {
		char re[256];

		if (!spec->tensors[t].grows || spec->tensors[t].role == PM_TEMP)
			continue;
		row_elems(k, t, re, sizeof(re));
		pm_strbuf_printf(b, "%s%s += %s * %s;\n", ind,
			spec->tensors[t].name, by, re);
	}
}

/* A step of the walk over the groups' tile rows (ind: indentation): the
 * group's end offs[g] in pm_c clamped to [0, pm_rows], its rows [l, h),
 * h at least l, and their tile rows pm_n (ndecl: pm_n's declaration). */
static void scan_step(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind, const char *l, const char *h, const char *ndecl)
{
	pm_strbuf_printf(b, "%spm_c = pm_c < 0 ? 0 : pm_c > pm_rows ? pm_rows : "
		"pm_c;\n%s%s = pm_c < %s ? %s : pm_c;\n"
		"%s%spm_n = (unsigned) ((%s - %s + %d) / %d);\n", ind, ind, h, l,
		l, ind, ndecl, h, l, k->cfg->bm - 1, k->cfg->bm);
}

void pm_emit_group_unit(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	const char *rows = spec->syms[spec->group_rows].name;
	const char *offs = spec->tensors[spec->group_offs].name;
	char e[64];

	pm_scop_dim_str(k->scop, spec->group_offs, 0, e, sizeof(e));
	/* group g: rows [clamp(offs[g - 1]), max(that, clamp(offs[g]))),
	 * ceil(rows / BM) tile rows; the block's tile row pm_gu counted
	 * down through the groups until it falls in one */
	pm_strbuf_add(b, "\t/* the block's unit (group, tile): its tile row "
		"over every group's, found in the groups' tile rows "
		"(docs/decisions/0045) */\n");
	print_gtx(k, b);
	pm_strbuf_printf(b, "\tunsigned pm_gu = blockIdx.x / pm_gtx;\n"
		"\tint64_t pm_bz = -1, pm_glo = 0, pm_ghi = 0;\n"
		"\tfor (int64_t pm_g = 0, pm_l = 0; pm_g < (int64_t) (%s) && "
		"pm_bz < 0; ++pm_g) {\n"
		"\t\tint64_t pm_c = (int64_t) %s[pm_g], pm_h;\n"
		"\t\tunsigned pm_n;\n", e, offs);
	scan_step(k, b, "\t\t", "pm_l", "pm_h", "");
	pm_strbuf_printf(b, "\t\tif (pm_gu < pm_n)\n"
		"\t\t\tpm_bz = pm_g, pm_glo = pm_l, pm_ghi = pm_h;\n"
		"\t\telse\n\t\t\tpm_gu -= pm_n;\n"
		"\t\tpm_l = pm_c;\n\t}\n"
		"\tif (pm_bz < 0)\n\t\treturn;\n"
		"\tconst int %s = (int) (pm_ghi - pm_glo);\n"
		"\tpm_gu = pm_gu * pm_gtx + blockIdx.x %% pm_gtx;\n", rows);
}

void pm_emit_group_locals(struct pm_kernel *k, struct pm_strbuf *b,
	int host)
{
	const struct pm_spec *spec = k->scop->spec;
	const char *offs = spec->tensors[spec->group_offs].name;

	if (!pm_emit_grouped(k))
		return;
	/* the host rendering: called once per group pm_bz (CUDA: the unit
	 * found it, pm_emit_group_unit) */
	if (host)
		pm_strbuf_printf(b, "\tint64_t pm_glo = pm_bz ? (int64_t) "
			"%s[pm_bz - 1] : 0, pm_ghi = (int64_t) %s[pm_bz];\n"
			"\tpm_glo = pm_glo < 0 ? 0 : pm_glo > pm_rows ? pm_rows : "
			"pm_glo;\n"
			"\tpm_ghi = pm_ghi < pm_glo ? pm_glo : pm_ghi > pm_rows ? "
			"pm_rows : pm_ghi;\n"
			"\tconst long %s = (long) (pm_ghi - pm_glo);\n", offs,
			offs, spec->syms[spec->group_rows].name);
	row_shift(k, b, "pm_glo", "\t");
}

/* " X Y" of the tensors (not temporaries) with flag batch (1) or grows
 * (0). */
static void names(const struct pm_spec *spec, int batch,
	struct pm_strbuf *b)
{
	for (int t = 0; t < spec->ntensors; ++t)
		if ((batch ? spec->tensors[t].batch : spec->tensors[t].grows) &&
		    spec->tensors[t].role != PM_TEMP)
			pm_strbuf_printf(b, " %s", spec->tensors[t].name);
}

void pm_emit_group_comment(const struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	char e[64];

	pm_scop_dim_str(k->scop, spec->group_offs, 0, e, sizeof(e));
	pm_strbuf_printf(b, " * group    each block runs a unit (group g, "
		"tile) of the rows [%s(g - 1), %s(g))\n *          (%s groups, "
		"docs/decisions/0045); per group:",
		spec->tensors[spec->group_offs].name,
		spec->tensors[spec->group_offs].name, e);
	names(spec, 1, b);
	pm_strbuf_add(b, "; rows:");
	names(spec, 0, b);
	pm_strbuf_printf(b, "\n *          (blocks: ceil(%s / BM) + %s tile "
		"rows, the units' bound; those past the units return)\n",
		spec->syms[spec->group_rows].name, e);
}

/* Persistent kernels (k->ws; docs/decisions/0051-grouped-persistent-units.md):
 * each block walks the units (group, tile) in order, the groups' tile
 * rows scanned on from its last unit's group (pm_sg, rows [pm_sl, pm_sh),
 * its first tile row over every group's pm_sr); the pointers move from
 * the last unit's group (pm_bzp) and first row (pm_glop). */
void pm_emit_group_plocals(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	const char *rows = spec->syms[spec->group_rows].name;
	char e[64];

	pm_scop_dim_str(k->scop, spec->group_offs, 0, e, sizeof(e));
	print_gtx(k, b);
	pm_strbuf_printf(b, "\tconst unsigned pm_nu = (unsigned) ((((int64_t) "
		"pm_rows + %d) / %d + (int64_t) (%s)) * pm_gtx);\n"
		"\tint64_t pm_bzp = 0, pm_glop = 0, pm_sg = 0, pm_sl = 0, pm_sh "
		"= 0;\n\tunsigned pm_sr = 0;\n\tint %s = 0;\n",
		k->cfg->bm - 1, k->cfg->bm, e, rows);
	if (pm_kernel_sym_ragged(k, spec->group_rows))
		pm_strbuf_printf(b, "\tint pm_t%s = 0;\n\t(void) pm_t%s;\n",
			rows, rows);
}

void pm_emit_group_punit(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	const char *rows = spec->syms[spec->group_rows].name;
	const char *offs = spec->tensors[spec->group_offs].name;
	char e[64];

	pm_scop_dim_str(k->scop, spec->group_offs, 0, e, sizeof(e));
	pm_strbuf_printf(b, "\t\t/* the unit's group: the groups' tile rows "
		"walked on from the last unit's */\n"
		"\t\tconst unsigned pm_gr = pm_u / pm_gtx;\n"
		"\t\twhile (pm_sg < (int64_t) (%s)) {\n"
		"\t\t\tint64_t pm_c = (int64_t) %s[pm_sg];\n", e, offs);
	scan_step(k, b, "\t\t\t", "pm_sl", "pm_sh", "const unsigned ");
	pm_strbuf_printf(b, "\t\t\tif (pm_gr < pm_sr + pm_n)\n\t\t\t\tbreak;\n"
		"\t\t\tpm_sr += pm_n, pm_sl = pm_c, ++pm_sg;\n\t\t}\n"
		"\t\tif (pm_sg >= (int64_t) (%s))\n\t\t\tbreak;\n"
		"\t\tconst int64_t pm_bz = pm_sg, pm_glo = pm_sl;\n"
		"\t\t%s = (int) (pm_sh - pm_sl);\n", e, rows);
}

void pm_emit_group_prows(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	const char *rows = spec->syms[spec->group_rows].name;
	const int bm = k->cfg->bm, m = pm_kernel_size_multiple(k,
		spec->group_rows);

	row_shift(k, b, "(pm_glo - pm_glop)", "\t\t");
	pm_strbuf_add(b, "\t\tpm_bzp = pm_bz, pm_glop = pm_glo;\n");
	if (pm_kernel_sym_ragged(k, spec->group_rows))
		pm_strbuf_printf(b, "\t\tpm_t%s = (%s + %d) / %d * %d;\n", rows,
			rows, m - 1, m, m);
	pm_strbuf_printf(b, "\t\tconst unsigned pm_ty = ((unsigned) %s + %du) / "
		"%du;\n\t\tconst unsigned pm_t = (pm_gr - pm_sr) * pm_gtx + pm_u "
		"%% pm_gtx;\n", rows, bm - 1, bm);
}

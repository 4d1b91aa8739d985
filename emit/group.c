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

/* The early return of a block past its group's tiles: blockIdx.x runs
 * the tiles of every group's bound (emit/launch.c). */
static void early_return(struct pm_kernel *k, struct pm_strbuf *b,
	const char *rows)
{
	char n[64];

	pm_scop_dim_str(k->scop, k->con[0].out, 1, n, sizeof(n));
	pm_strbuf_printf(b, "\tif (blockIdx.x >= ((unsigned) %s + %du) / %du "
		"* (((unsigned) %s + %du) / %du))\n\t\treturn;\n", rows,
		k->cfg->bm - 1, k->cfg->bm, n, k->cfg->bn - 1, k->cfg->bn);
}

void pm_emit_group_locals(struct pm_kernel *k, struct pm_strbuf *b,
	int host)
{
	const struct pm_spec *spec = k->scop->spec;
	const char *rows = spec->syms[spec->group_rows].name;
	const char *offs = spec->tensors[spec->group_offs].name;

	if (!pm_emit_grouped(k))
		return;
	pm_strbuf_printf(b, "\tint64_t pm_glo = pm_bz ? (int64_t) %s[pm_bz - "
		"1] : 0, pm_ghi = (int64_t) %s[pm_bz];\n"
		"\tpm_glo = pm_glo < 0 ? 0 : pm_glo > pm_rows ? pm_rows : "
		"pm_glo;\n"
		"\tpm_ghi = pm_ghi < pm_glo ? pm_glo : pm_ghi > pm_rows ? "
		"pm_rows : pm_ghi;\n"
		"\tconst %s %s = (%s) (pm_ghi - pm_glo);\n", offs, offs,
		host ? "long" : "int", rows, host ? "long" : "int");
	if (!host)
		early_return(k, b, rows);
	for (int t = 0; t < spec->ntensors; ++t) {
		char re[256];

		if (!spec->tensors[t].grows || spec->tensors[t].role == PM_TEMP)
			continue;
		row_elems(k, t, re, sizeof(re));
		pm_strbuf_printf(b, "\t%s += pm_glo * %s;\n",
			spec->tensors[t].name, re);
	}
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
	pm_strbuf_printf(b, " * group    blockIdx.z runs the group of the "
		"rows [%s(z - 1), %s(z)) (%s groups,\n *          "
		"docs/decisions/0045); per group:",
		spec->tensors[spec->group_offs].name,
		spec->tensors[spec->group_offs].name, e);
	names(spec, 1, b);
	pm_strbuf_add(b, "; rows:");
	names(spec, 0, b);
	pm_strbuf_printf(b, "\n *          (%s: every group's bound; a block "
		"past its group's tiles returns)\n",
		spec->syms[spec->group_rows].name);
}

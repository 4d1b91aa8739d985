/* The K-major copies of a generated file (kcopy.h). */
#include <string.h>

#include "emit/kcopy.h"

int pm_emit_kcopies(const struct pm_kernel *k)
{
	const struct pm_spec *spec = k->scop->spec;
	int n = 0;

	for (int t = 0; t < spec->ntensors; ++t)
		n += spec->tensors[t].kcopy;
	return n;
}

/* The copy of tensor t: its rows R (the user's first dimension, the copy's
 * second) and columns C, as text. */
static void dims(struct pm_kernel *k, int t, char *r, char *c, int len)
{
	pm_scop_dim_str(k->scop, t, 1, r, len);
	pm_scop_dim_str(k->scop, t, 0, c, len);
}

void pm_emit_kcopy_fns(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	const char *name = spec->name;
	char r[64], c[64];
	int order[64], n = pm_emit_size_order(k, order), first = 1;

	if (!pm_emit_kcopies(k))
		return;
	pm_strbuf_printf(b, "\n/* The K-major copies of operands declared "
		"MN-major (runtime/device/kcopy.cuh):\n * their workspace bytes "
		"at these sizes, and the copies written at pm_at, each\n * "
		"operand then pointing at its copy. */\nstatic size_t "
		"pm_kc_bytes_%s(", name);
	pm_emit_size_list(k, b, 2);
	pm_strbuf_add(b, ")\n{\n\treturn ");
	for (int t = 0; t < spec->ntensors; ++t) {
		if (!spec->tensors[t].kcopy)
			continue;
		dims(k, t, r, c, sizeof(r));
		pm_strbuf_printf(b, "%spm_kc_bytes(%s, %s)", first ? "" : " + ",
			r, c);
		first = 0;
	}
	pm_strbuf_printf(b, ";\n}\n\nstatic cudaError_t pm_kc_run_%s(", name);
	for (int t = 0; t < spec->ntensors; ++t)
		if (spec->tensors[t].kcopy)
			pm_strbuf_printf(b, "const void **%s, ",
				spec->tensors[t].name);
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, "int64_t %s, ", spec->syms[order[i]].name);
	pm_strbuf_add(b, "char *pm_at, cudaStream_t stream)\n{\n"
		"\tcudaError_t e;\n\n");
	for (int t = 0; t < spec->ntensors; ++t) {
		const char *x = spec->tensors[t].name;

		if (!spec->tensors[t].kcopy)
			continue;
		dims(k, t, r, c, sizeof(r));
		pm_strbuf_printf(b, "\t/* %s (%s, %s) into %s x pm_kc_pitch(%s) "
			"*/\n\tif ((e = pm_kcopy(*%s, pm_at, %s, %s, stream)) != "
			"cudaSuccess)\n\t\treturn e;\n\t*%s = pm_at;\n\tpm_at += "
			"pm_kc_bytes(%s, %s);\n", x, r, c, c, r, x, r, c, x, r, c);
	}
	pm_strbuf_add(b, "\t(void) pm_at;\n\treturn cudaSuccess;\n}\n");
}

void pm_emit_kcopy_call(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind, const char *off)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	pm_strbuf_printf(b, "%s/* the K-major copies, in the workspace%s */\n"
		"%sif ((e = pm_kc_run_%s(", ind, strcmp(off, "0") ? " after the "
		"split's part" : "", ind, spec->name);
	for (int t = 0; t < spec->ntensors; ++t)
		if (spec->tensors[t].kcopy)
			pm_strbuf_printf(b, "&%s, ", spec->tensors[t].name);
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, "%s, ", spec->syms[order[i]].name);
	pm_strbuf_printf(b, "(char *) workspace%s%s, stream)) != "
		"cudaSuccess)\n%s\treturn e;\n", strcmp(off, "0") ? " + " : "",
		strcmp(off, "0") ? off : "", ind);
}

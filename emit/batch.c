/* Batched specs in the generated file (batch.h). */
#include <stdio.h>
#include <string.h>

#include "emit/batch.h"

int pm_emit_batched(const struct pm_kernel *k)
{
	return k->scop->spec->nbatch > 0;
}

/* One extent as text: a literal or a symbol (fixed: its value). */
static void dim_str(const struct pm_kernel *k, const struct pm_dim *d,
	char *buf, size_t len)
{
	long v;

	if (d->sym < 0)
		snprintf(buf, len, "%ld", d->value);
	else if (pm_scop_sym_fixed(k->scop, d->sym, &v))
		snprintf(buf, len, "%ld", v);
	else
		snprintf(buf, len, "%s", k->scop->spec->syms[d->sym].name);
}

/* "(int64_t) (X) * (Y)" of n extents (n 0: "(int64_t) 1"). */
static void product(const struct pm_kernel *k, const struct pm_dim *dims,
	int n, char *buf, size_t len)
{
	size_t off = (size_t) snprintf(buf, len, "(int64_t) ");

	if (!n && off < len)
		snprintf(buf + off, len - off, "1");
	for (int d = 0; d < n && off < len; ++d) {
		char e[64];

		dim_str(k, &dims[d], e, sizeof(e));
		off += (size_t) snprintf(buf + off, len - off, "%s(%s)",
			d ? " * " : "", e);
	}
}

void pm_emit_batch_count(const struct pm_kernel *k, char *buf, size_t len)
{
	const struct pm_spec *spec = k->scop->spec;

	product(k, spec->bdims, spec->nbatch, buf, len);
}

void pm_emit_batch_slice(const struct pm_kernel *k, int t, char *buf,
	size_t len)
{
	const struct pm_tensor *x = &k->scop->spec->tensors[t];

	product(k, x->dims, x->rank, buf, len);
}

void pm_emit_batch_locals(struct pm_kernel *k, struct pm_strbuf *b,
	int host)
{
	const struct pm_spec *spec = k->scop->spec;

	if (!pm_emit_batched(k))
		return;
	if (!host)
		pm_strbuf_add(b, "\tconst int64_t pm_bz = blockIdx.z;\n");
	for (int t = 0; t < spec->ntensors; ++t) {
		char sl[256];

		if (!spec->tensors[t].batch || spec->tensors[t].role == PM_TEMP)
			continue;
		pm_emit_batch_slice(k, t, sl, sizeof(sl));
		pm_strbuf_printf(b, "\t%s += pm_bz * %s;\n",
			spec->tensors[t].name, sl);
	}
}

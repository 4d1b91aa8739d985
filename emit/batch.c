/* Batched specs in the generated file (batch.h). */
#include <stdio.h>
#include <string.h>

#include "emit/batch.h"
#include "emit/group.h"

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

/* "X += by * slice;" of each batched tensor X (not temporaries). */
void pm_emit_batch_shift(struct pm_kernel *k, struct pm_strbuf *b,
	const char *by, const char *ind)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int t = 0; t < spec->ntensors; ++t) {
		char sl[256];

		if (!spec->tensors[t].batch || spec->tensors[t].role == PM_TEMP)
			continue;
		pm_emit_batch_slice(k, t, sl, sizeof(sl));
		pm_strbuf_printf(b, "%s%s += %s * %s;\n", ind,
			spec->tensors[t].name, by, sl);
	}
}

void pm_emit_batch_locals(struct pm_kernel *k, struct pm_strbuf *b,
	int host)
{
	char nb[256];

	if (!pm_emit_batched(k))
		return;
	/* persistent: the batch of each unit (pm_emit_batch_unit); the
	 * pointers at batch pm_bzp */
	if (!host && k->ws && pm_emit_grouped(k)) {
		pm_emit_group_plocals(k, b);
		return;
	}
	if (!host && k->ws) {
		pm_emit_batch_count(k, nb, sizeof(nb));
		pm_strbuf_printf(b, "\tconst unsigned pm_nb = (unsigned) %s;\n"
			"\tint64_t pm_bzp = 0;\n", nb);
		return;
	}
	/* grouped: the block's unit (group, tile) (emit/group.h) */
	if (!host && pm_emit_grouped(k))
		pm_emit_group_unit(k, b);
	else if (!host)
		pm_strbuf_add(b, "\tconst int64_t pm_bz = blockIdx.z;\n");
	pm_emit_batch_shift(k, b, "pm_bz", "\t");
	/* grouped: the group's rows (emit/group.h) */
	pm_emit_group_locals(k, b, host);
}

void pm_emit_batch_unit(struct pm_kernel *k, struct pm_strbuf *b,
	const char *per)
{
	pm_strbuf_printf(b, "\t\tconst unsigned pm_t = pm_u %% (%s);\n"
		"\t\tconst int64_t pm_bz = (int64_t) (pm_u / (%s));\n", per, per);
	pm_emit_batch_shift(k, b, "(pm_bz - pm_bzp)", "\t\t");
	pm_strbuf_add(b, "\t\tpm_bzp = pm_bz;\n");
}

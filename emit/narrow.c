/* The global side of the _unaligned row's copies and stores
 * (docs/decisions/0046-narrow-copies.md): a unit is addressed as the start
 * of its row, its column and the row's extent, so that the helpers
 * (runtime/device/common.cuh: pm_cp_narrow, pm_ld_narrow, pm_s2g_narrow;
 * host.h: pm_host_copy_n, pm_host_s2g_n) touch only the elements that
 * exist, whatever the row's length and alignment. */
#include "emit/narrow.h"

int pm_emit_narrow(const struct pm_kernel *k)
{
	return k->cfg->narrow_copies;
}

int pm_narrow_elem_bytes(const struct pm_kernel *k, int t)
{
	switch (k->scop->spec->tensors[t].type) {
	case PM_F32:
	case PM_I32:
		return 4;
	case PM_F16:
	case PM_BF16:
		return 2;
	default:
		return 1;
	}
}

/* "&X[(int64_t) i * stride + ...]": the start of the row of indices e,
 * each index but the last clamped to its extent - 1 where it is ragged
 * or past k (kd). */
static void row_start(struct pm_kernel *k, struct pm_strbuf *b, int t,
	int kd, isl_ast_expr *const *e)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];

	pm_strbuf_printf(b, "&%s[", tt->name);
	if (tt->rank < 2)
		pm_strbuf_add(b, "0");
	for (int d = 0; d + 1 < tt->rank; ++d) {
		int s = tt->dims[d].sym;
		int clamp = d == kd || (s >= 0 && pm_kernel_sym_ragged(k, s));

		pm_strbuf_add(b, d ? " + (int64_t) " : "(int64_t) ");
		if (clamp)
			pm_print_clamped(k, b, t, d, e[d], 1);
		else
			pm_print_expr(b, e[d]);
		pm_strbuf_add(b, " * ");
		pm_print_stride(k, b, t, d);
	}
	pm_strbuf_add(b, "]");
}

void pm_print_narrow_src(struct pm_kernel *k, struct pm_strbuf *b, int t,
	int kd, isl_ast_expr *const *e)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];
	int last = tt->rank - 1;
	char n[64], nk[64];

	row_start(k, b, t, kd, e);
	pm_strbuf_add(b, ", (int64_t) (");
	if (last >= 0)
		pm_print_expr(b, e[last]);
	else
		pm_strbuf_add(b, "0");
	pm_strbuf_add(b, "), ");
	if (last < 0) {
		pm_strbuf_add(b, "(int64_t) 1");
		return;
	}
	pm_scop_dim_str(k->scop, t, last, n, sizeof(n));
	if (kd < 0 || kd == last) {
		pm_strbuf_printf(b, "(int64_t) %s", n);
		return;
	}
	pm_scop_dim_str(k->scop, t, kd, nk, sizeof(nk));
	pm_strbuf_add(b, "(");
	pm_print_expr(b, e[kd]);
	pm_strbuf_printf(b, " < %s ? (int64_t) %s : (int64_t) 0)", nk, n);
}

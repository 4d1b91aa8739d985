/* The copy units (copies.h): a COPY into the shared tile (cp.async, element
 * by element, or on the host), into a converting copy's raw tile
 * (docs/decisions/0047) or, the _unaligned row, of the elements that exist
 * (docs/decisions/0046); the register-staged LDR and STR; and what ops.c's
 * PRO shares with them (the k predicate, the _unaligned row's zero tail).
 * TMA buffers' copies are tma.c's, the narrow units' global side narrow.c's;
 * neither calls back here. */
#include <stdio.h>

#include "emit/copies.h"
#include "emit/narrow.h"
#include "emit/tma.h"

/* "&X[linear index]": the global address of a copy unit (slots 0, 1).
 * Units past a ragged size copy the last one inside it instead (each
 * index clamped: rows to SYM - 1, the contiguous dimension's to SYM -
 * vec): they only reach outputs past the sizes, which are not stored, and
 * the copies keep their addresses loop-invariant and unpredicated. Past
 * k (pm_kernel_k_guard_dim) the address is clamped the same way and the
 * copy zero-fills the unit instead (print_unit_copy, pm_print_k_pred). */
static void global_unit(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_buffer *buf, const struct pm_annot *a)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[buf->tensor];
	int kd = pm_kernel_k_guard_dim(k, buf), clamp[PM_MAX_RANK], any = 0;

	pm_strbuf_printf(b, "&%s[", tt->name);
	for (int d = 0; d < tt->rank; ++d) {
		int s = tt->dims[d].sym;

		clamp[d] = d == kd || (s >= 0 && pm_kernel_sym_ragged(k, s));
		any |= clamp[d];
	}
	if (!any) {
		pm_print_linear(k, b, buf->tensor, a->e);
		pm_strbuf_add(b, "]");
		return;
	}
	for (int d = 0; d < tt->rank; ++d) {
		int u = d + 1 == tt->rank ? buf->vec : 1;

		pm_strbuf_add(b, d ? " + (int64_t) " : "(int64_t) ");
		if (clamp[d])
			pm_print_clamped(k, b, buf->tensor, d, a->e[d], u);
		else
			pm_print_expr(b, a->e[d]);
		if (d + 1 < tt->rank) {
			pm_strbuf_add(b, " * ");
			pm_print_stride(k, b, buf->tensor, d);
		}
	}
	pm_strbuf_add(b, "]");
}

/* pm_print_k_pred (copies.h) */
int pm_print_k_pred(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_buffer *buf, const struct pm_annot *a)
{
	int kd = pm_kernel_k_guard_dim(k, buf);
	char n[64];

	if (kd < 0)
		return 0;
	pm_scop_dim_str(k->scop, buf->tensor, kd, n, sizeof(n));
	pm_print_expr(b, a->e[kd]);
	pm_strbuf_printf(b, " < %s", n);
	return 1;
}

/* A copy unit of the _unaligned row (emit/narrow.h): of the elements that
 * exist, zeros for the others; with pred, only where pred holds. */
static void print_narrow_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;

	if (pred)
		pm_strbuf_printf(b, "if (%s) ", pred);
	pm_strbuf_printf(b, host ? "pm_host_copy_n(%d, " : "pm_cp_narrow<%d>(",
		buf->vec);
	pm_print_unit_addr(b, buf, name, a, host);
	pm_strbuf_add(b, "], ");
	pm_print_narrow_src(k, b, buf->tensor, pm_kernel_k_guard_dim(k, buf),
		a->e);
	pm_strbuf_add(b, ");\n");
}

/* A copy unit; with pred, only where pred holds (a predicated cp.async:
 * the source address is formed but not read otherwise); past k, zeros
 * (the _z helpers: cp.async with a source size of 0). A converting copy
 * (docs/decisions/0047) copies the stored elements into its raw tile, 8
 * bytes of i8 where the MMA type's unit is 16 (pm_cp_async8*,
 * runtime/device/convert.cuh), else element by element, as the others. */
static void print_unit_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;
	int async = !host && buf->vec == pm_kernel_vec(k);
	int z = pm_kernel_k_guard_dim(k, buf) >= 0;

	if (pred && !async)
		pm_strbuf_printf(b, "if (%s) ", pred);
	if (host)
		pm_strbuf_printf(b, "pm_host_copy%s(%d, ", z ? "_z" : "",
			buf->vec);
	else if (async)
		pm_strbuf_printf(b, "pm_cp_async%d%s%s(", buf->conv ? 8 : 16,
			pred ? "_if" : "", z ? "_z" : "");
	else
		pm_strbuf_printf(b, "pm_copy_elems%s(%d, ", z ? "_z" : "",
			buf->vec);
	if (buf->conv)
		pm_print_raw_addr(b, buf, name, a);
	else
		pm_print_unit_addr(b, buf, name, a, host);
	pm_strbuf_add(b, "], ");
	global_unit(k, b, buf, a);
	if (pred && async)
		pm_strbuf_printf(b, ", %s", pred);
	if (z) {
		pm_strbuf_add(b, ", ");
		pm_print_k_pred(k, b, buf, a);
	}
	pm_strbuf_add(b, ");\n");
}

/* pm_print_copy (copies.h) */
void pm_print_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];

	if (buf->tma)
		pm_print_tma_copy(k, b, a, host, pred);
	else if (!buf->conv && pm_emit_narrow(k))
		print_narrow_copy(k, b, a, host, pred);
	else
		print_unit_copy(k, b, a, host, pred);
}

/* The staging register of an LDR / STR unit: "pm_rs<b>[u]" (host:
 * "pm_rs<b>[thread][u]", 8 floats). */
static void rstage_reg(struct pm_strbuf *b, const struct pm_annot *a,
	int host)
{
	pm_strbuf_printf(b, "pm_rs%d[", a->op->buffer);
	if (host) {
		pm_print_expr(b, a->e[6]);
		pm_strbuf_add(b, "][");
	}
	pm_print_expr(b, a->e[5]);
	pm_strbuf_add(b, "]");
}

/* pm_print_rstage (copies.h) */
void pm_print_rstage(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;

	if (a->op->kind == PM_OP_LDR && pm_emit_narrow(k)) {
		/* the _unaligned row: the elements that exist */
		if (host)
			pm_strbuf_add(b, "pm_host_copy_n(8, ");
		rstage_reg(b, a, host);
		pm_strbuf_printf(b, host ? ", " : " = pm_ld_narrow<%d>(",
			buf->vec);
		pm_print_narrow_src(k, b, buf->tensor,
			pm_kernel_k_guard_dim(k, buf), a->e);
		pm_strbuf_add(b, ");\n");
		return;
	}
	if (a->op->kind == PM_OP_LDR) {
		/* past k: zeros */
		if (pm_kernel_k_guard_dim(k, buf) >= 0) {
			pm_strbuf_add(b, host ? "pm_host_copy_z(8, " : "");
			rstage_reg(b, a, host);
			pm_strbuf_add(b, host ? ", " : " = ");
			if (host) {
				global_unit(k, b, buf, a);
				pm_strbuf_add(b, ", ");
				pm_print_k_pred(k, b, buf, a);
				pm_strbuf_add(b, ");\n");
				return;
			}
			pm_print_k_pred(k, b, buf, a);
			pm_strbuf_add(b, " ? *(const uint4 *) ");
			global_unit(k, b, buf, a);
			pm_strbuf_add(b, " : make_uint4(0u, 0u, 0u, 0u);\n");
			return;
		}
		pm_strbuf_add(b, host ? "pm_host_copy(8, " : "");
		rstage_reg(b, a, host);
		pm_strbuf_add(b, host ? ", " : " = *(const uint4 *) ");
		global_unit(k, b, buf, a);
		pm_strbuf_add(b, host ? ");\n" : ";\n");
		return;
	}
	if (host)
		pm_strbuf_add(b, "pm_host_copy(8, ");
	else
		pm_strbuf_add(b, "*(uint4 *) ");
	pm_print_unit_addr(b, buf, name, a, host);
	pm_strbuf_add(b, host ? "], " : "] = ");
	rstage_reg(b, a, host);
	pm_strbuf_add(b, host ? ");\n" : ";\n");
}

/* pm_print_narrow_pro_tail (copies.h) */
void pm_print_narrow_pro_tail(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const struct pm_tensor *tt = &k->scop->spec->tensors[buf->tensor];
	int kd = pm_kernel_k_guard_dim(k, buf);
	char n[64];

	if (kd < 0 || kd != tt->rank - 1)
		return;
	pm_scop_dim_str(k->scop, buf->tensor, kd, n, sizeof(n));
	pm_strbuf_printf(b, "%s(%d, ", host ? "pm_host_zero_tail" :
		"pm_zero_tail", buf->vec);
	pm_print_unit_addr(b, buf, tt->name, a, host);
	pm_strbuf_printf(b, "], (int64_t) %s - (", n);
	pm_print_expr(b, a->e[kd]);
	pm_strbuf_add(b, "));\n");
}

/* Printing the prologues: a pointwise expression on the operand units a
 * thread copied (on .f16x2 pairs where it is exact there), on a converting
 * copy's units, or as a functor on the MMA's register operand
 * (docs/decisions/0047, 0062), and the launcher-applied prologues' values
 * (docs/decisions/0059). */
#include <math.h>

#include "emit/pointwise.h"
#include "emit/pwexpr.h"
#include "target/target.h"
#include "schedule_tree/recognise.h"

/* The spellings of the elements of operand tensor t's tile (a row of the
 * target's operand table: f16 or bf16; the MMA's type, where t is
 * widened to it: docs/decisions/0047). */
static const struct pm_elem *operand_elem(const struct pm_kernel *k, int t)
{
	const struct pm_operand_row *r = pm_target_operand(k->cfg->target,
		pm_kernel_ab(k));

	(void) t;
	return r && r->elem ? r->elem : pm_elem_of(PM_F16);
}

/* Is num exactly a value of element type t (normal or zero)? */
static int elem_exact(const struct pm_elem *t, double num)
{
	int ex;
	double m = frexp(fabs(num), &ex);	/* num = m * 2^ex, m in [.5, 1) */

	if (num == 0)
		return 1;
	m = ldexp(m, t->mant);			/* the significant bits */
	return m == floor(m) && ex - 1 >= t->emin && ex - 1 <= t->emax;
}

/* Is prologue e, computed in fp32 and rounded to t (f16, bf16), exactly
 * the same computed on pairs of t?  True for max, min, abs, relu and
 * negation of the element and constants of t: their result is one of their
 * inputs. */
static int pro_h2_exact(const struct pm_elem *t, const struct pm_expr *e)
{
	switch (e->kind) {
	case PM_E_NUM:
		return elem_exact(t, e->num);
	case PM_E_READ:
		return 1;
	case PM_E_NEG:
		return pro_h2_exact(t, e->args[0]);
	case PM_E_CALL:
		if (e->fn != PM_FN_RELU && e->fn != PM_FN_ABS &&
		    e->fn != PM_FN_MAX && e->fn != PM_FN_MIN)
			return 0;
		for (int i = 0; i < e->nargs; ++i)
			if (!pro_h2_exact(t, e->args[i]))
				return 0;
		return 1;
	default:
		return 0;
	}
}

/* e (pro_h2_exact) on the pair of t pm_x (__half2, __nv_bfloat162): the
 * pair intrinsics have overloads for both. */
static void print_pro_h2(const struct pm_elem *t, struct pm_strbuf *b,
	const struct pm_expr *e)
{
	static const char *const fn[] = {
		[PM_FN_RELU] = "__hmax2", [PM_FN_ABS] = "__habs2",
		[PM_FN_MAX] = "__hmax2", [PM_FN_MIN] = "__hmin2",
	};

	switch (e->kind) {
	case PM_E_NUM:
		pm_strbuf_printf(b, "%s(%.9gf)", t->pair_from_f32, e->num);
		return;
	case PM_E_READ:
		pm_strbuf_add(b, "pm_x");
		return;
	case PM_E_NEG:
		pm_strbuf_add(b, "__hneg2(");
		print_pro_h2(t, b, e->args[0]);
		pm_strbuf_add(b, ")");
		return;
	case PM_E_CALL:
		pm_strbuf_printf(b, "%s(", fn[e->fn]);
		for (int i = 0; i < e->nargs; ++i) {
			if (i)
				pm_strbuf_add(b, ", ");
			print_pro_h2(t, b, e->args[i]);
		}
		if (e->fn == PM_FN_RELU)
			pm_strbuf_printf(b, ", %s(0.0f)", t->pair_from_f32);
		pm_strbuf_add(b, ")");
		return;
	default:
		return;
	}
}

/* The operand read of buffer tensor t (the contraction reading it). */
static const struct pm_expr *buffer_read(const struct pm_kernel *k, int t)
{
	for (int c = 0; c < k->ncon; ++c)
		if (k->con[c].a == t || k->con[c].b == t)
			return k->con[c].a == t ? k->con[c].ra : k->con[c].rb;
	return NULL;
}

/* "const int64_t pm_g0 = .., pm_g1 = ..; ": the global indices of the
 * unit of annotation a (slots 0, 1), clamped as its copy's where a size
 * is ragged (the copy read the last unit inside it: the broadcast reads
 * stay inside too); w->vars the names of the index variables at element
 * pm_e of the unit. */
static void pro_coords(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_buffer *buf, const struct pm_annot *a, struct pw *w)
{
	static const char *const g[2] = { "pm_g0", "(pm_g1 + pm_e)" };
	const struct pm_tensor *tt = &k->scop->spec->tensors[buf->tensor];
	const struct pm_expr *r = buffer_read(k, buf->tensor);

	const char *col = g[1];

	for (int d = 0; d < 2; ++d) {
		int s = tt->dims[d].sym, u = d ? buf->vec : 1;
		char n[64];

		pm_strbuf_printf(b, "%spm_g%d = ", d ? ", " : "const int64_t ",
			d);
		if (s < 0 || !pm_kernel_sym_ragged(k, s)) {
			pm_print_expr(b, a->e[d]);
			continue;
		}
		/* the _unaligned row: units at any column, each element's
		 * clamped (docs/decisions/0046-narrow-copies.md) */
		if (d && k->cfg->narrow_copies) {
			pm_scop_dim_str(k->scop, buf->tensor, d, n, sizeof(n));
			pm_print_expr(b, a->e[d]);
			snprintf(w->gcol, sizeof(w->gcol), "(pm_g1 + pm_e < %s ? "
				"pm_g1 + pm_e : %s - 1)", n, n);
			col = w->gcol;
			continue;
		}
		pm_print_clamped(k, b, buf->tensor, d, a->e[d], u);
	}
	pm_strbuf_add(b, "; (void) pm_g0; (void) pm_g1; ");
	for (int v = 0; v < 3; ++v)
		w->vars[v] = "0";
	for (int d = 0; r && d < 2; ++d)
		w->vars[r->idx[d]] = d ? col : g[0];
}

/* A converting copy's PRO (docs/decisions/0047): the vec stored elements
 * of the unit this thread copied, from the raw tile, to fp32 (exact: every
 * i8 is a float), the prologue if any, rounded once to the MMA's type t
 * into the operand tile (GPU, 16-byte units: one 8-byte load of the raw
 * bytes, one 16-byte store). */
static void print_conv_pro(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;
	const struct pm_elem *t = operand_elem(k, buf->tensor);
	const struct pm_elem *st = pm_elem_storage(
		k->scop->spec->tensors[buf->tensor].type);
	const char *sc = pm_emit_ctype(k, buf->tensor, host);
	int vec = !host && buf->vec == 8;
	struct pw w = { .chain = buf->tensor };

	pm_strbuf_printf(b, "{ %s *pm_q = ", host ? "float" : t->ctype);
	pm_print_unit_addr(b, buf, name, a, host);
	pm_strbuf_printf(b, "]; const %s *pm_s = ", sc);
	pm_print_raw_addr(b, buf, name, a);
	pm_strbuf_add(b, "]; ");
	if (pm_prologue_reads_other(buf->pro, buf->tensor))
		pro_coords(k, b, buf, a, &w);
	if (vec)
		pm_strbuf_printf(b, "const uint2 pm_w = *(const uint2 *) pm_s; "
			"const %s *pm_b = (const %s *) &pm_w; uint4 pm_u; %s "
			"*pm_h = (%s *) &pm_u; ", sc, sc, t->ctype, t->ctype);
	pm_strbuf_printf(b, "%sfor (int pm_e = 0; pm_e < %d; ++pm_e) { "
		"const float pm_v = %s(%s[pm_e]); (void) pm_v; %s[pm_e] = %s(",
		host ? "" : "_Pragma(\"unroll\") ", buf->vec,
		host || !st || !st->to_f32 ? "(float)" : st->to_f32,
		vec ? "pm_b" : "pm_s", vec ? "pm_h" : "pm_q",
		host ? "" : t->from_f32);
	if (buf->pro)
		pm_pw_expr(k, b, buf->pro, &w);
	else
		pm_strbuf_add(b, "pm_v");
	pm_strbuf_printf(b, "); }%s }\n", vec ? " *(uint4 *) pm_q = pm_u;" :
		"");
}

void pm_print_pro_zero(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const struct pm_elem *t = operand_elem(k, buf->tensor);

	pm_strbuf_printf(b, "{ %s *pm_q = ", host ? "float" : t->ctype);
	pm_print_unit_addr(b, buf, k->scop->spec->tensors[buf->tensor].name, a,
		host);
	if (!host && buf->vec == 8)
		pm_strbuf_add(b, "]; *(uint4 *) pm_q = make_uint4(0u, 0u, 0u, "
			"0u); }\n");
	else
		pm_strbuf_printf(b, "]; for (int pm_e = 0; pm_e < %d; ++pm_e) "
			"pm_q[pm_e] = %s(0.0f); }\n", buf->vec, host ? "" :
			t->from_f32);
}

/* The prologue on the vec elements this thread copied:
 * x = f(x) in fp32, in place in shared memory; on pairs of halves where
 * that gives the same result (pro_h2_exact): 4 instructions per 16-byte
 * unit instead of 8 conversions there and back. */
void pm_print_pro(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_buffer *buf = &k->bufs[a->op->buffer];
	const char *name = k->scop->spec->tensors[buf->tensor].name;

	const struct pm_elem *t = operand_elem(k, buf->tensor);
	int vec = !host && buf->vec == 8;
	int other = pm_prologue_reads_other(buf->pro, buf->tensor);
	struct pw w = { .chain = buf->tensor };

	if (buf->conv) {
		print_conv_pro(k, b, a, host);
		return;
	}
	if (vec && !other && pro_h2_exact(t, buf->pro)) {
		pm_strbuf_printf(b, "{ %s *pm_q = ", t->ctype);
		pm_print_unit_addr(b, buf, name, a, host);
		pm_strbuf_printf(b, "]; uint4 pm_u = *(const uint4 *) pm_q; "
			"%s *pm_h2 = (%s *) &pm_u; _Pragma(\"unroll\") "
			"for (int pm_e = 0; pm_e < 4; ++pm_e) { const %s pm_x "
			"= pm_h2[pm_e]; (void) pm_x; pm_h2[pm_e] = ", t->pair,
			t->pair, t->pair);
		print_pro_h2(t, b, buf->pro);
		pm_strbuf_add(b, "; } *(uint4 *) pm_q = pm_u; }\n");
		return;
	}

	pm_strbuf_printf(b, "{ %s *pm_q = ", host ? "float" : t->ctype);
	pm_print_unit_addr(b, buf, name, a, host);
	pm_strbuf_add(b, "]; ");
	/* broadcast reads (decisions/0039): at the element's indices */
	if (other)
		pro_coords(k, b, buf, a, &w);
	/* 16-byte units: one shared load and store, the elements in
	 * registers */
	if (vec)
		pm_strbuf_printf(b, "uint4 pm_u = *(const uint4 *) pm_q; %s "
			"*pm_h = (%s *) &pm_u; ", t->ctype, t->ctype);
	pm_strbuf_printf(b, "%sfor (int pm_e = 0; pm_e < %d; ++pm_e) { "
		"const float pm_v = pm_f(%s[pm_e]); %s[pm_e] = %s(",
		host ? "" : "_Pragma(\"unroll\") ", buf->vec,
		vec ? "pm_h" : "pm_q", vec ? "pm_h" : "pm_q",
		host ? "" : t->from_f32);
	pm_pw_expr(k, b, buf->pro, &w);
	pm_strbuf_printf(b, "); }%s }\n", vec ? " *(uint4 *) pm_q = pm_u;" :
		"");
}

void pm_print_pro_fn(struct pm_kernel *k, struct pm_strbuf *b, int i,
	int host)
{
	const struct pm_buffer *buf = &k->bufs[i];
	const struct pm_elem *t = operand_elem(k, buf->tensor);
	const struct pw w = { .chain = buf->tensor };

	if (host) {
		pm_strbuf_printf(b, "\nstatic float pm_pro%d(float pm_v)\n{\n"
			"\treturn (float) (", i);
		pm_pw_expr(k, b, buf->pro, &w);
		pm_strbuf_add(b, ");\n}\n");
		return;
	}
	pm_strbuf_printf(b, "\tconst auto pm_pro%d = [](uint32_t pm_w) -> "
		"uint32_t { ", i);
	if (pro_h2_exact(t, buf->pro)) {
		pm_strbuf_printf(b, "const %s pm_x = *reinterpret_cast<const "
			"%s *>(&pm_w); (void) pm_x; const %s pm_y = ", t->pair,
			t->pair, t->pair);
		print_pro_h2(t, b, buf->pro);
		pm_strbuf_add(b, "; return *reinterpret_cast<const uint32_t *>"
			"(&pm_y); };\n");
		return;
	}
	pm_strbuf_printf(b, "%s *pm_h = reinterpret_cast<%s *>(&pm_w); "
		"_Pragma(\"unroll\") for (int pm_e = 0; pm_e < 2; ++pm_e) { "
		"const float pm_v = pm_f(pm_h[pm_e]); pm_h[pm_e] = "
		"%s(", t->ctype, t->ctype, t->from_f32);
	pm_pw_expr(k, b, buf->pro, &w);
	pm_strbuf_add(b, "); } return pm_w; };\n");
}

void pm_print_conv_fn(struct pm_kernel *k, struct pm_strbuf *b, int i)
{
	const struct pm_buffer *buf = &k->bufs[i];
	const struct pm_contraction *con = &k->con[buf->con];
	const struct pm_expr *r[PM_CONV_READS];
	/* at most PM_CONV_READS: promote's conv_regs (pm_prologue_along) */
	int n = pm_prologue_other_reads(buf->pro, buf->tensor, r,
		PM_CONV_READS);
	struct pw w = { .chain = buf->tensor, .vars = { "pm_r" } };
	char ext[64] = "0";

	n = n < PM_CONV_READS ? n : PM_CONV_READS;
	/* the extent of the rows (variable 0): past it no element is
	 * stored and no vector read */
	for (int d = 0; d < con->ra->nidx; ++d)
		if (con->ra->idx[d] == 0)
			pm_scop_dim_str(k->scop, buf->tensor, d, ext, sizeof(ext));
	/* a row's values of the reads, once a tile */
	pm_strbuf_printf(b, "\tconst auto pm_cvr%d = [=](int pm_r, float *pm_c) "
		"{ (void) pm_r; (void) pm_c; const bool pm_in = pm_r < (%s); "
		"(void) pm_in; ", i, ext);
	for (int q = 0; q < n; ++q) {
		pm_strbuf_printf(b, "pm_c[%d] = pm_in ? ", q);
		pm_pw_expr(k, b, r[q], &w);
		pm_strbuf_add(b, " : 0.0f; ");
	}
	pm_strbuf_add(b, "};\n");
	/* an element at its row's values */
	w.ctx = r, w.nctx = n;
	pm_strbuf_printf(b, "\tconst auto pm_cv%d = [](float pm_v, const float "
		"*pm_c) -> float { (void) pm_c; return (float) (", i);
	pm_pw_expr(k, b, buf->pro, &w);
	pm_strbuf_add(b, "); };\n");
}

void pm_print_pre_value(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, int tensor, const char *const vars[3])
{
	struct pw w = { .chain = tensor };

	for (int v = 0; v < 3; ++v)
		w.vars[v] = vars[v];
	pm_pw_expr(k, b, e, &w);
}

/* The launcher-applied prologues of a generated file (pre.h). */
#include <stdio.h>
#include <string.h>

#include "emit/batch.h"
#include "emit/group.h"
#include "emit/pointwise.h"
#include "emit/pre.h"
#include "schedule_tree/recognise.h"
#include "target/target.h"
#include "variant/pre.h"

int pm_emit_pres(const struct pm_kernel *k)
{
	const struct pm_spec *spec = k->scop->spec;
	int n = 0;

	for (int t = 0; t < spec->ntensors; ++t)
		n += spec->tensors[t].pre;
	return n;
}

int pm_emit_has_pre(const struct pm_kernel *k)
{
	for (int i = 0; i < PM_RT_NROLES; ++i)
		if (k->var[i] && pm_emit_pres(k->var[i]))
			return 1;
	return 0;
}

/* A row of vs reading copies (the copies are the same in every such
 * row), or NULL. */
struct pm_kernel *pm_emit_pre_row(const struct pm_variant_set *vs)
{
	for (int i = 0; i < PM_RT_NROLES; ++i)
		if (vs->v[i].k && pm_emit_pres(vs->v[i].k))
			return vs->v[i].k;
	return NULL;
}

/* The copy's rows and columns of tensor t (rank 2; a batched one's
 * slice), as text. */
static void dims(struct pm_kernel *k, int t, char *r, char *c, int len)
{
	pm_scop_dim_str(k->scop, t, 0, r, len);
	pm_scop_dim_str(k->scop, t, 1, c, len);
}

/* The slices of tensor t's copy: the batch count where t is batched (a
 * batched or grouped spec's per-batch tensor), else "1". */
static void slices(const struct pm_kernel *k, int t, char *buf, size_t len)
{
	if (k->scop->spec->tensors[t].batch)
		pm_emit_batch_count(k, buf, len);
	else
		snprintf(buf, len, "1");
}

/* "((size_t) ((int64_t) (R) * (C)) * B * (size_t) (NB) + 255) / 256 *
 * 256": the copy's bytes (every slice), 256-aligned. */
static void copy_bytes(struct pm_kernel *k, int t, int eb,
	struct pm_strbuf *b)
{
	char r[64], c[64], nb[256];

	dims(k, t, r, c, sizeof(r));
	slices(k, t, nb, sizeof(nb));
	pm_strbuf_printf(b, "((size_t) ((int64_t) (%s) * (%s)) * %d * (size_t) "
		"(%s) + 255) / 256 * 256", r, c, eb, nb);
}

/* The kernel's signature: the inputs, the copy, its slice's extents, the
 * sizes. */
static void pre_params(struct pm_kernel *k, int t, const char *to,
	struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	pm_strbuf_printf(b, "\n/* The launcher's copy of %s, its prologue "
		"applied, as %s (docs/decisions/\n * 0059-launcher-applied-"
		"prologues.md): 8 elements a thread, every slice. */\nextern "
		"\"C\" __global__ void __launch_bounds__(256) pm_pre_%s_%s(",
		spec->tensors[t].name, to, spec->name, spec->tensors[t].name);
	for (int i = 0, u; (u = pm_emit_arg_tensor(spec, i)) >= 0; ++i)
		if (spec->tensors[u].role == PM_INPUT)
			pm_strbuf_printf(b, "const %s *__restrict__ %s, ",
				pm_emit_ctype(k, u, 0), spec->tensors[u].name);
	pm_strbuf_add(b, "void *__restrict__ pm_y, int64_t pm_rows, int64_t "
		"pm_cols");
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, ", int64_t %s", spec->syms[order[i]].name);
	pm_strbuf_add(b, ")\n");
}

/* The unit of this thread: pm_bi its slice (past the last: return), pm_r
 * and pm_c its row and first column; each batched input at its slice. */
static void pre_unit(struct pm_kernel *k, int t, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	char nb[256], sl[256];

	slices(k, t, nb, sizeof(nb));
	pm_strbuf_printf(b, "{\n\tconst int64_t pm_n = pm_rows * (pm_cols / 8);"
		"\n\tconst int64_t pm_u = (int64_t) blockIdx.x * 256 + "
		"threadIdx.x, pm_bi = pm_u / pm_n;\n\tconst int64_t pm_r = pm_u "
		"%% pm_n / (pm_cols / 8), pm_c = pm_u %% pm_n %% (pm_cols / 8) * "
		"8;\n\n\tif (pm_bi >= %s)\n\t\treturn;\n", nb);
	for (int u = 0; u < spec->ntensors; ++u) {
		if (spec->tensors[u].role != PM_INPUT || !spec->tensors[u].batch)
			continue;
		pm_emit_batch_slice(k, u, sl, sizeof(sl));
		pm_strbuf_printf(b, "\t%s += pm_bi * %s;\n", spec->tensors[u].name,
			sl);
	}
}

/* The kernel writing tensor t's copy (row kernel r has its type). */
static void pre_kernel(const struct pm_variant_set *vs, struct pm_kernel *r,
	int t, struct pm_strbuf *b)
{
	struct pm_kernel *k = vs->main;
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_expr *e, *x;
	const struct pm_elem *to = pm_elem_of(r->scop->spec->tensors[t].type);
	const struct pm_elem *st = pm_elem_storage(spec->tensors[t].type);
	const char *name = spec->tensors[t].name, *vars[3] = { "0", "0", "0" };
	int s, a, wide;

	if (pm_pre_operand(spec, t, &s, &a) < 0 || !to || !st)
		return;
	e = spec->stmts[s].rhs->args[a];
	x = e->kind == PM_E_READ ? e : pm_prologue_operand(e);
	vars[x->idx[0]] = "pm_r";
	vars[x->idx[1]] = "(pm_c + pm_e)";
	wide = st->bytes == 1;
	pre_params(k, t, pm_type_name(r->scop->spec->tensors[t].type), b);
	pre_unit(k, t, b);
	pm_strbuf_printf(b, "\tconst %s pm_w = *(const %s *) (%s + pm_r * "
		"pm_cols + pm_c);\n\tconst %s *pm_b = (const %s *) &pm_w;\n"
		"\tuint4 pm_o;\n\t%s *pm_h = (%s *) &pm_o;\n\n"
		"\t_Pragma(\"unroll\") for (int pm_e = 0; pm_e < 8; ++pm_e) {\n"
		"\t\tconst float pm_v = %s(pm_b[pm_e]);\n\n\t\t(void) pm_v;\n"
		"\t\tpm_h[pm_e] = %s(", wide ? "uint2" : "uint4", wide ? "uint2" :
		"uint4", name, pm_emit_ctype(k, t, 0), pm_emit_ctype(k, t, 0),
		to->ctype, to->ctype, st->to_f32 ? st->to_f32 : "(float)",
		to->from_f32);
	pm_print_pre_value(k, b, e, t, vars);
	pm_strbuf_printf(b, ");\n\t}\n\t*(uint4 *) ((%s *) pm_y + (pm_bi * "
		"pm_rows + pm_r) * pm_cols + pm_c) = pm_o;\n}\n", to->ctype);
}

void pm_emit_pre_kernels(const struct pm_variant_set *vs,
	struct pm_strbuf *b)
{
	struct pm_kernel *r = pm_emit_pre_row(vs);

	for (int t = 0; r && t < r->scop->spec->ntensors; ++t)
		if (r->scop->spec->tensors[t].pre)
			pre_kernel(vs, r, t, b);
}

int pm_emit_pre_reuse(const struct pm_kernel *k, int t)
{
	int s, a, d = 0;

	if (pm_pre_operand(k->scop->spec, t, &s, &a) == 0)
		for (int c = 0; c < k->ncon; ++c)
			if (k->con[c].stmt == s && k->con[c].a == t)
				d = 1;
	return d;
}

/* The least extent a copy of t is reused over, as text: a grouped
 * spec's rows over its groups where that is the rows (a group's, on
 * average). */
static void reuse(struct pm_kernel *k, int t, char *ext, int len)
{
	const int d = pm_emit_pre_reuse(k, t);
	char rows[64], nb[192];

	pm_scop_dim_str(k->scop, k->con[0].out, d, rows, sizeof(rows));
	if (!pm_emit_grouped(k) || d) {
		snprintf(ext, len, "%s", rows);
		return;
	}
	pm_emit_batch_count(k, nb, sizeof(nb));
	snprintf(ext, len, "(int64_t) (%s) / %s", rows, nb);
}

void pm_emit_pre_plan(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	struct pm_kernel *r = pm_emit_pre_row(vs);
	const struct pm_spec *spec;
	char ext[320];
	int first = 1;

	if (!r)
		return;
	spec = r->scop->spec;
	pm_strbuf_add(b, "\t/* the launcher's copies (docs/decisions/0059) */"
		"\n\tp.pre_bytes = ");
	for (int t = 0; t < spec->ntensors; ++t) {
		if (!spec->tensors[t].pre)
			continue;
		pm_strbuf_add(b, first ? "" : " + ");
		copy_bytes(r, t, pm_elem_of(spec->tensors[t].type)->bytes, b);
		first = 0;
	}
	pm_strbuf_add(b, ";\n\tp.pre_reuse = INT64_MAX;\n");
	for (int t = 0; t < spec->ntensors; ++t) {
		if (!spec->tensors[t].pre)
			continue;
		reuse(vs->main, t, ext, sizeof(ext));
		pm_strbuf_printf(b, "\tif ((int64_t) (%s) < p.pre_reuse)\n"
			"\t\tp.pre_reuse = (int64_t) (%s);\n", ext, ext);
	}
}

void pm_emit_pre_call(const struct pm_variant_set *vs, struct pm_kernel *k,
	struct pm_strbuf *b, const char *ind)
{
	const struct pm_spec *spec = k->scop->spec;
	struct pm_kernel *m = vs->main;
	int order[64], n = pm_emit_size_order(m, order);
	char r[64], c[64], nb[256];
	struct pm_strbuf off;

	if (!pm_emit_pres(k))
		return;
	pm_strbuf_init(&off);
	pm_strbuf_add(&off, "c->pre_off");
	pm_strbuf_printf(b, "%s/* the launcher's copies of the operands whose "
		"prologue it applies\n%s * (docs/decisions/0059) */\n", ind, ind);
	for (int t = 0; t < spec->ntensors; ++t) {
		if (!spec->tensors[t].pre)
			continue;
		dims(k, t, r, c, sizeof(r));
		slices(k, t, nb, sizeof(nb));
		pm_strbuf_printf(b, "%s{\n%s\tconst int64_t pm_n = ((int64_t) "
			"(%s) * (%s) / 8 * (%s) + 255) / 256;\n%s\tvoid *pm_y = "
			"(char *) workspace + %s;\n\n%s\tif (pm_n > 2147483647)\n"
			"%s\t\treturn cudaErrorInvalidValue;\n%s\tpm_pre_%s_%s<<<"
			"(unsigned) pm_n, 256, 0, stream>>>(", ind, ind, r, c, nb, ind,
			off.s ? off.s : "0", ind, ind, ind, spec->name,
			spec->tensors[t].name);
		for (int i = 0, u; (u = pm_emit_arg_tensor(m->scop->spec, i)) >=
		     0; ++i)
			if (m->scop->spec->tensors[u].role == PM_INPUT)
				pm_strbuf_printf(b, "(const %s *) %s, ",
					pm_emit_ctype(m, u, 0),
					m->scop->spec->tensors[u].name);
		pm_strbuf_printf(b, "pm_y, (int64_t) (%s), (int64_t) (%s)", r, c);
		for (int i = 0; i < n; ++i)
			pm_strbuf_printf(b, ", %s", m->scop->spec->syms[order[i]].name);
		pm_strbuf_printf(b, ");\n%s\tif ((e = cudaGetLastError()) != "
			"cudaSuccess)\n%s\t\treturn e;\n%s\t%s = pm_y;\n%s}\n", ind,
			ind, ind, spec->tensors[t].name, ind);
		pm_strbuf_add(&off, " + ");
		copy_bytes(k, t, pm_elem_of(spec->tensors[t].type)->bytes, &off);
	}
	if (off.failed)
		b->failed = 1;
	pm_strbuf_free(&off);
}

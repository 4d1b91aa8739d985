/* The kernel frame: what every printer of emit/ needs to know about a
 * kernel and its generated locals, defined once (frame.h):
 *   the C type of a tensor, the runtime sizes in the launcher's order and
 *   the entry points' signatures;
 *   a block's threads, its dynamic shared memory (the buffers' offsets,
 *   the staged store's C tile, the TMA mbarriers at the end) and a
 *   cluster launch's configuration; the register accumulators' names;
 *   isl AST expressions as C text, the global strides, linear indices and
 *   bounds of a tensor, the shared address of a copy unit;
 *   the k tiles of a contraction, the ring position of a k tile (stage and
 *   phase parity; warp-specialized kernels count from pm_qc) and the base
 *   of a buffer's stage.
 * This file calls no other file of emit/: the op printers (ops.c,
 * pointwise.c, tma.c, fixup.c), the AST printer (print.c), the kernel
 * bodies (persist.c), the launcher (launch.c, table.c) and the file
 * (file.c) all build on it. */
#include <stdlib.h>
#include <string.h>

#include "emit/frame.h"
#include "target/target.h"

/* ---- Types, sizes and signatures ---- */

const char *pm_emit_ctype(struct pm_kernel *k, int t, int host)
{
	enum pm_type ty = k->scop->spec->tensors[t].type;
	const struct pm_elem *e = pm_elem_of(ty);

	if (!e)		/* the 8-bit floats: only the MMA reads them */
		e = pm_elem_storage(ty);
	if (host)	/* the host rendering holds every element as a float */
		return "float";
	if (e)		/* f16, bf16, f8: the target table's spelling */
		return e->ctype;
	switch (ty) {
	case PM_F32: return "float";
	case PM_I8: return "int8_t";
	case PM_I32: return "int32_t";
	default: return "void";
	}
}

/* Runtime size symbols, in the launcher's order: first appearance in the
 * statements (lhs tensor, then reads, each tensor's dims in order), then
 * any other runtime symbol in declaration order. */
int pm_emit_size_order(struct pm_kernel *k, int *order)
{
	const struct pm_spec *spec = k->scop->spec;
	int n = 0, nt = 1, seen[64] = { 0 };
	int tens[1 + 2 * PM_MAX_CON] = { k->con[0].out };

	/* a batched spec: the output's batch dimensions lead (the user's
	 * output is declared with them first; variant/batch.h) */
	for (int d = 0; d < spec->nbatch; ++d) {
		int s = spec->bdims[d].sym;

		if (s < 0 || s >= 64 || seen[s] ||
		    pm_scop_sym_fixed(k->scop, s, NULL))
			continue;
		seen[s] = 1;
		order[n++] = s;
	}
	/* the output, then the contractions' operands in program order; a
	 * swapped row's in the user's order (its output's dimensions in
	 * storage order, the user's A first: variant/swap.h), so that every
	 * row's kernel takes the sizes as the entry points do */
	for (int c = 0; c < k->ncon; ++c) {
		const int sw = spec->tensors[k->con[0].out].tposed;

		tens[nt++] = sw ? k->con[c].b : k->con[c].a;
		tens[nt++] = sw ? k->con[c].a : k->con[c].b;
	}
	for (int i = 0; i < nt; ++i) {
		const struct pm_tensor *t = &spec->tensors[tens[i]];
		for (int e = 0; e < t->rank; ++e) {
			int d = t->tposed && e >= t->rank - 2 ?
				2 * t->rank - 3 - e : e;
			int s = t->dims[d].sym;
			if (s < 0 || s >= 64 || seen[s] ||
			    pm_scop_sym_fixed(k->scop, s, NULL))
				continue;
			seen[s] = 1;
			order[n++] = s;
		}
	}
	for (int s = 0; s < spec->nsyms && s < 64; ++s)
		if (!seen[s] && !pm_scop_sym_fixed(k->scop, s, NULL))
			order[n++] = s;
	return n;
}

int pm_emit_arg_tensor(const struct pm_spec *spec, int i)
{
	for (int r = 0; r < 2; ++r)
		for (int t = 0; t < spec->ntensors; ++t)
			if (spec->tensors[t].role == (r ? PM_OUTPUT : PM_INPUT) &&
			    i-- == 0)
				return t;
	return -1;
}

/* "int64_t M, int64_t N" (decl 1, or 2: "void" when none) / "M, N". */
void pm_emit_size_list(struct pm_kernel *k, struct pm_strbuf *b, int decl)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, "%s%s%s", i ? ", " : "", decl ? "int64_t " :
			"", spec->syms[order[i]].name);
	if (!n && decl == 2)
		pm_strbuf_add(b, "void");
}

void pm_emit_signature(struct pm_kernel *k, struct pm_strbuf *b,
	enum pm_entry e)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	if (e == PM_ENTRY_WS_SIZE) {
		pm_strbuf_printf(b, "size_t %s_workspace_size(", spec->name);
		for (int i = 0; i < n; ++i)
			pm_strbuf_printf(b, "%sint64_t %s", i ? ", " : "",
				spec->syms[order[i]].name);
		pm_strbuf_add(b, n ? ")" : "void)");
		return;
	}
	if (e == PM_ENTRY_ARGV) {
		pm_strbuf_printf(b, "cudaError_t %s_argv(void *const *tensors, "
			"const int64_t *sizes, cudaStream_t stream)", spec->name);
		return;
	}
	if (e == PM_ENTRY_LAUNCH)
		pm_strbuf_printf(b, "cudaError_t pm_launch_%s(const struct "
			"pm_rt_choice *c, ", spec->name);
	else
		pm_strbuf_printf(b, "cudaError_t %s%s(", spec->name,
			e == PM_ENTRY_WS ? "_ws" : "");
	for (int i = 0, t; (t = pm_emit_arg_tensor(spec, i)) >= 0; ++i)
		pm_strbuf_printf(b, "%svoid *%s, ", spec->tensors[t].role ==
			PM_INPUT ? "const " : "", spec->tensors[t].name);
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, "int64_t %s, ", spec->syms[order[i]].name);
	if (e == PM_ENTRY_WS || e == PM_ENTRY_LAUNCH)
		pm_strbuf_add(b, "void *workspace, size_t workspace_bytes, ");
	pm_strbuf_add(b, "cudaStream_t stream)");
}

/* ---- The block: threads, shared memory, barriers, accumulators ---- */

/* "cudaLaunchConfig_t pm_lc" and its "cudaLaunchAttribute pm_la[1]" for
 * kernel k in clusters of `cl` blocks (C expressions: the grid and the
 * cluster's size), lines indented by ind; stream: the launch's stream. */
void pm_emit_cluster_config(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind, const char *grid, const char *cl, int stream)
{
	/* a launch: also the programmatic dependency (launch.c) */
	int pdl = stream && k->cfg->pdl > 0;

	pm_strbuf_printf(b, "%scudaLaunchConfig_t pm_lc = {};\n"
		"%scudaLaunchAttribute pm_la[%d];\n%spm_lc.gridDim = %s;\n"
		"%spm_lc.blockDim = dim3(%d, 1, 1);\n"
		"%spm_lc.dynamicSmemBytes = %ld;\n%s%s"
		"%spm_la[0].id = cudaLaunchAttributeClusterDimension;\n"
		"%spm_la[0].val.clusterDim.x = %s;\n"
		"%spm_la[0].val.clusterDim.y = 1;\n"
		"%spm_la[0].val.clusterDim.z = 1;\n"
		"%spm_lc.attrs = pm_la;\n%spm_lc.numAttrs = %d;\n", ind, ind,
		1 + pdl, ind, grid, ind, pm_kernel_threads(k), ind,
		pm_kernel_smem_bytes(k, 0, NULL), stream ? ind : "", stream ?
		"pm_lc.stream = stream;\n" : "", ind, ind, cl, ind, ind, ind,
		ind, 1 + pdl);
	if (pdl)
		pm_strbuf_printf(b, "%spm_la[1].id = "
			"cudaLaunchAttributeProgrammaticStreamSerialization;\n"
			"%spm_la[1].val.programmaticStreamSerializationAllowed = "
			"1;\n", ind, ind);
}

const char *pm_emit_acc_name(const struct pm_kernel *k, int c)
{
	static const char *const name[PM_MAX_CON] = { "pm_acc", "pm_acc1",
		"pm_acc2", "pm_acc3" };

	return c && !k->acc_shared ? name[c] : "pm_acc";
}

void pm_print_drains(const struct pm_kernel *k, struct pm_strbuf *b, int c,
	const char *drain, int n)
{
	int last = k->scop->join && !k->acc_shared ? k->ncon - 1 : c;

	for (int i = c; i <= last; ++i)
		pm_strbuf_printf(b, "%s<%d>((float *) %s); ", drain, n,
			pm_emit_acc_name(k, i));
}

/* ---- Expressions and global addresses ---- */

/* Used by the op printer: an expression as C text. */
void pm_print_expr(struct pm_strbuf *b, __isl_keep isl_ast_expr *e)
{
	char *s = isl_ast_expr_to_C_str(e);

	pm_strbuf_printf(b, "(%s)", s ? s : "/* error */");
	free(s);
}

/* The position of variable v (0 i, 1 j, 2 k) among read r's indices, -1
 * when r does not use it. */
static int read_pos(const struct pm_expr *r, int v)
{
	for (int i = 0; i < r->nidx; ++i)
		if (r->idx[i] == v)
			return i;
	return -1;
}

int pm_emit_contiguous(const struct pm_buffer *buf, const struct pm_expr *r,
	int var)
{
	return read_pos(r, var) == buf->rank - 1;
}

void pm_print_stride(struct pm_kernel *k, struct pm_strbuf *b, int t, int d)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];
	char dim[64];
	int first = 1;

	/* a K-major copy (rank 2): rows padded to 16 elements of 1 byte
	 * (runtime/device/kcopy.cuh, pm_kc_pitch) */
	if (tt->kcopy && d == 0) {
		pm_scop_dim_str(k->scop, t, 1, dim, sizeof(dim));
		pm_strbuf_printf(b, "(((int64_t) %s + 15) / 16 * 16)", dim);
		return;
	}
	/* a swapped row's output (variant/swap.h): dimension rank - 2 is
	 * contiguous, rank - 1 strides over it */
	if (tt->tposed && d >= tt->rank - 2) {
		if (d == tt->rank - 2)
			pm_strbuf_add(b, "1");
		else {
			pm_scop_dim_str(k->scop, t, d - 1, dim, sizeof(dim));
			pm_strbuf_printf(b, "(int64_t) %s", dim);
		}
		return;
	}
	for (int e = d + 1; e < tt->rank; ++e) {
		pm_scop_dim_str(k->scop, t, e, dim, sizeof(dim));
		pm_strbuf_printf(b, "%s(int64_t) %s", first ? "" : " * ", dim);
		first = 0;
	}
	if (first)
		pm_strbuf_add(b, "1");
}

/* pm_print_clamped (frame.h) */
void pm_print_clamped(struct pm_kernel *k, struct pm_strbuf *b, int t, int d,
	__isl_keep isl_ast_expr *e, int u)
{
	char n[64];

	pm_scop_dim_str(k->scop, t, d, n, sizeof(n));
	pm_strbuf_add(b, "(");
	pm_print_expr(b, e);
	pm_strbuf_printf(b, " < %s - %d ? ", n, u);
	pm_print_expr(b, e);
	pm_strbuf_printf(b, " : %s - %d)", n, u);
}

void pm_print_linear(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];

	for (int d = 0; d < tt->rank; ++d) {
		pm_strbuf_add(b, d ? " + (int64_t) " : "(int64_t) ");
		pm_print_expr(b, e[d]);
		if (d + 1 < tt->rank || tt->tposed) {
			pm_strbuf_add(b, " * ");
			pm_print_stride(k, b, t, d);
		}
	}
}

/* pm_print_bounds (frame.h) */
int pm_print_bounds(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];
	int any = 0;

	for (int d = 0; d < tt->rank; ++d) {
		int s = tt->dims[d].sym;

		if (s < 0 || !pm_kernel_sym_ragged(k, s))
			continue;
		pm_strbuf_add(b, any ? " && " : "");
		pm_print_expr(b, e[d]);
		pm_strbuf_printf(b, " < %s", k->scop->spec->syms[s].name);
		any = 1;
	}
	return any;
}

/* pm_emit_padded_ext (frame.h) */
const char *pm_emit_padded_ext(const struct pm_kernel *k, const char *ext,
	char *buf, size_t len)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int s = 0; s < spec->nsyms; ++s)
		if (!strcmp(spec->syms[s].name, ext) &&
		    pm_kernel_sym_ragged(k, s)) {
			snprintf(buf, len, "pm_t%s", ext);
			return buf;
		}
	return ext;
}

/* ---- The k tiles, the ring and the shared addresses ---- */

void pm_print_ktiles(struct pm_kernel *k, struct pm_strbuf *b, int c)
{
	char kn[32];

	/* split-K: the unit's chunk (file.c's pm_kn_<c>) */
	snprintf(kn, sizeof(kn), "pm_kn_%d", c);
	pm_strbuf_printf(b, "((unsigned) %s + %du) / %du",
		k->scop->nsplit ? kn : k->scop->red_ext[c], k->cfg->bk - 1,
		k->cfg->bk);
}

void pm_print_ktiles_before(struct pm_kernel *k, struct pm_strbuf *b, int c)
{
	for (int j = 0; j < c; ++j) {
		pm_print_ktiles(k, b, j);
		pm_strbuf_add(b, " + ");
	}
}

/* The stage (parity 0) or the phase parity (parity 1) of k tile q, whose
 * expression is e: stage q mod S, parity (q / S) & 1. Warp-specialized
 * kernels (k->ws) count the ring's position from the block's first output
 * tile: pm_qc + q. */
void pm_print_ring(struct pm_kernel *k, struct pm_strbuf *b,
	__isl_keep isl_ast_expr *e, int parity, int c)
{
	int S = k->cfg->stages;

	if (parity)
		pm_strbuf_add(b, "(");
	pm_strbuf_add(b, k->ws ? "((pm_qc + " : "((");
	/* a later contraction's tiles follow the earlier ones' in the ring */
	if (k->ws)
		pm_print_ktiles_before(k, b, c);
	if (k->ws)
		pm_strbuf_add(b, "(");
	pm_print_expr(b, e);
	if (parity)
		pm_strbuf_printf(b, k->ws ? ")) / %d) & 1)" : ") / %d) & 1)",
			S);
	else
		pm_strbuf_printf(b, k->ws ? ")) %% %d)" : ") %% %d)", S);
}

/* "A_shared + (stage) * 4096" (k->ws: the slot is the tile kt, the stage
 * its position in the ring, pm_print_ring) */
void pm_print_stage_base(struct pm_kernel *k, struct pm_strbuf *b, int i,
	__isl_keep isl_ast_expr *stage)
{
	pm_strbuf_printf(b, "%s_shared + ",
		k->scop->spec->tensors[k->bufs[i].tensor].name);
	if (k->ws)
		pm_print_ring(k, b, stage, 0, k->bufs[i].con);
	else
		pm_print_expr(b, stage);
	pm_strbuf_printf(b, " * %ld", k->bufs[i].stage_elems);
}

/* pm_print_unit_addr (frame.h) */
void pm_print_unit_addr(struct pm_strbuf *b, const struct pm_buffer *buf,
	const char *name, const struct pm_annot *a, int host)
{
	pm_strbuf_printf(b, "&%s_shared[", name);
	pm_print_expr(b, a->e[4]);
	pm_strbuf_printf(b, " * %ld + ", buf->stage_elems);
	if (host)
		pm_strbuf_printf(b, "pm_smem_off_h(%d, %d, ", buf->pitch,
			buf->swz);
	else if (buf->swz >= 2)
		pm_strbuf_printf(b, "pm_smem_off<%d, %d, %ld>(", buf->pitch,
			buf->swz, buf->size[0]);
	else if (buf->vec == 16)	/* 8-bit elements: 16 per chunk */
		pm_strbuf_printf(b, "pm_smem_off<%d, %d, 0, 16>(", buf->pitch,
			buf->swz);
	else
		pm_strbuf_printf(b, "pm_smem_off<%d, %d>(", buf->pitch,
			buf->swz);
	pm_print_expr(b, a->e[2]);
	pm_strbuf_add(b, ", ");
	pm_print_expr(b, a->e[3]);
	pm_strbuf_add(b, ")");
}

/* pm_print_raw_addr (frame.h) */
void pm_print_raw_addr(struct pm_strbuf *b, const struct pm_buffer *buf,
	const char *name, const struct pm_annot *a)
{
	pm_strbuf_printf(b, "&%s_raw[", name);
	pm_print_expr(b, a->e[4]);
	pm_strbuf_printf(b, " * %ld + ", buf->raw_elems);
	pm_print_expr(b, a->e[2]);
	pm_strbuf_printf(b, " * %ld + ", buf->size[buf->rank - 1]);
	pm_print_expr(b, a->e[3]);
}

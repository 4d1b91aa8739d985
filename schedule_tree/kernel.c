/* The kernel state: idiom recognition, marks and statement ids (its
 * sizes: sizes.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/aff.h>
#include <isl/id.h>
#include <isl/map.h>
#include <isl/printer.h>

#include "target/target.h"
#include "schedule_tree/tree.h"
#include "schedule_tree/recognise.h"

/* Does read r index variable v? At which position? */
static int read_pos(const struct pm_expr *r, int v)
{
	for (int i = 0; i < r->nidx; ++i)
		if (r->idx[i] == v)
			return i;
	return -1;
}

/* The only tensor read of e, or NULL when there are none or several. */
static const struct pm_expr *single_read(const struct pm_expr *e)
{
	const struct pm_expr *r = NULL;

	if (e->kind == PM_E_READ)
		return e;
	for (int i = 0; i < e->nargs; ++i) {
		const struct pm_expr *c = e->args[i];

		if (c->kind == PM_E_NUM)
			continue;
		c = single_read(c);
		if (!c || r)
			return NULL;
		r = c;
	}
	return r;
}

/* The operand read of operand expression e: its only read, or the one
 * beside broadcast reads (recognise.h); NULL when there is none. */
static const struct pm_expr *operand_read(const struct pm_expr *e)
{
	const struct pm_expr *r = single_read(e);

	return r ? r : pm_prologue_operand(e);
}

static int unsupported(struct pm_diags *d, struct pm_loc loc, const char *what)
{
	pm_diag_unsupported(d, loc, "%s (a kernel is up to %d contractions "
		"C(i,j) +=! f(A(..)) * g(B(..)) with pointwise prologues f, g, "
		"which may read input vectors and scalars, and a pointwise "
		"epilogue chain)", what, PM_LIMIT_CONTRACTIONS);
	return -1;
}

/* Operands the tensor cores read only K-major (the row's k_major: wgmma's
 * 8-bit types) are read x(i, k) and y(j, k) of tensors whose last
 * dimension k indexes: the user's, or the K-major copy the launcher
 * writes of an operand every read of which is MN-major (variant/kcopy.h;
 * docs/decisions/0029-8-bit-operands.md, 0033-kmajor-copies.md). A read
 * left MN-major is of an operand also read K-major. */
static int k_major(struct pm_kernel *k, const struct pm_operand_row *row,
	const struct pm_expr *x, const struct pm_expr *y, struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_target *tg = k->cfg->target;
	const struct pm_expr *r[2] = { x, y };

	for (int o = 0; row && row->k_major && o < 2; ++o) {
		const struct pm_tensor *t = &spec->tensors[r[o]->tensor];

		if (r[o]->idx[r[o]->nidx - 1] == 2)
			continue;
		if (row->elem && row->elem->bytes == 1)
			pm_diag_unsupported(d, r[o]->loc, "target %s reads %s "
				"operands K-major only: '%s' is read MN-major "
				"here and K-major elsewhere (the launcher makes a "
				"K-major copy of an operand read MN-major "
				"throughout)", tg->name, pm_type_name(t->type),
				t->name);
		else
			pm_diag_unsupported(d, r[o]->loc, "target %s reads %s "
				"operands K-major only: '%s' must be declared with "
				"the reduction index last (%s(%s, K) %s read "
				"%s(%s, k)); transpose it first", tg->name,
				pm_type_name(t->type), t->name,
				pm_type_name(t->type), o ? "N" : "M", t->name,
				t->name, o ? "j" : "i");
		return -1;
	}
	return 0;
}

/* "i8" or "i8 or ...": the stored types row r widens, for messages. */
static void widen_list(const struct pm_operand_row *r, char *buf, int len)
{
	int off = 0, n = 0;

	buf[0] = '\0';
	for (int t = 0; t < 32 && r && off < len; ++t)
		if (r->widen >> t & 1u)
			off += snprintf(buf + off, len - off, "%s%s",
				n++ ? " or " : "", pm_type_name((enum pm_type) t));
}

/* Operands of two types that no row multiplies together: -1 with the
 * diagnostic (docs/decisions/0047-mixed-operand-types.md). */
static int mixed_refused(const struct pm_target *tg, const struct pm_stmt *st,
	const struct pm_tensor *a, const struct pm_tensor *b,
	struct pm_diags *d)
{
	const struct pm_operand_row *r = pm_target_operand(tg, a->type);
	char list[64];

	r = r && r->widen ? r : pm_target_operand(tg, b->type);
	widen_list(r, list, sizeof(list));
	if (r && r->widen)
		pm_diag_unsupported(d, st->loc, "the operands have different "
			"types (%s '%s' x %s '%s'); an operand of another type "
			"than its partner's is widened on target %s only from %s "
			"into %s (docs/decisions/0047)", pm_type_name(a->type),
			a->name, pm_type_name(b->type), b->name, tg->name, list,
			pm_type_name(r->in));
	else
		pm_diag_unsupported(d, st->loc, "the operands have different "
			"types (%s '%s' x %s '%s'); target %s widens neither to "
			"the other's type (docs/decisions/0047)",
			pm_type_name(a->type), a->name, pm_type_name(b->type),
			b->name, tg->name);
	return -1;
}

/* The operands x, y of contraction c (statement st): of one type, a row
 * of the target's operand table (docs/decisions/0026-operand-type-table.md),
 * or of two where that row widens the other's type
 * (docs/decisions/0047-mixed-operand-types.md); sets the contraction's
 * ab and conv. */
static int operand_types(struct pm_kernel *k, int c, const struct pm_stmt *st,
	const struct pm_expr *x, const struct pm_expr *y, struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_target *tg = k->cfg->target;
	const struct pm_tensor *a = &spec->tensors[x->tensor];
	const struct pm_tensor *b = &spec->tensors[y->tensor];
	const struct pm_operand_row *row;
	char list[64];

	row = pm_target_pair(tg, a->type, b->type, &k->con[c].conv);
	if (!row && a->type != b->type &&
	    (pm_target_operand(tg, a->type) || pm_target_operand(tg, b->type)))
		return mixed_refused(tg, st, a, b, d);
	if (!row) {
		pm_target_operand_list(tg, list, sizeof(list));
		pm_diag_unsupported(d, a->loc, "target %s multiplies %s "
			"operands; '%s' is %s", tg->name, list, a->name,
			pm_type_name(a->type));
		return -1;
	}
	k->con[c].ab = row->in;
	return k_major(k, row, x, y, d);
}

/* Recognise statement n as C(i,j) +=! f(A(i,k)) * g(B(k,j)) in any layout,
 * as contraction c. */
static int recognise_one(struct pm_kernel *k, int n, int c,
	struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_stmt *st;
	const struct pm_expr *e, *x, *y, *px, *py;

	st = &spec->stmts[n];
	e = st->rhs;
	if (st->kind != PM_S_REDUCE)
		return unsupported(d, st->loc, "the statement is not a "
			"reduction '+=!'");
	if (st->nlhs != 2 || pm_stmt_nred(st) != 1)
		return unsupported(d, st->loc, "the output must be 2-D "
			"(after leading batch indices) with one reduction "
			"index");
	if (e->kind != PM_E_BIN || e->op != '*' ||
	    !(x = operand_read(e->args[0])) || !(y = operand_read(e->args[1])))
		return unsupported(d, e->loc, "the right-hand side is not a "
			"product of two operands, each a tensor read or a "
			"pointwise function of one read");
	px = e->args[0]->kind == PM_E_READ ? NULL : e->args[0];
	py = e->args[1]->kind == PM_E_READ ? NULL : e->args[1];
	if (read_pos(x, 0) < 0) {
		const struct pm_expr *t = x;
		x = y;
		y = t;
		t = px;
		px = py;
		py = t;
	}
	if (x->nidx != 2 || y->nidx != 2 || read_pos(x, 0) < 0 ||
	    read_pos(x, 2) < 0 || read_pos(y, 1) < 0 || read_pos(y, 2) < 0)
		return unsupported(d, e->loc, "the operands must be 2-D "
			"(after leading batch indices), one indexed by (i, k), "
			"the other by (k, j), in any order");
	if (x->tensor == st->lhs || y->tensor == st->lhs) {
		const struct pm_expr *r = x->tensor == st->lhs ? x : y;

		pm_diag_unsupported(d, r->loc, "the contraction reads its own "
			"result '%s' as an operand (operands are inputs or "
			"earlier results)", spec->tensors[st->lhs].name);
		return -1;
	}
	if (x->tensor == y->tensor)
		return unsupported(d, e->loc, "both operands are the same "
			"tensor");
	if (pm_prologue_check(spec, px, x, d) < 0 ||
	    pm_prologue_check(spec, py, y, d) < 0 ||
	    operand_types(k, c, st, x, y, d) < 0)
		return -1;
	if ((px || py) && !pm_elem_of(k->con[c].ab)) {
		pm_diag_unsupported(d, (px ? px : py)->loc, "a prologue on %s "
			"operands (pointwise code reads 16-bit floats; the "
			"tensor cores alone read %s)",
			pm_type_name(k->con[c].ab), pm_type_name(k->con[c].ab));
		return -1;
	}
	k->con[c].stmt = n;
	k->con[c].acc = st->lhs;
	k->con[c].a = x->tensor;
	k->con[c].b = y->tensor;
	k->con[c].ra = x;
	k->con[c].rb = y;
	k->con[c].pa = px;
	k->con[c].pb = py;
	return 0;
}

/* One to PM_LIMIT_CONTRACTIONS contractions with the same output shape,
 * first in the spec. */
static int recognise(struct pm_kernel *k, struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	int n = 0;

	while (n < spec->nstmts && spec->stmts[n].kind == PM_S_REDUCE) {
		/* pm_spec_check_kernel_limits refuses this before the isl
		 * work */
		if (n >= PM_LIMIT_CONTRACTIONS) {
			pm_diag_unsupported(d, spec->stmts[n].loc, "more than "
				"%d contractions in one kernel",
				PM_LIMIT_CONTRACTIONS);
			return -1;
		}
		if (recognise_one(k, n, n, d) < 0)
			return -1;
		n++;
	}
	if (!n)
		return unsupported(d, spec->stmts[0].loc, "the first statement "
			"is not a reduction '+=!'");
	if (n >= 2 && spec->nstmts == n)
		return unsupported(d, spec->stmts[n - 1].loc, n == 2 ? "two "
			"contractions must be combined by a pointwise statement" :
			"the contractions must be combined by a pointwise "
			"statement");
	k->ncon = n;
	if (pm_kernel_check_shared(k, d) < 0)
		return -1;
	k->con[0].out = k->con[n - 1].acc;
	return 0;
}

/* Is t the result of a contraction but the last (an accumulator the
 * epilogue reads beside the chain)? */
static int other_acc(const struct pm_kernel *k, int t)
{
	for (int c = 0; c + 1 < k->ncon; ++c)
		if (k->con[c].acc == t)
			return 1;
	return 0;
}

/* Is every read of e either the chain value (tensor `chain` at (i, j)),
 * another contraction's result at (i, j) or an input read with plain
 * (i, j) indices (broadcasts allowed)? */
static int epilogue_expr_ok(const struct pm_kernel *k, const struct pm_expr *e,
	int chain, const struct pm_expr **bad)
{
	const struct pm_spec *spec = k->scop->spec;

	if (e->kind == PM_E_READ) {
		const struct pm_tensor *t = &spec->tensors[e->tensor];

		if (e->tensor == chain || other_acc(k, e->tensor))
			return e->nidx == 2 && e->idx[0] == 0 && e->idx[1] == 1 ?
				1 : (*bad = e, 0);
		if (t->role != PM_INPUT)
			return *bad = e, 0;
		for (int i = 0; i < e->nidx; ++i)
			if (e->idx[i] > 1)
				return *bad = e, 0;
		return 1;
	}
	for (int i = 0; i < e->nargs; ++i)
		if (!epilogue_expr_ok(k, e->args[i], chain, bad))
			return 0;
	return 1;
}

/* Statements after the contraction: a chain of pointwise statements
 * T_n(i, j) = f(T_(n-1)(i, j), inputs...) applied to the accumulator in
 * registers; the last one's tensor is stored. */
static int recognise_epilogue(struct pm_kernel *k, struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	int chain = k->con[k->ncon - 1].acc;

	for (int s = k->ncon; s < spec->nstmts; ++s) {
		const struct pm_stmt *st = &spec->stmts[s];
		const struct pm_tensor *lhs = &spec->tensors[st->lhs];
		const struct pm_expr *bad = NULL;

		/* pm_spec_check_gen_limits refuses this before the isl work */
		if (s - k->ncon >= PM_LIMIT_EPILOGUE)
			return unsupported(d, st->loc, "more than 8 epilogue "
				"statements");
		if (st->kind != PM_S_ASSIGN || st->nlhs != 2)
			return unsupported(d, st->loc, "after the contraction "
				"only pointwise statements T(i, j) = ... are "
				"fused");
		if (!epilogue_expr_ok(k, st->rhs, chain, &bad))
			return unsupported(d, bad ? bad->loc : st->loc, "an "
				"epilogue may read the previous statement's result "
				"at (i, j) and inputs indexed by i and/or j");
		if (chain != st->lhs && spec->tensors[chain].role == PM_OUTPUT)
			return unsupported(d, st->loc, "an output is replaced "
				"by a later statement's result (one live-out tensor "
				"per kernel for now)");
		if (lhs->role == PM_INPUT)
			return unsupported(d, st->loc, "writing an input");
		chain = st->lhs;
	}
	if (spec->tensors[chain].role != PM_OUTPUT)
		return unsupported(d, spec->stmts[spec->nstmts - 1].loc,
			"the last statement must write an output");
	for (int c = 0; c < k->ncon; ++c)
		k->con[c].out = chain;
	for (int c = 0; c + 1 < k->ncon; ++c)
		if (spec->tensors[k->con[c].acc].role == PM_OUTPUT)
			return unsupported(d, spec->stmts[c].loc, c ? "a "
				"contraction's result before the last is an output "
				"(one live-out tensor per kernel for now)" : "the "
				"first contraction's result is an output (one "
				"live-out tensor per kernel for now)");
	return 0;
}

/* Reads of tensor t in e. */
static int reads_of(const struct pm_expr *e, int t)
{
	int n = e->kind == PM_E_READ && e->tensor == t;

	for (int i = 0; i < e->nargs; ++i)
		n += reads_of(e->args[i], t);
	return n;
}

/* Is e a read of tensor t at (i, j)? */
static int read_ij(const struct pm_expr *e, int t)
{
	return e->kind == PM_E_READ && e->tensor == t && e->nidx == 2 &&
		e->idx[0] == 0 && e->idx[1] == 1;
}

/* Add(GEMM, GEMM): two contractions C +=! ..., D +=! ... whose results meet
 * only in a first epilogue statement X = C + D (or D + C).  Then
 * C + D is one accumulation: the second contraction accumulates onto the
 * first's registers (no zero fill, one register tile) and X reads it as
 * D's value alone. */
static void recognise_shared_acc(struct pm_kernel *k)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_expr *e;
	int c = k->con[0].acc, dd = k->con[1].acc, n = 0;

	if (k->ncon != 2 || spec->nstmts < 3 ||
	    spec->stmts[k->con[0].stmt].kind != PM_S_REDUCE ||
	    spec->stmts[k->con[1].stmt].kind != PM_S_REDUCE)
		return;
	e = spec->stmts[2].rhs;
	if (e->kind != PM_E_BIN || e->op != '+' ||
	    !((read_ij(e->args[0], c) && read_ij(e->args[1], dd)) ||
	      (read_ij(e->args[0], dd) && read_ij(e->args[1], c))))
		return;
	for (int s = 2; s < spec->nstmts; ++s)
		n += reads_of(spec->stmts[s].rhs, c);
	k->acc_shared = n == 1;
}

/* An epilogue input read in e of a type pointwise code cannot load (not
 * a 16-bit float nor f32), or NULL. */
static const struct pm_expr *bad_input_type(const struct pm_spec *spec,
	const struct pm_expr *e)
{
	if (e->kind == PM_E_READ) {
		const struct pm_tensor *t = &spec->tensors[e->tensor];

		return t->role == PM_INPUT && t->type != PM_F32 &&
			!pm_elem_of(t->type) ? e : NULL;
	}
	for (int i = 0; i < e->nargs; ++i) {
		const struct pm_expr *r = bad_input_type(spec, e->args[i]);

		if (r)
			return r;
	}
	return NULL;
}

/* The kernel's types, once its statements are recognised: every
 * contraction multiplies the same operand type (the file's helpers are
 * instantiated for one), the output is one the operand row allows, the
 * epilogue inputs are f16, bf16 or f32. */
static int kernel_types(struct pm_kernel *k, struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_target *tg = k->cfg->target;
	enum pm_type in = pm_kernel_ab(k);
	const struct pm_operand_row *row = pm_target_operand(tg, in);
	const struct pm_tensor *out = &spec->tensors[k->con[0].out];
	char list[64];

	for (int c = 1; c < k->ncon; ++c)
		if (k->con[c].ab != in) {
			pm_diag_unsupported(d, spec->stmts[k->con[c].stmt].loc,
				"the contractions multiply different operand "
				"types (%s and %s); one kernel multiplies one type",
				pm_type_name(in), pm_type_name(k->con[c].ab));
			return -1;
		}
	if (!row)
		return -1;
	/* the host rendering holds every element as a float */
	k->eb = tg->emits_cuda ? row->elem->bytes : 4;
	k->ik = pm_operand_k(tg, row);
	if (k->cfg->mk % k->ik) {
		pm_diag_plain(d, "--mma %dx%dx%d: target %s multiplies %s "
			"operands %d deep per instruction; the macro k must be a "
			"multiple of %d", k->cfg->mm, k->cfg->mn, k->cfg->mk,
			tg->name, pm_type_name(in), k->ik, k->ik);
		return -1;
	}
	if (!pm_target_supports(tg, in, out->type)) {
		pm_operand_out_list(row, list, sizeof(list));
		pm_diag_unsupported(d, out->loc, "target %s multiplies %s "
			"operands into %s outputs; '%s' is %s", tg->name,
			pm_type_name(in), list, out->name,
			pm_type_name(out->type));
		return -1;
	}
	/* s32 accumulators: stored as i32 without an epilogue; an epilogue
	 * computes in f32 from them, into a float output
	 * (docs/decisions/0029-8-bit-operands.md) */
	if (row->acc == PM_I32 && (spec->nstmts > k->ncon) ==
	    (out->type == PM_I32)) {
		pm_diag_unsupported(d, out->loc, spec->nstmts > k->ncon ?
			"'%s' is i32 after an epilogue; an epilogue on %s "
			"operands' i32 accumulators computes in f32: its output is "
			"f32, f16 or bf16" : "'%s' is %s without an epilogue; %s "
			"operands' i32 accumulators are stored as i32 (convert in "
			"an epilogue: D(i, j) = C(i, j))", out->name,
			spec->nstmts > k->ncon ? pm_type_name(in) :
			pm_type_name(out->type), pm_type_name(in));
		return -1;
	}
	for (int s = k->ncon; s < spec->nstmts; ++s) {
		const struct pm_expr *r = bad_input_type(spec,
			spec->stmts[s].rhs);

		if (r) {
			pm_diag_unsupported(d, r->loc, "epilogue input '%s' is "
				"%s; epilogue inputs are f16, bf16 or f32",
				spec->tensors[r->tensor].name,
				pm_type_name(spec->tensors[r->tensor].type));
			return -1;
		}
	}
	return 0;
}

struct pm_kernel *pm_kernel_alloc(struct pm_scop *scop,
	const struct pm_config *cfg, struct pm_diags *d)
{
	struct pm_kernel *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->ctx = scop->ctx;
	k->scop = scop;
	k->cfg = cfg;
	if (recognise(k, d) >= 0 && recognise_epilogue(k, d) >= 0 &&
	    kernel_types(k, d) >= 0)
		recognise_shared_acc(k);
	else {
		pm_kernel_free(k);
		return NULL;
	}
	k->schedule = isl_schedule_copy(scop->schedule);
	return k;
}

void pm_kernel_free(struct pm_kernel *k)
{
	if (!k)
		return;
	isl_schedule_free(k->schedule);
	isl_union_map_free(k->expansion);
	isl_union_pw_multi_aff_free(k->base);
	for (int c = 0; c < PM_MAX_CON; ++c) {
		isl_pw_multi_aff_free(k->con[c].mma_prefix);
		isl_id_free(k->con[c].fill_id);
		isl_id_free(k->con[c].mma_id);
		for (int i = 0; i < 2; ++i) {
			isl_id_free(k->commit_id[c][i]);
			isl_id_free(k->sync_id[c][i]);
		}
		isl_id_free(k->wait_id[c]);
		isl_id_free(k->ldf_id[c]);
		isl_id_free(k->wait_pro_id[c]);
		isl_id_free(k->sync_pro0_id[c]);
	}
	isl_id_free(k->store_id);
	isl_id_free(k->fixup_id);
	isl_id_free(k->red_id);
	isl_id_free(k->stg_id);
	isl_id_free(k->sync_st_id[0]);
	isl_id_free(k->sync_st_id[1]);
	for (int i = 0; i < k->nepi; ++i)
		isl_id_free(k->epi_id[i]);
	for (int i = 0; i < k->nmarks; ++i)
		isl_id_free(k->mark_ids[i]);
	for (int i = 0; i < k->nbufs; ++i) {
		isl_multi_aff_free(k->bufs[i].offset);
		isl_id_free(k->bufs[i].copy_id);
		isl_id_free(k->bufs[i].pro_id);
		isl_id_free(k->bufs[i].ldr_id);
		isl_id_free(k->bufs[i].str_id);
	}
	free(k);
}

__isl_give isl_id *pm_kernel_mark(struct pm_kernel *k, const char *name,
	enum pm_mark_kind kind, enum pm_hw_dim hw, long div, long extent)
{
	struct pm_mark *m;

	if (k->nmarks >= PM_MAX_MARKS) {
		k->marks_full = 1;
		return NULL;
	}
	m = &k->marks[k->nmarks];
	m->kind = kind;
	m->hw = hw;
	m->div = div;
	m->extent = extent;
	k->mark_ids[k->nmarks] = isl_id_alloc(k->ctx, name, m);
	return isl_id_copy(k->mark_ids[k->nmarks++]);
}

__isl_give isl_id *pm_kernel_op(struct pm_kernel *k, const char *name,
	enum pm_op_kind kind, int buffer)
{
	struct pm_op *op;

	if (k->nops >= PM_MAX_OPS)
		return NULL;
	op = &k->ops[k->nops++];
	op->kind = kind;
	op->buffer = buffer;
	op->pending = -1;
	return isl_id_alloc(k->ctx, name, op);
}

void pm_dump_schedule(FILE *out, const char *pass,
	__isl_keep isl_schedule *s)
{
	isl_printer *p;

	if (!out || !s)
		return;
	fprintf(out, "# schedule after %s\n", pass);
	p = isl_printer_to_file(isl_schedule_get_ctx(s), out);
	p = isl_printer_set_yaml_style(p, ISL_YAML_STYLE_BLOCK);
	p = isl_printer_print_schedule(p, s);
	p = isl_printer_print_str(p, "\n");
	isl_printer_free(p);
}

const struct pm_op *pm_kernel_op_of(const struct pm_kernel *k,
	__isl_keep isl_id *id)
{
	const struct pm_op *op = id ? isl_id_get_user(id) : NULL;

	if (op >= k->ops && op < k->ops + k->nops)
		return op;
	return NULL;
}

const struct pm_mark *pm_kernel_mark_of(const struct pm_kernel *k,
	__isl_keep isl_id *id)
{
	const struct pm_mark *m = id ? isl_id_get_user(id) : NULL;

	if (m >= k->marks && m < k->marks + k->nmarks)
		return m;
	return NULL;
}

const struct pm_elem *pm_buffer_stored(const struct pm_kernel *k, int b)
{
	return k->bufs[b].conv_regs ? pm_elem_storage(
		k->scop->spec->tensors[k->bufs[b].tensor].type) : NULL;
}

int pm_buffer_eb(const struct pm_kernel *k, int b)
{
	const struct pm_elem *e = pm_buffer_stored(k, b);

	return e ? e->bytes : k->eb;
}

int pm_kernel_conv_regs(const struct pm_kernel *k)
{
	for (int b = 0; b < k->nbufs; ++b)
		if (k->bufs[b].conv_regs)
			return 1;
	return 0;
}

int pm_kernel_pro_regs(const struct pm_kernel *k)
{
	for (int b = 0; b < k->nbufs; ++b)
		if (k->bufs[b].pro_regs)
			return 1;
	return 0;
}

/* The AST printer: loops, hardware mapping and op calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ast.h>
#include <isl/id.h>
#include <isl/id_to_ast_expr.h>
#include <isl/val.h>

#include "emit/emit.h"
#include "emit/ops.h"
#include "target/target.h"

struct printer {
	struct pm_kernel *k;
	struct pm_strbuf *b;
	struct pm_diags *d;
	int host;
	int failed;
	const char *pred;	/* the copies' predicate variable, or NULL */
	int npred;
	char pred_name[32];
	/* warp-specialized kernels (k->ws): 1 prints the producer's subtree
	 * and the nodes around it only, 2 everything but that subtree; 0
	 * everything */
	int role;
};

static void indent(struct printer *p, int n)
{
	for (int i = 0; i < n; ++i)
		pm_strbuf_add(p->b, "\t");
}

/* e with each ragged size symbol (pm_kernel_sym_ragged) replaced by its
 * padded extent pm_t<sym> (file.c's kernel locals): the AST's loop bounds
 * and guards run over whole tiles. */
static __isl_give isl_ast_expr *padded(struct pm_kernel *k,
	__isl_take isl_ast_expr *e)
{
	const struct pm_spec *spec = k->scop->spec;
	isl_ctx *ctx = isl_ast_expr_get_ctx(e);
	isl_id_to_ast_expr *m = NULL;

	for (int s = 0; e && s < spec->nsyms; ++s) {
		char name[80];

		if (!pm_kernel_sym_ragged(k, s))
			continue;
		if (!m)
			m = isl_id_to_ast_expr_alloc(ctx, 2);
		snprintf(name, sizeof(name), "pm_t%s", spec->syms[s].name);
		m = isl_id_to_ast_expr_set(m, isl_id_alloc(ctx,
			spec->syms[s].name, NULL), isl_ast_expr_from_id(
			isl_id_alloc(ctx, name, NULL)));
	}
	return m ? isl_ast_expr_substitute_ids(e, m) : e;
}

static void expr(struct printer *p, __isl_keep isl_ast_expr *e)
{
	isl_ast_expr *pe = padded(p->k, isl_ast_expr_copy(e));
	char *s = pe ? isl_ast_expr_to_C_str(pe) : NULL;

	isl_ast_expr_free(pe);

	if (!s) {
		p->failed = 1;
		return;
	}
	pm_strbuf_printf(p->b, "(%s)", s);
	free(s);
}

/* The literal value of e, or -1 when e is not a non-negative literal. */
static long literal(__isl_keep isl_ast_expr *e)
{
	isl_val *v;
	long r;

	if (isl_ast_expr_get_type(e) != isl_ast_expr_int)
		return -1;
	v = isl_ast_expr_get_val(e);
	r = isl_val_is_int(v) ? isl_val_get_num_si(v) : -1;
	isl_val_free(v);
	return r;
}

/* The CUDA spelling of each hardware index (enum pm_hw_dim): a printf
 * format over the mark's div (HW_DIV) and/or extent (HW_EXT), in that
 * order. pm_by and pm_bx are the kernel's block coordinates (file.c). */
enum { HW_DIV = 1, HW_EXT = 2 };
static const struct hw_spelling {
	const char *fmt;
	int args;
	int block;	/* a block coordinate (not a thread's) */
} hw_spelling[] = {
	[PM_HW_NONE] = { "", 0, 0 },
	[PM_HW_BLOCK_Y] = { "pm_by", 0, 1 },
	[PM_HW_BLOCK_X] = { "pm_bx", 0, 1 },
	[PM_HW_WARP_Y] = { "((int) threadIdx.x / %ld)", HW_DIV, 0 },
	[PM_HW_WARP_X] = { "((int) threadIdx.x / %ld %% %ld)",
		HW_DIV | HW_EXT, 0 },
	[PM_HW_THREAD_Y] = { "((int) threadIdx.x / %ld)", HW_DIV, 0 },
	[PM_HW_THREAD_X] = { "((int) threadIdx.x %% %ld)", HW_EXT, 0 },
};

/* The entry of mark m's hardware index; PM_HW_NONE's when out of range. */
static const struct hw_spelling *spelling(const struct pm_mark *m)
{
	unsigned i = (unsigned) m->hw;

	if (i >= sizeof(hw_spelling) / sizeof(hw_spelling[0]))
		i = PM_HW_NONE;
	return &hw_spelling[i];
}

/* The CUDA expression of mark m's hardware index, into buf (n bytes). */
static const char *hw_expr(const struct pm_mark *m, char *buf, size_t n)
{
	const struct hw_spelling *s = spelling(m);

	switch (s->args) {
	case HW_DIV | HW_EXT:
		snprintf(buf, n, s->fmt, m->div, m->extent);
		break;
	case HW_DIV:
		snprintf(buf, n, s->fmt, m->div);
		break;
	case HW_EXT:
		snprintf(buf, n, s->fmt, m->extent);
		break;
	default:
		snprintf(buf, n, "%s", s->fmt);
	}
	return buf;
}

static void print_node(struct printer *p, __isl_keep isl_ast_node *node,
	int ind, const struct pm_mark *hw);

/* Is the guard "it <= L" / "it < L" of a loop from literal init 0 mapped to
 * hardware ids always true? The thread and warp expressions of a mark with
 * extent E take exactly the values [0, E) (the launch uses exactly the
 * block's threads), so it is when the bound covers E values. */
static int guard_is_true(__isl_keep isl_ast_expr *init,
	__isl_keep isl_ast_expr *cond, const struct pm_mark *hw)
{
	enum isl_ast_expr_op_type type;
	isl_ast_expr *bound;
	long l;

	if (hw->extent <= 0 || literal(init) != 0 ||
	    isl_ast_expr_get_type(cond) != isl_ast_expr_op)
		return 0;
	type = isl_ast_expr_op_get_type(cond);
	if (type != isl_ast_expr_op_le && type != isl_ast_expr_op_lt)
		return 0;
	bound = isl_ast_expr_op_get_arg(cond, 1);
	l = literal(bound);
	isl_ast_expr_free(bound);
	if (l < 0)
		return 0;
	return (type == isl_ast_expr_op_le ? l + 1 : l) >= hw->extent;
}

static void print_list(struct printer *p, __isl_keep isl_ast_node_list *l,
	int ind)
{
	isl_size n = isl_ast_node_list_n_ast_node(l);

	for (int i = 0; i < n; ++i) {
		isl_ast_node *c = isl_ast_node_list_get_ast_node(l, i);
		print_node(p, c, ind, NULL);
		isl_ast_node_free(c);
	}
}

static void print_body(struct printer *p, __isl_keep isl_ast_node *node,
	int ind)
{
	if (isl_ast_node_get_type(node) == isl_ast_node_block) {
		isl_ast_node_list *l = isl_ast_node_block_get_children(node);
		print_list(p, l, ind);
		isl_ast_node_list_free(l);
	} else {
		print_node(p, node, ind, NULL);
	}
}

static void print_for(struct printer *p, __isl_keep isl_ast_node *node,
	int ind, const struct pm_mark *hw)
{
	isl_ast_expr *it = isl_ast_node_for_get_iterator(node);
	isl_ast_expr *init = isl_ast_node_for_get_init(node);
	isl_ast_expr *cond = isl_ast_node_for_get_cond(node);
	isl_ast_expr *inc = isl_ast_node_for_get_inc(node);
	isl_ast_node *body = isl_ast_node_for_get_body(node);
	isl_id *id = isl_ast_expr_get_id(it);
	const char *name = isl_id_get_name(id);

	indent(p, ind);
	if (hw && !p->host) {
		char spell[64];

		hw_expr(hw, spell, sizeof(spell));
		if (literal(inc) != 1) {
			p->failed = 1;
			pm_diag_internal(p->d, "a loop mapped to "
				"%s has a stride", spell);
		}
		pm_strbuf_printf(p->b, "{\n");
		indent(p, ind + 1);
		pm_strbuf_printf(p->b, "const int %s = ", name);
		expr(p, init);
		pm_strbuf_printf(p->b, " + %s;\n", spell);
		if (guard_is_true(init, cond, hw)) {
			/* no branch: keeps the k loop body one basic block */
			indent(p, ind + 1);
			pm_strbuf_printf(p->b, "(void) %s;\n", name);
			print_body(p, body, ind + 1);
		} else {
			indent(p, ind + 1);
			pm_strbuf_add(p->b, "if ");
			expr(p, cond);
			pm_strbuf_add(p->b, " {\n");
			print_body(p, body, ind + 2);
			indent(p, ind + 1);
			pm_strbuf_add(p->b, "}\n");
		}
	} else {
		/* the loops left in GPU code are the k-tile loops (isl unrolls
		 * the others): keep them rolled, whatever the trip count — an
		 * unrolled body costs registers (a spill with fixed sizes) and
		 * measured slower */
		if (!p->host && p->k->cfg->mma_inflight) {
			/* MMAs in flight across k tiles: a k loop runs at least
			 * once (the launcher checks K >= BK); without the path
			 * that skips it, ptxas keeps the MMAs of consecutive k
			 * tiles overlapped (else C7515: serialized).  Measured
			 * 10 % slower where the MMAs are waited for at once, so
			 * only here */
			pm_strbuf_printf(p->b, "{ const int %s = ", name);
			expr(p, init);
			pm_strbuf_add(p->b, "; if (!");
			expr(p, cond);
			pm_strbuf_add(p->b, ") __builtin_unreachable(); }\n");
			indent(p, ind);
		}
		if (!p->host)
			pm_strbuf_add(p->b, "_Pragma(\"unroll 1\") ");
		pm_strbuf_printf(p->b, "for (int %s = ", name);
		expr(p, init);
		pm_strbuf_add(p->b, "; ");
		expr(p, cond);
		pm_strbuf_printf(p->b, "; %s += ", name);
		expr(p, inc);
		pm_strbuf_add(p->b, ") {\n");
		print_body(p, body, ind + 1);
	}
	indent(p, ind);
	pm_strbuf_add(p->b, "}\n");
	isl_id_free(id);
	isl_ast_expr_free(it);
	isl_ast_expr_free(init);
	isl_ast_expr_free(cond);
	isl_ast_expr_free(inc);
	isl_ast_node_free(body);
}

/* Does node contain nothing but copy statements (under blocks, loops and
 * marks)? */
static int only_copies(struct printer *p, __isl_keep isl_ast_node *node)
{
	int ok = 1;

	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_block: {
		isl_ast_node_list *l = isl_ast_node_block_get_children(node);
		isl_size n = isl_ast_node_list_n_ast_node(l);

		for (int i = 0; ok && i < n; ++i) {
			isl_ast_node *c = isl_ast_node_list_get_ast_node(l, i);
			ok = only_copies(p, c);
			isl_ast_node_free(c);
		}
		isl_ast_node_list_free(l);
		return ok && n > 0;
	}
	case isl_ast_node_for: {
		isl_ast_node *c = isl_ast_node_for_get_body(node);
		ok = only_copies(p, c);
		isl_ast_node_free(c);
		return ok;
	}
	case isl_ast_node_mark: {
		isl_ast_node *c = isl_ast_node_mark_get_node(node);
		ok = only_copies(p, c);
		isl_ast_node_free(c);
		return ok;
	}
	case isl_ast_node_user: {
		isl_id *id = isl_ast_node_get_annotation(node);
		struct pm_annot *a = id ? isl_id_get_user(id) : NULL;

		ok = a && a->op->kind == PM_OP_COPY;
		isl_id_free(id);
		return ok;
	}
	default:
		return 0;
	}
}

/* "if (tile exists) { copies }" becomes predicated copies: the k loop body
 * stays one basic block (no branch around the cp.async group). */
static void print_if_pred(struct printer *p, __isl_keep isl_ast_expr *cond,
	__isl_keep isl_ast_node *then, int ind)
{
	char name[32];

	snprintf(name, sizeof(name), "pm_p%d", p->npred++);
	indent(p, ind);
	pm_strbuf_printf(p->b, "{\n");
	indent(p, ind + 1);
	pm_strbuf_printf(p->b, "const %s %s = ", p->host ? "int" : "bool", name);
	expr(p, cond);
	pm_strbuf_add(p->b, ";\n");
	snprintf(p->pred_name, sizeof(p->pred_name), "%s", name);
	p->pred = p->pred_name;
	print_body(p, then, ind + 1);
	p->pred = NULL;
	indent(p, ind);
	pm_strbuf_add(p->b, "}\n");
}

static void print_if(struct printer *p, __isl_keep isl_ast_node *node,
	int ind)
{
	isl_ast_expr *cond = isl_ast_node_if_get_cond(node);
	isl_ast_node *then = isl_ast_node_if_get_then_node(node);

	if (!p->pred && isl_ast_node_if_has_else_node(node) == isl_bool_false &&
	    only_copies(p, then)) {
		print_if_pred(p, cond, then, ind);
		isl_ast_expr_free(cond);
		isl_ast_node_free(then);
		return;
	}

	indent(p, ind);
	pm_strbuf_add(p->b, "if ");
	expr(p, cond);
	pm_strbuf_add(p->b, " {\n");
	print_body(p, then, ind + 1);
	if (isl_ast_node_if_has_else_node(node) == isl_bool_true) {
		isl_ast_node *els = isl_ast_node_if_get_else_node(node);

		indent(p, ind);
		pm_strbuf_add(p->b, "} else {\n");
		print_body(p, els, ind + 1);
		isl_ast_node_free(els);
	}
	indent(p, ind);
	pm_strbuf_add(p->b, "}\n");
	isl_ast_expr_free(cond);
	isl_ast_node_free(then);
}

static void print_mark(struct printer *p, __isl_keep isl_ast_node *node,
	int ind)
{
	isl_id *id = isl_ast_node_mark_get_id(node);
	isl_ast_node *child = isl_ast_node_mark_get_node(node);
	const struct pm_mark *m = pm_kernel_mark_of(p->k, id);

	if (m && m->kind == PM_MARK_HW) {
		int is_for = isl_ast_node_get_type(child) == isl_ast_node_for;

		if (!is_for && m->extent != 1 && !spelling(m)->block &&
		    !p->host) {
			char spell[64];

			p->failed = 1;
			pm_diag_internal(p->d, "the band mapped to "
				"%s did not become a loop",
				hw_expr(m, spell, sizeof(spell)));
		}
		print_node(p, child, ind, is_for ? m : NULL);
	} else {
		indent(p, ind);
		pm_strbuf_printf(p->b, "// %s\n", isl_id_get_name(id));
		print_node(p, child, ind, NULL);
	}
	isl_id_free(id);
	isl_ast_node_free(child);
}

static void print_user(struct printer *p, __isl_keep isl_ast_node *node,
	int ind)
{
	isl_id *id = isl_ast_node_get_annotation(node);
	struct pm_annot *a = id ? isl_id_get_user(id) : NULL;

	if (!a) {
		p->failed = 1;
		pm_diag_internal(p->d, "statement without annotation");
		isl_id_free(id);
		return;
	}
	if (a->n >= 1 && a->op->kind != PM_OP_COPY &&
	    a->op->kind != PM_OP_PRO && a->op->kind != PM_OP_STG &&
	    a->op->kind != PM_OP_LDR && a->op->kind != PM_OP_STR &&
	    a->op->kind != PM_OP_FIXUP && a->op->kind != PM_OP_WAIT &&
	    a->op->kind != PM_OP_RED && a->op->kind != PM_OP_TSTG &&
	    a->op->kind != PM_OP_TSTG_WAIT &&
	    a->op->kind != PM_OP_RELEASE && a->op->kind != PM_OP_DRAIN &&
	    literal(a->e[0]) < 0) {
		p->failed = 1;
		pm_diag_internal(p->d, "register fragment index "
			"is not a constant; is the macro band unrolled?");
	}
	indent(p, ind);
	if (pm_print_op(p->k, p->b, a, p->host, p->pred) < 0)
		p->failed = 1;
	isl_id_free(id);
}

/* Is node the producer's mark (k->ws)? */
static int is_producer(struct printer *p, __isl_keep isl_ast_node *node)
{
	isl_id *id;
	int r;

	if (isl_ast_node_get_type(node) != isl_ast_node_mark)
		return 0;
	id = isl_ast_node_mark_get_id(node);
	r = id && id == p->k->mark_producer;
	isl_id_free(id);
	return r;
}

/* Does node contain the producer's mark? */
static int has_producer(struct printer *p, __isl_keep isl_ast_node *node)
{
	isl_ast_node *c = NULL;
	int r = 0;

	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_block: {
		isl_ast_node_list *l = isl_ast_node_block_get_children(node);
		isl_size n = isl_ast_node_list_n_ast_node(l);

		for (int i = 0; !r && i < n; ++i) {
			c = isl_ast_node_list_get_ast_node(l, i);
			r = has_producer(p, c);
			isl_ast_node_free(c);
		}
		isl_ast_node_list_free(l);
		return r;
	}
	case isl_ast_node_for:
		c = isl_ast_node_for_get_body(node);
		break;
	case isl_ast_node_if:
		c = isl_ast_node_if_get_then_node(node);
		break;
	case isl_ast_node_mark:
		if (is_producer(p, node))
			return 1;
		c = isl_ast_node_mark_get_node(node);
		break;
	default:
		return 0;
	}
	r = c && has_producer(p, c);
	isl_ast_node_free(c);
	return r;
}

static void print_node(struct printer *p, __isl_keep isl_ast_node *node,
	int ind, const struct pm_mark *hw)
{
	if (p->role == 1 && is_producer(p, node)) {
		isl_ast_node *c = isl_ast_node_mark_get_node(node);

		indent(p, ind);
		pm_strbuf_add(p->b, "// producer\n");
		p->role = 0;
		print_node(p, c, ind, NULL);
		p->role = 1;
		isl_ast_node_free(c);
		return;
	}
	if ((p->role == 1 && !has_producer(p, node)) ||
	    (p->role == 2 && is_producer(p, node)))
		return;
	switch (isl_ast_node_get_type(node)) {
	case isl_ast_node_for:
		print_for(p, node, ind, hw);
		break;
	case isl_ast_node_if:
		print_if(p, node, ind);
		break;
	case isl_ast_node_block: {
		isl_ast_node_list *l = isl_ast_node_block_get_children(node);
		print_list(p, l, ind);
		isl_ast_node_list_free(l);
		break;
	}
	case isl_ast_node_mark:
		print_mark(p, node, ind);
		break;
	case isl_ast_node_user:
		print_user(p, node, ind);
		break;
	default:
		p->failed = 1;
	}
}

int pm_emit_body(struct pm_kernel *k, __isl_keep isl_ast_node *ast,
	struct pm_strbuf *b, int ind, int role, struct pm_diags *d)
{
	struct printer p = { k, b, d, !k->cfg->target->emits_cuda, 0, NULL, 0,
		"", k->ws ? role : 0 };

	/* warp-specialized: the producer warp's thread 0 runs the copies of
	 * the block's tile and goes on to the next (persist.c's loop), the
	 * consumer warps run the rest */
	if (k->ws && !role) {
		int nt = pm_config_threads(k->cfg);

		indent(&p, ind);
		pm_strbuf_printf(b, "if (threadIdx.x >= %d) {\n", nt);
		indent(&p, ind + 1);
		pm_strbuf_printf(b, "if (threadIdx.x == %d) {\n", nt);
		p.role = 1;
		print_node(&p, ast, ind + 2, NULL);
		indent(&p, ind + 1);
		pm_strbuf_add(b, "}\n");
		indent(&p, ind + 1);
		pm_strbuf_add(b, "continue;\n");
		indent(&p, ind);
		pm_strbuf_add(b, "}\n");
		p.role = 2;
	}
	print_node(&p, ast, ind, NULL);
	if (p.failed && !d->nerrors)
		pm_diag_internal(d, "printing the kernel failed");
	return p.failed ? -1 : 0;
}

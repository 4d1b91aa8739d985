/* Printing one op: helper calls with their operands. */
#include <stdio.h>

#include "emit/print.h"
#include "emit/target.h"

static int read_pos(const struct pm_expr *r, int v)
{
	for (int i = 0; i < r->nidx; ++i)
		if (r->idx[i] == v)
			return i;
	return -1;
}

/* Stride, in the shared buffer, of the tensor dimension read with var. */
static long shared_stride(const struct pm_buffer *buf,
	const struct pm_expr *r, int var)
{
	long s = 1;

	for (int d = buf->rank - 1; d > read_pos(r, var); --d)
		s *= buf->size[d];
	return s;
}

void pm_print_stride(struct pm_kernel *k, struct pm_strbuf *b, int t, int d)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];
	char dim[64];
	int first = 1;

	for (int e = d + 1; e < tt->rank; ++e) {
		pm_scop_dim_str(k->scop, t, e, dim, sizeof(dim));
		pm_strbuf_printf(b, "%s(int64_t) %s", first ? "" : " * ", dim);
		first = 0;
	}
	if (first)
		pm_strbuf_add(b, "1");
}

void pm_print_linear(struct pm_kernel *k, struct pm_strbuf *b, int t,
	isl_ast_expr *const *e)
{
	const struct pm_tensor *tt = &k->scop->spec->tensors[t];

	for (int d = 0; d < tt->rank; ++d) {
		pm_strbuf_add(b, d ? " + (int64_t) " : "(int64_t) ");
		pm_print_expr(b, e[d]);
		if (d + 1 < tt->rank) {
			pm_strbuf_add(b, " * ");
			pm_print_stride(k, b, t, d);
		}
	}
}

static const char *tname(struct pm_kernel *k, int t)
{
	return k->scop->spec->tensors[t].name;
}

int pm_print_op(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host)
{
	const struct pm_config *c = k->cfg;
	const struct pm_target *tg = c->target;
	const struct pm_contraction *con = &k->con;
	const char *acc = host ? "pm_acc[" : "pm_acc[";

	switch (a->op->kind) {
	case PM_OP_FILL:
		if (host) {
			pm_strbuf_add(b, "pm_host_fill(pm_acc[");
			pm_print_expr(b, a->e[1]);
			pm_strbuf_add(b, "][");
			pm_print_expr(b, a->e[0]);
			pm_strbuf_printf(b, "], %d);\n", c->mm * c->mn);
		} else {
			pm_strbuf_add(b, "pm_fill_zero(pm_acc[");
			pm_print_expr(b, a->e[0]);
			pm_strbuf_printf(b, "], %d);\n", c->mm * c->mn / 32);
		}
		return 0;
	case PM_OP_MMA:
		if (host)
			pm_strbuf_printf(b, "pm_host_mma(%d, %d, %d, ", c->mm,
				c->mn, c->mk);
		else
			pm_strbuf_printf(b, "%s_mma<%d, %d, %d>(", tg->mma_fn,
				c->mm, c->mn, c->mk);
		pm_strbuf_add(b, acc);
		if (host) {
			pm_print_expr(b, a->e[1]);
			pm_strbuf_add(b, "][");
		}
		pm_print_expr(b, a->e[0]);
		pm_strbuf_printf(b, "], %s_shared + ", tname(k, con->a));
		pm_print_expr(b, a->e[2]);
		pm_strbuf_printf(b, ", %ld, %ld, %s_shared + ",
			shared_stride(&k->bufs[0], con->ra, 0),
			shared_stride(&k->bufs[0], con->ra, 2), tname(k, con->b));
		pm_print_expr(b, a->e[3]);
		pm_strbuf_printf(b, ", %ld, %ld);\n",
			shared_stride(&k->bufs[1], con->rb, 2),
			shared_stride(&k->bufs[1], con->rb, 1));
		return 0;
	case PM_OP_STORE:
		if (host)
			pm_strbuf_printf(b, "pm_host_store(%d, %d, pm_acc[",
				c->mm, c->mn);
		else
			pm_strbuf_printf(b, "%s_store<%d, %d>(pm_acc[",
				tg->mma_fn, c->mm, c->mn);
		if (host) {
			pm_print_expr(b, a->e[1]);
			pm_strbuf_add(b, "][");
		}
		pm_print_expr(b, a->e[0]);
		pm_strbuf_printf(b, "], %s + ", tname(k, con->out));
		pm_print_linear(k, b, con->out, a->e + 2);
		pm_strbuf_add(b, ", ");
		pm_print_stride(k, b, con->out, 0);
		pm_strbuf_add(b, ", 1);\n");
		return 0;
	case PM_OP_COPY: {
		const struct pm_buffer *buf = &k->bufs[a->op->buffer];
		const char *name = tname(k, buf->tensor);

		if (host || buf->vec != 8)
			pm_strbuf_printf(b, "%s(%d, ", host ? "pm_host_copy" :
				"pm_copy_elems", buf->vec);
		else
			pm_strbuf_add(b, "pm_copy16_g2s(");
		pm_strbuf_printf(b, "&%s_shared[", name);
		pm_print_expr(b, a->e[2]);
		pm_strbuf_printf(b, "], &%s[", name);
		pm_print_linear(k, b, buf->tensor, a->e);
		pm_strbuf_add(b, "]);\n");
		return 0;
	}
	case PM_OP_SYNC:
		pm_strbuf_add(b, host ? "/* __syncthreads() */;\n" :
			"__syncthreads();\n");
		return 0;
	}
	return -1;
}

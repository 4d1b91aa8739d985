/* The launch description of a variant set (runtime/jit.h): the data the
 * JIT launcher (runtime/jitlaunch.c) follows where the printed launcher
 * (launch.c) is not compiled. Every field is taken from what launch.c and
 * table.c print from (docs/decisions/0038-jit.md); tests/test_jit.c
 * compares the argument lists with the printed ones. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit/epired.h"
#include "emit/jit.h"
#include "emit/kcopy.h"
#include "emit/narrow.h"
#include "emit/pointwise.h"
#include "emit/pre.h"
#include "emit/table.h"
#include "target/target.h"
#include "variant/epired.h"
#include "variant/variant.h"

/* CUtensorMapDataType of the spellings of target.c's element rows. */
static const struct {
	const char *name;
	int value;
} tma_types[] = {
	{ "CU_TENSOR_MAP_DATA_TYPE_UINT8", 0 },
	{ "CU_TENSOR_MAP_DATA_TYPE_FLOAT16", 6 },
	{ "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16", 9 },
};

static int tma_type(const char *name)
{
	for (size_t i = 0; name && i < sizeof(tma_types) / sizeof(*tma_types);
	     ++i)
		if (!strcmp(name, tma_types[i].name))
			return tma_types[i].value;
	return -1;
}

/* Dimension d of tensor t (a fixed symbol: its value). */
static struct pm_rt_dim tensor_dim(const struct pm_scop *scop, int t, int d)
{
	const struct pm_dim *dm = &scop->spec->tensors[t].dims[d];
	struct pm_rt_dim r = { -1, dm->value };
	long v;

	if (dm->sym >= 0 && pm_scop_sym_fixed(scop, dm->sym, &v))
		r.value = v;
	else if (dm->sym >= 0)
		r.sym = dm->sym;
	return r;
}

/* The launcher's index of spec tensor t (inputs, then outputs); -1. */
static int launcher_tensor(const struct pm_spec *spec, int t)
{
	for (int r = 0, n = 0; r < 2; ++r)
		for (int i = 0; i < spec->ntensors; ++i) {
			if (spec->tensors[i].role != (r ? PM_OUTPUT : PM_INPUT))
				continue;
			if (i == t)
				return n;
			n++;
		}
	return -1;
}

/* A plan's k extent (scop->split_ext: a symbol's name or a number). */
static struct pm_rt_dim k_extent(const struct pm_spec *spec, const char *s)
{
	struct pm_rt_dim r = { -1, 0 };

	for (int i = 0; i < spec->nsyms; ++i)
		if (!strcmp(spec->syms[i].name, s))
			r.sym = i;
	if (r.sym < 0)
		r.value = strtol(s, NULL, 10);
	return r;
}

/* TMA stores (promote/store.c): the output's map, last (launch.c, out_map). */
static int out_map(const struct pm_kernel *k, struct pm_rt_jit_row *row,
	struct pm_diags *d)
{
	int t = k->con[0].out;
	const struct pm_elem *e = pm_elem_of(k->scop->spec->tensors[t].type);
	struct pm_rt_tma *m = &row->tma[row->ntma];

	if (row->ntma == PM_RT_JIT_TMA || !e) {
		pm_diag_internal(d, "JIT: a kernel's tensor maps");
		return -1;
	}
	m->buf = k->nbufs;
	m->tensor = launcher_tensor(k->scop->spec, t);
	m->rows = tensor_dim(k->scop, t, 0);
	m->cols = tensor_dim(k->scop, t, 1);
	m->box_rows = k->cfg->bm;
	m->box_cols = k->tma_store;
	m->swizzle = 128;
	m->dtype = tma_type(e->tma);
	m->esize = e->bytes;
	m->batched = k->scop->spec->tensors[t].batch;
	if (m->dtype < 0 || m->tensor < 0 ||
	    k->scop->spec->tensors[t].rank != 2) {
		pm_diag_internal(d, "JIT: a tensor map's type");
		return -1;
	}
	row->ntma++;
	return 0;
}

/* Row r's kernel k. */
static int kernel_row(struct pm_kernel *k, const char *suffix,
	struct pm_rt_jit_row *row, struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_operand_row *op = pm_target_operand(k->cfg->target,
		pm_kernel_ab(k));

	memset(row, 0, sizeof(*row));
	snprintf(row->suffix, sizeof(row->suffix), "%s", suffix);
	row->bm = k->cfg->bm;
	row->bn = k->cfg->bn;
	row->threads = pm_kernel_threads(k);
	row->smem = pm_kernel_smem_bytes(k, 0, NULL);
	row->twin = k->twin;
	for (int s = 0; s < spec->nsyms && s < PM_RT_JIT_SYMS; ++s)
		if (k->twin && pm_kernel_sym_ragged(k, s))
			row->twin_mult[s] = pm_kernel_size_multiple(k, s);
	row->nsplit = k->scop->nsplit;
	row->tdp = k->scop->nsplit && k->ws;
	row->cl = k->scop->nsplit && k->dsm;
	row->zsplit = k->scop->nsplit && !k->ws;
	row->persistent = !!k->ws;
	row->mc = k->mc;
	for (int i = 0; i < k->nbufs; ++i) {
		const struct pm_buffer *buf = &k->bufs[i];
		struct pm_rt_tma *m = &row->tma[row->ntma];
		long w = pm_buffer_box_cols(buf);
		const struct pm_elem *st;

		if (!buf->tma)
			continue;
		if (row->ntma == PM_RT_JIT_TMA || !op || !op->elem) {
			pm_diag_internal(d, "JIT: a kernel's tensor maps");
			return -1;
		}
		m->buf = i;
		m->tensor = launcher_tensor(spec, buf->tensor);
		m->rows = tensor_dim(k->scop, buf->tensor, 0);
		m->cols = tensor_dim(k->scop, buf->tensor, 1);
		m->box_rows = (int) (buf->size[0] / (buf->mc_rows ? 2 : 1));
		m->box_cols = (int) w;
		m->swizzle = (int) (pm_buffer_eb(k, i) * w);
		/* widened in the MMA's registers: the stored type's map */
		st = pm_buffer_stored(k, i) ? pm_buffer_stored(k, i) : op->elem;
		m->dtype = st ? tma_type(st->tma) : -1;
		m->esize = st ? st->bytes : 0;
		m->batched = spec->tensors[buf->tensor].batch;
		m->kc = spec->tensors[buf->tensor].kcopy;
		if (m->dtype < 0 || m->tensor < 0 ||
		    spec->tensors[buf->tensor].rank != 2) {
			pm_diag_internal(d, "JIT: a tensor map's type");
			return -1;
		}
		row->ntma++;
	}
	return k->tma_store ? out_map(k, row, d) : 0;
}

/* The entry's checks (launch.c, checks): sizes, pointers. */
static void checks(struct pm_kernel *k, struct pm_rt_jit *j)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64];

	j->nsizes = pm_emit_size_order(k, order);
	for (int i = 0; i < j->nsizes; ++i) {
		j->order[i] = order[i];
		j->align[i] = pm_kernel_sym_align(k, order[i]);
		if (j->align[i] < 1)
			j->align[i] = 1;
		j->ua_align[i] = k->var[PM_RT_UNALIGNED] ?
			pm_kernel_sym_align(k->var[PM_RT_UNALIGNED], order[i]) : 1;
		if (j->ua_align[i] < 1)
			j->ua_align[i] = 1;
	}
	j->has_ua = !!k->var[PM_RT_UNALIGNED];
	for (int r = 0; r < 2; ++r)
		for (int t = 0; t < spec->ntensors; ++t) {
			int a = 1;

			if (spec->tensors[t].role != (r ? PM_OUTPUT : PM_INPUT))
				continue;
			if (t == k->con[0].a || t == k->con[0].b ||
			    t == k->con[0].out || t == k->con[k->ncon - 1].a ||
			    t == k->con[k->ncon - 1].b)
				a = 16;
			else if (pm_epi_pairs_tensor(k, t))
				a = spec->tensors[t].type == PM_F32 ? 8 : 4;
			snprintf(j->tname[j->ntensors], sizeof(j->tname[0]), "%s",
				spec->tensors[t].name);
			/* the _unaligned row: elements aligned
			 * (docs/decisions/0046-narrow-copies.md) */
			j->ua_talign[j->ntensors] = a > 1 ?
				pm_narrow_elem_bytes(k, t) : 1;
			j->talign[j->ntensors++] = a;
		}
}

/* A batched spec's batch extents; a grouped one's groups (launch.c,
 * pm_emit_batch_count; table.c, p.grouped). */
static void batch_facts(const struct pm_kernel *k, struct pm_rt_jit *j)
{
	const struct pm_spec *spec = k->scop->spec;

	j->nbatch = spec->nbatch;
	for (int b = 0; b < spec->nbatch; ++b) {
		const struct pm_dim *dm = &spec->bdims[b];
		long v;

		j->bdims[b].sym = -1;
		j->bdims[b].value = dm->value;
		if (dm->sym >= 0 && pm_scop_sym_fixed(k->scop, dm->sym, &v))
			j->bdims[b].value = v;
		else if (dm->sym >= 0)
			j->bdims[b].sym = dm->sym;
	}
	j->grouped = !!spec->grouped;
}

/* The K-major copies (emit/kcopy.c, pm_kc_run_NAME): the kernels' spec
 * has each copied tensor's dimensions swapped, so the declared rows (k)
 * are its dimension 1. */
static void kc_facts(const struct pm_kernel *k, struct pm_rt_jit *j)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int t = 0; t < spec->ntensors; ++t) {
		struct pm_rt_jit_kc *c = &j->kc[j->nkc];

		if (!spec->tensors[t].kcopy)
			continue;
		c->tensor = launcher_tensor(spec, t);
		c->r = tensor_dim(k->scop, t, 1);
		c->c = tensor_dim(k->scop, t, 0);
		j->nkc++;
	}
}

/* The launcher-applied prologues' copies (emit/pre.c), read by the
 * rows with PM_RT_PRE; -1 with a diagnostic past PM_RT_JIT_KC. */
static int pre_facts(const struct pm_variant_set *vs, struct pm_rt_jit *j,
	struct pm_diags *d)
{
	const struct pm_kernel *r = pm_emit_pre_row(vs);
	const struct pm_spec *spec = vs->main->scop->spec;

	for (int t = 0; t < spec->ntensors; ++t)
		j->ninputs += spec->tensors[t].role == PM_INPUT;
	for (int t = 0; r && t < r->scop->spec->ntensors; ++t) {
		struct pm_rt_jit_pre *p = &j->pre[j->npre];

		if (!r->scop->spec->tensors[t].pre)
			continue;
		if (j->npre == PM_RT_JIT_KC) {
			pm_diag_unsupported(d, spec->stmts[0].loc, "the JIT "
				"launcher takes at most %d launcher-applied "
				"prologues", PM_RT_JIT_KC);
			return -1;
		}
		p->tensor = launcher_tensor(spec, t);
		p->esize = pm_elem_of(r->scop->spec->tensors[t].type)->bytes;
		p->r = tensor_dim(r->scop, t, 0);
		p->c = tensor_dim(r->scop, t, 1);
		p->reuse = tensor_dim(vs->main->scop, vs->main->con[0].out,
			pm_emit_pre_reuse(vs->main, t));
		p->batched = !!r->scop->spec->tensors[t].batch;
		p->per_group = spec->grouped && !pm_emit_pre_reuse(vs->main, t);
		j->npre++;
	}
	return 0;
}

/* The spec's facts: name, symbols, tensors, the plan's extents. */
static int spec_facts(struct pm_kernel *k, struct pm_rt_jit *j,
	struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	int nt = 0;

	for (int t = 0; t < spec->ntensors; ++t)
		nt += spec->tensors[t].role == PM_INPUT ||
			spec->tensors[t].role == PM_OUTPUT;
	if (spec->nsyms > PM_RT_JIT_SYMS || nt > PM_RT_JIT_TENSORS ||
	    strlen(spec->name) >= sizeof(j->name)) {
		pm_diag_unsupported(d, spec->stmts[0].loc, "the JIT launcher takes at most %d size "
			"symbols and %d tensors", PM_RT_JIT_SYMS,
			PM_RT_JIT_TENSORS);
		return -1;
	}
	if (spec->nbatch > PM_RT_JIT_BATCH) {
		pm_diag_unsupported(d, spec->stmts[0].loc, "the JIT launcher "
			"takes at most %d batch dimensions", PM_RT_JIT_BATCH);
		return -1;
	}
	if (pm_emit_kcopies(k) > PM_RT_JIT_KC) {
		pm_diag_unsupported(d, spec->stmts[0].loc, "the JIT launcher "
			"takes at most %d K-major copies", PM_RT_JIT_KC);
		return -1;
	}
	snprintf(j->name, sizeof(j->name), "%s", spec->name);
	j->nsyms = spec->nsyms;
	for (int s = 0; s < spec->nsyms; ++s) {
		long v;

		snprintf(j->sym_name[s], sizeof(j->sym_name[0]), "%s",
			spec->syms[s].name);
		if (pm_scop_sym_fixed(k->scop, s, &v))
			j->fixed[s] = v;
	}
	checks(k, j);
	j->m = tensor_dim(k->scop, k->con[0].out, 0);
	j->n = tensor_dim(k->scop, k->con[0].out, 1);
	batch_facts(k, j);
	kc_facts(k, j);
	for (int r = 0; r < k->scop->nsplit && r < PM_RT_MAX_K; ++r)
		j->k[r] = k_extent(spec, k->scop->split_ext[r]);
	if (!k->scop->nsplit)
		j->k[0].value = k->cfg->bk;
	for (int o = 0; o < 2; ++o) {
		const int t = o ? k->con[0].b : k->con[0].a;
		const struct pm_tensor *x = &spec->tensors[t];
		const struct pm_elem *e = pm_elem_storage(x->type);

		j->pitch[o] = tensor_dim(k->scop, t, x->rank - 1);
		j->pitch_bytes[o] = e ? e->bytes : 0;
		j->pitch_kc[o] = x->kcopy;
	}
	return 0;
}

/* An epilogue reduction: what it keeps, the file's smallest tile (the
 * workspace of launch.c's red_fns, docs/decisions/0037). */
static void red_facts(const struct pm_variant_set *vs, struct pm_rt_jit *j)
{
	const struct pm_kernel *k = vs->main;

	if (!pm_emit_has_red(k))
		return;
	j->red = 1 + pm_epired_kept(k->scop->spec);
	pm_emit_red_tile(vs, &j->red_bm, &j->red_bn);
}

int pm_emit_jit(const struct pm_variant_set *vs, struct pm_rt_jit *j,
	struct pm_diags *d)
{
	const struct pm_kernel *kern[PM_RT_MAX_VARIANTS];
	const struct pm_target *t = vs->target;

	memset(j, 0, sizeof(*j));
	if (!t->emits_cuda) {
		pm_diag_plain(d, "the JIT compiles CUDA targets only");
		return -1;
	}
	if (spec_facts(vs->main, j, d) < 0)
		return -1;
	j->nrows = pm_emit_rt_table(vs, j->rows, kern, &j->spec);
	j->planned = j->nrows > 1;
	j->pdl = vs->main->cfg->pdl > 0;
	/* launch.c, launch_fn and kc_single: the copies after the split's
	 * part where a plan may split */
	j->kc_split = j->nkc && j->planned && vs->main->scop->nsplit;
	for (int i = 0, n = 0; i < t->nvariants; ++i) {
		const struct pm_variant *v = &vs->v[t->variants[i].role];

		if (!v->k)
			continue;
		if (v->k != kern[n] || kernel_row(v->k, v->desc->suffix,
		    &j->kern[n], d) < 0) {
			if (!d->nerrors)
				pm_diag_internal(d, "JIT: the rows' order");
			return -1;
		}
		n++;
	}
	red_facts(vs, j);
	if (pre_facts(vs, j, d) < 0)
		return -1;
	pm_rt_jit_fix(j);
	return 0;
}

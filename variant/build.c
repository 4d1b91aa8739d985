/* The pass table: options -> scop -> kernel through every pass. */
#include <string.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/schedule_node.h>

#include "polymma.h"
#include "promote/promote.h"
#include "schedule_tree/tree.h"
#include "target/target.h"
#include "variant/batch.h"
#include "variant/group.h"
#include "variant/epired.h"
#include "variant/hoist.h"
#include "variant/kcopy.h"
#include "variant/pre.h"
#include "variant/swap.h"
#include "variant/variant.h"

static int divides(int a, int b)
{
	return a > 0 && b > 0 && b % a == 0;
}

/* The first tensor read of e of at least n indices, or NULL. */
static const struct pm_expr *first_read(const struct pm_expr *e, int n)
{
	const struct pm_expr *r = NULL;

	if (e->kind == PM_E_READ)
		return e->nidx >= n ? e : NULL;
	for (int i = 0; i < e->nargs && !r; ++i)
		r = first_read(e->args[i], n);
	return r;
}

/* The operand row of the spec's contractions (the first statement's
 * operand reads: the first read of two indices or more of each factor,
 * their pair's row, docs/decisions/0047; else its first read), or NULL
 * (the front end or the scop reports why). */
static const struct pm_operand_row *spec_operand(const struct pm_spec *spec,
	const struct pm_target *t)
{
	const struct pm_expr *e = spec->nstmts ? spec->stmts[0].rhs : NULL;
	const struct pm_expr *r = e ? first_read(e, 0) : NULL, *x, *y;

	if (e && e->kind == PM_E_BIN && e->op == '*' &&
	    (x = first_read(e->args[0], 2)) && (y = first_read(e->args[1], 2)))
		return pm_target_pair(t, spec->tensors[x->tensor].type,
			spec->tensors[y->tensor].type, NULL);
	return r ? pm_target_operand(t, spec->tensors[r->tensor].type) : NULL;
}

int pm_config_finish(struct pm_config *c, const struct pm_operand_row *row,
	struct pm_diags *d)
{
	const struct pm_target *t = c->target;
	const struct pm_macro *m = &t->macros[t->default_macro];
	int ik = pm_operand_k(t, row);
	char list[256];

	c->unit = t->unit;
	c->auto_block = !c->bm && !c->bn && !c->bk;
	c->bm = c->bm ? c->bm : t->bm;
	c->bn = c->bn ? c->bn : t->bn;
	/* the operand type's k tile where it has one: sm_90a's 8-bit rows
	 * 128 elements, the 16-bit tiles' 128-byte rows
	 * (docs/decisions/0035-8-bit-k-tile.md); sm_80's i8 64, its 16-bit
	 * tiles' 64-byte rows (docs/decisions/0032-sm80-i8.md) */
	c->bk = c->bk ? c->bk : row && row->bk ? row->bk : t->bk;
	c->auto_warp = !c->wm && !c->wn;
	c->wm = c->wm ? c->wm : t->wm;
	c->wn = c->wn ? c->wn : t->wn;
	if (!c->mm) {
		/* the default macro-MMA, its k the instruction's where the
		 * operand type's instruction is deeper (sm_80's i8: 32) */
		c->mm = m->m;
		c->mn = m->n;
		c->mk = m->k % ik ? ik : m->k;
		/* it does not fit the tiles asked for: the largest one of
		 * the target that does */
		if (!pm_target_has_macro(t, c->mm, c->mn, c->mk) ||
		    !divides(c->mm, c->wm) || !divides(c->mn, c->wn) ||
		    !divides(c->mk, c->bk))
			for (int i = 0, best = 0; i < t->nmacros; ++i) {
				const struct pm_macro *x = &t->macros[i];
				int v = x->m * x->n * x->k;

				if (v > best && divides(x->m, c->wm) &&
				    divides(x->n, c->wn) && divides(x->k, c->bk) &&
				    divides(ik, x->k)) {
					best = v;
					c->mm = x->m, c->mn = x->n, c->mk = x->k;
				}
			}
	}
	if (!pm_target_has_macro(t, c->mm, c->mn, c->mk)) {
		pm_target_macro_list(t, list, sizeof(list));
		pm_diag_plain(d, "--mma %dx%dx%d is not a macro-MMA of target "
			"%s (legal: %s)", c->mm, c->mn, c->mk, t->name, list);
		return POLYMMA_ERR_SPEC;
	}
	if (!divides(c->wm, c->bm) || !divides(c->wn, c->bn) ||
	    !divides(c->mm, c->wm) || !divides(c->mn, c->wn) ||
	    !divides(c->mk, c->bk)) {
		pm_diag_plain(d, "inconsistent tiles: block %dx%dx%d, warp "
			"%dx%d, mma %dx%dx%d (the warp tile must divide the block "
			"tile, the macro-MMA the warp tile, and the macro k the "
			"block k)", c->bm, c->bn, c->bk, c->wm, c->wn, c->mm,
			c->mn, c->mk);
		return POLYMMA_ERR_SPEC;
	}
	if (pm_config_threads(c) > 1024) {
		pm_diag_plain(d, "block %dx%d with warp %dx%d needs %d threads "
			"(at most 1024)", c->bm, c->bn, c->wm, c->wn,
			pm_config_threads(c));
		return POLYMMA_ERR_SPEC;
	}
	/* persistent: the target's stages for it (sm_90a: 4; the C tile has
	 * memory of its own, 4 x 32 KB and 34 KB, one block per SM; measured
	 * faster than 3, docs/decisions/0007-persistent-stages-four.md) */
	c->stages = c->stages ? c->stages : c->persistent > 0 && t->pstages ?
		t->pstages : t->stages;
	if (c->mma_inflight > 0 && !t->mma_drain) {
		pm_diag_plain(d, "--mma-inflight on: target %s has no "
			"asynchronous MMAs (sm_90a has)", t->name);
		return POLYMMA_ERR_SPEC;
	}
	if (c->mma_inflight < 0 || !t->mma_drain)
		c->mma_inflight = 0;
	if (c->pdl > 0 && !t->pdl) {
		pm_diag_plain(d, "--pdl on: target %s has no programmatic "
			"dependent launch (sm_90a has)", t->name);
		return POLYMMA_ERR_SPEC;
	}
	c->pdl = c->pdl < 0 ? t->pdl : c->pdl;
	/* pairs of blocks multicasting their copies: TMA's, sm_90a's */
	if (c->cluster == 2 && (c->tma == 0 || t->tma != 2)) {
		if (c->tma == 0)
			pm_diag_plain(d, "--cluster 2: its multicast copies are "
				"TMA's (--tma off given)");
		else
			pm_diag_plain(d, "--cluster 2: target %s has no "
				"thread-block clusters (sm_90a has)", t->name);
		return POLYMMA_ERR_SPEC;
	}
	c->smem = c->smem >= 0 ? c->smem : t->smem;
	if (c->split_k > 64) {
		pm_diag_plain(d, "--split-k %d: at most 64 chunks of the "
			"reduction", c->split_k);
		return POLYMMA_ERR_SPEC;
	}
	if (c->stages > 16) {
		pm_diag_plain(d, "--stages %d: at most 16 shared-memory stages",
			c->stages);
		return POLYMMA_ERR_SPEC;
	}
	if (c->persistent > 0 && (!t->tma || !t->emits_cuda || !c->tma)) {
		pm_diag_plain(d, "--persistent on: it needs TMA copies "
			"(--target sm_90a, --tma not off); target %s%s", t->name,
			!c->tma ? " with --tma off" : "");
		return POLYMMA_ERR_SPEC;
	}
	if (c->persistent > 0 && c->split_k > 1) {
		pm_diag_plain(d, "--persistent on: the persistent kernel does "
			"not split k (--split-k %d)", c->split_k);
		return POLYMMA_ERR_SPEC;
	}
	/* the persistent kernel is the only one: no split, no variants
	 * (persistent 2: api/'s split variant keeps split-K) */
	if (c->persistent == 1) {
		c->split_k = 1;
		c->small_variant = 0;
	}
	return POLYMMA_OK;
}

/* An operand's contiguous dimension fixed to a value that is not whole
 * 16-byte units (8 elements, 16 of one byte): a k that is not a multiple
 * of its tile (docs/decisions/0030-ragged-k.md; M and N are). */
static int fixed_rows(struct pm_kernel *k, struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int n = 0; n < 2 * k->ncon; ++n) {
		const struct pm_tensor *tt = &spec->tensors[n % 2 ?
			k->con[n / 2].b : k->con[n / 2].a];
		const struct pm_dim *dim;
		long v = 0;
		int u;

		if (tt->rank < 1)
			continue;
		dim = &tt->dims[tt->rank - 1];
		u = tt->type == PM_I8 || tt->type == PM_F8E4M3 ||
			tt->type == PM_F8E5M2 ? 16 : 8;
		if (dim->sym < 0)
			v = dim->value;
		else
			pm_scop_sym_fixed(k->scop, dim->sym, &v);
		if (v > 0 && v % u) {
			pm_diag_unsupported(d, tt->loc, "the rows of '%s' are "
				"%ld elements, not whole 16-byte units (a "
				"multiple of %d)", tt->name, v, u);
			return -1;
		}
	}
	return 0;
}

/* Fixed sizes must be multiples of their tiles (k need not be: it is
 * padded, docs/decisions/0030-ragged-k.md). */
static int check_fixed_sizes(struct pm_kernel *k, struct pm_diags *d)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_tensor *c = &spec->tensors[k->con[0].out];
	int tile[3] = { k->cfg->bm, k->cfg->bn, k->cfg->bk };
	const char *what[3] = { "M (rows of the output)",
		"N (columns of the output)", "K (the reduction)" };

	for (int n = 0; n < k->ncon; ++n) {
		const struct pm_expr *r = k->con[n].ra;
		long ext[3] = { 0, 0, 0 };

		for (int i = 0; i < 2; ++i) {
			const struct pm_dim *dim = &c->dims[i];
			ext[i] = dim->sym < 0 ? dim->value :
				k->scop->sym_value[dim->sym];
		}
		for (int i = 0; i < r->nidx; ++i)
			if (r->idx[i] == 2) {
				const struct pm_dim *dim =
					&spec->tensors[r->tensor].dims[i];
				ext[2] = dim->sym < 0 ? dim->value :
					k->scop->sym_value[dim->sym];
			}
		for (int i = 0; i < 3; ++i)
			if (ext[i] > 0 && ext[i] % tile[i] && (i < 2 ||
			    !pm_kernel_kragged_ok(k))) {
				pm_diag_unsupported(d,
					spec->stmts[k->con[n].stmt].loc,
					"the extent %s is %ld, not a "
					"multiple of the block tile %d (a size "
					"fixed at generation must be one%s)",
					what[i], ext[i], tile[i], i < 2 ?
					"; left a runtime size it need not be: "
					"ragged tiles" : k->cfg->target->async_copy ||
					!k->cfg->target->emits_cuda ?
					": a prologue is not finite at 0" :
					": sm_70 takes no partial k tile");
				return -1;
			}
	}
	return fixed_rows(k, d);
}

/* The cost of the fused epilogue per accumulator element: input reads
 * plus transcendental functions. */
static int epilogue_cost(const struct pm_expr *e, int chain)
{
	int c = 0;

	if (e->kind == PM_E_READ)
		return e->tensor != chain;
	if (e->kind == PM_E_CALL && e->fn != PM_FN_RELU && e->fn != PM_FN_ABS &&
	    e->fn != PM_FN_MAX && e->fn != PM_FN_MIN)
		c = 1;
	for (int i = 0; i < e->nargs; ++i)
		c += epilogue_cost(e->args[i], chain);
	return c;
}

/* Is operand e of a contraction a prologue computed in fp32: anything but
 * a read, a constant, a negation and relu, abs, max and min of those
 * (which the copies may apply on pairs of the element type)? */
static int fp32_prologue(const struct pm_expr *e)
{
	if (e->kind == PM_E_READ || e->kind == PM_E_NUM)
		return 0;
	if (e->kind == PM_E_BIN || (e->kind == PM_E_CALL &&
	    e->fn != PM_FN_RELU && e->fn != PM_FN_ABS &&
	    e->fn != PM_FN_MAX && e->fn != PM_FN_MIN))
		return 1;
	for (int i = 0; i < e->nargs; ++i)
		if (fp32_prologue(e->args[i]))
			return 1;
	return 0;
}

/* Three or more accumulators (contractions not summed into one) live
 * together: the default warp tile halved, in n first, down to the
 * macro-MMA, until they take PM_ACC_REGS_MAX registers a thread at most
 * (docs/decisions/0039-dequant-prologues-and-contractions.md; where they
 * cannot, variant/ refuses the kernel). */
static void fit_accumulators(struct pm_config *c, int nacc)
{
	while ((long) nacc * c->wm * c->wn / pm_config_unit(c) >
	    PM_ACC_REGS_MAX) {
		int h = c->wn / 2;

		if (h >= c->mn && h % c->mn == 0)
			c->wn = h;
		else if (c->mn == c->wn &&
		    pm_target_has_macro(c->target, c->mm, h, c->mk))
			c->wn = c->mn = h;	/* one macro-MMA in n: its n */
		else if (c->wm >= 2 * c->mm && (c->wm / 2) % c->mm == 0)
			c->wm /= 2;
		else
			return;
	}
	/* at most 256 threads (the block halved in m): 255 registers a
	 * thread, the accumulators and the rest (variant.c, fits_regs) */
	while (c->auto_block && pm_config_threads(c) > 256 &&
	    c->bm / 2 >= c->wm && (c->bm / 2) % c->wm == 0)
		c->bm /= 2;
}

/* Register pressure: a heavy epilogue (its loads and functions live next
 * to the accumulators) gets half the default warp tile in n, which
 * measured free of spills where 64x64 spilled. So do fp32 prologues on
 * both operands of a contraction (48 bytes spilled on sm_80 at 64x64;
 * docs/decisions/0028). */
static void default_warp_for_epilogue(const struct pm_spec *spec,
	struct pm_config *c)
{
	int cost = 0, ncon = 0;

	/* the contractions: the leading reductions (kernel.c, recognise) */
	while (ncon < spec->nstmts && ncon < PM_LIMIT_CONTRACTIONS &&
	    spec->stmts[ncon].kind == PM_S_REDUCE)
		ncon++;
	for (int s = ncon ? ncon : 1; s < spec->nstmts; ++s)
		cost += epilogue_cost(spec->stmts[s].rhs, spec->stmts[s - 1].lhs);
	c->epi_cost = cost;
	/* two accumulators in registers count as a heavy epilogue */
	if (ncon > 1)
		cost += 3;
	for (int s = 0; s < ncon; ++s) {
		const struct pm_expr *e = spec->stmts[s].rhs;

		if (e->kind == PM_E_BIN && e->op == '*' &&
		    fp32_prologue(e->args[0]) && fp32_prologue(e->args[1]))
			cost += 3;
	}
	if (c->auto_warp && cost >= 3 && c->wn >= 2 * c->mn &&
	    (c->wn / 2) % c->mn == 0)
		c->wn /= 2;
	if (ncon > 2 && c->auto_warp)
		fit_accumulators(c, ncon);
}

/* Integer accumulators are not split: the split-K workspace and the
 * cluster reduction sum f32 (docs/decisions/0029-8-bit-operands.md). */
static int no_split_int(const struct pm_spec *spec, struct pm_config *c,
	struct pm_diags *d)
{
	const struct pm_operand_row *row = spec_operand(spec, c->target);

	if (!row || row->acc != PM_I32)
		return 0;
	if (c->split_k > 1) {
		pm_diag_plain(d, "--split-k %d: %s operands accumulate in i32, "
			"which is not split (the split-K sums are f32)",
			c->split_k, pm_type_name(row->in));
		return -1;
	}
	c->split_k = 1;
	c->int_acc = 1;
	return 0;
}

/* A batched spec (variant/batch.h): blockIdx.z runs the batch, so k is
 * not split (docs/decisions/0036-batched-grid-z.md); persistent kernels
 * loop over units (batch, tile), unsplit (0042). */
static int batched_config(const struct pm_spec *bspec, struct pm_config *c,
	struct pm_diags *d)
{
	if (!bspec)
		return 0;
	/* one group's kernels (variant/group.h) */
	if (bspec->grouped)
		return pm_group_config(bspec, c, d);
	if (c->split_k > 1) {
		pm_diag_plain(d, "--split-k %d: a batched spec runs its batch "
			"in blockIdx.z and does not split k", c->split_k);
		return -1;
	}
	/* persistent: unsplit kernels looping over units (batch, tile)
	 * (docs/decisions/0042-batched-persistent-units.md) */
	/* --cluster 2's multicast copies are 2-D only */
	if (c->cluster == 2) {
		pm_diag_plain(d, "--cluster 2: a batched spec's copies are "
			"not multicast (docs/decisions/0042)");
		return -1;
	}
	if (c->persistent == 2) {
		pm_diag_plain(d, "a batched spec has no split persistent "
			"kernel (docs/decisions/0042)");
		return -1;
	}
	c->split_k = 1;
	c->batched = 1;
	return 0;
}

/* The spec the kernels see: one batch's (variant/batch.h), then the
 * K-major copies (variant/kcopy.h), which are per matrix: a batched
 * operand that would need one is refused. *kspec NULL: the user's. */
static int kernel_spec(const struct pm_spec *spec, struct pm_config *cfg,
	struct pm_spec **kspec, struct pm_diags *d)
{
	struct pm_spec *bspec, *kc;

	/* a grouped spec: one group's (variant/group.h), never batched */
	if (spec->grouped ? pm_group_spec(spec, &bspec, d) < 0 :
	    pm_batch_spec(spec, &bspec, d) < 0)
		return -1;
	if (batched_config(bspec, cfg, d) < 0 ||
	    pm_kcopy_spec(bspec ? bspec : spec, cfg->target, &kc) < 0) {
		if (!d->nerrors)
			pm_diag_internal(d, "out of memory");
		pm_spec_free(bspec);
		return -1;
	}
	for (int t = 0; kc && bspec && t < kc->ntensors; ++t)
		if (kc->tensors[t].kcopy && kc->tensors[t].batch) {
			pm_diag_unsupported(d, kc->tensors[t].loc, "target %s "
				"reads %s operands K-major only and '%s' is "
				"batched and MN-major (the K-major copy is of one "
				"matrix); declare it with the reduction index last",
				cfg->target->name,
				pm_type_name(kc->tensors[t].type),
				kc->tensors[t].name);
			pm_spec_free(kc);
			pm_spec_free(bspec);
			return -1;
		}
	if (kc)
		pm_spec_free(bspec);
	*kspec = kc ? kc : bspec;
	return 0;
}

/* Epilogue reductions are not split: the reduction must see the final
 * values, which a split tile has only after its fixup
 * (docs/decisions/0037-epilogue-reductions.md). */
static int no_split_red(const struct pm_spec *spec, struct pm_config *c,
	struct pm_diags *d)
{
	if (!spec->nepired)
		return 0;
	if (c->int_acc) {
		pm_diag_unsupported(d, spec->stmts[spec->nstmts].loc, "an "
			"epilogue reduction of i32 accumulators (8-bit integer "
			"operands; docs/decisions/0037)");
		return -1;
	}
	if (c->split_k > 1 || c->persistent > 1) {
		pm_diag_plain(d, "--split-k: a spec with an epilogue reduction "
			"is not split (docs/decisions/0037)");
		return -1;
	}
	c->split_k = 1;
	c->epi_red = 1;
	return 0;
}

static int dump(struct pm_kernel *k, const char *pass)
{
	const struct pm_config *c = k->cfg;

	if (c->dump_all || !strcmp(c->dump_pass, pass))
		pm_dump_schedule(c->dump ? c->dump : stderr, pass, k->schedule);
	return 0;
}

typedef int (*pm_pass)(struct pm_kernel *k, struct pm_diags *d);

static const struct {
	const char *name;
	pm_pass run;
} passes[] = {
	{ "tile_block", &pm_tile_block },
	{ "strip_k", &pm_strip_k },
	{ "tile_warp", &pm_tile_warp },
	{ "contract", &pm_contract },
	{ "promote", &pm_promote },
};

static void set_options(isl_ctx *ctx)
{
	isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
	isl_options_set_tile_scale_tile_loops(ctx, 0);
	isl_options_set_tile_shift_point_loops(ctx, 1);
}

static struct pm_kernel *until(isl_ctx *ctx, const struct pm_spec *spec,
	struct pm_config *cfg, const char *last, struct pm_diags *d);

/* Factors constant along k leave the operands for the epilogue
 * (variant/hoist.h): the passes see that spec, the scop owns it. */
struct pm_kernel *pm_pipeline_until(isl_ctx *ctx, const struct pm_spec *spec,
	struct pm_config *cfg, const char *last, struct pm_diags *d)
{
	struct pm_spec *hspec;
	struct pm_kernel *k;

	if (pm_hoist_spec(spec, &hspec, d) < 0)
		return NULL;
	k = until(ctx, hspec ? hspec : spec, cfg, last, d);
	if (k)
		k->scop->own_base = hspec;
	else
		pm_spec_free(hspec);
	return k;
}

static struct pm_kernel *until(isl_ctx *ctx, const struct pm_spec *spec,
	struct pm_config *cfg, const char *last, struct pm_diags *d)
{
	struct pm_scop *scop;
	struct pm_kernel *k;
	struct pm_spec *kspec, *rspec = NULL;

	set_options(ctx);
	if (pm_config_finish(cfg, spec_operand(spec, cfg->target), d) !=
	    POLYMMA_OK)
		return NULL;
	/* an epilogue reduction: the kernels' spec keeps it aside
	 * (variant/epired.h) */
	if (pm_epired_spec(spec, &rspec, d) < 0)
		return NULL;
	if (rspec)
		spec = rspec;
	/* the configuration is final here: the kernel refers to it */
	default_warp_for_epilogue(spec, cfg);
	if (no_split_int(spec, cfg, d) < 0 || no_split_red(spec, cfg, d) < 0) {
		pm_spec_free(rspec);
		return NULL;
	}
	/* one batch of a batched spec (variant/batch.h); operands read
	 * MN-major where the MMA reads them only K-major: the kernels read a
	 * K-major copy (variant/kcopy.h) */
	if (kernel_spec(spec, cfg, &kspec, d) < 0) {
		pm_spec_free(rspec);
		return NULL;
	}
	if (kspec && rspec) {
		/* both would take the workspace's start (K-major copies), or
		 * one batch's blocks would combine every batch's (batched) */
		pm_diag_unsupported(d, rspec->stmts[rspec->nstmts].loc, "an "
			"epilogue reduction beside K-major copies of operands or "
			"batch indices (docs/decisions/0037)");
		pm_spec_free(kspec);
		pm_spec_free(rspec);
		return NULL;
	}
	if (!kspec)
		kspec = rspec;
	/* a row with launcher-applied prologues (variant/pre.h) */
	if (cfg->npre) {
		struct pm_spec *pr;

		if (pm_pre_spec(kspec ? kspec : spec, cfg->pre, cfg->npre,
		    &pr, d) < 0) {
			pm_spec_free(kspec);
			return NULL;
		}
		pm_spec_free(kspec);
		kspec = pr;
	}
	/* a swapped row: the outputs transposed (variant/swap.h) */
	if (cfg->swap) {
		struct pm_spec *sw;

		if (pm_swap_spec(kspec ? kspec : spec, &sw, d) < 0) {
			pm_spec_free(kspec);
			return NULL;
		}
		pm_spec_free(kspec);
		kspec = sw;
	}
	scop = pm_scop_build(ctx, kspec ? kspec : spec, cfg, d);
	if (!scop) {
		pm_spec_free(kspec);
		return NULL;
	}
	scop->own_spec = kspec;
	k = pm_kernel_alloc(scop, cfg, d);
	if (!k || check_fixed_sizes(k, d) < 0 ||
	    pm_kernel_require_multiples(k) < 0)
		goto error;
	dump(k, "initial");
	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); ++i) {
		if (passes[i].run(k, d) < 0)
			goto error;
		if (k->marks_full) {
			pm_diag_internal(d, "pass %s: more than %d schedule "
				"marks in one kernel", passes[i].name,
				PM_MAX_MARKS);
			goto error;
		}
		dump(k, passes[i].name);
		if (last && !strcmp(last, passes[i].name))
			return k;
	}
	pm_decide(k);
	return k;
error:
	if (!pm_isl_quota_diag(ctx, d) && !d->nerrors)
		pm_diag_internal(d, "isl: %s",
			isl_ctx_last_error_msg(ctx) ?
			isl_ctx_last_error_msg(ctx) : "a pass failed");
	pm_pipeline_kernel_free(k);
	if (!k)
		pm_scop_free(scop);
	return NULL;
}

void pm_pipeline_kernel_free(struct pm_kernel *k)
{
	struct pm_scop *scop;

	if (!k)
		return;
	scop = k->scop;
	pm_kernel_free(k);
	pm_scop_free(scop);
}


/* spec -> scop -> tiled tree -> promoted tree -> CUDA. */
#include <string.h>

#include <isl/ctx.h>
#include <isl/options.h>
#include <isl/schedule_node.h>

#include "api/pipeline.h"
#include "emit/target.h"
#include "polymma.h"
#include "promote/promote.h"
#include "schedule_tree/tree.h"

static int divides(int a, int b)
{
	return a > 0 && b > 0 && b % a == 0;
}

int pm_config_finish(struct pm_config *c, struct pm_diags *d)
{
	const struct pm_target *t = c->target;
	const struct pm_macro *m = &t->macros[t->default_macro];
	char list[256];

	c->unit = t->unit;
	c->auto_block = !c->bm && !c->bn && !c->bk;
	c->bm = c->bm ? c->bm : t->bm;
	c->bn = c->bn ? c->bn : t->bn;
	c->bk = c->bk ? c->bk : t->bk;
	c->auto_warp = !c->wm && !c->wn;
	c->wm = c->wm ? c->wm : t->wm;
	c->wn = c->wn ? c->wn : t->wn;
	if (!c->mm) {
		c->mm = m->m;
		c->mn = m->n;
		c->mk = m->k;
		/* the default macro-MMA does not fit the tiles asked for:
		 * the largest one of the target that does */
		if (!divides(c->mm, c->wm) || !divides(c->mn, c->wn) ||
		    !divides(c->mk, c->bk))
			for (int i = 0, best = 0; i < t->nmacros; ++i) {
				const struct pm_macro *x = &t->macros[i];
				int v = x->m * x->n * x->k;

				if (v > best && divides(x->m, c->wm) &&
				    divides(x->n, c->wn) && divides(x->k, c->bk)) {
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
	 * faster than 3, PERF.md) */
	c->stages = c->stages ? c->stages : c->persistent > 0 && t->pstages ?
		t->pstages : t->stages;
	if (c->mma_inflight > 0 && !t->mma_drain) {
		pm_diag_plain(d, "--mma-inflight on: target %s has no "
			"asynchronous MMAs (sm_90a has)", t->name);
		return POLYMMA_ERR_SPEC;
	}
	if (c->mma_inflight < 0 || !t->mma_drain)
		c->mma_inflight = 0;
	c->smem = c->smem >= 0 ? c->smem : t->smem;
	if (c->split_k > 64) {
		pm_diag_plain(d, "--split-k %d: at most 64 chunks of the "
			"reduction", c->split_k);
		return POLYMMA_ERR_SPEC;
	}
	if (c->stages > 8) {
		pm_diag_plain(d, "--stages %d: at most 8 shared-memory stages",
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

/* Fixed sizes must be multiples of their tiles. */
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
			if (ext[i] > 0 && ext[i] % tile[i]) {
				pm_diag_error(d, spec->stmts[k->con[n].stmt].loc,
					"unsupported: the extent %s is %ld, not a "
					"multiple of the block tile %d (a size "
					"fixed at generation must be one%s)",
					what[i], ext[i], tile[i], i < 2 ?
					"; left a runtime size it need not be: "
					"ragged tiles" : "");
				return -1;
			}
	}
	return 0;
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

/* Register pressure: a heavy epilogue (its loads and functions live next
 * to the accumulators) gets half the default warp tile in n, which
 * measured free of spills where 64x64 spilled. */
static void default_warp_for_epilogue(struct pm_kernel *k,
	struct pm_config *c)
{
	const struct pm_spec *spec = k->scop->spec;
	int cost = 0;

	for (int s = k->ncon; s < spec->nstmts; ++s)
		cost += epilogue_cost(spec->stmts[s].rhs, spec->stmts[s - 1].lhs);
	/* two accumulators in registers count as a heavy epilogue */
	if (k->ncon > 1)
		cost += 3;
	if (c->auto_warp && cost >= 3 && c->wn >= 2 * c->mn &&
	    (c->wn / 2) % c->mn == 0)
		c->wn /= 2;
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

struct pm_kernel *pm_pipeline_until(isl_ctx *ctx, const struct pm_spec *spec,
	struct pm_config *cfg, const char *last, struct pm_diags *d)
{
	struct pm_scop *scop;
	struct pm_kernel *k;

	set_options(ctx);
	if (pm_config_finish(cfg, d) != POLYMMA_OK)
		return NULL;
	scop = pm_scop_build(ctx, spec, cfg, d);
	if (!scop)
		return NULL;
	k = pm_kernel_alloc(scop, cfg, d);
	if (k)
		default_warp_for_epilogue(k, cfg);
	if (!k || check_fixed_sizes(k, d) < 0 ||
	    pm_kernel_require_multiples(k) < 0)
		goto error;
	dump(k, "initial");
	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); ++i) {
		if (passes[i].run(k, d) < 0)
			goto error;
		dump(k, passes[i].name);
		if (last && !strcmp(last, passes[i].name))
			break;
	}
	return k;
error:
	if (!d->nerrors)
		pm_diag_plain(d, "internal error: isl: %s",
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

/* Another kernel of the same file, with configuration c (no dumps); its
 * diagnostics are dropped: without it the file is still complete. */
static struct pm_kernel *quiet_variant(isl_ctx *ctx,
	const struct pm_spec *spec, struct pm_config *c)
{
	struct pm_diags d2;
	struct pm_kernel *k;

	c->dump_all = 0;
	c->dump_pass[0] = '\0';
	pm_diags_init(&d2, "", NULL);
	k = pm_pipeline_until(ctx, spec, c, NULL, &d2);
	pm_diags_clear(&d2);
	return k;
}

/* The small-tile variant of a kernel built with the default block tile
 * (the target's small tiles, e.g. 64x64 blocks: four times the blocks of
 * 128x128, for grids smaller than the GPU), or NULL when there is none. */
static struct pm_kernel *small_variant(isl_ctx *ctx,
	const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_config *small)
{
	const struct pm_target *t = cfg->target;
	struct pm_kernel *k;

	/* none on sm_70 (emulated on the GPUs we measure; the small 16x16x8
	 * variant was not free of stack use) */
	if (cfg->small_variant == 0 || !cfg->auto_block || !t->emits_cuda ||
	    !t->sbm || (cfg->bm <= t->sbm && cfg->bn <= t->sbn))
		return NULL;
	*small = *cfg;
	small->bm = t->sbm;
	small->bn = t->sbn;
	small->wm = t->swm;
	small->wn = t->swn;
	/* a deeper pipeline is cheap here (8 KB per stage on sm_80, 16 on
	 * sm_90a) and measured free of the 4-byte spill ptxas makes at 3
	 * stages on sm_80 */
	if (small->stages < t->sstages)
		small->stages = t->sstages;
	/* a macro-MMA too large for the small unit tile: the target's
	 * choice (pm_config_finish) */
	if (small->wm % small->mm || small->wn % small->mn)
		small->mm = small->mn = small->mk = 0;
	/* the small variant serves grids split-K does not split */
	small->split_k = 1;
	/* cp.async unless TMA is asked for: with fewer than ~1.5 blocks per
	 * SM the k loop waits on the copies' latency, and TMA's is longer
	 * (measured: 9.4 against 11.7 us at 640x256x2176; docs/PERF.md) */
	if (small->tma < 0)
		small->tma = 0;
	k = quiet_variant(ctx, spec, small);
	/* fewer blocks than SMs: all resident at once, no raster order */
	if (k)
		k->raster = 1;
	return k;
}

/* The medium variant (the target's medium tiles, 64x128 on sm_90a: twice
 * the blocks of 128x128, three per SM), launched unsplit when its grid
 * fills the GPU's waves clearly better (emit/launch.c), or NULL. Like the
 * small variant, only with the default block tile. */
static struct pm_kernel *medium_variant(isl_ctx *ctx,
	const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_config *m)
{
	const struct pm_target *t = cfg->target;

	if (cfg->small_variant == 0 || !cfg->auto_block || !t->emits_cuda ||
	    !t->mbm || (cfg->bm == t->mbm && cfg->bn == t->mbn))
		return NULL;
	*m = *cfg;
	m->bm = t->mbm;
	m->bn = t->mbn;
	m->wm = t->mwm;
	m->wn = t->mwn;
	if (m->wm % m->mm || m->wn % m->mn)
		m->mm = m->mn = m->mk = 0;
	m->split_k = 1;
	return quiet_variant(ctx, spec, m);
}

/* The small variant's twin with TMA copies, when TMA is the target's
 * default and not turned off or forced: the launcher runs it on grids of
 * 3/2 blocks per SM or more, where it measured faster than cp.async
 * (docs/PERF.md); NULL when there is none or it could not use TMA. */
static struct pm_kernel *small_tma_variant(isl_ctx *ctx,
	const struct pm_spec *spec, const struct pm_config *cfg,
	const struct pm_config *small, struct pm_config *c3)
{
	struct pm_kernel *k;

	if (cfg->tma >= 0 || cfg->target->tma != 2)
		return NULL;
	*c3 = *small;
	c3->tma = -1;
	k = quiet_variant(ctx, spec, c3);
	if (k && !k->tma[0]) {
		pm_pipeline_kernel_free(k);
		return NULL;
	}
	if (k)
		k->raster = 1;
	return k;
}

/* The persistent warp-specialized variant (promote/tma.c), launched
 * unsplit on grids of more than one wave of the big kernel, where it
 * measured faster (the epilogue of one tile overlaps the copies of the
 * next; docs/PERF.md), and on 3/5 to 1 tile per SM; NULL when there is
 * none or it cannot be built (no TMA). Only with the default block tile.
 * mode 1: the wide variant; mode 2: the split variant (split-K in the
 * persistent kernel, for grids under 3/5 tile per SM and the tails of
 * several waves; --split-k auto), reduced through the workspace (no
 * clusters); mode 3: the tall variant; mode 4: the split variant launched
 * in clusters (not --cluster 1), reduced through distributed shared
 * memory; mode 5: the mid variant (128x192 blocks, for grids of several
 * waves that they fill better); mode 6: the sq variant (192x192 blocks,
 * for grids of several waves that they run in fewer rounds); mode 7: the
 * narrow variant (64x192 blocks, one consumer warpgroup with one k tile
 * of MMAs in flight, unsplit: for grids of one wave). */
static struct pm_kernel *persist_variant(isl_ctx *ctx,
	const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_config *c5, int mode)
{
	const struct pm_target *t = cfg->target;
	int wide = mode == 1 || mode == 5 || mode == 6 || mode == 7;
	int tall = mode == 3, split = mode == 2 || mode == 4;
	const struct pm_block_shape *blk = mode == 7 ? &t->narrow :
		mode == 6 ? &t->sq :
		mode == 5 ? &t->mid : wide ?
		&t->wide : tall ? &t->tall : NULL;
	struct pm_kernel *k;

	/* --mma-inflight on: the persistent variants are not built (their
	 * TMA k loops refused it before session 17; the tall one's chain
	 * epilogue spills with it); the narrow one always keeps MMAs in
	 * flight (below) */
	if (mode != 7 && cfg->mma_inflight > 0)
		return NULL;
	if (cfg->persistent >= 0 || !cfg->auto_block || t->tma != 2 ||
	    !t->pstages || (blk && !blk->bm) ||
	    !cfg->tma || !t->emits_cuda ||
	    (split && cfg->split_k != 0) || (mode == 4 && cfg->cluster == 1))
		return NULL;
	*c5 = *cfg;
	/* the split variants: one without clusters, one in them */
	if (mode == 2)
		c5->cluster = 1;
	c5->persistent = split ? 2 : 1;
	c5->stages = t->pstages;
	/* tall: two warpgroups of 128x128, each two 64x128 wgmma per k step
	 * (B read twice, but the copies a third fewer per flop than 128x128
	 * blocks': 256x128 measured 8-13 % faster there; PERF.md) */
	if (blk) {
		c5->bm = blk->bm;
		c5->bn = blk->bn;
		c5->wm = blk->wm;
		c5->wn = blk->wn;
		c5->stages = blk->stages;
	}
	if (wide) {
		/* one macro-MMA per warp tile where the target has it
		 * (64x256: measured 3-4 % faster than two 64x128, which
		 * read A twice; PERF.md) */
		if (pm_target_has_macro(t, c5->wm, c5->wn, c5->bk)) {
			c5->mm = c5->wm;
			c5->mn = c5->wn;
			c5->mk = c5->bk;
		} else if (c5->wm % c5->mm || c5->wn % c5->mn) {
			c5->mm = c5->mn = c5->mk = 0;
		}
	}
	c5->split_k = split ? 0 : 1;
	c5->tma = -1;
	/* narrow: its lone consumer warpgroup keeps one k tile of MMAs in
	 * flight (5-7 % faster than waiting for them in every k tile: no
	 * second warpgroup hides the wait; PERF.md, session 17) */
	if (mode == 7)
		c5->mma_inflight = 1;
	k = quiet_variant(ctx, spec, c5);
	/* not warp-specialized (no TMA here); the wide variant only where
	 * the launcher runs it on grids of several waves (emit/launch.c) */
	/* split: its strips of rows need the staged store and the warp
	 * tiles stacked along m, 16 rows per warp (emit/fixup.c) */
	if (k && (!k->ws ||
	    (split && (!k->scop->nsplit || !k->cst_pitch ||
	    c5->wm != 64 || c5->wn != c5->bn || !t->desc_smem)))) {
		pm_pipeline_kernel_free(k);
		return NULL;
	}
	return k;
}

/* The kernel launched unsplit, for a kernel that can split k: the same
 * configuration without split-K, so that the split costs nothing when the
 * launcher does not split (the chunk parameters and the fixup code
 * measured 2-4 % on the k loops otherwise); NULL when there is none. */
static struct pm_kernel *unsplit_variant(isl_ctx *ctx,
	const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_config *c1, struct pm_kernel *k)
{
	if (!k->scop->nsplit || !cfg->target->emits_cuda)
		return NULL;
	*c1 = *cfg;
	c1->split_k = 1;
	return quiet_variant(ctx, spec, c1);
}

int pm_pipeline_generate(const struct pm_spec *spec, struct pm_config *cfg,
	struct pm_output *out, struct pm_diags *d)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_kernel *k, *small = NULL, *unsplit = NULL, *stma = NULL;
	struct pm_kernel *medium = NULL, *persist = NULL, *wide = NULL;
	struct pm_kernel *psplit = NULL, *tall = NULL, *pcl = NULL;
	struct pm_kernel *mid = NULL, *sq = NULL, *narrow = NULL;
	struct pm_config cfg2, cfg1, cfg3, cfg4, cfg5, cfg6, cfg7, cfg8, cfg9;
	struct pm_config cfg10, cfg11, cfg12;
	int rc = POLYMMA_OK;

	if (!ctx)
		return POLYMMA_ERR_INTERNAL;
	k = pm_pipeline_until(ctx, spec, cfg, NULL, d);
	if (k)
		small = small_variant(ctx, spec, cfg, &cfg2);
	if (small)
		small->small_tma = stma = small_tma_variant(ctx, spec, cfg,
			&cfg2, &cfg3);
	if (k)
		k->unsplit = unsplit = unsplit_variant(ctx, spec, cfg, &cfg1, k);
	/* the launch plan that chooses it is split-K's (emit/launch.c) */
	if (k && unsplit) {
		k->medium = medium = medium_variant(ctx, spec, cfg, &cfg4);
		k->persist = persist = persist_variant(ctx, spec, cfg, &cfg5,
			0);
		if (persist)
			k->persist_wide = wide = persist_variant(ctx, spec, cfg,
				&cfg6, 1);
		if (persist)
			k->persist_split = psplit = persist_variant(ctx, spec,
				cfg, &cfg7, 2);
		if (persist)
			k->persist_tall = tall = persist_variant(ctx, spec, cfg,
				&cfg8, 3);
		if (persist)
			k->persist_mid = mid = persist_variant(ctx, spec, cfg,
				&cfg10, 5);
		if (persist)
			k->persist_sq = sq = persist_variant(ctx, spec, cfg,
				&cfg11, 6);
		if (persist)
			k->persist_narrow = narrow = persist_variant(ctx, spec,
				cfg, &cfg12, 7);
		/* not with a prologue through the MMA's registers: there the
		 * workspace split measured faster at every size (ReLU+GEMM,
		 * 10 of 10; PERF.md, session 15) */
		if (psplit && !pm_kernel_pro_regs(psplit))
			k->persist_split_cl = pcl = persist_variant(ctx, spec,
				cfg, &cfg9, 4);
		/* the plan launches these two only where their tile divides
		 * M and N (emit/plan.c): no ragged guards (at the 168
		 * registers of their consumers, the guards' spilled) */
		if (wide)
			wide->exact = 1;
		if (tall)
			tall->exact = 1;
		/* the mid variant with an epilogue of several statements: the
		 * same (the chain example's ragged kernel spilled 12 bytes at
		 * 168 registers; one statement, bias + relu, did not) */
		if (mid && mid->nepi > 1)
			mid->exact = 1;
		if (sq && sq->nepi > 1)
			sq->exact = 1;
	}
	if (!k)
		rc = strstr(d->buf ? d->buf : "", "internal error") ?
			POLYMMA_ERR_INTERNAL : POLYMMA_ERR_SPEC;
	else if (pm_emit_file(k, small, out, d) < 0)
		rc = POLYMMA_ERR_INTERNAL;
	pm_pipeline_kernel_free(small);
	pm_pipeline_kernel_free(stma);
	pm_pipeline_kernel_free(medium);
	pm_pipeline_kernel_free(persist);
	pm_pipeline_kernel_free(wide);
	pm_pipeline_kernel_free(psplit);
	pm_pipeline_kernel_free(pcl);
	pm_pipeline_kernel_free(tall);
	pm_pipeline_kernel_free(mid);
	pm_pipeline_kernel_free(sq);
	pm_pipeline_kernel_free(narrow);
	pm_pipeline_kernel_free(unsplit);
	pm_pipeline_kernel_free(k);
	isl_ctx_free(ctx);
	return rc;
}

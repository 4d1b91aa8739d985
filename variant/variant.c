/* The variant set: every row of the target's table through the passes. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "polymma.h"
#include "promote/promote.h"
#include "schedule_tree/tree.h"
#include "variant/operands.h"
#include "variant/pre.h"
#include "variant/variant.h"

/* Why a grouped spec has no row built exact only (docs/decisions/0051). */
#define GROUP_EXACT "grouped: each group's rows are ragged, the row has " \
	"no guards (docs/decisions/0051)"

/* The rows of a set built in parallel (pm_variant_set_build): the calling
 * thread decides the rows in the table's order (wanted: a condition may
 * read rows before it, which it awaits: built), threads run the rows'
 * pipelines, each in its row's isl context; the set is the same as built
 * one row after the other. */
enum row_state { ROW_NONE, ROW_QUEUED, ROW_RUNNING, ROW_DONE };

struct builder {
	const struct pm_spec *spec;
	struct pm_variant_set *vs;
	/* rows queued, in the table's order; the next to run */
	const struct pm_variant_desc *queue[PM_RT_NROLES];
	isl_ctx *qctx[PM_RT_NROLES];
	int nq, next;
	enum row_state state[PM_RT_NROLES];
	int closed;	/* no row will be queued anymore */
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

static void run_queued(struct builder *b, int i);

/* Run a queued row if there is one (with b->lock held; released while it
 * runs); 0 if there is none. */
static int run_next(struct builder *b)
{
	int i;

	if (b->next >= b->nq)
		return 0;
	i = b->next++;
	b->state[b->queue[i]->role] = ROW_RUNNING;
	pthread_mutex_unlock(&b->lock);
	run_queued(b, i);
	pthread_mutex_lock(&b->lock);
	b->state[b->queue[i]->role] = ROW_DONE;
	pthread_cond_broadcast(&b->cond);
	return 1;
}

/* Row role of the set once it is built (or known not to be), running
 * queued rows meanwhile. */
static const struct pm_variant *built(struct builder *b,
	enum pm_rt_role role)
{
	pthread_mutex_lock(&b->lock);
	while (b->state[role] == ROW_QUEUED || b->state[role] == ROW_RUNNING)
		if (!run_next(b))
			pthread_cond_wait(&b->cond, &b->lock);
	pthread_mutex_unlock(&b->lock);
	return &b->vs->v[role];
}

/* The conditions of the _unaligned row (PM_VF_NARROW;
 * docs/decisions/0046-narrow-copies.md). */
static const char *wanted_narrow(const struct pm_variant_set *vs)
{
	const struct pm_spec *spec = vs->main->scop->spec;

	if (vs->main_cfg.persistent > 0)
		return "--persistent on: one kernel";
	for (int t = 0; t < spec->ntensors; ++t)
		if (spec->tensors[t].kcopy)
			return "K-major copies of 8-bit operands (16-byte "
				"units; docs/decisions/0046)";
	/* not yet combined with the other new forms (docs/decisions/0046) */
	if (spec->grouped)
		return "a grouped contraction";
	for (int i = 0; i < vs->main->nbufs; ++i)
		if (vs->main->bufs[i].conv)
			return "mixed operand types (converting copies of "
				"8-byte units)";
	return NULL;
}

/* Does row r's condition on the user's request and the rows built so far
 * hold?  NULL, or why not. */
static const char *wanted(struct builder *b,
	const struct pm_variant_desc *r)
{
	const struct pm_variant_set *vs = b->vs;
	const struct pm_config *c = &vs->main_cfg;
	const struct pm_target *t = vs->target;
	const struct pm_kernel *split = vs->v[PM_RT_SPLIT].k;

	if (!t->emits_cuda && r->role != PM_RT_BASE)
		return "host rendering: one kernel";
	if ((r->flags & PM_VF_AUTO_BLOCK) && !c->auto_block)
		return "--block given";
	if ((r->flags & PM_VF_SMALL_ON) && c->small_variant == 0)
		return "--small-variant off";
	if ((r->flags & PM_VF_SMALL_ON) && c->bm == r->shape.bm &&
	    c->bn == r->shape.bn)
		return "the main kernel's block";
	/* batched: k is not split; the split rows and the other rows the
	 * split-K plan weighs (_medium) are not built, the unsplit
	 * persistent ones loop over units (batch, tile) and stand without
	 * a split plan, as i32 accumulators' rows do
	 * (docs/decisions/0036-batched-grid-z.md,
	 * docs/decisions/0042-batched-persistent-units.md) */
	/* grouped: the unsplit persistent rows loop over the units (group,
	 * tile) of every group (docs/decisions/0051-grouped-persistent-units.md);
	 * k is not split (the batched rules below); each group's rows are
	 * ragged, which rows without guards cannot run */
	if (c->grouped && (r->flags & PM_VF_EXACT))
		return GROUP_EXACT;
	if (c->grouped && (r->flags & PM_VF_NO_GROUPED))
		return "grouped: no room in this tile's registers for the "
			"walk over the groups (docs/decisions/0051, 0065)";
	if (c->batched && (r->flags & PM_VF_PSPLIT))
		return "batched: k is not split (docs/decisions/0036)";
	if (c->batched && (r->flags & PM_VF_SPLIT_PLAN) &&
	    !(r->flags & PM_VF_PERSIST))
		return c->grouped ? "grouped: k is not split; no split-K "
			"plan (docs/decisions/0045)" : "batched: "
			"blockIdx.z runs the batch; no split-K plan "
			"(docs/decisions/0036)";
	/* i32 accumulators never split: their rows stand without a split
	 * plan (runtime/plan.c runs its rules with split_k 1) */
	if ((r->flags & PM_VF_SPLIT_PLAN) && !c->int_acc && !c->epi_red &&
	    !c->batched &&
	    (!split || built(b, PM_RT_BASE)->borrowed))
		return "no split-K launch plan";
	if (r->from != PM_RT_NROLES && !built(b, r->from)->k)
		return "the row it derives from was not built";
	if ((r->flags & PM_VF_TMA) && (c->tma >= 0 || t->tma != 2))
		return "--tma given, or TMA not the target's default";
	if (r->flags & PM_VF_NARROW)
		return wanted_narrow(vs);
	return NULL;
}

/* The conditions of a persistent row (PM_VF_PERSIST). */
static const char *wanted_persist(struct builder *b,
	const struct pm_variant_desc *r)
{
	const struct pm_variant_set *vs = b->vs;
	const struct pm_config *c = &vs->main_cfg;
	const struct pm_target *t = vs->target;
	int split = !!(r->flags & PM_VF_PSPLIT);

	/* an epilogue reduction sees final values: not in split units
	 * (docs/decisions/0037, 0056) */
	if (c->epi_red && split)
		return "an epilogue reduction (its blocks reduce final values)";
	if (!(r->flags & PM_VF_INFLIGHT) && c->mma_inflight > 0)
		return "--mma-inflight on";
	if (c->persistent >= 0)
		return "--persistent given";
	/* operands with a prologue in shared memory: read as the
	 * launcher's copies (operands.h), by the rows of large M only */
	if (vs->npre && t->tma == 2 && vs->pre_why)
		return vs->pre_why;
	if (vs->npre && t->tma == 2 && (((r->flags & PM_VF_SWAP) &&
	    !vs->swap_regs) || r->role == PM_RT_PERSIST_SKINNY))
		return "a prologue in shared memory: the decode rows would "
			"copy the operand whole per launch (docs/decisions/0059)";
	if (t->tma != 2 || !t->pstages || !c->tma)
		return "no TMA copies";
	if (split && c->int_acc)
		return "i32 accumulators are not split";
	if (split && c->split_k != 0)
		return "--split-k given";
	if ((r->flags & PM_VF_CLUSTER) && c->cluster == 1)
		return "--cluster 1";
	if (r->role != PM_RT_PERSIST && !built(b, PM_RT_PERSIST)->k)
		return "no _persist kernel";
	if ((r->flags & PM_VF_CLUSTER) &&
	    (!built(b, PM_RT_PERSIST_SPLIT)->k ||
	     pm_kernel_pro_regs(vs->v[PM_RT_PERSIST_SPLIT].k)))
		return "no split persistent kernel, or a prologue through "
			"the MMA's registers (docs/decisions)";
	return NULL;
}

/* A macro-MMA too large for the row's unit tile: the target's choice. */
static void fit_macro(struct pm_config *c)
{
	if (c->wm % c->mm || c->wn % c->mn)
		c->mm = c->mn = c->mk = 0;
}

/* The warp tile as one macro-MMA, of the deepest k of the target's that
 * divides the block's (an 8-bit block k of 128: 64); 0 where there is
 * none. */
static int one_macro(const struct pm_target *t, struct pm_config *c)
{
	for (int mk = c->bk; mk >= t->ik && c->bk % mk == 0; mk /= 2)
		if (pm_target_has_macro(t, c->wm, c->wn, mk)) {
			c->mm = c->wm, c->mn = c->wn, c->mk = mk;
			return 1;
		}
	return 0;
}

/* Row r's configuration, from base (the main one or its `from` row's). */
static void derive(const struct pm_target *t, const struct pm_variant_desc *r,
	const struct pm_config *base, struct pm_config *c)
{
	const struct pm_block_shape *s = &r->shape;

	*c = *base;
	c->dump_all = 0;
	c->dump_pass[0] = '\0';
	if (r->flags & PM_VF_PERSIST) {
		if (r->flags & PM_VF_NO_CLUSTER)
			c->cluster = 1;
		c->persistent = r->flags & PM_VF_PSPLIT ? 2 : 1;
		c->stages = t->pstages;
	}
	if (s->bm) {
		c->bm = s->bm, c->bn = s->bn, c->wm = s->wm, c->wn = s->wn;
		if (!(r->flags & PM_VF_MIN_STAGES) && s->stages)
			c->stages = s->stages;
		else if (c->stages < s->stages)
			c->stages = s->stages;
	}
	if (!((r->flags & PM_VF_ONE_MACRO) && one_macro(t, c)) && s->bm)
		fit_macro(c);
	if (r->flags & PM_VF_UNSPLIT)
		c->split_k = 1;
	if (r->flags & PM_VF_PSPLIT)
		c->split_k = 0;
	if ((r->flags & PM_VF_NO_AUTO_TMA) && c->tma < 0)
		c->tma = 0;
	if (r->flags & (PM_VF_TMA | PM_VF_PERSIST))
		c->tma = -1;
	if (r->flags & PM_VF_INFLIGHT)
		c->mma_inflight = 1;
	if (r->flags & PM_VF_SWAP)
		c->swap = 1;
	if (r->flags & PM_VF_LAST)
		c->last_arrive = 1;
	/* docs/decisions/0046-narrow-copies.md */
	if (r->flags & PM_VF_NARROW) {
		c->narrow_copies = 1;
		c->tma = 0;
		/* no staging registers beside the element loads (sm_70's
		 * 16x16x8 kernels spilled 24 bytes with them), no fragments
		 * loaded a k-step ahead (sm_80's with a bf16 prologue spilled
		 * 4, a batched dequant 48-68 with them) */
		c->reg_stage = 0;
		c->frag_pipe = 0;
		c->persistent = 0;
		c->cluster = 1;
	}
}

/* Does k's block fit the target's shared memory?  NULL, or why not (in
 * buf). */
static const char *fits_smem(struct pm_kernel *k, char *buf, size_t len)
{
	const struct pm_target *t = k->cfg->target;
	long need = pm_kernel_smem_bytes(k, 0, NULL);

	if (!t->emits_cuda || need <= t->smem_max)
		return NULL;
	snprintf(buf, len, "needs %ld bytes of shared memory, %s has %ld",
		need, t->name, t->smem_max);
	return buf;
}

/* Registers a thread keeps for the rest when two accumulators are live
 * (measured: the 128x128 persistent swiglu kernel, 2 x 64 accumulator
 * floats a thread under a bound of 168 without a producer warpgroup,
 * spilled; 2 x 64 under 255 and 2 x 96 under 255 do not). */
#define PM_ACC2_RESERVE 48

/* Does k's register tile fit the registers its block leaves a thread?
 * Only kernels keeping two accumulators live through one k loop (joined
 * contractions, scop->join, without a shared accumulator), or three or
 * more accumulators (decisions/0039), are checked:
 * ptxas bounds a thread of a block of T threads
 * (__launch_bounds__) by 65536 / T, T rounded up to 128, a multiple of 8,
 * at most 255.  NULL, or why not (in buf). */
static const char *fits_regs(struct pm_kernel *k, char *buf, size_t len)
{
	const struct pm_config *c = k->cfg;
	int t = pm_kernel_threads(k);
	long cap = 65536 / ((t + 127) / 128 * 128) / 8 * 8;
	long acc = (long) c->wm * c->wn / pm_config_unit(c);
	int nacc = k->acc_shared ? 1 : k->ncon;

	if (cap > 255)
		cap = 255;
	/* a producer warpgroup: the consumers' registers after their
	 * setmaxnreg.inc (the persistent SwiGLU kernels: 2 x 64 accumulator
	 * floats under 232, no spill; docs/decisions/0028) */
	if (k->wg)
		cap = pm_wg_consumer_regs(pm_config_threads(c));
	if (!c->target->emits_cuda || (!k->scop->join && nacc < 3) ||
	    k->acc_shared || nacc * acc + PM_ACC2_RESERVE <= cap)
		return NULL;
	snprintf(buf, len, "%s accumulators of %ld floats a thread; %d "
		"threads leave %ld registers", nacc == 2 ? "two" : nacc == 3 ?
		"three" : "four", acc, t, cap);
	return buf;
}

/* Does a contraction of k read its MMA's B operand (indexed by j) with j
 * contiguous (MN-major)? */
static int mn_major_b(const struct pm_kernel *k)
{
	for (int c = 0; c < k->ncon; ++c) {
		const struct pm_expr *rb = k->con[c].rb;

		if (rb && rb->nidx >= 2 && rb->idx[rb->nidx - 1] == 1)
			return 1;
	}
	return 0;
}

/* Is built kernel k what row r needs?  NULL, or why not (in buf). */
static const char *fits(const struct pm_variant_desc *r,
	struct pm_kernel *k, char *buf, size_t len)
{
	const struct pm_config *c = k->cfg;

	if ((r->flags & PM_VF_TMA) && !k->tma[0])
		return "no TMA copies in the kernel";
	if ((r->flags & PM_VF_PERSIST) && !k->ws)
		return "not warp-specialized (no TMA copies)";
	/* split: its strips of rows need the staged store and the unit
	 * tiles stacked along m, 16 rows per warp (emit/fixup.c) */
	if ((r->flags & PM_VF_PSPLIT) && (!k->scop->nsplit ||
	    !k->cst_pitch || c->wm != 64 || c->wn != c->bn ||
	    !c->target->desc_smem))
		return "the split persistent kernel needs the staged store "
			"and full-width unit tiles";
	/* wgmma reads an MN-major B tile in 64-wide blocks only
	 * (runtime/device/sm90.cuh, pm_sm90_operand) */
	if ((r->flags & PM_VF_SWAP) && c->bn < 64 && mn_major_b(k))
		return "the operands swapped, its 16-column B tile would be "
			"MN-major: A must have the reduction index last";
	return fits_smem(k, buf, len) ? buf : fits_regs(k, buf, len);
}


/* An epilogue of this cost or more (its input reads and functions per
 * element, variant/build.c) spilled 0.4-1.3 KB beside 96 or 128
 * accumulator registers a thread on sm_90a (tests/specs/heavy_epi.tc, cost
 * 11; cost 4, gemm_epilogue_chain, spilled nowhere): such rows are not
 * built (docs/decisions/0034-epilogue-vector-registers.md). */
#define PM_HEAVY_EPI_COST 8
#define PM_HEAVY_EPI_REGS 64

/* Do the accumulators of the spec's kernel (the main kernel's count) fit
 * row configuration c?  NULL, or why not (in buf). */
static const char *fits_acc(const struct pm_variant_set *vs,
	const struct pm_config *c, char *buf, size_t len)
{
	int nacc = vs->main->acc_shared ? 1 : vs->main->ncon;
	long regs = (long) nacc * c->wm * c->wn / pm_config_unit(c);

	if (c->epi_cost >= PM_HEAVY_EPI_COST && regs > PM_HEAVY_EPI_REGS) {
		snprintf(buf, len, "an epilogue of cost %d beside %ld "
			"accumulator registers a thread, more than %d "
			"(docs/decisions/0034)", c->epi_cost, regs,
			PM_HEAVY_EPI_REGS);
		return buf;
	}
	if (regs <= PM_ACC_REGS_MAX)
		return NULL;
	snprintf(buf, len, "%d accumulators of %dx%d: %ld registers a "
		"thread, more than %d (docs/decisions/0028)", nacc, c->wm,
		c->wn, regs, PM_ACC_REGS_MAX);
	return buf;
}

/* The registers one pair of an epilogue's elements loads (emit/
 * pointwise.c's pairs: inputs indexed by j in their last dimension, not
 * the previous statement's result nor an accumulator): 2 an f32 input, 1
 * a 16-bit one. */
static int pair_regs(const struct pm_kernel *k, const struct pm_expr *e,
	int chain)
{
	const struct pm_spec *spec = k->scop->spec;
	int r = 0;

	if (e->kind == PM_E_READ) {
		if (e->tensor == chain || e->nidx == 0 ||
		    e->idx[e->nidx - 1] != 1)
			return 0;
		for (int c = 0; c < k->ncon; ++c)
			if (e->tensor == k->con[c].acc)
				return 0;
		return spec->tensors[e->tensor].type == PM_F32 ? 2 : 1;
	}
	for (int i = 0; e->kind != PM_E_NUM && i < e->nargs; ++i)
		r += pair_regs(k, e->args[i], chain);
	return r;
}

/* Pair registers from which the ragged 128x192 and 192x192 kernels
 * spilled (the common path of their last tiles: loads hoisted beside 96
 * accumulators; docs/decisions/0034). */
#define PM_RAGGED_PAIR_REGS_MAX 3

/* Is row r's kernel k built exact only (no ragged guards): the row says
 * so, or it does with an epilogue of several statements (docs/decisions/
 * 0018), an epilogue reduction (where the row says so too, 0065) or one
 * loading more than PM_RAGGED_PAIR_REGS_MAX registers a pair of elements
 * (0034)? */
static int exact_only(const struct pm_variant_desc *r,
	const struct pm_kernel *k)
{
	const struct pm_spec *spec = k->scop->spec;
	int regs = 0;

	if (r->flags & PM_VF_EXACT)
		return 1;
	if (!(r->flags & PM_VF_EXACT_IF_CHAIN))
		return 0;
	if (k->nepi > 1)
		return 1;
	if ((r->flags & PM_VF_EXACT_IF_RED) && k->cfg->epi_red)
		return 1;
	for (int s = k->ncon; s < spec->nstmts; ++s)
		regs += pair_regs(k, spec->stmts[s].rhs, spec->stmts[s - 1].lhs);
	return regs > PM_RAGGED_PAIR_REGS_MAX;
}

/* k (CUDA, not exact) has ragged sizes: the file also holds its exact twin
 * "_x", without guards, launched where k's tile divides those sizes
 * (docs/decisions/0018-exact-twins.md). */
static int has_twin(const struct pm_kernel *k)
{
	if (!k->cfg->target->emits_cuda || k->exact)
		return 0;
	/* a grouped spec's rows are ragged in every kernel (0045) */
	for (int s = 0; s < k->scop->spec->nsyms; ++s)
		if (pm_kernel_sym_ragged(k, s) && (!k->scop->spec->grouped ||
		    s != k->scop->spec->group_rows))
			return 1;
	return 0;
}

/* Every kernel of the set takes k extents that are not multiples of
 * the k tile, or none does: the launcher's checks are the main kernel's
 * and the plan does not tell ragged k apart
 * (docs/decisions/0030-ragged-k.md). */
static void ragged_k(struct pm_variant_set *vs)
{
	int ok = pm_kernel_kragged_ok(vs->main);

	for (int i = 0; i < PM_RT_NROLES; ++i)
		if (vs->v[i].k)
			ok &= pm_kernel_kragged_ok(vs->v[i].k);
	vs->main->kragged = ok;
	for (int i = 0; i < PM_RT_NROLES; ++i)
		if (vs->v[i].k)
			vs->v[i].k->kragged = ok;
}

/* The base row borrows the main kernel (its unsplit build failed, or
 * there is none). */
static void borrow_main(struct pm_variant_set *vs)
{
	struct pm_variant *b = &vs->v[PM_RT_BASE];

	b->k = vs->main;
	b->borrowed = 1;
	b->cfg = vs->main_cfg;
}

/* The stages of a swapped row widening 8-bit weights in the registers
 * (docs/decisions/0062-swapped-rows-widen-in-registers.md). */
#define PM_SWAP_REGS_STAGES 10

/* Queue row r, to be built quietly into its variant in an isl context of
 * its own (run_queued), once its configuration fits (1); else say why not
 * (there; 0). */
static int queue_row(struct builder *b, const struct pm_variant_desc *r)
{
	struct pm_variant_set *vs = b->vs;
	struct pm_variant *v = &vs->v[r->role];
	isl_ctx *own;
	const struct pm_config *base = r->from == PM_RT_NROLES ?
		&vs->main_cfg : &vs->v[r->from].cfg;
	const char *no;
	char buf[128];

	derive(vs->target, r, base, &v->cfg);
	/* the persistent rows read the launcher's copies (operands.h);
	 * the swapped ones widen the weights in the MMA's registers where
	 * they can (swap_regs) */
	if ((r->flags & PM_VF_PERSIST) && vs->npre && !vs->pre_why &&
	    !((r->flags & PM_VF_SWAP) && vs->swap_regs)) {
		v->cfg.npre = vs->npre;
		memcpy(v->cfg.pre, vs->pre, sizeof(v->cfg.pre));
	}
	/* 8-bit weights widened in the registers: the 16-token row's
	 * stages of 10 KB, two blocks an SM (decisions/0062) */
	if (r->role == PM_RT_PERSIST_SWAP && vs->npre && vs->swap_regs)
		v->cfg.stages = PM_SWAP_REGS_STAGES;
	if ((no = fits_acc(vs, &v->cfg, buf, sizeof(buf)))) {
		snprintf(v->why_not, sizeof(v->why_not), "%s", no);
		return 0;
	}
	if (!(own = isl_ctx_alloc())) {
		snprintf(v->why_not, sizeof(v->why_not), "out of memory");
		return 0;
	}
	pm_isl_bound(own);
	pthread_mutex_lock(&b->lock);
	b->queue[b->nq] = r;
	b->qctx[b->nq++] = own;
	b->state[r->role] = ROW_QUEUED;
	pthread_cond_broadcast(&b->cond);
	pthread_mutex_unlock(&b->lock);
	return 1;
}

/* Build queued row i (diagnostics dropped: the file is complete without
 * it, and v->why_not says why it is not there); writes its own variant
 * only (and the set's over_budget, under the lock). */
static void run_queued(struct builder *b, int i)
{
	const struct pm_variant_desc *r = b->queue[i];
	struct pm_variant_set *vs = b->vs;
	struct pm_variant *v = &vs->v[r->role];
	isl_ctx *own = b->qctx[i];
	const char *no;
	char buf[128];
	struct pm_diags d2;

	pm_diags_init(&d2, "", NULL);
	v->k = pm_pipeline_until(own, b->spec, &v->cfg, NULL, &d2);
	if (!v->k)
		snprintf(v->why_not, sizeof(v->why_not), "build failed: %.120s",
			d2.buf ? d2.buf : "?");
	if (!v->k && pm_isl_quota_diag(own, &d2)) {
		pthread_mutex_lock(&b->lock);
		vs->over_budget = 1;
		pthread_mutex_unlock(&b->lock);
	}
	pm_diags_clear(&d2);
	no = v->k ? fits(r, v->k, buf, sizeof(buf)) : NULL;
	if (!no && v->k && v->k->scop->spec->grouped && exact_only(r, v->k))
		no = GROUP_EXACT;
	if (no) {
		snprintf(v->why_not, sizeof(v->why_not), "%s", no);
		pm_pipeline_kernel_free(v->k);
		v->k = NULL;
	}
	if (!v->k) {
		isl_ctx_free(own);
		if (r->role == PM_RT_BASE)
			borrow_main(vs);
		return;
	}
	v->ctx = own;
	if (r->flags & PM_VF_ROW_RASTER)
		v->k->raster = 1;
	if (exact_only(r, v->k))
		v->k->exact = 1;
	v->emit_fixup = !!(r->flags & PM_VF_PSPLIT);
}

/* Runs queued rows until the last is queued and none is left. */
static void *worker(void *arg)
{
	struct builder *b = arg;

	pthread_mutex_lock(&b->lock);
	while (run_next(b) || !b->closed)
		if (b->next >= b->nq && !b->closed)
			pthread_cond_wait(&b->cond, &b->lock);
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

int pm_variant_threads(int njobs)
{
	const char *e = getenv("POLYMMA_THREADS");
	long t = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);

	if (t < 1)
		t = 1;
	if (t > PM_VARIANT_MAX_THREADS)
		t = PM_VARIANT_MAX_THREADS;
	return t < njobs ? (int) t : njobs;
}

/* The base and split rows: the main kernel splits k (and emits CUDA):
 * it is the _split row and the base row is its unsplit build (or, when
 * that fails, the main kernel without its fixup); else it is the base
 * row. */
static void main_rows(struct builder *bd)
{
	struct pm_variant_set *vs = bd->vs;
	struct pm_variant *b = &vs->v[PM_RT_BASE], *s = &vs->v[PM_RT_SPLIT];

	if (vs->main->scop->nsplit && vs->target->emits_cuda && s->desc) {
		s->k = vs->main;
		s->borrowed = 1;
		s->emit_fixup = 1;
		s->cfg = vs->main_cfg;
		if (!queue_row(bd, b->desc))
			borrow_main(vs);
		return;
	}
	if (s->desc) {
		snprintf(s->why_not, sizeof(s->why_not), "%s",
			vs->main->scop->nsplit ? "host rendering" :
			vs->main_cfg.grouped ? "grouped: k is not split "
			"(docs/decisions/0045)" :
			vs->main_cfg.batched ? "batched: blockIdx.z runs the "
			"batch, k is not split (docs/decisions/0036)" :
			vs->main_cfg.epi_red ? "an epilogue reduction: its "
			"blocks reduce final values (docs/decisions/0037)" :
			"the kernel does not split k");
	}
	borrow_main(vs);
}

/* The rows other than the main kernel's, built by up to
 * pm_variant_threads threads (the calling one among them). */
static void build_rows(const struct pm_spec *spec, struct pm_variant_set *vs)
{
	const struct pm_target *t = vs->target;
	struct builder b = { .spec = spec, .vs = vs };
	pthread_t tid[PM_VARIANT_MAX_THREADS];
	int nt = pm_variant_threads(t->nvariants), started = 0;

	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.cond, NULL);
	for (int i = 0; i + 1 < nt; ++i)
		if (!pthread_create(&tid[started], NULL, worker, &b))
			started++;
	main_rows(&b);
	for (int i = 0; i < t->nvariants; ++i) {
		const struct pm_variant_desc *r = &t->variants[i];
		struct pm_variant *v = &vs->v[r->role];
		const char *no;

		if (r->role == PM_RT_BASE || r->role == PM_RT_SPLIT)
			continue;
		no = wanted(&b, r);
		if (!no && (r->flags & PM_VF_PERSIST))
			no = wanted_persist(&b, r);
		if (no)
			snprintf(v->why_not, sizeof(v->why_not), "%s", no);
		else
			(void) queue_row(&b, r);
	}
	pthread_mutex_lock(&b.lock);
	b.closed = 1;
	pthread_cond_broadcast(&b.cond);
	pthread_mutex_unlock(&b.lock);
	worker(&b);
	for (int i = 0; i < started; ++i)
		pthread_join(tid[i], NULL);
	pthread_cond_destroy(&b.cond);
	pthread_mutex_destroy(&b.lock);
}

int pm_variant_set_build(isl_ctx *ctx, const struct pm_spec *spec,
	const struct pm_config *user, struct pm_variant_set *vs,
	struct pm_diags *d)
{
	const struct pm_target *t = user->target;
	char buf[128];

	memset(vs, 0, sizeof(*vs));
	vs->target = t;
	vs->main_cfg = *user;
	for (int i = 0; i < t->nvariants; ++i)
		vs->v[t->variants[i].role].desc = &t->variants[i];
	vs->main = pm_pipeline_until(ctx, spec, &vs->main_cfg, NULL, d);
	if (vs->main && fits_smem(vs->main, buf, sizeof(buf))) {
		pm_diag_unsupported(d, spec->stmts[0].loc, "block %dx%dx%d with "
			"%d stages %s (a smaller --block, --warp or --stages)",
			vs->main_cfg.bm, vs->main_cfg.bn, vs->main_cfg.bk,
			vs->main_cfg.stages, buf);
		return POLYMMA_ERR_SPEC;
	}
	/* three accumulators or more: the main kernel's must fit too (two
	 * fit every default warp tile, decisions/0028) */
	if (vs->main && vs->main->ncon > 2 &&
	    fits_acc(vs, &vs->main_cfg, buf, sizeof(buf))) {
		pm_diag_unsupported(d, spec->stmts[0].loc, "%d contractions: "
			"warp %dx%d: %s (a smaller --warp; or fewer "
			"contractions)", vs->main->ncon, vs->main_cfg.wm,
			vs->main_cfg.wn, buf);
		return POLYMMA_ERR_SPEC;
	}
	if (vs->main && fits_regs(vs->main, buf, sizeof(buf))) {
		pm_diag_unsupported(d, spec->stmts[0].loc, "block %dx%dx%d, "
			"warp %dx%d: %s (a smaller --block or --warp)",
			vs->main_cfg.bm, vs->main_cfg.bn, vs->main_cfg.bk,
			vs->main_cfg.wm, vs->main_cfg.wn, buf);
		return POLYMMA_ERR_SPEC;
	}
	if (!vs->main)
		return pm_diags_class(d) == PM_ERR_INTERNAL ? POLYMMA_ERR_INTERNAL :
			POLYMMA_ERR_SPEC;
	pm_variant_pre_operands(vs);
	build_rows(spec, vs);
	ragged_k(vs);
	for (int i = 0; i < PM_RT_NROLES; ++i) {
		vs->main->var[i] = vs->v[i].k;
		if (vs->v[i].k)
			vs->v[i].k->twin = has_twin(vs->v[i].k);
	}
	return POLYMMA_OK;
}

void pm_variant_set_clear(struct pm_variant_set *vs)
{
	for (int i = 0; i < PM_RT_NROLES; ++i) {
		if (!vs->v[i].borrowed)
			pm_pipeline_kernel_free(vs->v[i].k);
		if (vs->v[i].ctx)
			isl_ctx_free(vs->v[i].ctx);
	}
	pm_pipeline_kernel_free(vs->main);
	memset(vs, 0, sizeof(*vs));
}

int pm_variant_set_quota_diag(const struct pm_variant_set *vs,
	struct pm_diags *d)
{
	int over = 0;

	for (int i = 0; i < PM_RT_NROLES && !over; ++i)
		if (vs->v[i].ctx)
			over = pm_isl_quota_diag(vs->v[i].ctx, d);
	if (!over && vs->over_budget) {
		pm_isl_quota_report(d);
		over = 1;
	}
	return over;
}

struct pm_kernel *pm_variant_set_kernel(const struct pm_variant_set *vs,
	enum pm_variant_role r)
{
	return r >= 0 && r < PM_RT_NROLES ? vs->v[r].k : NULL;
}

void pm_variant_set_report(const struct pm_variant_set *vs, FILE *out)
{
	for (int i = 0; i < vs->target->nvariants; ++i) {
		const struct pm_variant_desc *r = &vs->target->variants[i];
		const struct pm_variant *v = &vs->v[r->role];
		const struct pm_config *c = &v->cfg;

		if (!v->k) {
			fprintf(out, "%-18s -  %s\n", r->suffix[0] ? r->suffix :
				"(base)", v->why_not);
			continue;
		}
		fprintf(out, "%-18s +  block %dx%dx%d warp %dx%d mma %dx%dx%d "
			"stages %d split %d persistent %d tma %d%s%s",
			r->suffix[0] ? r->suffix : "(base)", c->bm, c->bn, c->bk,
			c->wm, c->wn, c->mm, c->mn, c->mk, c->stages, c->split_k,
			c->persistent, v->k->tma[0], v->k->exact ? " exact" : "",
			v->emit_fixup ? " fixup" : "");
		/* the operands read as the launcher's copies (variant/pre.h) */
		for (int t = 0; t < v->k->scop->spec->ntensors; ++t)
			if (v->k->scop->spec->tensors[t].pre)
				fprintf(out, " pre %s %s",
					v->k->scop->spec->tensors[t].name,
					pm_type_name(v->k->scop->spec->tensors[t].type));
		/* the operands widened in the MMA's registers (0062) */
		for (int b = 0; b < v->k->nbufs; ++b)
			if (v->k->bufs[b].conv_regs)
				fprintf(out, " widen-regs %s", v->k->scop->spec->
					tensors[v->k->bufs[b].tensor].name);
		fputc('\n', out);
	}
}

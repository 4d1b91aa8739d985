/* runtime/plan_rules.h — internal to runtime/plan.c: the plan's working
 * state, its queries and its rules, each of which reads the state and sets
 * the flags it decides (plan.h has the plan's contract). Static functions,
 * included once per translation unit: by plan.c in the library, as text
 * before plan.c's in generated files (emit/table.c). The rules, in the order
 * pm_rt_rules applies them (T: output tiles of the base's block tile, B =
 * SMs x its blocks per SM, kt: k tiles of each contraction (a partial last
 * one counted), PS = SMs x the split persistent row's blocks per SM):
 *
 *   split-K auto: s = min(B / T, kt / PM_RT_MIN_KT) where T < B (with a
 *     small row: none under 4/5 of the SMs); --split-k N: s = N.
 *   pfew: 3/5 SMs <= T <= SMs (or SMs / 2 < T with 16 k tiles): _persist
 *     unsplit.
 *   psplit: T < 3/5 SMs: _persist_split, s chunks of PM_RT_MIN_PKT k
 *     tiles; in clusters (_split_cl) where that gives more chunks than the
 *     workspace; none where the units fill under half the SMs.
 *   small: T < SMs, unsplit: _small (_small_tma from 3/2 blocks per SM).
 *   medium: T < B, one partial wave filled 5/4 better: _medium.
 *   fill (T > B): _persist_wide / _persist_tall where they fill their
 *     waves to 85 % (in elements), else _persist where it fills them
 *     better.
 *   tail (T > PS): _persist_split on the last wave's tiles when it is at
 *     most half full.
 *   mid (T > SMs): _persist_mid where its waves are 75 % full and fuller.
 *   ra (a prologue through the MMA's registers, T > SMs): the row of least
 *     modelled time instead of fill, tail and mid.
 *   sq (T > SMs): _persist_sq where the best other row's rounds cost
 *     gain / 1000 of its own.
 *   big (T > SMs, one of wide, tall, mid, sq so far): the one of them of
 *     least rounds x area / rate (plan_big.h; docs/decisions/0066).
 *   narrow: _persist on one wave whose 64x192 grid is one wave too.
 *   slim: the small or medium row, or a split in two chunks, where the
 *     64x128 grid is one wave: _persist_slim (docs/decisions/0067).
 *   pitch (rows of A or B not whole 32-byte sectors): T > SMs, where B's
 *     are, or in place of the 128x128 rows where A's are, the persistent
 *     row of least rounds x area / flops per byte copied; T <= SMs,
 *     _persist in place of more small tiles than SMs.
 *   skinny: decode shapes (M <= 64), and small grids with long k
 *     (docs/decisions/0040, 0050): _persist_skinny split.
 *   swap: decode shapes (M <= 64): the narrowest swapped row that holds M
 *     (docs/decisions/0057).
 * big is in plan_big.h; the last two and pm_rt_rules itself are in
 * plan_decode.h.
 * A grouped problem (problem.grouped) runs them without the persistent
 * rows (docs/decisions/0051), then its own rule (pm_rt_rule_grouped:
 * _persist_mid on many tiles, _persist_narrow on decode-like groups,
 * _small_tma for the small row; docs/decisions/0055).
 */
#ifndef PM_RT_PLAN_RULES_H
#define PM_RT_PLAN_RULES_H

#ifndef PM_RT_PLAN_H
#include "runtime/plan.h"
#endif

/* Fewest k tiles per chunk of the automatic split (the workspace split). */
#define PM_RT_MIN_KT 4
/* ... in the split persistent kernel */
#define PM_RT_MIN_PKT 16
/* ... there with a prologue through the MMA's registers (its small
 * variant, without TMA, measured 1.1-1.4x slower than 2-4 chunks of 8-15
 * k tiles at 10-48 tiles), from PM_RT_SPLIT_KT_RA k tiles of work (at 22
 * and 24 the split measured 0-16 % slower; docs/decisions/0013-persistent-split-small-grids.md) */
#define PM_RT_MIN_PKT_RA 8
#define PM_RT_SPLIT_KT_RA 28
/* ... in the tail of a grid of several waves */
#define PM_RT_MIN_TKT 4
/* the tail split and pfew's half-SM case: k tiles of work from which a
 * shorter tile saves more than the fixup costs;
 * docs/decisions/0014-tail-split.md) */
#define PM_RT_LONG_KT 16
/* ... in clusters (fixup.c's reduction through distributed shared
 * memory): k tiles of the unit's work, all contractions together */
#define PM_RT_MIN_CKT 16
/* chunks from which a split persistent kernel keeps its split however few
 * its units (docs/decisions/0041-long-k-split.md) */
#define PM_RT_LONG_SPLIT 4
/* the skinny row on small grids: k tiles of work from which and up to
 * which it applies (measured at 34-54; longer k keeps 0041's split, 32
 * k tiles at 32 tiles the small row), and
 * the fewest per chunk (docs/decisions/0050-skinny-small-grids.md) */
#define PM_RT_SKINNY_KT 34
#define PM_RT_SKINNY_KT_MAX 64
#define PM_RT_MIN_SKT 8
/* the largest cluster */
#define PM_RT_MAX_CL 8
/* The workspace's counters: PM_RT_CNT_BYTES (plan.h). */
/* the slim row: from this many k tiles of work (at 6-8 k tiles measured
 * 5-15 % slower than the small row, from 14 1.03-1.11x faster), and in
 * place of two chunks up to this many (GEMM at 32-64: 1.02-1.15x faster;
 * Add(GEMM, GEMM) at 76-116, two contractions: 4-13 % slower;
 * docs/decisions/0067-slim-row-small-grids.md) */
#define PM_RT_SLIM_KT 12
#define PM_RT_SLIM_SPLIT_KT 64
/* The fill rule's wave fill, per cent (85; with a register prologue 70 at
 * 16 k tiles or more), the mid rule's (75). */
#define PM_RT_FILL 85
#define PM_RT_FILL_RA 70
#define PM_RT_FILL_MID 75

/* The plan's working state: the inputs and what the rules set. */
struct pm_rt_st {
	const struct pm_rt_spec *f;
	const struct pm_rt_variant *v;
	const struct pm_rt_device *d;
	const struct pm_rt_problem *p;
	int row[PM_RT_NROLES];	/* role -> row, -1: none */
	int64_t t, kt[PM_RT_MAX_K], ktsum, b;	/* b = SMs x base's occupancy */
	int sms, occ, ra, nofix;
	/* set by the rules (today's struct pm_plan_NAME) */
	int64_t s, cl, tdp;
	int persist;		/* a role, -1: none */
	int small, medium;	/* launch the small / medium row */
	int small1, medium1;	/* ... where the split falls back to one chunk */
	int pfew, psplit;
	int gtma;		/* the small row is _small_tma: a grouped
				 * problem's (0055), decode with two
				 * contractions (0063) */
};

/* Role r is a persistent kernel whose units are chunks of tiles, reduced
 * through the workspace or a cluster. */
static int pm_rt_psplit_role(int r)
{
	return r == PM_RT_PERSIST_SPLIT || r == PM_RT_PERSIST_SPLIT_CL ||
		r == PM_RT_PERSIST_SKINNY || r == PM_RT_PERSIST_SWAP ||
		r == PM_RT_PERSIST_SWAP32 || r == PM_RT_PERSIST_SWAP64;
}

static int64_t pm_rt_cdiv(int64_t a, int64_t b)
{
	return (a + b - 1) / b;
}

/* The row of role r, or -1. */
static int pm_rt_row(const struct pm_rt_st *st, int r)
{
	return st->row[r];
}

/* Blocks per SM of role r's row, 0 where it has none or cannot run. */
static int pm_rt_occ(const struct pm_rt_st *st, int r)
{
	const int i = st->row[r];

	return i < 0 || st->d->occ[i] < 0 ? 0 : st->d->occ[i];
}

/* Batches of the problem (gridDim.z), at least 1. */
static int64_t pm_rt_batch(const struct pm_rt_st *st)
{
	return st->p->batch > 1 ? st->p->batch : 1;
}

/* Output tiles of row i's block tile, of every batch. */
static int64_t pm_rt_tiles(const struct pm_rt_st *st, int i)
{
	const int sw = (st->v[i].flags & PM_RT_SWAP) != 0;

	return pm_rt_cdiv(sw ? st->p->n : st->p->m, st->v[i].bm) *
		pm_rt_cdiv(sw ? st->p->m : st->p->n, st->v[i].bn) *
		pm_rt_batch(st);
}

/* Row i's tile divides M and N (a swapped row's: N and M). */
static int pm_rt_divides(const struct pm_rt_st *st, int i)
{
	const int sw = (st->v[i].flags & PM_RT_SWAP) != 0;

	return (sw ? st->p->n : st->p->m) % st->v[i].bm == 0 &&
		(sw ? st->p->m : st->p->n) % st->v[i].bn == 0;
}

/* Row i may run here: not exact, or its tile divides M and N. */
static int pm_rt_exact_ok(const struct pm_rt_st *st, int i)
{
	return !(st->v[i].flags & PM_RT_EXACT) || pm_rt_divides(st, i);
}

/* The most chunks, at most s and max_s, of at least min_kt k tiles each,
 * in which every contraction's k tiles split into whole chunks, none empty
 * (at least 1). */
static int64_t pm_rt_fit(const struct pm_rt_st *st, int64_t s, int64_t min_kt,
	int64_t max_s)
{
	int again = 1;

	if (s > max_s)
		s = max_s;
	for (int r = 0; r < st->f->nk; ++r)
		if (s > st->kt[r] / min_kt)
			s = st->kt[r] / min_kt;
	if (s < 1)
		s = 1;
	while (again && s > 1) {
		again = 0;
		for (int r = 0; r < st->f->nk; ++r) {
			const int64_t ch = pm_rt_cdiv(st->kt[r], s);
			const int64_t s2 = pm_rt_cdiv(st->kt[r], ch);

			if (s2 < s)
				s = s2, again = 1;
		}
	}
	return s;
}

/* The workspace split: s = min(B / T, kt / PM_RT_MIN_KT) chunks where T <
 * B (below 4/5 of a block per SM the small variant measured faster);
 * --split-k N: N. */
static void pm_rt_rule_split(struct pm_rt_st *st)
{
	const int small = pm_rt_row(st, PM_RT_SMALL) >= 0 ||
		pm_rt_row(st, PM_RT_SMALL_TMA) >= 0;

	if (pm_rt_row(st, PM_RT_SPLIT) < 0 || st->f->split_k == 1)
		return;
	if (st->f->split_k > 1) {
		st->s = st->f->split_k;
		return;
	}
	if (st->t < st->b)
		st->s = st->b / st->t;
	for (int r = 0; r < st->f->nk; ++r)
		if (st->s > st->kt[r] / PM_RT_MIN_KT)
			st->s = st->kt[r] / PM_RT_MIN_KT;
	if (small && st->t * 5 < (int64_t) st->sms * 4)
		st->s = 1;
}

/* 3/5 to 1 block per SM: one persistent block per SM (its producer warp
 * and 4 stages), no split (measured 1.2-2x faster there than split-K,
 * whose fp32 partial tiles cost more than they save, and than the small
 * variant); from 1/2 with 16 k tiles or more of work (too many tiles for
 * clusters of 2 chunks: measured 5-12 % faster than the small variant at
 * 69-72 tiles, 12 % slower at 4 k tiles;
 * docs/decisions/0006-persistent-one-wave.md) */
static void pm_rt_rule_pfew(struct pm_rt_st *st)
{
	const int64_t t = st->t, sms = st->sms;

	if (pm_rt_row(st, PM_RT_PERSIST) < 0 || !st->nofix)
		return;
	st->pfew = pm_rt_occ(st, PM_RT_PERSIST) > 0 && t <= sms &&
		(t * 5 >= sms * 3 ||
		(t * 2 > sms && st->ktsum >= PM_RT_LONG_KT));
	if (st->pfew)
		st->s = 1;
}

/* Split persistent units in clusters: the most chunks c, more than the
 * workspace split makes (sw, after its half-SM rule; at as many chunks the
 * workspace measured 2-10 % faster since session 10's fixup barrier;
 * docs/decisions/0015-cluster-dsm-split-vs-workspace.md), at most PM_RT_MAX_CL, of PM_RT_MIN_CKT k tiles of
 * the unit's work or more, whose T clusters of c blocks the GPU holds at
 * once and whose receive area (the peers' partials of a strip of the
 * tile's rows: c - 1 of them, ceil(W / c) warps each) fits in the stages. */
static void pm_rt_rule_cluster(struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_PERSIST_SPLIT_CL);
	const int64_t min_kt = (PM_RT_MIN_CKT + st->f->ncon - 1) / st->f->ncon;
	int64_t c, sw;

	if (i < 0 || !st->psplit || !st->d->clusters)
		return;
	c = (int64_t) st->sms * pm_rt_occ(st, PM_RT_PERSIST_SPLIT) / st->t;
	sw = st->t * st->s * 2 < (int64_t) st->sms ? 1 : st->s;
	for (c = c < PM_RT_MAX_CL ? c : PM_RT_MAX_CL;
	    c >= 2 && c > sw && !st->cl; --c)
		if (pm_rt_fit(st, c, min_kt, c) == c &&
		    st->v[i].cl_warp_bytes * (c - 1) *
		    pm_rt_cdiv(st->v[i].cwarps, c) <= st->v[i].cl_room &&
		    st->t <= st->d->clusters(st->d->ctx, (int) c))
			st->cl = c;
	if (st->cl)
		st->s = st->cl;
}

/* Under 3/5 tile per SM: split-K in the persistent kernel, one chunk of a
 * tile per block (the tile's blocks reduce-scatter their partials), where
 * its units fill half the SMs or more (fewer: the small variant's 4x more
 * blocks measured faster), a quarter with a register prologue; in
 * clusters counting a unit once per contraction (Add(GEMM, GEMM): measured
 * 7-36 % faster at 40-96 units, GEMM's 3-26 % slower at 20-60;
 * docs/decisions/0013-persistent-split-small-grids.md).
 * Also the counters' limit and chunks of whole k tiles, none empty. */
static void pm_rt_rule_psplit(struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_PERSIST_SPLIT);
	const int occ = pm_rt_occ(st, PM_RT_PERSIST_SPLIT);

	if (i >= 0) {
		st->psplit = occ > 0 && st->t * 5 < (int64_t) st->sms * 3 &&
			(!st->ra || st->ktsum >= PM_RT_SPLIT_KT_RA);
		if (st->psplit)
			st->s = pm_rt_fit(st, (int64_t) st->sms * occ / st->t,
				st->ra ? PM_RT_MIN_PKT_RA : PM_RT_MIN_PKT,
				st->v[i].cwarps);
	}
	pm_rt_rule_cluster(st);
	if (st->t > PM_RT_CNT_BYTES / 4)
		st->s = 1;
	st->s = pm_rt_fit(st, st->s, 1, st->s);
	/* ... unless each unit runs a quarter of the k tiles or less
	 * (without a register prologue: measured without): the small
	 * variant's blocks run all of them (127x1000x8000: 17 us in 7
	 * chunks, 39 us unsplit small; docs/decisions/0041-long-k-split.md) */
	if (st->psplit && (st->ra || st->s < PM_RT_LONG_SPLIT) &&
	    st->t * st->s * (st->cl ? st->f->ncon : 1) *
	    (st->ra ? 4 : 2) < (int64_t) st->sms)
		st->s = 1;
	if (st->psplit && st->s > 1)
		st->persist = PM_RT_PERSIST_SPLIT;
	if (st->pfew)
		st->persist = PM_RT_PERSIST;
}

/* Fewer tiles than SMs: the small variant (not on pfew's grids). A big
 * grid of one partial wave: the medium variant where its grid's wave
 * efficiency t / (waves x blocks per wave) is at least 5/4 of the base's
 * (measured: 5-11 % faster there; 5-18 % slower on grids of several
 * waves, where three medium blocks per SM run less efficiently than two
 * big ones; docs/decisions/0002-small-variant-under-sm-count.md,
 * docs/decisions/0004-medium-variant-five-fourths.md). Both apply unsplit only. */
static void pm_rt_rule_small_medium(struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_MEDIUM);
	const int occm = pm_rt_occ(st, PM_RT_MEDIUM);

	st->small1 = (pm_rt_row(st, PM_RT_SMALL) >= 0 ||
		pm_rt_row(st, PM_RT_SMALL_TMA) >= 0) &&
		st->t < st->sms && !st->pfew;
	if (i >= 0 && occm > 0 && !st->small1 && st->t < st->b && !st->pfew) {
		const int64_t t2 = pm_rt_tiles(st, i);
		const int64_t b2 = (int64_t) st->sms * occm;
		const int64_t w1 = pm_rt_cdiv(st->t, st->b);
		const int64_t w2 = pm_rt_cdiv(t2, b2);

		st->medium1 = t2 * w1 * st->b * 4 > st->t * w2 * b2 * 5;
	}
	st->small = st->s == 1 && st->small1;
	st->medium = st->s == 1 && st->medium1;
}

/* Role r's row (an exact one only where its tile divides M and N) fills
 * its waves to fill per cent: the elements of M x N over those of its
 * waves of tiles (on ragged sizes the last tiles' unused rows and columns
 * count empty; docs/decisions/0065-ragged-wide-tall.md). */
static int pm_rt_fills(const struct pm_rt_st *st, int r, int64_t fill)
{
	const int i = pm_rt_row(st, r);
	int64_t t2, bw, area;

	if (i < 0 || pm_rt_occ(st, r) <= 0 || !pm_rt_exact_ok(st, i))
		return 0;
	t2 = pm_rt_tiles(st, i);
	bw = (int64_t) st->sms * pm_rt_occ(st, r);
	area = (int64_t) st->v[i].bm * st->v[i].bn;
	return (double) st->p->m * (double) st->p->n *
		(double) pm_rt_batch(st) * 100.0 >= (double) fill *
		(double) (pm_rt_cdiv(t2, bw) * bw) * (double) area;
}

/* Grids of several waves (T > B): the wide blocks where they fill their
 * waves to 85 % (M x N over their waves' elements: ragged sizes run
 * their guarded kernel, docs/decisions/0065-ragged-wide-tall.md; smem traffic per flop lower; measured
 * 3-12 % faster there, slower on poorly filled waves; with a register
 * prologue, whose alternative is two 128x128 blocks per SM, 70 % at 16 k
 * tiles or more: 3-15 % faster from 72 %, 7-14 % slower under 67 %), else
 * the tall blocks on the same terms (copies a third fewer per flop;
 * 8-13 % faster on full waves), else (no register prologue: there the
 * 128x128 persistent kernel measured 6 % slower) _persist where one block
 * per SM looping over tiles fills the waves better than two per SM do.
 * Not with the register prologue's cost model (pm_rt_rule_ra). */
static void pm_rt_rule_fill(struct pm_rt_st *st, int ra_model)
{
	const int64_t bp = (int64_t) st->sms * pm_rt_occ(st, PM_RT_PERSIST);
	int64_t fill = PM_RT_FILL;

	if (pm_rt_row(st, PM_RT_PERSIST) < 0 || ra_model || (st->ra &&
	    pm_rt_row(st, PM_RT_PERSIST_WIDE) < 0 &&
	    pm_rt_row(st, PM_RT_PERSIST_TALL) < 0))
		return;
	if (bp <= 0 || st->t <= st->b)
		return;
	if (st->ra && st->kt[0] >= PM_RT_LONG_KT)
		fill = PM_RT_FILL_RA;
	if (pm_rt_fills(st, PM_RT_PERSIST_WIDE, fill))
		st->persist = PM_RT_PERSIST_WIDE;
	else if (pm_rt_fills(st, PM_RT_PERSIST_TALL, fill))
		st->persist = PM_RT_PERSIST_TALL;
	else if (!st->ra && pm_rt_cdiv(st->t, bp) * bp <
	    pm_rt_cdiv(st->t, st->b) * st->b)
		st->persist = PM_RT_PERSIST;
}

/* Several waves of the 128x128 persistent kernel whose last is at most
 * half full: the split kernel runs the full waves' tiles whole (tdp) and
 * splits the tail's (chunks of 4 k tiles or more, at most its consumer
 * warps; k of 16 tiles or more: a shorter tile saves less than the fixup
 * costs; docs/decisions/0014-tail-split.md). Not after the wide or tall rule, not with a register
 * prologue. */
static void pm_rt_rule_tail(struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_PERSIST_SPLIT);
	const int64_t pb = (int64_t) st->sms * pm_rt_occ(st, PM_RT_PERSIST_SPLIT);
	int64_t rt, s3;

	if (i < 0 || !st->nofix || (st->v[i].flags & PM_RT_PRO_REGS) ||
	    pb <= 0 || st->persist == PM_RT_PERSIST_WIDE ||
	    st->persist == PM_RT_PERSIST_TALL || st->t <= pb)
		return;
	rt = st->t % pb;
	s3 = rt > 0 && 2 * rt <= pb ?
		pm_rt_fit(st, pb / rt, PM_RT_MIN_TKT, st->v[i].cwarps) : 1;
	for (int r = 0; r < st->f->nk; ++r)
		if (st->kt[r] < PM_RT_LONG_KT)
			s3 = 1;
	if (s3 > 1)
		st->persist = PM_RT_PERSIST_SPLIT, st->tdp = st->t - rt,
			st->s = s3;
}

/* An unsplit plan of role r that replaces the others (mid, sq; the sq
 * rule also clears the medium fallback, as today). */
static void pm_rt_take(struct pm_rt_st *st, int r)
{
	st->persist = r, st->tdp = 0, st->s = 1;
	st->small = st->medium = 0;
	if (r == PM_RT_PERSIST_SQ)
		st->medium1 = 0;
}

/* Grids of more than one wave of single blocks per SM: the mid variant's
 * 128x192 blocks (a third fewer copies per flop than 128x128) where their
 * grid fills its waves to 75 % or more and at least as well as the T
 * tiles fill waves of SMs (GEMM measured 1-19 % faster there, 4 % in
 * geomean over 34 of the 66 paper grids of more than one wave, up to 36 %
 * slower where its last wave is half empty;
 * docs/decisions/0009-persistent-mid-fill-75.md);
 * an exact row only where its tile divides M and N. */
static void pm_rt_rule_mid(struct pm_rt_st *st, int ra_model)
{
	const int i = pm_rt_row(st, PM_RT_PERSIST_MID);
	const int64_t sms = st->sms;
	int64_t t2, b2, w1, w2;

	if (i < 0 || !st->nofix || ra_model || pm_rt_occ(st,
	    PM_RT_PERSIST_MID) <= 0 || st->t <= sms || !pm_rt_exact_ok(st, i))
		return;
	/* batched: the wide or tall units the fill rule chose stay (wide
	 * 0-11 % faster than mid at 4 batched shapes;
	 * docs/decisions/0042-batched-persistent-units.md) */
	if (pm_rt_batch(st) > 1 && (st->persist == PM_RT_PERSIST_WIDE ||
	    st->persist == PM_RT_PERSIST_TALL))
		return;
	t2 = pm_rt_tiles(st, i);
	b2 = sms * pm_rt_occ(st, PM_RT_PERSIST_MID);
	w1 = pm_rt_cdiv(st->t, sms);
	w2 = pm_rt_cdiv(t2, b2);
	if (t2 * 100 >= PM_RT_FILL_MID * w2 * b2 && t2 * w1 * sms >= st->t * w2 * b2)
		pm_rt_take(st, PM_RT_PERSIST_MID);
}

/* Waves of t tiles on slots blocks at once, a partial last one counted
 * partial / 1000 + its fill x (1000 - partial) / 1000. */
static double pm_rt_waves(int64_t t, int64_t slots, int partial)
{
	const int64_t f = t / slots, r = t % slots;

	return (double) f + (r ? ((double) partial + (double) (1000 - partial) *
		(double) r / (double) slots) / 1000.0 : 0.0);
}

/* One candidate of pm_rt_rule_ra: role r at rate per mille of the base's,
 * where cond holds; *pick = r where it is the best so far. */
static void pm_rt_ra_term(const struct pm_rt_st *st, int r, int rate, int cond,
	double *best, int *pick)
{
	const int i = pm_rt_row(st, r), o = pm_rt_occ(st, r);
	double c;

	if (i < 0 || rate <= 0 || o <= 0 || !cond || !pm_rt_exact_ok(st, i))
		return;
	c = pm_rt_waves(pm_rt_tiles(st, i), (int64_t) st->sms * o,
		st->f->ra.partial) * o * (double) (st->v[i].bm * st->v[i].bn) *
		1000.0 / (double) rate;
	if (c < *best)
		*best = c, *pick = r;
}

/* A prologue through the MMA's registers, more than one tile per SM: the
 * row of least modelled time (waves, a partial one counted partial + (1 -
 * partial) x its fill, x blocks per SM x block area / measured rate)
 * among the base (two 128x128 blocks per SM), the medium one (on one
 * partial wave of base blocks only: on several, three medium blocks per SM
 * ran 20 % slower), the wide and tall (tall: 16 k tiles or more, under
 * them 4-18 % slower than two big blocks per SM) and mid persistent ones.
 * Fitted on 65 paper sizes (ReLU+GEMM, every variant forced, run131: 0.5 %
 * slower than the fastest in mean, against 3.1 % for the fill rules),
 * checked with the benchmark (run132;
 * docs/decisions/0012-register-prologue-cost-model.md). */
static void pm_rt_rule_ra(struct pm_rt_st *st)
{
	const struct pm_rt_variant *b = &st->v[st->row[PM_RT_BASE]];
	const struct pm_rt_ra_cost *rc = &st->f->ra;
	double best;
	int pick = PM_RT_BASE;

	if (st->t <= st->sms || st->s != 1)
		return;
	best = pm_rt_waves(st->t, st->b, rc->partial) * st->occ *
		(double) (b->bm * b->bn);
	pm_rt_ra_term(st, PM_RT_MEDIUM, rc->medium, st->t < st->b, &best,
		&pick);
	pm_rt_ra_term(st, PM_RT_PERSIST_WIDE, rc->wide, 1, &best, &pick);
	pm_rt_ra_term(st, PM_RT_PERSIST_TALL, rc->tall,
		st->ktsum >= PM_RT_LONG_KT, &best, &pick);
	pm_rt_ra_term(st, PM_RT_PERSIST_MID, rc->mid, 1, &best, &pick);
	st->small = 0;
	st->medium = st->medium1 = pick == PM_RT_MEDIUM;
	st->persist = pick == PM_RT_MEDIUM || pick == PM_RT_BASE ? -1 : pick;
	st->tdp = 0;
}

/* Rounds of role r's grid x blocks per SM x block area x 1000 / rate. */
static double pm_rt_rounds(const struct pm_rt_st *st, int r, int rate)
{
	const int i = pm_rt_row(st, r), o = pm_rt_occ(st, r);
	const int64_t b2 = (int64_t) st->sms * o;

	return (double) pm_rt_cdiv(pm_rt_tiles(st, i), b2) * o *
		(double) (st->v[i].bm * st->v[i].bn) * 1000.0 / (double) rate;
}

/* One term of pm_rt_rule_sq: role r at rate, the best so far where less. */
static void pm_rt_sq_term(const struct pm_rt_st *st, int r, int rate,
	double *best)
{
	const int i = pm_rt_row(st, r);
	double c;

	if (i < 0 || rate <= 0 || pm_rt_occ(st, r) <= 0 ||
	    !pm_rt_exact_ok(st, i))
		return;
	c = pm_rt_rounds(st, r, rate);
	if (c < *best)
		*best = c;
}

/* Grids of more than one wave of single blocks per SM, any kernel: the sq
 * variant (192x192 blocks, one per SM) where the modelled time of the
 * best of the others (rounds x blocks per SM x block area / rate: the base
 * and the 128x128 persistent kernel at 1000, the mid, wide and tall ones)
 * is at least gain per mille of its own (measured: GEMM 13-32 % faster at
 * the 3 paper grids the model picks, 1-30 % slower at most others;
 * docs/decisions/0010-persistent-sq-gain-1-1.md). Replaces the choices before it. */
static void pm_rt_rule_sq(struct pm_rt_st *st)
{
	const struct pm_rt_variant *b = &st->v[st->row[PM_RT_BASE]];
	const struct pm_rt_sq_cost *sc = &st->f->sq;
	const int i = pm_rt_row(st, PM_RT_PERSIST_SQ);
	double best;

	if (i < 0 || !st->nofix || sc->gain <= 0 || sc->sq <= 0 ||
	    pm_rt_occ(st, PM_RT_PERSIST_SQ) <= 0 || st->t <= st->sms ||
	    !pm_rt_exact_ok(st, i))
		return;
	best = (double) pm_rt_cdiv(st->t, st->b) * st->occ *
		(double) (b->bm * b->bn);
	pm_rt_sq_term(st, PM_RT_PERSIST, 1000, &best);
	pm_rt_sq_term(st, PM_RT_PERSIST_MID, sc->mid, &best);
	pm_rt_sq_term(st, PM_RT_PERSIST_WIDE, sc->wide, &best);
	pm_rt_sq_term(st, PM_RT_PERSIST_TALL, sc->tall, &best);
	if (best * 1000.0 >= pm_rt_rounds(st, PM_RT_PERSIST_SQ, sc->sq) *
	    (double) sc->gain)
		pm_rt_take(st, PM_RT_PERSIST_SQ);
}

/* Role r's rate per mille of the 128x128 tile's where operand rows are
 * misaligned (pm_rt_rule_pitch): its tile's flops per byte copied,
 * bm bn / (bm + bn), over the 128x128 tile's (64). */
static int pm_rt_mis_rate(const struct pm_rt_st *st, int r)
{
	const struct pm_rt_variant *v = &st->v[pm_rt_row(st, r)];

	return (int) (1000 * 2 * (int64_t) v->bm * v->bn / (v->bm + v->bn) /
		128);
}

/* The pitch rule's problems (docs/decisions/0053-misaligned-pitch.md):
 * operand rows not whole 32-byte sectors, an automatic plan of one
 * contraction without a prologue through the registers (measured so). */
static int pm_rt_mis(const struct pm_rt_st *st)
{
	return st->p->mis && st->nofix && !st->ra && st->f->ncon == 1;
}

/* pm_rt_rule_pitch on grids of one wave or less: where the small row's
 * 64x64 tiles are more than the SMs, _persist's 128x128 ones copy half
 * the bytes per flop (measured 1.01-1.27x faster than _small_tma at the
 * 5 grids it takes; with one small tile per SM or less the small row
 * stays, 1.16-1.20x faster than _persist at 3 grids). */
static void pm_rt_pitch_small(struct pm_rt_st *st)
{
	const int s = pm_rt_row(st, PM_RT_SMALL_TMA);
	const int p = pm_rt_row(st, PM_RT_PERSIST);

	if (st->small && s >= 0 && p >= 0 && pm_rt_occ(st, PM_RT_PERSIST) > 0 &&
	    pm_rt_tiles(st, s) > st->sms && pm_rt_exact_ok(st, p))
		pm_rt_take(st, PM_RT_PERSIST);
}

/* Grids of more than one wave whose operand rows are not whole 32-byte
 * sectors (problem.mis; one contraction, no register prologue): every
 * TMA box row straddles one sector more, and the kernels run at a rate
 * proportional to their tile's flops per byte copied (measured at
 * 3000^3: 128x128 0.50x cuBLAS, 128x192 0.63x, 192x192 0.75x). Where B's
 * rows are misaligned, and in place of the 128x128 rows (base, _persist)
 * where A's alone are (the wide and mid rows keep theirs, 0.92-1.03x
 * there): the persistent row of least rounds x area / that rate
 * (pm_rt_rounds; measured 1.06-1.37x faster at the 10 grids of 16 where
 * it changes the row, the fastest forced row at each of the 16;
 * docs/decisions/0053-misaligned-pitch.md). */
static void pm_rt_rule_pitch(struct pm_rt_st *st)
{
	static const int roles[] = { PM_RT_PERSIST, PM_RT_PERSIST_MID,
		PM_RT_PERSIST_SQ, PM_RT_PERSIST_WIDE, PM_RT_PERSIST_TALL };
	double best = 0, c;
	int r = -1;

	if (!pm_rt_mis(st))
		return;
	if (st->t <= st->sms) {
		pm_rt_pitch_small(st);
		return;
	}
	if (!(st->p->mis & 2) && st->persist >= 0 &&
	    st->persist != PM_RT_PERSIST)
		return;
	for (size_t j = 0; j < sizeof(roles) / sizeof(*roles); ++j) {
		const int i = pm_rt_row(st, roles[j]);

		if (i < 0 || pm_rt_occ(st, roles[j]) <= 0 ||
		    !pm_rt_exact_ok(st, i))
			continue;
		c = pm_rt_rounds(st, roles[j], pm_rt_mis_rate(st, roles[j]));
		if (r < 0 || c < best)
			best = c, r = roles[j];
	}
	if (r >= 0 && r != st->persist)
		pm_rt_take(st, r);
}

/* One wave of the 128x128 persistent kernel, unsplit (pfew), whose grid
 * of narrow blocks (64x192, one per SM, one consumer warpgroup with one k
 * tile of MMAs in flight) is one wave too: the narrow variant (3/4 the
 * area at ~0.83 of the per-SM rate; measured 5-7 % faster at the 7 paper
 * grids it takes, GEMM, where the split or the small variant run it lost
 * 2-23 %; docs/decisions/0011-persistent-narrow-mma-inflight.md). Not
 * where the pitch rule weighs misaligned rows (pm_rt_mis): 64x192 copies
 * more bytes per flop than 128x128, measured 1.04-1.35x slower at the 5
 * such grids it took (docs/decisions/0053-misaligned-pitch.md). */
static void pm_rt_rule_narrow(struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_PERSIST_NARROW);
	const int o = pm_rt_occ(st, PM_RT_PERSIST_NARROW);

	if (i < 0 || !st->nofix || o <= 0 || st->persist != PM_RT_PERSIST ||
	    pm_rt_mis(st) ||
	    st->s != 1 || st->tdp || st->t > st->sms || !pm_rt_exact_ok(st, i))
		return;
	if (pm_rt_tiles(st, i) <= (int64_t) st->sms * o)
		st->persist = PM_RT_PERSIST_NARROW;
}

/* Grids under one wave of 128x128 tiles that the rules ran on the small
 * or medium rows, or split in two chunks up to PM_RT_SLIM_SPLIT_KT k
 * tiles, whose 64x128 grid is one wave and a third of the SMs or more,
 * from PM_RT_SLIM_KT k tiles of work: the slim row (64x128 blocks, one
 * per SM, one consumer warpgroup, 8 stages, a k tile of MMAs in flight).
 * GEMM, against the rows before in one process (H200): 1.03-1.15x faster
 * at the 13 paper and square grids it takes (1024^3 1.10x); the small
 * row stays where slim lost 5-15 % (6-8 k tiles, or 16-32 of its
 * tiles), the split in three chunks or more and the skinny row where
 * their k split won. Not on misaligned rows (the
 * pitch rule), decode shapes (M <= 64: the skinny and swapped rows),
 * batched or grouped problems, prologues through the registers
 * (docs/decisions/0067-slim-row-small-grids.md). */
static void pm_rt_rule_slim(struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_PERSIST_SLIM);
	const int o = pm_rt_occ(st, PM_RT_PERSIST_SLIM);
	const int split2 = st->persist == PM_RT_PERSIST_SPLIT && !st->tdp &&
		!st->cl && st->s <= 2 && st->ktsum <= PM_RT_SLIM_SPLIT_KT;
	int64_t t;

	if (i < 0 || !st->nofix || o <= 0 || pm_rt_mis(st) || st->ra ||
	    st->p->m <= 64 || pm_rt_batch(st) > 1 || st->p->grouped ||
	    st->ktsum < PM_RT_SLIM_KT || !pm_rt_exact_ok(st, i) ||
	    !(st->small || st->medium || split2))
		return;
	t = pm_rt_tiles(st, i);
	if (t * 3 >= (int64_t) st->sms && t <= (int64_t) st->sms * o)
		pm_rt_take(st, PM_RT_PERSIST_SLIM);
}

/* A grouped problem's rules (problem.grouped = E groups, after the others,
 * which see no persistent row; docs/decisions/0055-grouped-plan.md):
 * - T >= PM_RT_GROUPED_MID x SMs 128x128 tiles of the T rows:
 *   _persist_mid (measured 1.01-1.06x the base row at 6 of 6 such
 *   problems; the base row faster at the 4 of 1,000-1,900 tiles);
 * - else decode-like groups (T <= E x 64) over wide outputs (N >=
 *   PM_RT_GROUPED_NARROW_N), each group's 64x192 tiles filling two waves:
 *   _persist_narrow (1.06-1.25x the plan's row before at 3 of 3; at N of
 *   2,048 with 64 groups it lost, 0.89-0.95x);
 * - the small row: _small_tma where each group's own tile row (E of
 *   them at least) fills 3/2 waves of its 64x64 tiles (T counts too few:
 *   8 groups of 16 rows are 8 tile rows, not 2; 1.47x at 8x16x4096).
 */
#define PM_RT_GROUPED_MID 16
#define PM_RT_GROUPED_NARROW_N 8192

static void pm_rt_grouped_persist(struct pm_rt_st *st, int role)
{
	st->persist = role;
	st->small = st->medium = st->small1 = st->medium1 = 0;
	st->s = 1, st->tdp = 0, st->cl = 0;
}

static void pm_rt_rule_grouped(struct pm_rt_st *st)
{
	const int64_t e = st->p->grouped, n = st->p->n;
	const int mid = pm_rt_row(st, PM_RT_PERSIST_MID);
	const int nar = pm_rt_row(st, PM_RT_PERSIST_NARROW);
	const int tma = pm_rt_row(st, PM_RT_SMALL_TMA);

	if (e < 1)
		return;
	if (mid >= 0 && pm_rt_occ(st, PM_RT_PERSIST_MID) > 0 &&
	    st->t >= (int64_t) PM_RT_GROUPED_MID * st->sms)
		pm_rt_grouped_persist(st, PM_RT_PERSIST_MID);
	else if (nar >= 0 && pm_rt_occ(st, PM_RT_PERSIST_NARROW) > 0 &&
		 st->p->m <= e * st->v[nar].bm &&
		 n >= PM_RT_GROUPED_NARROW_N &&
		 e * pm_rt_cdiv(n, st->v[nar].bn) >= 2 * (int64_t) st->sms)
		pm_rt_grouped_persist(st, PM_RT_PERSIST_NARROW);
	else if (tma >= 0 && 2 * e * pm_rt_cdiv(n, st->v[tma].bn) >=
		 3 * (int64_t) st->sms)
		st->gtma = 1;
}

#endif

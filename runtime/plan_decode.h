/* runtime/plan_decode.h — internal to runtime/plan.c, after plan_rules.h
 * (whose state, queries and comment it shares): the decode rules, the
 * skinny row's (docs/decisions/0040, 0050) and the swapped rows'
 * (docs/decisions/0057), and pm_rt_rules, the order every rule runs in.
 * Included once per translation unit: by plan.c in the library, as text
 * between plan_rules.h's and plan.c's in generated files (emit/table.c).
 */
#ifndef PM_RT_PLAN_DECODE_H
#define PM_RT_PLAN_DECODE_H

#ifndef PM_RT_PLAN_RULES_H
#include "runtime/plan_rules.h"
#endif
#ifndef PM_RT_PLAN_BIG_H
#include "runtime/plan_big.h"
#endif

/* Grids of under a quarter tile per SM, 128x128 tiles, with
 * PM_RT_SKINNY_KT to PM_RT_SKINNY_KT_MAX k tiles (one contraction, no register prologue,
 * not in clusters, M's 64-row tiles at most 5/4 of M: 65 rows stay with
 * the 128-row tiles): the skinny row's 64x128 units split in chunks of
 * PM_RT_MIN_SKT k tiles or more, at most its consumer warps (measured
 * 1.07-1.24x faster than the small row or the split persistent kernel at
 * 5 of the 6 paper grids it takes, the sixth within 3 %;
 * docs/decisions/0050-skinny-small-grids.md). */
static void pm_rt_rule_skinny_small(struct pm_rt_st *st, int i, int64_t pb)
{
	const int64_t t = pm_rt_tiles(st, i);
	int64_t s;

	if (st->t * 4 >= (int64_t) st->sms || st->ktsum < PM_RT_SKINNY_KT ||
	    st->ktsum > PM_RT_SKINNY_KT_MAX ||
	    st->ra || st->f->ncon != 1 || st->tdp || t > pb ||
	    pm_rt_cdiv(st->p->m, st->v[i].bm) * st->v[i].bm * 4 > st->p->m * 5 ||
	    (st->persist == PM_RT_PERSIST_SPLIT && st->s > 1 && st->s == st->cl))
		return;
	s = pm_rt_fit(st, pb / t, PM_RT_MIN_SKT, st->v[i].cwarps);
	if (s < 2 || t * s > PM_RT_CNT_BYTES / 4)
		return;
	pm_rt_take(st, PM_RT_PERSIST_SKINNY);
	st->s = s, st->cl = 0;
}

/* A decode row i's split over its pb blocks at t tiles: the chunks s of
the tiles split, *rt of them (t <= pb: all, PM_RT_MIN_PKT k tiles or more
each; else the tail's t % pb, PM_RT_MIN_TKT), at most its consumer warps,
1 where the counters would not hold them. */
static int64_t pm_rt_decode_split(const struct pm_rt_st *st, int i,
	int64_t pb, int64_t t, int64_t *rt)
{
	int64_t s;

	*rt = t <= pb ? t : t % pb;
	s = *rt > 0 ? pm_rt_fit(st, pb / *rt, t <= pb ? PM_RT_MIN_PKT :
		PM_RT_MIN_TKT, st->v[i].cwarps) : 1;
	return *rt * s > PM_RT_CNT_BYTES / 4 ? 1 : s;
}

/* Run role r split in s chunks: the t - rt whole tiles first. */
static void pm_rt_take_decode(struct pm_rt_st *st, int r, int64_t s,
	int64_t t, int64_t rt)
{
	pm_rt_take(st, r);
	st->s = s, st->cl = 0;
	st->tdp = s > 1 ? t - rt : 0;
}

/* Decode shapes (M within one row of the skinny tile, 64): the skinny
 * row's 64x128 units, its deep pipeline streaming B, split so that the
 * SMs all stream, from PM_RT_MIN_PKT k tiles of work (fewer: the small
 * rows as before): tiles T <= blocks P: s = P / T chunks (at most its
 * consumer warps, PM_RT_MIN_PKT k tiles each); T > P: the whole waves
 * unsplit, the tail's T % P tiles split as the tail rule does. Unsplit
 * (P / 2 < T <= P) only in place of _persist's 128-row tiles (the narrow
 * row's wider units measured 1.0-1.15x faster there;
 * docs/decisions/0040-skinny-decode.md). */
static void pm_rt_rule_skinny(struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_PERSIST_SKINNY);
	const int64_t pb = (int64_t) st->sms * pm_rt_occ(st, PM_RT_PERSIST_SKINNY);
	int64_t t, rt, s;

	if (i < 0 || !st->nofix || pb <= 0 || st->ktsum < PM_RT_MIN_PKT ||
	    !pm_rt_exact_ok(st, i))
		return;
	if (st->p->m > st->v[i].bm) {
		pm_rt_rule_skinny_small(st, i, pb);
		return;
	}
	t = pm_rt_tiles(st, i);
	s = pm_rt_decode_split(st, i, pb, t, &rt);
	if (s < 2 && (t > pb || st->persist != PM_RT_PERSIST))
		return;
	pm_rt_take_decode(st, PM_RT_PERSIST_SKINNY, s, t, rt);
}

/* The swapped rows, narrowest first (docs/decisions/0057). */
static const int pm_rt_swap_roles[3] = {
	PM_RT_PERSIST_SWAP, PM_RT_PERSIST_SWAP32, PM_RT_PERSIST_SWAP64
};

/* Decode shapes of at most 64 tokens: the narrowest swapped row whose
 * columns hold M (16: 128 of N by 16 tokens, 6 stages (0063); 32 and 64: 64 of
 * N, 12 and 8 stages; B's tile on wgmma's 64-row side, no zero rows),
 * split as the skinny rule splits (s = P / T chunks of PM_RT_MIN_PKT k
 * tiles or more, at most the consumer warps), in its place; the 32 and
 * 64 rows only where every chunk is resident (T <= P), the 16 row also
 * unsplit over more than half the blocks (measured against the skinny
 * row, same process, H200: 1.09-1.14x at M <= 16, 1.04-1.08x at 24-64
 * tokens; docs/decisions/0057-swapped-skinny-row.md). Any number of
 * contractions, where the file has the row (two: SwiGLU 1.19-1.41x, Add
 * 1.04-1.77x faster than the rows taken before at 1-64 tokens;
 * docs/decisions/0063-decode-two-contractions.md). 1 where it takes the
 * grid. */
static int pm_rt_rule_swap(struct pm_rt_st *st)
{
	int i = -1, r = -1, conv;
	int64_t pb, t, rt, s;

	for (int x = 0; x < 3 && i < 0; ++x) {
		const int j = pm_rt_row(st, pm_rt_swap_roles[x]);

		if (j >= 0 && st->p->m <= st->v[j].bn)
			i = j, r = pm_rt_swap_roles[x];
	}
	if (i < 0)
		return 0;
	pb = (int64_t) st->sms * pm_rt_occ(st, r);
	if (!st->nofix || pb <= 0 || st->ktsum < PM_RT_MIN_PKT ||
	    !pm_rt_exact_ok(st, i) || st->ra)
		return 0;
	t = pm_rt_tiles(st, i);
	/* weights widened in the registers (half the bytes): the 32 and
	 * 64 rows past one wave too (decisions/0062) */
	conv = !!(st->v[i].flags & PM_RT_CONV_REGS);
	if (t > pb && r != PM_RT_PERSIST_SWAP && !conv)
		return 0;
	s = pm_rt_decode_split(st, i, pb, t, &rt);
	if (s < 2 && (t * 2 <= pb || (r != PM_RT_PERSIST_SWAP && !conv)))
		return 0;
	pm_rt_take_decode(st, r, s, t, rt);
	return 1;
}

/* Decode shapes (M <= 64) of files with two contractions or more and no
 * skinny row (SwiGLU: X's tile shared, the skinny row's stages do not
 * fit) that no swapped row took (T > P; called only then): _small_tma's
 * 64x64 tiles (measured on SwiGLU at 17-64 tokens, N 11008-28672,
 * 172-448 tiles: 1.13-1.27x faster than the rows taken before, _persist's
 * 128x128 tiles or the base's;
 * docs/decisions/0063-decode-two-contractions.md). Not
 * grouped problems: their rules hide the persistent rows, the skinny one
 * too, and have their own small row (0055). */
static void pm_rt_rule_decode_small(struct pm_rt_st *st)
{
	if (pm_rt_row(st, PM_RT_SMALL_TMA) < 0 || !st->nofix || st->ra ||
	    st->f->ncon < 2 || st->p->m > 64 || st->p->grouped ||
	    pm_rt_row(st, PM_RT_PERSIST_SKINNY) >= 0 ||
	    pm_rt_occ(st, PM_RT_SMALL_TMA) <= 0)
		return;
	pm_rt_take(st, -1);
	st->small = st->small1 = st->gtma = 1;
}

/* Today's pm_plan_NAME: the rules in order. */
static void pm_rt_rules(struct pm_rt_st *st)
{
	const int ra_model = st->ra && st->nofix && st->f->ra.partial > 0;

	pm_rt_rule_split(st);
	pm_rt_rule_pfew(st);
	pm_rt_rule_psplit(st);
	pm_rt_rule_small_medium(st);
	pm_rt_rule_fill(st, ra_model);
	pm_rt_rule_tail(st);
	pm_rt_rule_mid(st, ra_model);
	if (ra_model)
		pm_rt_rule_ra(st);
	pm_rt_rule_sq(st);
	pm_rt_rule_big(st);
	pm_rt_rule_narrow(st);
	pm_rt_rule_slim(st);
	pm_rt_rule_pitch(st);
	pm_rt_rule_skinny(st);
	if (!pm_rt_rule_swap(st))
		pm_rt_rule_decode_small(st);
	if (!(st->persist == PM_RT_PERSIST_SPLIT && !st->tdp && st->s > 1 &&
	    st->s == st->cl))
		st->cl = 0;
}

#endif

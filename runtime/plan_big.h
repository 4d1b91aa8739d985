/* runtime/plan_big.h — internal to runtime/plan.c, after plan_rules.h
 * (whose state and queries it uses): the rule among the big persistent
 * rows. Included once per translation unit: by plan.c in the library, as
 * text between plan_rules.h's and plan_decode.h's in generated files
 * (emit/table.c). */
#ifndef PM_RT_PLAN_BIG_H
#define PM_RT_PLAN_BIG_H

#ifndef PM_RT_PLAN_RULES_H
#include "runtime/plan_rules.h"
#endif

/* The big persistent rows (one block per SM, unsplit), in the order of
 * struct pm_rt_big_cost's rates. */
static const int pm_rt_big_roles[4] = {
	PM_RT_PERSIST_WIDE, PM_RT_PERSIST_TALL, PM_RT_PERSIST_MID,
	PM_RT_PERSIST_SQ
};

/* Grids of more than one wave where the rules before chose one of the big
 * persistent rows: the one of them of least rounds x area / rate
 * (pm_rt_rounds; the mid row at its measured 1130 per mille against the
 * wide one's 1090: the fill and mid rules had it compare wave fills
 * only, and ran wide where mid was 1.3-4.2 % faster at the LLM shapes;
 * docs/decisions/0066-big-rows-rounds.md). One contraction, no register
 * prologue (its own model), no misaligned rows (the pitch rule's), no
 * rows reading the launcher's copies (0059, 0061: measured apart), not
 * batched (0042) nor grouped, no split asked. */
static void pm_rt_rule_big(struct pm_rt_st *st)
{
	const struct pm_rt_big_cost *b = &st->f->big;
	const int rate[4] = { b->wide, b->tall, b->mid, b->sq };
	int in = 0, pick = -1;
	double best = 0, c;

	for (int j = 0; j < 4; ++j) {
		const int i = pm_rt_row(st, pm_rt_big_roles[j]);

		if (i >= 0 && (st->v[i].flags & PM_RT_PRE))
			return;
		in |= st->persist == pm_rt_big_roles[j];
	}
	if (!in || st->s != 1 || st->tdp || !st->nofix || st->ra ||
	    st->f->ncon != 1 || st->p->mis || pm_rt_batch(st) > 1 ||
	    st->p->grouped || st->t <= st->sms)
		return;
	for (int j = 0; j < 4; ++j) {
		const int r = pm_rt_big_roles[j], i = pm_rt_row(st, r);

		if (i < 0 || rate[j] <= 0 || pm_rt_occ(st, r) <= 0 ||
		    !pm_rt_exact_ok(st, i))
			continue;
		c = pm_rt_rounds(st, r, rate[j]);
		if (pick < 0 || c < best)
			best = c, pick = r;
	}
	if (pick >= 0 && pick != st->persist)
		pm_rt_take(st, pick);
}

#endif

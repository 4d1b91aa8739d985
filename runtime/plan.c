/* runtime/plan.c — the launch plan over a variant table (plan.h has the
 * contract): the working state filled from the inputs (pm_rt_init), the
 * rules run over it (plan_rules.h, whose comment lists them), then the
 * launcher's precedence (small, medium, the persistent rows, the split,
 * the base) picks the row and the choice is filled in; or the forced row
 * of POLYMMA_VARIANT. Before all of them, the unaligned rule: a problem
 * whose rows are not whole 16-byte units or whose pointers are not 16-byte
 * aligned (problem.unaligned, the launcher's checks) runs the _unaligned
 * row, unsplit, and only it; no other rule picks that row
 * (docs/decisions/0046-narrow-copies.md). No isl, no CUDA: C11 and C++
 * alike.
 */
#ifndef PM_RT_PLAN_H
#include "runtime/plan.h"
#endif
#ifndef PM_RT_PLAN_RULES_H
#include "runtime/plan_rules.h"
#endif
#ifndef PM_RT_PLAN_BIG_H
#include "runtime/plan_big.h"
#endif
#ifndef PM_RT_PLAN_DECODE_H
#include "runtime/plan_decode.h"
#endif

/* Role r is a persistent kernel (its blocks loop over tiles). */
static int pm_rt_persist_role(int r)
{
	return r >= PM_RT_PERSIST && r <= PM_RT_PERSIST_SWAP64;
}

/* Fills st from the inputs; PM_RT_EINVAL where they make no sense. */
static int pm_rt_init(struct pm_rt_st *st, const struct pm_rt_spec *f,
	const struct pm_rt_variant *v, int nv, const struct pm_rt_device *d,
	const struct pm_rt_problem *p)
{
	int base;

	if (!f || !v || !d || !p || nv < 1 || nv > PM_RT_MAX_VARIANTS ||
	    f->nk < 1 || f->nk > PM_RT_MAX_K || f->ncon < 1 || f->nacc < 1 ||
	    f->split_k < 0 || d->sms < 1 || p->m < 1 || p->n < 1)
		return PM_RT_EINVAL;
	st->f = f, st->v = v, st->d = d, st->p = p;
	for (int r = 0; r < PM_RT_NROLES; ++r)
		st->row[r] = -1;
	for (int i = 0; i < nv; ++i) {
		if (v[i].role < 0 || v[i].role >= PM_RT_NROLES ||
		    st->row[v[i].role] >= 0 || v[i].bm < 1 || v[i].bn < 1 ||
		    v[i].bk < 1)
			return PM_RT_EINVAL;
		st->row[v[i].role] = i;
	}
	base = st->row[PM_RT_BASE];
	if (base < 0 || d->occ[base] < 1)
		return PM_RT_EINVAL;
	st->sms = d->sms;
	st->occ = d->occ[base];
	st->b = (int64_t) st->sms * st->occ;
	st->t = pm_rt_tiles(st, base);
	st->ktsum = 0;
	for (int r = 0; r < f->nk; ++r) {
		if (p->k[r] < 1)
			return PM_RT_EINVAL;
		st->kt[r] = pm_rt_cdiv(p->k[r], v[base].bk); /* decisions/0030 */
		st->ktsum += st->kt[r];
	}
	/* a prologue through the MMA's registers: its own rules */
	st->ra = st->row[PM_RT_PERSIST] >= 0 &&
		(v[st->row[PM_RT_PERSIST]].flags & PM_RT_PRO_REGS);
	/* the rules for automatic plans (--split-k auto; no split row: never) */
	st->nofix = f->split_k <= 1;
	st->s = 1, st->cl = 0, st->tdp = 0;
	st->persist = -1, st->small = st->medium = 0;
	st->small1 = st->medium1 = 0;
	st->pfew = 0, st->psplit = 0, st->gtma = 0;
	return PM_RT_OK;
}

/* The small row to launch: _small_tma where its grid has 3/2 blocks per
 * SM or more, where operand rows are not whole 32-byte sectors (its TMA
 * boxes measured 1.0-1.5x as fast as _small's copies there;
 * docs/decisions/0053-misaligned-pitch.md) or where there is no _small;
 * else _small. */
static int pm_rt_small_row(const struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_SMALL);
	const int j = pm_rt_row(st, PM_RT_SMALL_TMA);

	if (j >= 0 && (i < 0 || pm_rt_mis(st) || st->gtma ||
	    2 * pm_rt_tiles(st, j) >= 3 * (int64_t) st->sms))
		return j;
	return i;
}

/* The launcher's precedence over the rules' flags (small, medium, s
 * chunks, persist): small, medium, the persistent row, the split, the
 * base. */
static int pm_rt_resolve(const struct pm_rt_st *st, int small, int medium,
	int64_t s, int persist)
{
	if (small)
		return pm_rt_small_row(st);
	if (medium)
		return pm_rt_row(st, PM_RT_MEDIUM);
	if (persist == PM_RT_PERSIST_SPLIT && st->cl && s == st->cl)
		return pm_rt_row(st, PM_RT_PERSIST_SPLIT_CL);
	if (persist >= 0)
		return pm_rt_row(st, persist);
	return pm_rt_row(st, s > 1 ? PM_RT_SPLIT : PM_RT_BASE);
}

/* The role's split: it takes s chunks over a workspace or a cluster. */
static int pm_rt_splits(int role)
{
	return role == PM_RT_SPLIT || pm_rt_psplit_role(role);
}

/* Fills *c for row i, s chunks (1 unless i splits), tdp, cluster cl. */
static void pm_rt_fill_choice(const struct pm_rt_st *st, int i, int64_t s,
	int64_t tdp, int64_t cl, struct pm_rt_choice *c)
{
	const struct pm_rt_variant *b = &st->v[st->row[PM_RT_BASE]];
	const int role = st->v[i].role;
	int o;

	if (!pm_rt_splits(role))
		s = 1, tdp = 0, cl = 0;
	c->v = i;
	c->exact = (st->v[i].flags & PM_RT_TWIN) && pm_rt_divides(st, i);
	c->s = (int) s;
	c->cl = role == PM_RT_PERSIST_SPLIT_CL ? (int) cl : 0;
	c->tdp = tdp;
	/* gridDim.x: one batch's tiles (the batch in gridDim.z); a
	 * persistent row's blocks loop over units (batch, tile) of every
	 * batch, gridDim.z 1 (a batched file has no split rows;
	 * docs/decisions/0042-batched-persistent-units.md) */
	c->grid = pm_rt_tiles(st, i);
	if (!pm_rt_persist_role(role))
		c->grid /= pm_rt_batch(st);
	o = pm_rt_occ(st, role == PM_RT_PERSIST_SPLIT_CL &&
		pm_rt_row(st, PM_RT_PERSIST_SPLIT) >= 0 ?
		PM_RT_PERSIST_SPLIT : role);
	if (pm_rt_psplit_role(role))
		c->grid = tdp + (c->grid - tdp) * s;
	if (pm_rt_persist_role(role) && c->grid > (int64_t) st->sms * o)
		c->grid = (int64_t) st->sms * o;
	for (int r = 0; r < PM_RT_MAX_K; ++r)
		c->kc[r] = r < st->f->nk ? pm_rt_cdiv(st->kt[r], s) * b->bk : 0;
	c->cnt_bytes = s > 1 && !c->cl ? PM_RT_CNT_BYTES : 0;
	/* the split tiles' partials, of the row's own tile */
	c->ws_bytes = c->cnt_bytes ? c->cnt_bytes + (size_t) (pm_rt_tiles(st,
		role == PM_RT_SPLIT ? st->row[PM_RT_BASE] : i) - tdp) *
		(size_t) s * (size_t) st->f->nacc * (size_t) st->v[i].bm *
		(size_t) st->v[i].bn * 4u : 0;
	/* the launcher's copies after the split's part, as the K-major
	 * copies (never over the counters) */
	c->pre_off = 0;
	if (st->v[i].flags & PM_RT_PRE) {
		c->pre_off = pm_rt_copy_offset(c);
		c->ws_bytes = c->pre_off + st->p->pre_bytes;
	}
}

/* The rules' flags in today's numbering, for pm_rt_choice.why. */
static void pm_rt_why(const struct pm_rt_st *st, struct pm_rt_rules *w)
{
	static const int num[PM_RT_NROLES] = { 0, 0, 0, 0, 0, 1, 2, 4, 5, 6,
		7, 12, 3, 3, 8, 9, 10, 11, 0 };

	w->s = (int) st->s;
	w->persist = st->persist < 0 ? 0 : num[st->persist];
	w->small = st->small;
	w->medium = st->medium;
	w->cl = (int) st->cl;
	w->tdp = st->tdp;
}

/* a and b, up to a's end or a ',' in b, are equal. */
static int pm_rt_name_eq(const char *a, const char *b, size_t n)
{
	size_t i = 0;

	for (; i < n && a[i] && a[i] == b[i]; ++i)
		;
	return i == n && !a[i];
}

PM_RT_API int pm_rt_pitch_mis(int64_t pitch, int bytes)
{
	return pitch > 0 && bytes > 0 && pitch * bytes % 32 != 0;
}

PM_RT_API int pm_rt_parse_force(const char *str,
	const struct pm_rt_variant *v, int nv, struct pm_rt_force *out)
{
	size_t n = 0;
	int64_t s = 0;

	out->v = -1, out->s = 0;
	if (!str || !*str)
		return PM_RT_OK;
	while (str[n] && str[n] != ',')
		++n;
	for (int i = 0; i < nv && out->v < 0; ++i)
		if (pm_rt_name_eq(v[i].suffix, str, n) ||
		    (v[i].role == PM_RT_BASE && pm_rt_name_eq("_base", str, n)))
			out->v = i;
	if (out->v < 0)
		return PM_RT_EUNKNOWN;
	if (!str[n])
		return PM_RT_OK;
	if (str[n + 1] != 's' || str[n + 2] != '=' || !str[n + 3])
		return out->v = -1, PM_RT_ESYNTAX;
	for (const char *c = str + n + 3; *c; ++c) {
		if (*c < '0' || *c > '9' || s > 1000)
			return out->v = -1, PM_RT_ESYNTAX;
		s = s * 10 + (*c - '0');
	}
	if (s < 1)
		return out->v = -1, PM_RT_ESYNTAX;
	out->s = (int) s;
	return PM_RT_OK;
}

/* The largest legal cluster size for the _split_cl row i, at most max (0:
 * none): s chunks of whole k tiles, receive area in the stages, every
 * tile's cluster resident. */
static int64_t pm_rt_force_cl(const struct pm_rt_st *st, int i, int64_t max)
{
	const struct pm_rt_variant *r = &st->v[i];

	for (int64_t c = max; c >= 2; --c)
		if (pm_rt_fit(st, c, 1, c) == c && r->cl_warp_bytes * (c - 1) *
		    pm_rt_cdiv(r->cwarps, c) <= r->cl_room &&
		    st->d->clusters && st->t <= st->d->clusters(st->d->ctx, (int) c))
			return c;
	return 0;
}

/* The forced row f->v with f->s chunks (0: a legal count), into *c;
 * PM_RT_EILLEGAL where it cannot run the problem. */
static int pm_rt_forced(const struct pm_rt_st *st, const struct pm_rt_force *f,
	int nv, struct pm_rt_choice *c)
{
	const int i = f->v, role = i >= 0 && i < nv ? st->v[i].role : -1;
	int64_t s = f->s, max = 1, lim;

	if (role < 0 || pm_rt_occ(st, role) <= 0 || !pm_rt_exact_ok(st, i))
		return PM_RT_EILLEGAL;
	if (role == PM_RT_SPLIT)
		max = st->b / st->t > 2 ? st->b / st->t : 2;
	else if (pm_rt_psplit_role(role))
		max = st->v[i].cwarps;
	/* chunks wait for each other (sm90_split.cuh): all resident, unless
	 * the last to arrive sums them (PM_RT_LAST) */
	lim = role == PM_RT_PERSIST_SPLIT_CL ? PM_RT_MAX_CL : pm_rt_psplit_role(
		role) && !(st->v[i].flags & PM_RT_LAST) ? st->sms * pm_rt_occ(st,
		role) / pm_rt_tiles(st, i) : max;
	max = max < lim ? max : lim;
	if (!pm_rt_splits(role))
		s = s ? s : 1;
	else if (role == PM_RT_PERSIST_SPLIT_CL)
		s = pm_rt_force_cl(st, i, s ? (s <= max ? s : 0) : max);
	else if (!s)
		s = pm_rt_fit(st, max, 1, max);
	if (s < 1 || (pm_rt_splits(role) && (s < 2 || s > (role ==
	    PM_RT_SPLIT ? s : max) || pm_rt_fit(st, s, 1, s) != s)) ||
	    (!pm_rt_splits(role) && s != 1) ||
	    (role != PM_RT_PERSIST_SPLIT_CL && s > 1 &&
	    pm_rt_tiles(st, i) > PM_RT_CNT_BYTES / 4) ||
	    (role == PM_RT_PERSIST_SPLIT_CL && f->s && s != f->s))
		return PM_RT_EILLEGAL;
	pm_rt_fill_choice(st, i, s, 0, s, c);
	c->v_nows = -1;
	return PM_RT_OK;
}

/* The unaligned rule: the _unaligned row unsplit, the only row that runs
 * such a problem (a forced other row, or a split of it, cannot;
 * docs/decisions/0046-narrow-copies.md). */
static int pm_rt_unaligned(const struct pm_rt_st *st,
	const struct pm_rt_force *f, struct pm_rt_choice *c)
{
	const int i = pm_rt_row(st, PM_RT_UNALIGNED);

	if (i < 0 || pm_rt_occ(st, PM_RT_UNALIGNED) <= 0 ||
	    (f && f->v >= 0 && (f->v != i || f->s > 1)))
		return PM_RT_EILLEGAL;
	pm_rt_fill_choice(st, i, 1, 0, 0, c);
	c->v_nows = f && f->v >= 0 ? -1 : i;
	return PM_RT_OK;
}

/* Hide (1) the PM_RT_PRE rows from the rules, keeping their indices in
 * row[], or show them again (0). */
static void pm_rt_hide_pre(struct pm_rt_st *st, int *row, int hide)
{
	for (int r = 0; r < PM_RT_NROLES; ++r) {
		if (hide)
			row[r] = st->row[r];
		if (hide && st->row[r] >= 0 &&
		    (st->v[st->row[r]].flags & PM_RT_PRE))
			st->row[r] = -1;
		else if (!hide)
			st->row[r] = row[r];
	}
}

/* The rules; a grouped problem's without its persistent rows (0.76-1.36x
 * as fast as the base row at 5 grouped problems, docs/decisions/0051),
 * then its own rule on them (pm_rt_rule_grouped, decisions/0055). */
static void pm_rt_grouped_rules(struct pm_rt_st *st)
{
	int row[PM_RT_NROLES];

	if (!st->p->grouped) {
		pm_rt_rules(st);
		return;
	}
	for (int r = 0; r < PM_RT_NROLES; ++r) {
		row[r] = st->row[r];
		if (pm_rt_persist_role(r))
			st->row[r] = -1;
	}
	pm_rt_rules(st);
	for (int r = 0; r < PM_RT_NROLES; ++r)
		st->row[r] = row[r];
	pm_rt_rule_grouped(st);
}

/* A grouped problem whose copies are reused enough: where the grouped
 * rule keeps the base row (it widens the operand in shared memory), the
 * persistent row reading the copies, _persist_mid first (0.50 against
 * 0.97 ms at 8 experts x 6208 x 4096 x 4096, i8 weights;
 * docs/decisions/0059). */
static void pm_rt_grouped_pre(struct pm_rt_st *st)
{
	static const int roles[2] = { PM_RT_PERSIST_MID, PM_RT_PERSIST };

	if (st->persist >= 0 || st->small || st->medium)
		return;
	for (int i = 0; i < 2; ++i) {
		const int r = st->row[roles[i]];

		if (r >= 0 && (st->v[r].flags & PM_RT_PRE) &&
		    pm_rt_occ(st, roles[i]) > 0) {
			st->persist = roles[i];
			return;
		}
	}
}

/* extent n's fill of its tiles of b, per mille */
static int64_t pm_rt_fill(int64_t n, int b)
{
	return n * 1000 / (pm_rt_cdiv(n, b) * b);
}

/* A problem whose copies are reused too little (the rows that widen the
 * operand in shared memory run): the base row unsplit where its tiles
 * make one wave at least half full, each tile at least 3/4 filled. Its
 * block widens each tile of the operand once per 128 rows, the small
 * row's once per 64 (w8 at 128 x 11008 x 4096: 0.054 ms against 0.093;
 * docs/decisions/0061). */
static void pm_rt_widen_rule(struct pm_rt_st *st)
{
	const int b = pm_rt_row(st, PM_RT_BASE);

	if (b < 0 || !st->p->pre_bytes || st->p->grouped ||
	    st->t * 2 <= st->sms || st->t > st->sms ||
	    pm_rt_fill(st->p->m, st->v[b].bm) < 750 ||
	    pm_rt_fill(st->p->n, st->v[b].bn) < 750)
		return;
	st->small = st->medium = st->small1 = st->medium1 = 0;
	st->persist = -1;
	st->s = 1;
	st->tdp = st->cl = 0;
}

/* Copies reused enough, the rules' row one that widens the operand in
 * shared memory (base, split, small, medium: the base's two blocks per SM
 * make its grid look one wave) over more tiles than SMs, the base's tiles
 * not all full: the copies' persistent row of fewest rounds x area /
 * rate, the 128x128 one's rate PM_RT_PRE_PERSIST_RATE (w8 at 144-192 x
 * 14336 x 4096: the base row 1.3-1.6x the best; full tiles, 256 rows,
 * keep it: w8 9 % slower, w8zp 12 % faster than _persist_wide;
 * docs/decisions/0061). The wide and tall rows only where their tiles
 * divide M and N, as measured (their ragged kernels, 0065, were not). */
#define PM_RT_PRE_PERSIST_RATE 800
static void pm_rt_pre_rounds(struct pm_rt_st *st)
{
	static const int roles[5] = { PM_RT_PERSIST, PM_RT_PERSIST_MID,
		PM_RT_PERSIST_WIDE, PM_RT_PERSIST_TALL, PM_RT_PERSIST_SQ };
	const struct pm_rt_sq_cost *sc = &st->f->sq;
	const int rate[5] = { PM_RT_PRE_PERSIST_RATE, sc->mid, sc->wide,
		sc->tall, sc->sq };
	double best = 0.0;
	int pick = -1;

	const int b = pm_rt_row(st, PM_RT_BASE);

	if (!st->p->pre_bytes || st->persist >= 0 || st->t <= st->sms ||
	    b < 0 || (pm_rt_fill(st->p->m, st->v[b].bm) == 1000 &&
	    pm_rt_fill(st->p->n, st->v[b].bn) == 1000))
		return;
	for (int i = 0; i < 5; ++i) {
		const int r = pm_rt_row(st, roles[i]);
		double c;

		if (r < 0 || !(st->v[r].flags & PM_RT_PRE) || rate[i] <= 0 ||
		    pm_rt_occ(st, roles[i]) <= 0 || !pm_rt_exact_ok(st, r) ||
		    ((roles[i] == PM_RT_PERSIST_WIDE ||
		    roles[i] == PM_RT_PERSIST_TALL) && !pm_rt_divides(st, r)))
			continue;
		c = pm_rt_rounds(st, roles[i], rate[i]);
		if (pick < 0 || c < best)
			best = c, pick = roles[i];
	}
	if (pick >= 0)
		pm_rt_take(st, pick);
}

/* Decode on few tiles (plan.h, PM_RT_PRE_DECODE): the rules see the
 * copies' rows where they are reused over 64 rows or fewer and the small
 * row's T tiles are at most a quarter of the SMs, 48 and under half, 16
 * and fewer than the SMs. */
static int pm_rt_pre_decode(const struct pm_rt_st *st)
{
	const int i = pm_rt_row(st, PM_RT_SMALL);
	int64_t t, most;

	if (!st->p->pre_bytes || st->p->grouped || i < 0)
		return 0;
	t = pm_rt_tiles(st, i);
	most = t * 4 <= st->sms ? PM_RT_PRE_DECODE : t * 2 < st->sms ? 48 :
		t < st->sms ? 16 : 0;
	return st->p->pre_reuse <= most;
}

/* The rules, without the PM_RT_PRE rows where the copies' elements are
 * reused too little. */
static void pm_rt_rules_of(struct pm_rt_st *st)
{
	int row[PM_RT_NROLES];
	const int hide = st->p->pre_reuse < PM_RT_PRE_MIN_REUSE &&
		!pm_rt_pre_decode(st);

	if (hide)
		pm_rt_hide_pre(st, row, 1);
	pm_rt_grouped_rules(st);
	if (hide)
		pm_rt_widen_rule(st);
	if (hide)
		pm_rt_hide_pre(st, row, 0);
	else if (st->p->grouped)
		pm_rt_grouped_pre(st);
	else
		pm_rt_pre_rounds(st);
}

/* The row to launch without a workspace: one chunk, the small and medium
 * rules' own choice, the tail's split back to _persist (the launcher's
 * fallback). */
static int pm_rt_nows(const struct pm_rt_st *st)
{
	return pm_rt_resolve(st, st->small1, st->medium1, 1, st->persist ==
		PM_RT_PERSIST_SPLIT ? (st->tdp ? PM_RT_PERSIST : -1) :
		st->persist);
}

PM_RT_API int pm_rt_plan(const struct pm_rt_spec *f,
	const struct pm_rt_variant *v, int nv, const struct pm_rt_device *d,
	const struct pm_rt_problem *p, const struct pm_rt_force *force,
	struct pm_rt_choice *out)
{
	struct pm_rt_st st;
	int e = pm_rt_init(&st, f, v, nv, d, p), i;

	if (e != PM_RT_OK)
		return e;
	pm_rt_rules_of(&st);
	pm_rt_why(&st, &out->why);
	if (p->unaligned)
		return pm_rt_unaligned(&st, force, out);
	if (force && force->v >= 0)
		return pm_rt_forced(&st, force, nv, out);
	i = pm_rt_resolve(&st, st.small, st.medium, st.s, st.persist);
	pm_rt_fill_choice(&st, i, st.s, st.tdp, st.cl, out);
	out->v_nows = out->ws_bytes ? pm_rt_nows(&st) : out->v;
	/* a row reading the launcher's copies: the rules without such rows
	 * give the fallback */
	if (out->ws_bytes && (v[out->v_nows].flags & PM_RT_PRE)) {
		int row[PM_RT_NROLES];

		pm_rt_init(&st, f, v, nv, d, p);
		pm_rt_hide_pre(&st, row, 1);
		pm_rt_grouped_rules(&st);
		out->v_nows = pm_rt_nows(&st);
	}
	return PM_RT_OK;
}

PM_RT_API int pm_rt_no_workspace(const struct pm_rt_variant *v, int nv,
	const struct pm_rt_device *d, const struct pm_rt_problem *p,
	const struct pm_rt_spec *f, struct pm_rt_choice *c)
{
	struct pm_rt_st st;
	const int e = pm_rt_init(&st, f, v, nv, d, p);

	if (e != PM_RT_OK)
		return e;
	if (c->v_nows < 0 || c->v_nows >= nv)
		return PM_RT_EILLEGAL;
	pm_rt_fill_choice(&st, c->v_nows, 1, 0, 0, c);
	return PM_RT_OK;
}

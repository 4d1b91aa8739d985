/* The launch plan of a generated file (the host code of a kernel that can
 * split k: launch.c's split launcher).
 *
 * The launch plan (pm_plan_NAME): T output tiles, B = SMs x blocks per SM
 * of the kernel (occupancy API), kt = k tiles of each contraction.
 *   --split-k auto: s = min(B / T, kt / PM_MIN_KT) chunks when T < B
 *                   (with a small variant: only when T >= 4/5 of the SMs;
 *                   below, the small variant measured faster);
 *   --split-k N:    s = N;
 *   then s <= kt, chunks of whole k tiles, none empty (s shrinks until
 *   ceil(kt / ceil(kt / s)) == s for every contraction).
 *   Unsplit (s = 1) with a small variant and T < SMs: the small variant
 *   (its TMA twin when its own grid has 3/2 blocks per SM or more).
 *   Unsplit, T < B and a medium variant whose grid's wave efficiency
 *   t / (waves x blocks per wave) is at least 5/4 of this one's: the
 *   medium variant.
 *   With persistent variants (sm_90a, --persistent auto; PB = SMs x its
 *   blocks per SM): 3/5 SMs <= T <= SMs, or SMs / 2 < T with 16 k
 *   tiles of work or more (all contractions; --split-k auto): _persist,
 *   unsplit, before split-K, the small and the medium variant; T > B
 *   (not with a prologue through the MMA's registers): _persist_wide
 *   where its tile divides M and N and its grid fills its waves to 85 %,
 *   else _persist_tall where its tile divides M and N (N not the wide
 *   one's) on the same terms, else _persist where ceil(T / PB) PB <
 *   ceil(T / B) B. A persistent
 *   launch has min(T, PB) blocks, each looping over tiles.
 *   With the split persistent variant (--split-k auto): T < 3/5 SMs:
 *   _persist_split with s = min(PS / T, kt / PM_MIN_PKT) chunks (PS = SMs
 *   x its blocks per SM), min(T s, PS) blocks looping over the units
 *   (chunk, tile); s = 1: as without it. In clusters (not --cluster 1):
 *   the most chunks c, more than the workspace split makes (s after its
 *   half-SM rule below; at as many chunks the workspace measured 2-10 %
 *   faster), at most 8, of 16 k tiles of the unit's work
 *   or more (all contractions together) whose T clusters of c blocks the
 *   GPU holds at once and whose partials fit in the stages: p.cl = c, a
 *   cluster per tile, the chunks reduced through distributed shared
 *   memory, no workspace (_persist_split_cl; the other splits run
 *   _persist_split, which has no cluster code); the rule that the units fill half the SMs
 *   (else the small variant) counts a unit once per contraction there.
 *   T > PS, not chosen for the wide variant, R = T mod PS <= PS / 2, k
 *   tiles >= 16 (not with a prologue through the MMA's registers):
 *   _persist_split with the T - R tiles of the full waves whole (p.tdp)
 *   and the R of the tail in s = min(PS / R, kt / PM_MIN_TKT, 8) chunks.
 *   T > SMs, no split asked:
 *   _persist_mid (128x192 blocks, one per SM) where its T2 tiles fill
 *   their waves to 75 % or more and at least as well as the T tiles fill
 *   waves of SMs (T2 / (ceil(T2 / PM) PM) >= T / (ceil(T / SMs) SMs));
 *   this comes last and replaces the choices above; with an epilogue
 *   of several statements only where its tile divides M and N (no
 *   guards there: the ragged kernel spilled).
 *   With a prologue through the MMA's registers (ReLU+GEMM) instead of
 *   the rules for T > B and the mid rule: T > SMs: the variant of least
 *   modelled time (plan_ra; the target's ra_cost) among the big kernel,
 *   the medium one (T < B), _persist_wide and _persist_tall (their tile
 *   divides M and N; tall: 16 k tiles or more) and _persist_mid; no tail
 *   rule; T < 3/5 SMs: _persist_split from PM_SPLIT_KT_RA k tiles, chunks
 *   of PM_MIN_PKT_RA or more, where the units fill a quarter of the SMs,
 *   never in clusters.
 *   Last, any kernel, T > SMs, no split asked: _persist_sq (192x192
 *   blocks, one per SM) where the modelled time of the best other
 *   variant (rounds x blocks per SM x block area / rate; the target's
 *   sq_cost) is at least sq_cost.gain / 1000 of its own (plan_sq).
 *   Then, with a narrow variant (64x192 blocks, MMAs in flight), the
 *   unsplit _persist on T <= SMs: _persist_narrow where its grid is one
 *   wave too (plan_narrow).
 *   tests/test_plan runs the plans on the host.
 * Workspace (launch.c's entries): PM_CNT_BYTES of counters (one per tile,
 * T <= PM_CNT_BYTES / 4 when split), then [T][s] slots of (accumulators x
 * BM x BN) floats. */
#include <stdio.h>
#include <string.h>

#include "emit/print.h"
#include "target/target.h"

/* Fewest k tiles per chunk the automatic split makes (PKT: in the split
 * persistent kernel). */
#define PM_MIN_KT 4
#define PM_MIN_PKT 16
/* ... there with a prologue through the MMA's registers (its small
 * variant, without TMA, measured 1.1-1.4x slower than 2-4 chunks of 8-15
 * k tiles at 10-48 tiles), where there are PM_SPLIT_KT_RA k tiles or more
 * (at 22 and 24 the split measured 0-16 % slower; PERF.md, session 15) */
#define PM_MIN_PKT_RA 8
#define PM_SPLIT_KT_RA 28
/* ... in the tail of a grid of several waves */
#define PM_MIN_TKT 4
/* ... in clusters (fixup.c's reduction through shared memory): k tiles of
 * the unit's work, all contractions together */
#define PM_MIN_CKT 16

/* The workspace's counters: a fixed area in front of the slots, so that
 * one workspace serves launches of any size (each leaves its counters 0;
 * the slots' contents do not matter); a plan splits at most
 * PM_CNT_BYTES / 4 tiles. */
#define PM_CNT_BYTES 4096

/* static cudaError_t pm_device_NAME(int *sms, int occ[9]): the GPU's SMs
 * and the blocks per SM of the kernel, the medium, the persistent, the
 * wide, the split persistent, the tall, the mid, the sq and the narrow
 * variants (0: none), asked once per process. */
static void device_fn(struct pm_kernel *k, struct pm_strbuf *b)
{
	const char *name = k->scop->spec->name;

	pm_strbuf_printf(b, "\n/* The GPU's SMs and the kernels' blocks per SM "
		"(asked once per process): occ[0] the\n * big kernel's, [1] the "
		"medium, [2] the persistent, [3] the wide, [4] the split\n"
		" * persistent, [5] the tall, [6] the mid, [7] the sq and [8] the "
		"narrow\n * variant's (0: none).\n */\n"
		"static cudaError_t pm_device_%s(int *sms, int occ[9])\n{\n"
		"\tstatic int pm_sms, pm_occ[9];\n\tif "
		"(!pm_sms) {\n\t\tint dev, n, o;\n"
		"\t\tif (cudaGetDevice(&dev) != cudaSuccess || "
		"cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev)"
		" != cudaSuccess)\n\t\t\treturn cudaGetLastError();\n", name);
	{
		struct pm_kernel *v[9] = { k, k->var[PM_RT_MEDIUM], k->var[PM_RT_PERSIST],
			k->var[PM_RT_PERSIST_WIDE], k->var[PM_RT_PERSIST_SPLIT], k->var[PM_RT_PERSIST_TALL],
			k->var[PM_RT_PERSIST_MID], k->var[PM_RT_PERSIST_SQ], k->var[PM_RT_PERSIST_NARROW] };
		const char *suf[9] = { "", "_medium", "_persist",
			"_persist_wide", "_persist_split", "_persist_tall",
			"_persist_mid", "_persist_sq", "_persist_narrow" };

		for (int i = 0; i < 9; ++i) {
			if (!v[i])
				continue;
			pm_emit_occupancy(v[i], suf[i], b);
			pm_strbuf_printf(b, "\t\tpm_occ[%d] = o > 0 ? o : 1;\n", i);
		}
	}
	pm_strbuf_add(b, "\t\tpm_sms = n;\n\t}\n\t*sms = pm_sms;\n\tfor (int "
		"i = 0; i < 9; ++i)\n\t\tocc[i] = pm_occ[i];\n\treturn "
		"cudaSuccess;\n}\n");
}

/* static int pm_ncl_NAME(int s): how many clusters of s split persistent
 * blocks (one per SM) the GPU holds at once (0: none), asked once per s
 * and process. */
static void ncl_fn(struct pm_kernel *ps, struct pm_strbuf *b)
{
	const char *name = ps->scop->spec->name;

	pm_strbuf_printf(b, "\n/* Clusters of s split persistent blocks the GPU "
		"holds at once (0: none). */\nstatic int pm_ncl_%s(int s)\n{\n"
		"\tstatic int pm_n[9];\n\tif (s < 2 || s > 8)\n\t\treturn 0;\n"
		"\tif (!pm_n[s]) {\n\t\tint n = 0;\n", name);
	pm_emit_cluster_config(ps, b, "\t\t", "dim3((unsigned) s, 1, 1)",
		"(unsigned) s", 0);
	/* the kernel's shared memory above 48 KB allowed first (pm_device's
	 * occupancy asks do it for the other variants) */
	pm_strbuf_printf(b, "\t\tif (cudaFuncSetAttribute("
		"pm_kernel_%s_persist_split_cl, "
		"cudaFuncAttributeMaxDynamicSharedMemorySize, %ld) != "
		"cudaSuccess ||\n\t\t    cudaOccupancyMaxActiveClusters(&n, "
		"pm_kernel_%s_persist_split_cl, &pm_lc) != cudaSuccess) {\n"
		"\t\t\t(void) cudaGetLastError();\n\t\t\tn = 0;\n\t\t}\n"
		"\t\tpm_n[s] = n > 0 ? n : -1;\n\t}\n"
		"\treturn pm_n[s] > 0 ? pm_n[s] : 0;\n}\n", name,
		pm_emit_smem_bytes(ps, 0, NULL), name);
}

/* Split persistent units in clusters (p->cl = s): the tile's s chunks in
 * one cluster, reduced through distributed shared memory (fixup.c), no
 * workspace; where that gives more chunks than the workspace split (sw,
 * after its half-SM rule), every tile's cluster is resident at once and the
 * receive area (the peers' partials of a strip of the tile's rows: s - 1
 * of them, ceil(W / s) warps each) fits in the stages. */
static void plan_cluster(struct pm_kernel *ps, struct pm_strbuf *b)
{
	const struct pm_config *c = ps->cfg;
	long off[PM_MAX_BUFS + 1];
	long r = (long) (c->wm / c->mm) * (c->wn / c->mn) *
		(c->mm * c->mn / pm_config_unit(c));
	int w = pm_config_threads(c) / 32;
	int nacc = ps->acc_shared ? 1 : ps->ncon;

	pm_emit_smem_bytes(ps, 0, off);
	pm_strbuf_printf(b, "\tint64_t cl = 0;\n\tif (psplit) {\n"
		"\t\tint64_t c = (int64_t) sms * oc[4] / tiles;\n"
		"\t\tconst int64_t sw = tiles * s * 2 < (int64_t) sms ? 1 : s;"
		"\n\t\tfor (c = c < 8 ? c : 8; c >= 2 && c > sw && !cl; --c)\n"
		"\t\t\tif (pm_fit_%s(kt, c, %d, c) == c && (int64_t) %d * (c - "
		"1) * %ld * ((%d + c - 1) / c) * 128 <= %ld && tiles <= "
		"pm_ncl_%s((int) c))\n\t\t\t\tcl = c;\n"
		"\t\tif (cl)\n\t\t\ts = cl;\n\t}\n", ps->scop->spec->name,
		(PM_MIN_CKT + ps->ncon - 1) / ps->ncon, nacc, r, w,
		off[ps->nbufs], ps->scop->spec->name);
}

/* " && M % BM == 0 && N % BN == 0" into buf where kv is exact (built
 * without ragged guards: launched only where its tile divides M and N),
 * else "". */
static void exact_cond(const struct pm_kernel *kv, const char *d0,
	const char *d1, char *buf, size_t len)
{
	buf[0] = '\0';
	if (kv->exact)
		snprintf(buf, len, " && %s %% %d == 0 && %s %% %d == 0", d0,
			kv->cfg->bm, d1, kv->cfg->bn);
}

/* struct pm_plan_NAME and pm_plan_NAME(sizes, &p) (see the top). */
/* One candidate of plan_ra: variant v (the plan's persist value; 1: the
 * medium variant) of blocks kv, oc[occ_i] per SM, at rate per mille of the
 * big kernel's, where cond holds. */
static void ra_candidate(struct pm_kernel *kv, int v, int occ_i, int rate,
	const char *d0, const char *d1, const char *cond, const char *name,
	struct pm_strbuf *b)
{
	const struct pm_config *c = kv ? kv->cfg : NULL;

	if (!c || rate <= 0)
		return;
	pm_strbuf_printf(b, "\t\tif (oc[%d] > 0%s) {\n"
		"\t\t\tconst int64_t t2 = ((%s + %d - 1) / %d) * ((%s + %d - 1) "
		"/ %d);\n\t\t\tconst double c = pm_waves_%s(t2, (int64_t) sms "
		"* oc[%d]) * oc[%d] * %d.0 * 1000.0 / %d.0;\n"
		"\t\t\tif (c < best)\n\t\t\t\tbest = c, pick = %d;\n\t\t}\n",
		occ_i, cond, d0, c->bm, c->bm, d1, c->bn, c->bn, name, occ_i,
		occ_i, c->bm * c->bn, rate, v);
}

/* A prologue through the MMA's registers, grids of more than one tile
 * per SM: the variant of least modelled time (struct pm_ra_cost) among
 * the big kernel (two 128x128 blocks per SM), the medium one (on one
 * partial wave of big blocks) and the wide, tall (where their tile
 * divides M and N; tall: 16 k tiles or more) and mid persistent ones.
 * Fitted on 65 paper sizes (ReLU+GEMM, every variant forced, run131; 0.5 %
 * slower than the fastest variant in mean, against 3.1 % for the fill
 * rules before it), then checked with the benchmark (run132: tall blocks
 * no faster than two big ones per SM there; docs/PERF.md, session 15). */
static void plan_ra(struct pm_kernel *k, struct pm_strbuf *b,
	const char *d0, const char *d1)
{
	const struct pm_target *t = k->cfg->target;
	const int partial = t->ra_partial;
	const char *name = k->scop->spec->name;
	int ns = k->scop->nsplit;
	char cond[300], kt16[120] = "";

	for (int r = 0; r < ns && r < 8; ++r)
		snprintf(kt16 + strlen(kt16), sizeof(kt16) - strlen(kt16),
			"%skt[%d]", r ? " + " : "", r);
	pm_strbuf_printf(b, "\t/* a prologue through the MMA's registers, more "
		"than one tile per SM: the\n\t * variant of least modelled time "
		"(waves, a partial one counted %d.%d + %d.%d x\n\t * its fill, x "
		"blocks per SM x block area / measured rate; PERF.md) */\n"
		"\tif (tiles > (int64_t) sms && p->s == 1) {\n"
		"\t\tdouble best = pm_waves_%s(tiles, (int64_t) sms * occ) * occ * "
		"%d.0;\n\t\tint pick = 0;\n\n", partial / 100 / 10,
		partial / 100 % 10, (1000 - partial) / 100 / 10,
		(1000 - partial) / 100 % 10, name, k->cfg->bm * k->cfg->bn);
	/* the medium blocks on one partial wave of the big ones only (on
	 * several, three medium blocks per SM ran 20 % slower; run131) */
	if (k->var[PM_RT_MEDIUM])
		ra_candidate(k->var[PM_RT_MEDIUM], 1, 1, pm_target_variant(t, PM_RT_MEDIUM)->rate, d0, d1,
			" && tiles < (int64_t) sms * occ", name, b);
	for (int i = 0; i < 3; ++i) {
		struct pm_kernel *kv = i == 0 ? k->var[PM_RT_PERSIST_WIDE] : i == 1 ?
			k->var[PM_RT_PERSIST_TALL] : k->var[PM_RT_PERSIST_MID];
		const int v = i == 0 ? 2 : i == 1 ? 4 : 5;
		const int oi = i == 0 ? 3 : i == 1 ? 5 : 6;
		const int rate = i == 0 ? pm_target_variant(t, PM_RT_PERSIST_WIDE)->rate : i == 1 ? pm_target_variant(t, PM_RT_PERSIST_TALL)->rate : pm_target_variant(t, PM_RT_PERSIST_MID)->rate;

		if (!kv)
			continue;
		exact_cond(kv, d0, d1, cond, sizeof(cond));
		/* tall blocks under 16 k tiles measured 4-18 % slower than
		 * two big ones per SM (run131) */
		if (i == 1)
			snprintf(cond + strlen(cond), sizeof(cond) - strlen(cond),
				" && %s >= 16", kt16);
		ra_candidate(kv, v, oi, rate, d0, d1, cond, name, b);
	}
	pm_strbuf_add(b, "\t\tp->small = 0;\n"
		"\t\tp->medium = p->medium1 = pick == 1;\n"
		"\t\tp->persist = pick > 1 ? pick : 0;\n"
		"\t\tp->tdp = 0;\n\t\tif (pick > 1)\n\t\t\tp->pblocks = "
		"(int64_t) sms * oc[pick == 2 ? 3 : pick == 4 ? 5 : 6];\n\t}\n");
}

/* Declarations of the modelled time (var c) of c's blocks, oc[occ_i] per
 * SM, at rate per mille: rounds of its grid (t tiles, bl at once) x
 * blocks per SM x block area x 1000 / rate. */
static void rounds_cost(struct pm_strbuf *b, const char *ind, const char *t,
	const char *bl, const char *cv, const struct pm_config *c, int occ_i,
	int rate, const char *d0, const char *d1)
{
	pm_strbuf_printf(b, "%sconst int64_t %s = ((%s + %d - 1) / %d) * "
		"((%s + %d - 1) / %d), %s = (int64_t) sms * oc[%d];\n"
		"%sconst double %s = (double) ((%s + %s - 1) / %s) * oc[%d] * "
		"%d.0 * 1000.0 / %d.0;\n", ind, t, d0, c->bm, c->bm, d1, c->bn,
		c->bn, bl, occ_i, ind, cv, t, bl, bl, occ_i, c->bm * c->bn, rate);
}

/* One term of plan_sq: the modelled time of variant kv (oc[occ_i] blocks
 * per SM) at rate per mille, as the best so far where it is less and
 * kv's tile divides M and N when kv is exact. */
static void sq_term(struct pm_kernel *kv, int occ_i, int rate,
	const char *d0, const char *d1, struct pm_strbuf *b)
{
	char ex[160];

	if (!kv || rate <= 0)
		return;
	exact_cond(kv, d0, d1, ex, sizeof(ex));
	pm_strbuf_printf(b, "\t\tif (oc[%d] > 0%s) {\n", occ_i, ex);
	rounds_cost(b, "\t\t\t", "t2", "b2", "c", kv->cfg, occ_i, rate, d0,
		d1);
	pm_strbuf_add(b, "\t\t\tif (c < best)\n\t\t\t\tbest = c;\n\t\t}\n");
}

/* Grids of more than one wave of single blocks per SM, any kernel: the sq
 * variant (192x192 blocks, one per SM) where the modelled time of the
 * best of the others (rounds of blocks x blocks per SM x block area /
 * rate: the big kernel, the 128x128 persistent one, the mid, wide and
 * tall ones) is at least gain per mille of its own (struct pm_sq_cost;
 * measured: GEMM 13-32 % faster at the 3 paper grids the model picks,
 * 1-30 % slower at most others; docs/PERF.md, session 16). Comes last. */
static void plan_sq(struct pm_kernel *k, struct pm_strbuf *b,
	const char *d0, const char *d1)
{
	const struct pm_target *t = k->cfg->target;
	char ex[160];

	exact_cond(k->var[PM_RT_PERSIST_SQ], d0, d1, ex, sizeof(ex));
	pm_strbuf_printf(b, "\t/* 192x192 blocks where they run the grid in "
		"fewer rounds (modelled time\n\t * of the best other variant "
		"at least %d/1000 of theirs; PERF.md) */\n"
		"\tif (oc[7] > 0 && tiles > (int64_t) sms%s) {\n"
		"\t\tconst int64_t b1 = (int64_t) sms * occ;\n"
		"\t\tdouble best = (double) ((tiles + b1 - 1) / b1) * occ * "
		"%d.0;\n", t->sq_gain, ex, k->cfg->bm * k->cfg->bn);
	sq_term(k->var[PM_RT_PERSIST], 2, 1000, d0, d1, b);
	sq_term(k->var[PM_RT_PERSIST_MID], 6, pm_target_variant(t, PM_RT_PERSIST_MID)->rate, d0, d1, b);
	sq_term(k->var[PM_RT_PERSIST_WIDE], 3, pm_target_variant(t, PM_RT_PERSIST_WIDE)->rate, d0, d1, b);
	sq_term(k->var[PM_RT_PERSIST_TALL], 5, pm_target_variant(t, PM_RT_PERSIST_TALL)->rate, d0, d1, b);
	rounds_cost(b, "\t\t", "t3", "b3", "c3", k->var[PM_RT_PERSIST_SQ]->cfg, 7,
		pm_target_variant(t, PM_RT_PERSIST_SQ)->rate, d0, d1);
	pm_strbuf_printf(b, "\t\tif (best * 1000.0 >= c3 * %d.0) {\n"
		"\t\t\tp->persist = 6, p->pblocks = b3, p->tdp = 0, p->s = 1;\n"
		"\t\t\tp->small = p->medium = p->medium1 = 0;\n"
		"\t\t\tfor (int r = 0; r < %d; ++r)\n"
		"\t\t\t\tp->kc[r] = kt[r] * %d;\n"
		"\t\t\tp->cnt_bytes = 0, p->bytes = 0;\n\t\t}\n\t}\n",
		t->sq_gain, k->scop->nsplit, k->cfg->bk);
}

/* One wave of the 128x128 persistent kernel, unsplit (pfew), whose
 * grid of narrow blocks (64x192, one per SM, one consumer warpgroup with
 * one k tile of MMAs in flight) is one wave too: the narrow variant (its
 * 3/4 the area at ~0.83 of the per-SM rate; measured 5-7 % faster at the
 * 7 paper grids it takes, GEMM, where the split or the small variant run
 * it lost 2-23 %; docs/PERF.md, session 17). */
static void plan_narrow(struct pm_kernel *k, struct pm_strbuf *b,
	const char *d0, const char *d1)
{
	const struct pm_config *n = k->var[PM_RT_PERSIST_NARROW]->cfg;
	char ex[160];

	exact_cond(k->var[PM_RT_PERSIST_NARROW], d0, d1, ex, sizeof(ex));
	pm_strbuf_printf(b, "\t/* one wave of 128x128 blocks, unsplit, that "
		"%dx%d blocks run in one wave too */\n"
		"\tif (oc[8] > 0 && p->persist == 1 && p->s == 1 && !p->tdp && "
		"tiles <= (int64_t) sms%s) {\n"
		"\t\tconst int64_t t2 = ((%s + %d - 1) / %d) * ((%s + %d - 1) / "
		"%d), b2 = (int64_t) sms * oc[8];\n"
		"\t\tif (t2 <= b2)\n\t\t\tp->persist = 7, p->pblocks = b2;\n"
		"\t}\n", n->bm, n->bn, ex, d0, n->bm, n->bm, d1, n->bn, n->bn);
}

static void plan_fn(struct pm_kernel *k, struct pm_kernel *small,
	struct pm_strbuf *b)
{
	const struct pm_config *c = k->cfg;
	const char *name = k->scop->spec->name;
	int ns = k->scop->nsplit, nacc = k->acc_shared ? 1 : k->ncon;
	int order[64];
	char d0[64], d1[64], half[400] = "";
	/* a prologue through the MMA's registers: its own rules */
	const int ra = k->var[PM_RT_PERSIST] && pm_kernel_pro_regs(k->var[PM_RT_PERSIST]);
	const int ra_model = ra && c->split_k <= 1 &&
		c->target->ra_partial > 0;

	pm_scop_dim_str(k->scop, k->con[0].out, 0, d0, sizeof(d0));
	pm_scop_dim_str(k->scop, k->con[0].out, 1, d1, sizeof(d1));
	pm_strbuf_printf(b, "\n/* The most chunks, at most s and max_s, of at "
		"least min_kt k tiles each, in\n * which every contraction's k "
		"tiles split into whole chunks, none empty\n * (at least 1). */"
		"\nstatic int64_t pm_fit_%s(const int64_t *kt, int64_t s, int64_t "
		"min_kt, int64_t max_s)\n{\n\tif (s > max_s)\n\t\ts = max_s;\n"
		"\tfor (int r = 0; r < %d; ++r)\n\t\tif (s > kt[r] / min_kt)\n"
		"\t\t\ts = kt[r] / min_kt;\n\tif (s < 1)\n\t\ts = 1;\n"
		"\tfor (int again = 1; again && s > 1;) {\n\t\tagain = 0;\n"
		"\t\tfor (int r = 0; r < %d; ++r) {\n"
		"\t\t\tconst int64_t ch = (kt[r] + s - 1) / s, s2 = (kt[r] + ch - "
		"1) / ch;\n\t\t\tif (s2 < s)\n\t\t\t\ts = s2, again = 1;\n"
		"\t\t}\n\t}\n\treturn s;\n}\n", name, ns, ns);
	if (ra_model)
		pm_strbuf_printf(b, "\n/* Waves of t tiles on slots blocks at "
			"once, a partial last one counted\n * %d/1000 + its fill x "
			"%d/1000. */\nstatic double pm_waves_%s(int64_t t, int64_t "
			"slots)\n{\n\tconst int64_t f = t / slots, r = t %% slots;"
			"\n\n\treturn (double) f + (r ? (%d.0 + %d.0 * (double) r / "
			"(double) slots) / 1000.0 : 0.0);\n}\n",
			c->target->ra_partial, 1000 - c->target->ra_partial,
			name, c->target->ra_partial,
			1000 - c->target->ra_partial);
	pm_strbuf_printf(b, "\n/* The launch plan: s chunks of k (kc elements "
		"each), the workspace, the small variant. */\nstruct pm_plan_%s "
		"{\n\tint s, small, small1, medium, medium1, persist, sms, cl;\n"
		"\tint64_t pblocks, tdp, kc[%d];\n\tsize_t cnt_bytes, bytes;\n};\n\n"
		"static cudaError_t pm_plan_%s(", name, ns, name);
	pm_emit_size_list(k, b, 1);
	pm_strbuf_printf(b, "%sstruct pm_plan_%s *p)\n{\n\tint sms, oc[9];\n"
		"\tconst cudaError_t e = pm_device_%s(&sms, oc);\n"
		"\tconst int occ = oc[0], occm = oc[1];\n\t(void) occm;\n"
		"\tconst int64_t tiles = ((%s + %d - 1) / %d) * ((%s + %d - 1) / "
		"%d);\n", pm_emit_size_order(k, order) ? ", " : "",
		name, name, d0, c->bm, c->bm, d1, c->bn, c->bn);
	pm_strbuf_printf(b, "\tconst int64_t kt[%d] = { ", ns);
	for (int r = 0; r < ns; ++r)
		pm_strbuf_printf(b, "%s(int64_t) (%s) / %d", r ? ", " : "",
			k->scop->split_ext[r], c->bk);
	pm_strbuf_add(b, " };\n\tint64_t s = 1;\n\n\tif (e != cudaSuccess)\n"
		"\t\treturn e;\n");
	if (c->split_k > 1)
		pm_strbuf_printf(b, "\ts = %d;\n", c->split_k);
	else
		pm_strbuf_printf(b, "\tif (tiles < (int64_t) sms * occ)\n"
			"\t\ts = (int64_t) sms * occ / tiles;\n"

			"\tfor (int r = 0; r < %d; ++r)\n"
			"\t\tif (s > kt[r] / %d)\n\t\t\ts = kt[r] / %d;\n%s",
			ns, PM_MIN_KT, PM_MIN_KT, small ?
			"\t/* below 4/5 of a block per SM the small variant "
			"measured faster */\n\tif (tiles * 5 < (int64_t) sms * 4)"
			"\n\t\ts = 1;\n" : "");
	/* 3/5 to 1 block per SM: one persistent block per SM (its producer
	 * warp and 4 stages), no split (measured 1.2-2x faster there than
	 * split-K, whose fp32 partial tiles cost more than they save, and
	 * than the small variant); from 1/2 with 16 k tiles or more of work
	 * (too many tiles for clusters of 2 chunks: measured 5-12 % faster
	 * than the small variant at 69-72 tiles, 12 % slower at 4 k tiles;
	 * docs/PERF.md) */
	if (k->var[PM_RT_PERSIST] && c->split_k <= 1) {
		pm_strbuf_add(b, "\tconst int pfew = oc[2] > 0 && tiles <= sms && "
			"(tiles * 5 >= (int64_t) sms * 3 ||\n\t    (tiles * 2 > "
			"(int64_t) sms && ");
		for (int r = 0; r < ns; ++r)
			pm_strbuf_printf(b, "%skt[%d]", r ? " + " : "", r);
		pm_strbuf_add(b, " >= 16));\n\tif (pfew)\n\t\ts = 1;\n");
	}
	/* under 3/5 tile per SM: split-K in the persistent kernel, one
	 * chunk of a tile per block (the tile's blocks reduce-scatter their
	 * partials; PERF.md) */
	if (k->var[PM_RT_PERSIST_SPLIT] && ra) {
		pm_strbuf_add(b, "\tconst int psplit = oc[4] > 0 && tiles * 5 < "
			"(int64_t) sms * 3 && ");
		for (int r = 0; r < ns; ++r)
			pm_strbuf_printf(b, "%skt[%d]", r ? " + " : "", r);
		pm_strbuf_printf(b, " >= %d;\n", PM_SPLIT_KT_RA);
	} else if (k->var[PM_RT_PERSIST_SPLIT])
		pm_strbuf_add(b, "\tconst int psplit = oc[4] > 0 && tiles * "
			"5 < (int64_t) sms * 3;\n");
	if (k->var[PM_RT_PERSIST_SPLIT])
		pm_strbuf_printf(b, "\tif (psplit)\n"
			"\t\ts = pm_fit_%s(kt, (int64_t) sms * oc[4] / tiles, %d, "
			"%d);\n", name, ra ? PM_MIN_PKT_RA : PM_MIN_PKT,
			pm_config_threads(k->var[PM_RT_PERSIST_SPLIT]->cfg) / 32);
	/* under 3/5 tile per SM, in clusters (fixup.c): the most chunks, more
	 * than the split's above after its half-SM rule (at as many chunks
	 * the workspace measured 2-10 % faster since session 10's fixup
	 * barrier; PERF.md, session 12), of PM_MIN_CKT k tiles or more, whose
	 * clusters are all resident at once and whose partials fit in the
	 * stages (plan_cluster) */
	if (k->var[PM_RT_PERSIST_SPLIT_CL])
		plan_cluster(k->var[PM_RT_PERSIST_SPLIT_CL], b);
	else
		pm_strbuf_add(b, "\tconst int64_t cl = 0;\n");
	/* the split persistent kernel where its units fill half the SMs or
	 * more (fewer: the small variant's 4x more blocks measured faster);
	 * in clusters, counting a unit of Add(GEMM, GEMM) twice (its two
	 * contractions' chunks: measured 7-36 % faster at 40-96 units,
	 * GEMM's 3-26 % slower at 20-60; PERF.md) */
	if (k->var[PM_RT_PERSIST_SPLIT])
		snprintf(half, sizeof(half), "\t/* the split persistent kernel "
			"where its units (in clusters: x contractions) fill\n"
			"\t * half the SMs or more (fewer: the small variant's 4x "
			"more blocks measured\n\t * faster; PERF.md) */\n"
			"\tif (psplit && tiles * s * (cl ? %d : 1) * %d < (int64_t) "
			"sms)\n\t\ts = 1;\n", k->var[PM_RT_PERSIST_SPLIT]->ncon, ra ? 4 : 2);
	/* the counters' fixed area: at most PM_CNT_BYTES / 4 split tiles */
	pm_strbuf_printf(b, "\tif (tiles > %d)\n\t\ts = 1;\n", PM_CNT_BYTES / 4);
	pm_strbuf_printf(b, "\t/* chunks of whole k tiles, none empty */\n"
		"\ts = pm_fit_%s(kt, s, 1, s);\n%s\tp->s = (int) s;\n"
		"\tp->sms = sms;\n"
		"\tfor (int r = 0; r < %d; ++r)\n"
		"\t\tp->kc[r] = (kt[r] + s - 1) / s * %d;\n"
		"\tp->cnt_bytes = s > 1 ? %d : 0;\n\tp->bytes = s > 1 ? "
		"p->cnt_bytes + (size_t) tiles * (size_t) s * %ld : 0;\n"
		"\tp->small1 = %s%s;\n\tp->small = s == 1 && "
		"p->small1;\n",
		name, half, ns, c->bk, PM_CNT_BYTES, (long) nacc * c->bm * c->bn * 4,
		small ? "tiles < sms" : "0", small && k->var[PM_RT_PERSIST] &&
		c->split_k <= 1 ? " && !pfew" : "");
	/* the medium variant, for a big grid of one partial wave: when its
	 * grid's wave efficiency t / (waves x blocks per wave) is at least
	 * 5/4 of the big kernel's (measured: 5-11 % faster there; 5-18 %
	 * slower on grids of several waves, where three medium blocks per
	 * SM run less efficiently than two big ones; docs/PERF.md) */
	pm_strbuf_add(b, "\tp->medium1 = 0;\n");
	if (k->var[PM_RT_MEDIUM]) {
		const struct pm_config *m = k->var[PM_RT_MEDIUM]->cfg;

		pm_strbuf_printf(b, "\tif (occm > 0 && !p->small1 && tiles < "
			"(int64_t) sms * occ%s) {\n"
			"\t\tconst int64_t t2 = ((%s + %d - 1) / %d) * ((%s + %d - "
			"1) / %d);\n\t\tconst int64_t b1 = (int64_t) sms * occ, b2 = "
			"(int64_t) sms * occm;\n\t\tconst int64_t w1 = (tiles + b1 - "
			"1) / b1, w2 = (t2 + b2 - 1) / b2;\n"
			"\t\tp->medium1 = t2 * w1 * b1 * 4 > tiles * w2 * b2 * 5;\n"
			"\t}\n", k->var[PM_RT_PERSIST] && c->split_k <= 1 ? " && !pfew" : "",
			d0, m->bm, m->bm, d1, m->bn, m->bn);
	}
	pm_strbuf_add(b, "\tp->medium = s == 1 && p->medium1;\n");
	/* the persistent variant, for grids of more than one wave: there
	 * its producer warp and its loop over tiles (the epilogue of one
	 * overlapping the copies of the next) measured faster; on one wave
	 * the big kernel, two blocks per SM, was (docs/PERF.md) */
	pm_strbuf_add(b, "\tp->persist = 0;\n");
	if (k->var[PM_RT_PERSIST_SPLIT])
		pm_strbuf_add(b, "\tif (psplit && s > 1)\n\t\tp->persist = 3, "
			"p->pblocks = (int64_t) sms * oc[4];\n");
	if (k->var[PM_RT_PERSIST]) {
		if (c->split_k <= 1)
			pm_strbuf_add(b, "\tif (pfew)\n\t\tp->persist = 1, "
				"p->pblocks = (int64_t) sms * oc[2];\n");
	}
	/* grids of several waves; with a prologue through the MMA's
	 * registers the wide and tall blocks only (their producer warpgroup
	 * gives its registers to the consumers: 8-15 % faster there than two
	 * 128x128 blocks per SM; the 128x128 persistent kernel measured 6 %
	 * slower: the ldmatrix latency shows with 8 warps per SM; PERF.md) */
	if (k->var[PM_RT_PERSIST] && !ra_model && (!ra ||
	    k->var[PM_RT_PERSIST_WIDE] || k->var[PM_RT_PERSIST_TALL])) {
		const struct pm_config *w = k->var[PM_RT_PERSIST_WIDE] ?
			k->var[PM_RT_PERSIST_WIDE]->cfg : NULL;
		const struct pm_config *t = k->var[PM_RT_PERSIST_TALL] ?
			k->var[PM_RT_PERSIST_TALL]->cfg : NULL;

		pm_strbuf_add(b, "\tif (oc[2] > 0 && tiles > (int64_t) sms * "
			"occ) {\n\t\tconst int64_t b1 = (int64_t) sms * occ, bp = "
			"(int64_t) sms * oc[2];\n\t\t(void) b1;\n\t\t(void) bp;\n");
		/* the wide blocks where they divide N and fill their waves to
		 * 85 % (smem traffic per flop lower; measured 3-12 % faster
		 * there, slower on poorly filled waves). With a register
		 * prologue, whose alternative is two 128x128 blocks per SM (a
		 * partial wave of them runs its lone blocks faster), to 70 % at
		 * k of 16 tiles or more (measured 3-15 % faster from 72 %, 7-14 %
		 * slower under 67 %; PERF.md) */
		const char *fill = pm_kernel_pro_regs(k->var[PM_RT_PERSIST]) ?
			"(kt[0] >= 16 ? 70 : 85)" : "85";

		if (w)
			pm_strbuf_printf(b, "\t\tif (oc[3] > 0 && %s %% %d == 0 "
				"&& %s %% %d == 0) {\n\t\t\tconst int64_t t2 = (%s / "
				"%d) * (%s / %d), bw = (int64_t) sms * oc[3];\n"
				"\t\t\tif (t2 * 100 >= %s * ((t2 + bw - 1) / bw) * "
				"bw)\n\t\t\t\tp->persist = 2, p->pblocks = bw;\n"
				"\t\t}\n", d0, w->bm, d1, w->bn, d0, w->bm, d1, w->bn,
				fill);
		/* else the tall blocks where they divide M, on the same terms
		 * (their copies a third fewer per flop than 128x128 blocks';
		 * measured 8-13 % faster on full waves; PERF.md) */
		if (t)
			pm_strbuf_printf(b, "\t\tif (!p->persist && oc[5] > 0 && "
				"%s %% %d == 0 && %s %% %d == 0) {\n\t\t\tconst "
				"int64_t t2 = (%s / %d) * (%s / %d), bw = (int64_t) "
				"sms * oc[5];\n\t\t\tif (t2 * 100 >= %s * ((t2 + "
				"bw - 1) / bw) * bw)\n\t\t\t\tp->persist = 4, "
				"p->pblocks = bw;\n\t\t}\n", d0, t->bm, d1, t->bn,
				d0, t->bm, d1, t->bn, fill);
		/* 128x128: where one block per SM looping over tiles fills the
		 * waves better than two per SM do */
		if (!pm_kernel_pro_regs(k->var[PM_RT_PERSIST]))
			pm_strbuf_add(b, "\t\tif (!p->persist && (tiles + bp - 1) "
				"/ bp * bp < (tiles + b1 - 1) / b1 * b1)\n\t\t\t"
				"p->persist = 1, p->pblocks = bp;\n");
		pm_strbuf_add(b, "\t}\n");
	}
	/* several waves of the 128x128 persistent kernel whose last is at
	 * most half full: the split kernel runs the full waves' tiles whole
	 * and splits the tail's (chunks of 4 k tiles or more, at most 8; k
	 * of 16 tiles or more: a shorter tile saves less than the fixup
	 * costs; PERF.md) */
	pm_strbuf_add(b, "\tp->tdp = 0;\n");
	if (k->var[PM_RT_PERSIST_SPLIT] && c->split_k <= 1 &&
	    !pm_kernel_pro_regs(k->var[PM_RT_PERSIST_SPLIT])) {
		pm_strbuf_printf(b, "\tif (oc[4] > 0 && p->persist != 2 && "
			"p->persist != 4 && tiles "
			"> (int64_t) sms * oc[4]) {\n"
			"\t\tconst int64_t pb = (int64_t) sms * oc[4], rt = tiles "
			"%% pb;\n\t\tint64_t s3 = rt > 0 && 2 * rt <= pb ? pm_fit_%s("
			"kt, pb / rt, %d, %d) : 1;\n"
			"\t\tfor (int r = 0; r < %d; ++r)\n"
			"\t\t\tif (kt[r] < 16)\n\t\t\t\ts3 = 1;\n"
			"\t\tif (s3 > 1) {\n"
			"\t\t\tp->persist = 3, p->pblocks = pb, p->tdp = tiles - rt, "
			"p->s = (int) s3;\n"
			"\t\t\tfor (int r = 0; r < %d; ++r)\n"
			"\t\t\t\tp->kc[r] = (kt[r] + s3 - 1) / s3 * %d;\n"
			"\t\t\tp->cnt_bytes = %d;\n"
			"\t\t\tp->bytes = p->cnt_bytes + (size_t) rt * (size_t) s3 "
			"* %ld;\n\t\t}\n\t}\n", name, PM_MIN_TKT,
			pm_config_threads(k->var[PM_RT_PERSIST_SPLIT]->cfg) / 32, ns, ns,
			c->bk, PM_CNT_BYTES,
			(long) nacc * c->bm * c->bn * 4);
	}
	/* grids of more than one wave of single blocks per SM: the mid
	 * variant's 128x192 blocks (a third fewer copies per flop than
	 * 128x128) where their grid fills its waves to 75 % or more and at
	 * least as well as the 128x128 grid (GEMM measured 1-19 % faster
	 * there, 4 % in geomean over 34 of the 66 paper grids of more than
	 * one wave, up to 36 % slower where its last wave is half empty;
	 * ReLU+GEMM, its prologue through the registers, 10-24 % faster at
	 * 8 such sizes; docs/PERF.md, session 14) */
	if (k->var[PM_RT_PERSIST_MID] && c->split_k <= 1 && !ra_model) {
		const struct pm_config *m = k->var[PM_RT_PERSIST_MID]->cfg;

		char ex[160];

		/* an exact variant (api/pipeline.c) only where its tile
		 * divides M and N */
		exact_cond(k->var[PM_RT_PERSIST_MID], d0, d1, ex, sizeof(ex));
		pm_strbuf_printf(b, "\tif (oc[6] > 0 && tiles > (int64_t) sms%s) {"
			"\n\t\tconst int64_t t2 = ((%s + %d - 1) / %d) * ((%s + %d "
			"- 1) / %d), b2 = (int64_t) sms * oc[6];\n"
			"\t\tconst int64_t w1 = (tiles + sms - 1) / sms, w2 = (t2 + "
			"b2 - 1) / b2;\n"
			"\t\tif (t2 * 100 >= 75 * w2 * b2 && t2 * w1 * sms >= tiles "
			"* w2 * b2) {\n"
			"\t\t\tp->persist = 5, p->pblocks = b2, p->tdp = 0, p->s = 1;\n"
			"\t\t\tp->small = p->medium = 0;\n"
			"\t\t\tfor (int r = 0; r < %d; ++r)\n"
			"\t\t\t\tp->kc[r] = kt[r] * %d;\n"
			"\t\t\tp->cnt_bytes = 0, p->bytes = 0;\n\t\t}\n\t}\n",
			ex, d0, m->bm, m->bm, d1, m->bn, m->bn, ns, c->bk);
	}
	if (ra_model)
		plan_ra(k, b, d0, d1);
	if (k->var[PM_RT_PERSIST_SQ] && c->split_k <= 1 && c->target->sq_gain > 0)
		plan_sq(k, b, d0, d1);
	if (k->var[PM_RT_PERSIST_NARROW] && c->split_k <= 1)
		plan_narrow(k, b, d0, d1);
	pm_strbuf_add(b, "\tp->cl = p->persist == 3 && !p->tdp && p->s > 1 && "
		"p->s == cl ? (int) cl : 0;\n\tif (p->cl)\n\t\tp->cnt_bytes = 0, p->bytes = 0;\n"
		"\treturn cudaSuccess;\n}\n");
}


void pm_emit_plan(struct pm_kernel *k, struct pm_kernel *small,
	struct pm_strbuf *b)
{
	device_fn(k, b);
	if (k->var[PM_RT_PERSIST_SPLIT_CL])
		ncl_fn(k->var[PM_RT_PERSIST_SPLIT_CL], b);
	plan_fn(k, small, b);
}

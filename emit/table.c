/* A generated file's variant table and launch plan: the rows of its
 * kernels for runtime/plan.c, which the file embeds.
 *
 *   static const struct pm_rt_variant pm_variants_NAME[] = { row... };
 *   static const void *const pm_kernels_NAME[] = { kernel... };
 *   static const struct pm_rt_spec pm_spec_NAME = { ... };
 *   pm_device_NAME(&d)            SMs and each row's blocks per SM (once)
 *   pm_plan_NAME(sizes, &c, nows) the choice (POLYMMA_VARIANT forces a row)
 *
 * One row per kernel of the variant set in the target table's order (the
 * exact "_x" twins are the rows' PM_RT_TWIN flags); the row index is the
 * index into pm_kernels_NAME and the device's occ[]. */
#include <stdio.h>
#include <string.h>

#include "emit/batch.h"
#include "emit/group.h"
#include "emit/pre.h"
#include "emit/table.h"
#include "target/embedded.h"
#include "variant/variant.h"

/* The rate of role r's blocks in t's cost models (0: none). */
static int rate(const struct pm_target *t, enum pm_rt_role r)
{
	const struct pm_variant_desc *d = pm_target_variant(t, r);

	return d ? d->rate : 0;
}

/* The row of kernel k in role r. */
static void row(const struct pm_kernel *k, enum pm_rt_role r,
	const char *suffix, struct pm_rt_variant *v)
{
	const struct pm_config *c = k->cfg;
	long off[PM_MAX_BUFS + 1];

	memset(v, 0, sizeof(*v));
	v->suffix = suffix;
	v->role = r;
	v->bm = c->bm, v->bn = c->bn, v->bk = c->bk;
	v->threads = pm_kernel_threads(k);
	v->smem = pm_kernel_smem_bytes((struct pm_kernel *) k, 0, off);
	v->flags = (k->exact ? PM_RT_EXACT : 0) | (k->twin ? PM_RT_TWIN : 0) |
		(pm_kernel_pro_regs(k) ? PM_RT_PRO_REGS : 0) |
		(c->swap ? PM_RT_SWAP : 0) | (k->last ? PM_RT_LAST : 0) |
		(pm_emit_pres(k) ? PM_RT_PRE : 0) |
		(pm_kernel_conv_regs(k) ? PM_RT_CONV_REGS : 0);
	if (r == PM_RT_PERSIST_SPLIT || r == PM_RT_PERSIST_SPLIT_CL ||
	    r == PM_RT_PERSIST_SKINNY || r == PM_RT_PERSIST_SWAP ||
	    r == PM_RT_PERSIST_SWAP32 || r == PM_RT_PERSIST_SWAP64)
		v->cwarps = pm_config_threads(c) / 32;
	/* a cluster's receive area: one warp's strip of one peer's partials
	 * (accumulators x registers x 32 lanes x 4 bytes) in the stages */
	if (r == PM_RT_PERSIST_SPLIT_CL) {
		long regs = (long) (c->wm / c->mm) * (c->wn / c->mn) *
			(c->mm * c->mn / pm_config_unit(c));

		v->cl_warp_bytes = (k->acc_shared ? 1 : k->ncon) * regs * 128;
		v->cl_room = off[k->nbufs];
	}
}

int pm_emit_rt_table(const struct pm_variant_set *vs,
	struct pm_rt_variant *rows, const struct pm_kernel **kern,
	struct pm_rt_spec *spec)
{
	const struct pm_target *t = vs->target;
	const struct pm_kernel *m = vs->main;
	int n = 0;

	for (int i = 0; i < t->nvariants && n < PM_RT_MAX_VARIANTS; ++i) {
		const struct pm_variant *v = &vs->v[t->variants[i].role];

		if (!v->k)
			continue;
		row(v->k, v->desc->role, v->desc->suffix, &rows[n]);
		if (kern)
			kern[n] = v->k;
		n++;
	}
	memset(spec, 0, sizeof(*spec));
	/* no split: the k extents do not matter to the plan (one k tile) */
	spec->nk = m->scop->nsplit ? m->scop->nsplit : 1;
	spec->ncon = m->ncon;
	spec->nacc = m->acc_shared ? 1 : m->ncon;
	spec->split_k = m->cfg->split_k;
	spec->ra.partial = t->ra_partial;
	spec->ra.medium = rate(t, PM_RT_MEDIUM);
	spec->ra.wide = rate(t, PM_RT_PERSIST_WIDE);
	spec->ra.tall = rate(t, PM_RT_PERSIST_TALL);
	spec->ra.mid = rate(t, PM_RT_PERSIST_MID);
	spec->sq.gain = t->sq_gain;
	spec->sq.mid = spec->ra.mid;
	spec->sq.wide = spec->ra.wide;
	spec->sq.tall = spec->ra.tall;
	spec->sq.sq = rate(t, PM_RT_PERSIST_SQ);
	/* measured with float accumulators; i32 ones ran mid up to 8 %
	 * slower than wide (docs/decisions/0066) */
	if (t->big_mid_rate > 0 && !m->cfg->int_acc) {
		spec->big.wide = spec->ra.wide;
		spec->big.tall = spec->ra.tall;
		spec->big.mid = t->big_mid_rate;
		spec->big.sq = spec->sq.sq;
	}
	return n;
}

static const char *const role_names[PM_RT_NROLES] = {
	"PM_RT_BASE", "PM_RT_SPLIT", "PM_RT_SMALL", "PM_RT_SMALL_TMA",
	"PM_RT_MEDIUM", "PM_RT_PERSIST", "PM_RT_PERSIST_WIDE",
	"PM_RT_PERSIST_TALL", "PM_RT_PERSIST_MID", "PM_RT_PERSIST_SQ",
	"PM_RT_PERSIST_NARROW", "PM_RT_PERSIST_SLIM", "PM_RT_PERSIST_SPLIT",
	"PM_RT_PERSIST_SPLIT_CL", "PM_RT_PERSIST_SKINNY", "PM_RT_PERSIST_SWAP", "PM_RT_PERSIST_SWAP32",
	"PM_RT_PERSIST_SWAP64", "PM_RT_UNALIGNED",
};

/* runtime/plan.h, plan_rules.h, plan_big.h, plan_decode.h and plan.c,
 * once per translation unit. */
static void runtime_text(struct pm_strbuf *b)
{
	pm_strbuf_add(b, "\n/* The launch plan (polymma runtime/plan.h, "
		"plan.c). */\n#ifndef PM_RT_API\n#define PM_RT_API static "
		"inline\n#endif\n");
	pm_strbuf_add(b, pm_embed_plan_h);
	pm_strbuf_add(b, "#ifndef PM_RT_PLAN_C\n#define PM_RT_PLAN_C\n");
	pm_strbuf_add(b, pm_embed_plan_rules_h);
	pm_strbuf_add(b, pm_embed_plan_big_h);
	pm_strbuf_add(b, pm_embed_plan_decode_h);
	pm_strbuf_add(b, pm_embed_plan_c);
	pm_strbuf_add(b, "#endif\n");
}

/* The rows, the kernels and the spec. */
static void tables(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	const char *name = vs->main->scop->spec->name;
	int n = pm_emit_rt_table(vs, rows, NULL, &f);

	pm_strbuf_printf(b, "\n/* This file's kernels, one row each (suffix, "
		"role, block tile, threads,\n * dynamic shared memory, flags, "
		"split units); the _x twins are flags. */\nstatic const struct "
		"pm_rt_variant pm_variants_%s[] = {\n", name);
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, "\t{ \"%s\", %s, %d, %d, %d, %d, %ld, %uu, "
			"%d, %ld, %ld },\n", rows[i].suffix,
			role_names[rows[i].role], rows[i].bm, rows[i].bn,
			rows[i].bk, rows[i].threads, rows[i].smem, rows[i].flags,
			rows[i].cwarps, rows[i].cl_warp_bytes, rows[i].cl_room);
	pm_strbuf_printf(b, "};\n#define PM_NV_%s %d\n\nstatic const void *const "
		"pm_kernels_%s[] = {\n", name, n, name);
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, "\t(const void *) pm_kernel_%s%s,\n", name,
			rows[i].suffix);
	pm_strbuf_printf(b, "};\n\n/* their exact twins (0: none) */\n"
		"static const void *const pm_kernels_x_%s[] = {\n", name);
	for (int i = 0; i < n; ++i)
		if (rows[i].flags & PM_RT_TWIN)
			pm_strbuf_printf(b, "\t(const void *) pm_kernel_%s%s_x,\n",
				name, rows[i].suffix);
		else
			pm_strbuf_add(b, "\t0,\n");
	pm_strbuf_printf(b, "};\n\n/* contractions' k extents, contractions, "
		"accumulators, split-K (0 auto),\n * the cost models (per "
		"mille) */\nstatic const struct pm_rt_spec pm_spec_%s = { %d, "
		"%d, %d, %d,\n\t{ %d, %d, %d, %d, %d }, { %d, %d, %d, %d, %d },"
		"\n\t{ %d, %d, %d, %d } };\n", name, f.nk, f.ncon, f.nacc,
		f.split_k, f.ra.partial, f.ra.medium, f.ra.wide, f.ra.tall,
		f.ra.mid, f.sq.gain, f.sq.mid, f.sq.wide, f.sq.tall, f.sq.sq,
		f.big.wide, f.big.tall, f.big.mid, f.big.sq);
}

/* static int pm_clusters_NAME(void *ctx, int s): clusters of s blocks of
 * the _split_cl kernel (one per SM) the GPU holds at once (0: none), asked
 * once per s and process. */
static void clusters_fn(const struct pm_kernel *ps, struct pm_strbuf *b)
{
	const char *name = ps->scop->spec->name;

	pm_strbuf_printf(b, "\n/* Clusters of s split persistent blocks the GPU "
		"holds at once (0: none). */\nstatic int pm_clusters_%s(void "
		"*ctx, int s)\n{\n\tstatic int pm_n[9];\n\t(void) ctx;\n"
		"\tif (s < 2 || s > 8)\n\t\treturn 0;\n\tif (!pm_n[s]) {\n"
		"\t\tint n = 0;\n", name);
	pm_emit_cluster_config((struct pm_kernel *) ps, b, "\t\t",
		"dim3((unsigned) s, 1, 1)", "(unsigned) s", 0);
	pm_strbuf_printf(b, "\t\tif (cudaFuncSetAttribute("
		"pm_kernel_%s_persist_split_cl, "
		"cudaFuncAttributeMaxDynamicSharedMemorySize, %ld) != "
		"cudaSuccess ||\n\t\t    cudaOccupancyMaxActiveClusters(&n, "
		"pm_kernel_%s_persist_split_cl, &pm_lc) != cudaSuccess) {\n"
		"\t\t\t(void) cudaGetLastError();\n\t\t\tn = 0;\n\t\t}\n"
		"\t\tpm_n[s] = n > 0 ? n : -1;\n\t}\n"
		"\treturn pm_n[s] > 0 ? pm_n[s] : 0;\n}\n", name,
		pm_kernel_smem_bytes((struct pm_kernel *) ps, 0, NULL), name);
}

/* static cudaError_t pm_device_NAME(struct pm_rt_device *d): the GPU's
 * SMs and every row's blocks per SM (0 stored as 1), asked once per
 * process. */
static void device_fn(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	const char *name = vs->main->scop->spec->name;
	const struct pm_kernel *cl = vs->v[PM_RT_PERSIST_SPLIT_CL].k;

	if (cl)
		clusters_fn(cl, b);
	pm_strbuf_printf(b, "\n/* The GPU's SMs and each kernel's blocks per SM, "
		"asked once per process. */\nstatic cudaError_t pm_device_%s("
		"struct pm_rt_device *d)\n{\n\tstatic struct pm_rt_device pm_d;\n"
		"\tif (!pm_d.sms) {\n\t\tstruct pm_rt_device t;\n\t\tint dev, n, "
		"o;\n\n\t\tmemset(&t, 0, sizeof(t));\n"
		"\t\tif (cudaGetDevice(&dev) != cudaSuccess || "
		"cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev)"
		" != cudaSuccess)\n\t\t\treturn cudaGetLastError();\n"
		"\t\tfor (int i = 0; i < PM_NV_%s; ++i) {\n"
		"\t\t\tconst struct pm_rt_variant *v = &pm_variants_%s[i];\n\n"
		"\t\t\tif (v->smem > 48 * 1024 && cudaFuncSetAttribute("
		"pm_kernels_%s[i], cudaFuncAttributeMaxDynamicSharedMemorySize, "
		"(int) v->smem) != cudaSuccess)\n\t\t\t\treturn "
		"cudaGetLastError();\n\t\t\tif (cudaOccupancyMaxActiveBlocksPer"
		"Multiprocessor(&o, pm_kernels_%s[i], v->threads, (size_t) "
		"v->smem) != cudaSuccess)\n\t\t\t\treturn cudaGetLastError();\n"
		"\t\t\tt.occ[i] = o > 0 ? o : 1;\n\t\t}\n\t\tt.clusters = %s%s;\n"
		"\t\tt.sms = n;\n\t\tpm_d = t;\n\t}\n\t*d = pm_d;\n\treturn "
		"cudaSuccess;\n}\n", name, name, name, name, name,
		cl ? "pm_clusters_" : "0", cl ? name : "");
}

/* problem.mis (docs/decisions/0053-misaligned-pitch.md): the first
 * contraction's A and B rows not whole 32-byte sectors: their last
 * dimension's extent of elements, a K-major copy's rounded up to 16
 * (runtime/device/kcopy.cuh pm_kc_pitch, docs/decisions/0033). */
static void mis_lines(const struct pm_kernel *k, struct pm_strbuf *b)
{
	for (int o = 0; o < 2; ++o) {
		const int t = o ? k->con[0].b : k->con[0].a;
		const struct pm_tensor *x = &k->scop->spec->tensors[t];
		const struct pm_elem *e = pm_elem_storage(x->type);
		char d[64];

		pm_scop_dim_str(k->scop, t, x->rank - 1, d, sizeof(d));
		pm_strbuf_printf(b, "\tp.mis |= pm_rt_pitch_mis(%s(int64_t) (%s)"
			"%s, %d) << %d;\n", x->kcopy ? "(" : "", d, x->kcopy ?
			" + 15) / 16 * 16" : "", e ? e->bytes : 0, o);
	}
}

/* static cudaError_t pm_plan_NAME(sizes, struct pm_rt_choice *c, int
 * nows[, int unaligned]): the plan at these sizes (nows: without a
 * workspace; unaligned: the problem needs the _unaligned row), the row
 * POLYMMA_VARIANT names where it is set. */
static void plan_fn(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	struct pm_kernel *k = vs->main;
	const char *name = k->scop->spec->name;
	char d0[64], d1[64];
	int order[64], ua = !!k->var[PM_RT_UNALIGNED];

	pm_scop_dim_str(k->scop, k->con[0].out, 0, d0, sizeof(d0));
	pm_scop_dim_str(k->scop, k->con[0].out, 1, d1, sizeof(d1));
	pm_strbuf_printf(b, "\n/* The launch at these sizes (nows: without a "
		"workspace); POLYMMA_VARIANT=<suffix>[,s=N]\n * forces a kernel "
		"(an error where it cannot run them). */\nstatic cudaError_t "
		"pm_plan_%s(", name);
	pm_emit_size_list(k, b, 1);
	pm_strbuf_printf(b, "%sstruct pm_rt_choice *c, int nows%s)\n{\n"
		"\tstruct pm_rt_device d;\n\tstruct pm_rt_problem p;\n"
		"\tstruct pm_rt_force f;\n\tcudaError_t e = pm_device_%s(&d);\n\n"
		"\tif (e != cudaSuccess)\n\t\treturn e;\n"
		"\tif (pm_rt_parse_force(getenv(\"POLYMMA_VARIANT\"), "
		"pm_variants_%s, PM_NV_%s, &f) != PM_RT_OK)\n\t\treturn "
		"cudaErrorInvalidValue;\n\tmemset(&p, 0, sizeof(p));\n"
		"\tp.m = %s;\n\tp.n = %s;\n", pm_emit_size_order(k, order) ? ", " : "",
		ua ? ", int unaligned" : "", name, name, name, d0, d1);
	/* docs/decisions/0046-narrow-copies.md: the launcher's checks */
	if (ua)
		pm_strbuf_add(b, "\tp.unaligned = unaligned;\n");
	mis_lines(k, b);
	for (int r = 0; r < k->scop->nsplit; ++r)
		pm_strbuf_printf(b, "\tp.k[%d] = %s;\n", r, k->scop->split_ext[r]);
	if (!k->scop->nsplit)
		pm_strbuf_printf(b, "\tp.k[0] = %d;\n", k->cfg->bk);
	/* grouped: the plan weighs the tiles of all T rows, about the
	 * units' (emit/group.h), not E times them, and knows E, the groups
	 * (docs/decisions/0051, 0055) */
	if (pm_emit_grouped(k)) {
		char e[64];

		pm_scop_dim_str(k->scop, k->scop->spec->group_offs, 0, e,
			sizeof(e));
		pm_strbuf_printf(b, "\tp.grouped = (int) (%s);\n", e);
	}
	if (pm_emit_batched(k) && !pm_emit_grouped(k)) {
		char nb[256];

		pm_emit_batch_count(k, nb, sizeof(nb));
		pm_strbuf_printf(b, "\tp.batch = %s;\n", nb);
	}
	pm_emit_pre_plan(vs, b);
	pm_strbuf_printf(b, "\tif (pm_rt_plan(&pm_spec_%s, pm_variants_%s, "
		"PM_NV_%s, &d, &p, &f, c) != PM_RT_OK ||\n\t    (nows && c->ws_bytes"
		" && pm_rt_no_workspace(pm_variants_%s, PM_NV_%s, &d, &p, "
		"&pm_spec_%s, c) != PM_RT_OK))\n\t\treturn cudaErrorInvalidValue;"
		"\n\treturn cudaSuccess;\n}\n", name, name, name, name, name, name);
}

/* static cudaError_t pm_attrs_NAME(void): every kernel's (and twin's)
 * shared memory above 48 KB allowed, once per device (a driver call of
 * ~0.6 us: not on every launch; docs/decisions/0023-launcher-host-costs.md). */
static void attrs_fn(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	const char *name = vs->main->scop->spec->name;

	pm_strbuf_printf(b, "\n/* Each kernel's shared memory above 48 KB "
		"allowed, once per device. */\nstatic cudaError_t pm_attrs_%s("
		"void)\n{\n\tstatic int pm_set[64];\n\tint dev = -1;\n\n"
		"\tif (cudaGetDevice(&dev) != cudaSuccess)\n\t\treturn "
		"cudaGetLastError();\n\tif (dev >= 0 && dev < 64 && pm_set[dev])"
		"\n\t\treturn cudaSuccess;\n\tfor (int i = 0; i < PM_NV_%s; "
		"++i) {\n\t\tconst int s = (int) pm_variants_%s[i].smem;\n\n"
		"\t\tif (s <= 48 * 1024)\n\t\t\tcontinue;\n\t\tif ("
		"cudaFuncSetAttribute(pm_kernels_%s[i], "
		"cudaFuncAttributeMaxDynamicSharedMemorySize, s) != cudaSuccess"
		" ||\n\t\t    (pm_kernels_x_%s[i] && cudaFuncSetAttribute("
		"pm_kernels_x_%s[i], cudaFuncAttributeMaxDynamicSharedMemorySize,"
		" s) != cudaSuccess))\n\t\t\treturn cudaGetLastError();\n"
		"\t}\n\tif (dev >= 0 && dev < 64)\n\t\tpm_set[dev] = 1;\n"
		"\treturn cudaSuccess;\n}\n", name, name, name, name, name,
		name);
}

void pm_emit_plan(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	runtime_text(b);
	tables(vs, b);
	device_fn(vs, b);
	attrs_fn(vs, b);
	plan_fn(vs, b);
}

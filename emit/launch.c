/* The host entry points of a generated file.
 *
 *   NAME(tensors, sizes, stream)
 *       checks the sizes and alignments, then launches; when the launch
 *       splits k it takes a stream-ordered workspace (cudaMallocAsync,
 *       counters zeroed, cudaFreeAsync after the kernel).
 *   NAME_ws(tensors, sizes, workspace, workspace_bytes, stream)
 *       the same with the caller's workspace (zero-filled before its first
 *       use; every launch leaves it so); too small or NULL: no split.
 *   NAME_workspace_size(sizes)
 *       the bytes NAME_ws would use (0: it does not split these sizes).
 * The last two exist when the kernel can split k (scop->nsplit > 0).
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
 *   blocks per SM): 3/5 SMs <= T <= SMs (--split-k auto): _persist,
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
 *   the most chunks c >= s, at most 8, of 16 k tiles of the unit's work
 *   or more (all contractions together) whose T clusters of c blocks the
 *   GPU holds at once and whose partials fit in the stages: p.cl = c, a
 *   cluster per tile, the chunks reduced through distributed shared
 *   memory, no workspace; the half-SM rule below counts a unit once per
 *   contraction there. T > PS, not chosen for the wide
 *   variant, R = T mod PS <= PS / 2, k tiles >= 16 (not with a prologue
 *   through the MMA's registers): _persist_split with the T - R tiles of
 *   the full waves whole (p.tdp) and the R of the tail in s = min(PS / R,
 *   kt / PM_MIN_TKT, 8) chunks.
 * Every launch is a 1-D grid of tiles (file.c maps block x to its tile in
 * raster order); sm_90a kernels with TMA copies get one tensor map per
 * copied operand.
 * Workspace: PM_CNT_BYTES of counters (one per tile, T <= PM_CNT_BYTES /
 * 4 when split), then [T][s] slots of (accumulators x BM x BN) floats.
 * The plain entry keeps one workspace per device and stream (pm_ws_get). */
#include <stdio.h>
#include <string.h>

#include "emit/print.h"
#include "emit/target.h"

/* Fewest k tiles per chunk the automatic split makes (PKT: in the split
 * persistent kernel). */
#define PM_MIN_KT 4
#define PM_MIN_PKT 16
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

static int nsizes(struct pm_kernel *k)
{
	int order[64];

	return pm_emit_size_order(k, order);
}

/* "(const __half *) A, ..." the tensors as the kernel takes them. */
static void tensor_args(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int r = 0, first = 1; r < 2; ++r)
		for (int t = 0; t < spec->ntensors; ++t) {
			if (spec->tensors[t].role != (r ? PM_OUTPUT : PM_INPUT))
				continue;
			pm_strbuf_printf(b, "%s(%s%s *) %s", first ? "" : ", ",
				r ? "" : "const ", pm_emit_ctype(k, t, 0),
				spec->tensors[t].name);
			first = 0;
		}
}

/* "A, B, C, M, N, K" the entry points' own arguments, for forwarding. */
static void entry_args(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);
	int first = 1;

	for (int r = 0; r < 2; ++r)
		for (int t = 0; t < spec->ntensors; ++t) {
			if (spec->tensors[t].role != (r ? PM_OUTPUT : PM_INPUT))
				continue;
			pm_strbuf_printf(b, "%s%s", first ? "" : ", ",
				spec->tensors[t].name);
			first = 0;
		}
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, ", %s", spec->syms[order[i]].name);
}

/* "int64_t M, int64_t N" (decl 1, or 2: "void" when none) / "M, N". */
static void size_list(struct pm_kernel *k, struct pm_strbuf *b, int decl)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, "%s%s%s", i ? ", " : "", decl ? "int64_t " :
			"", spec->syms[order[i]].name);
	if (!n && decl == 2)
		pm_strbuf_add(b, "void");
}

/* TMA: the tensor map of each buffer copied by boxes, pm_tm<i>: the
 * tensor (row-major, rows x cols) read in boxes of the tile's rows and up
 * to 64 columns with the swizzle of the tile's rows (sm90.cuh); a B tile
 * of one box that a cluster of two copies by halves: half its rows. */
static void tma_maps(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind)
{
	for (int i = 0; i < k->nbufs; ++i) {
		const struct pm_buffer *buf = &k->bufs[i];
		const char *name = k->scop->spec->tensors[buf->tensor].name;
		long w = pm_emit_box_cols(buf);
		char d0[64], d1[64];

		if (!buf->tma)
			continue;
		pm_scop_dim_str(k->scop, buf->tensor, 0, d0, sizeof(d0));
		pm_scop_dim_str(k->scop, buf->tensor, 1, d1, sizeof(d1));
		pm_strbuf_printf(b, "%sCUtensorMap pm_tm%d;\n%sif (pm_tma_map_2d("
			"&pm_tm%d, %s, %s, %s, %s, %ld, %ld, %ld) != cudaSuccess)"
			"\n%s\treturn cudaErrorInvalidValue;\n", ind, i, ind, i,
			name, d0, d1, d1, buf->size[0] /
			(pm_emit_mc_rows(k, i) ? 2 : 1), w, 2 * w, ind);
	}
}

/* A cluster of two (pm_emit_mc): "dim3 grid" of 2 min(pairs, pblocks / 2,
 * the clusters resident at once) blocks; the last asked once per process
 * (the occupancy API), so that one round of clusters runs every block. */
static void mc_grid(struct pm_kernel *k, const char *suffix,
	struct pm_strbuf *b, const char *ind, const char *pblocks, long smem)
{
	const struct pm_config *c = k->cfg;
	char d0[64], d1[64];

	pm_scop_dim_str(k->scop, k->con[0].out, 0, d0, sizeof(d0));
	pm_scop_dim_str(k->scop, k->con[0].out, 1, d1, sizeof(d1));
	pm_strbuf_printf(b, "%sstatic int pm_nc%s;\n%sif (!pm_nc%s) {\n"
		"%s\tcudaLaunchConfig_t pm_lc = {};\n%s\tint pm_n = 0;\n"
		"%s\tpm_lc.gridDim = dim3(2, 1, 1);\n%s\tpm_lc.blockDim = "
		"dim3(%d, 1, 1);\n%s\tpm_lc.dynamicSmemBytes = %ld;\n"
		"%s\tif (cudaOccupancyMaxActiveClusters(&pm_n, pm_kernel_%s%s, "
		"&pm_lc) != cudaSuccess || pm_n < 1) {\n%s\t\t(void) "
		"cudaGetLastError();\n%s\t\tpm_n = 1 << 30;\n%s\t}\n"
		"%s\tpm_nc%s = pm_n;\n%s}\n", ind, suffix, ind, suffix, ind,
		ind, ind, ind, pm_emit_threads(k), ind, smem, ind,
		k->scop->spec->name, suffix, ind, ind, ind, ind, suffix, ind);
	pm_strbuf_printf(b, "%sint64_t pm_g = (int64_t) ((%s + %d - 1) / %d) * "
		"((((%s + %d - 1) / %d) + 1) / 2);\n%sif (pm_g > (int64_t) (%s) / "
		"2)\n%s\tpm_g = (int64_t) (%s) / 2;\n%sif (pm_g > pm_nc%s)\n"
		"%s\tpm_g = pm_nc%s;\n%sif (pm_g < 1)\n%s\tpm_g = 1;\n"
		"%sdim3 grid((unsigned) (2 * pm_g), 1);\n", ind, d1, c->bn,
		c->bn, d0, c->bm, c->bm, ind, pblocks, ind, pblocks, ind, suffix,
		ind, suffix, ind, ind, ind);
}

/* The launch of kernel pm_kernel_<name><suffix>: one block per output
 * tile in x (file.c maps it to the tile), split: the plan p's chunks in z
 * and its workspace. */
static void launch(struct pm_kernel *k, const char *suffix,
	struct pm_strbuf *b, const char *ind, const char *pblocks)
{
	const struct pm_spec *spec = k->scop->spec;
	const struct pm_config *c = k->cfg;
	int order[64], ns = pm_emit_size_order(k, order);
	long smem = pm_emit_smem_bytes(k, 0, NULL);
	char d0[64], d1[64], n[256], nu[400];
	struct pm_strbuf args;

	pm_scop_dim_str(k->scop, k->con[0].out, 0, d0, sizeof(d0));
	pm_scop_dim_str(k->scop, k->con[0].out, 1, d1, sizeof(d1));
	snprintf(n, sizeof(n), "(int64_t) ((%s + %d - 1) / %d) * ((%s + %d - 1) "
		"/ %d)", d0, c->bm, c->bm, d1, c->bn, c->bn);
	pm_strbuf_printf(b, "%sif (%s > 2147483647)\n%s\treturn "
		"cudaErrorInvalidValue;\n", ind, n, ind);
	/* persistent (k->ws): at most pblocks blocks, looping over tiles */
	/* split: p.tdp whole tiles, then p.s units per tile of the tail */
	snprintf(nu, sizeof(nu), "(p.tdp + (%s - p.tdp) * p.s)", n);
	/* before a cluster's occupancy is asked */
	if (smem > 48 * 1024)
		pm_strbuf_printf(b, "%sif (cudaFuncSetAttribute(pm_kernel_%s%s, "
			"cudaFuncAttributeMaxDynamicSharedMemorySize, %ld) != "
			"cudaSuccess)\n%s\treturn cudaGetLastError();\n", ind,
			spec->name, suffix, smem, ind);
	if (pm_emit_mc(k))
		mc_grid(k, suffix, b, ind, pblocks, smem);
	else if (k->ws)
		pm_strbuf_printf(b, "%sdim3 grid((unsigned) (%s < (int64_t) (%s) "
			"? %s : (int64_t) (%s)), 1);\n", ind,
			k->scop->nsplit ? nu : n, pblocks,
			k->scop->nsplit ? nu : n, pblocks);
	else
		pm_strbuf_printf(b, "%sdim3 grid((unsigned) (%s), 1%s);\n", ind,
			n, k->scop->nsplit ? ", (unsigned) p.s" : "");
	tma_maps(k, b, ind);
	pm_strbuf_init(&args);
	tensor_args(k, &args);
	for (int i = 0; i < ns; ++i)
		pm_strbuf_printf(&args, ", (int) %s", spec->syms[order[i]].name);
	if (k->scop->nsplit) {
		pm_strbuf_add(&args, ", p.s > 1 && workspace ? (float *) ((char *) "
			"workspace + p.cnt_bytes) : (float *) 0, (unsigned *) "
			"workspace");
		for (int r = 0; r < k->scop->nsplit; ++r)
			pm_strbuf_printf(&args, ", (int) p.kc[%d]", r);
		if (k->ws)
			pm_strbuf_add(&args, ", (unsigned) p.tdp");
		if (pm_emit_dsm(k))
			pm_strbuf_add(&args, ", (int) p.cl");
	}
	for (int i = 0; i < k->nbufs; ++i)
		if (k->bufs[i].tma)
			pm_strbuf_printf(&args, ", pm_tm%d", i);
	/* clusters of p.cl blocks, the chunks of a tile (fixup.c) */
	if (pm_emit_dsm(k))
		pm_strbuf_printf(b, "%sif (p.cl > 1) {\n"
			"%s\tcudaLaunchConfig_t pm_lc = {};\n"
			"%s\tcudaLaunchAttribute pm_la[1];\n"
			"%s\tpm_lc.gridDim = grid;\n"
			"%s\tpm_lc.blockDim = dim3(%d, 1, 1);\n"
			"%s\tpm_lc.dynamicSmemBytes = %ld;\n"
			"%s\tpm_lc.stream = stream;\n"
			"%s\tpm_la[0].id = cudaLaunchAttributeClusterDimension;\n"
			"%s\tpm_la[0].val.clusterDim.x = (unsigned) p.cl;\n"
			"%s\tpm_la[0].val.clusterDim.y = 1;\n"
			"%s\tpm_la[0].val.clusterDim.z = 1;\n"
			"%s\tpm_lc.attrs = pm_la;\n%s\tpm_lc.numAttrs = 1;\n"
			"%s\treturn cudaLaunchKernelEx(&pm_lc, pm_kernel_%s%s, %s);\n"
			"%s}\n", ind, ind, ind, ind, ind, pm_emit_threads(k), ind,
			smem, ind, ind, ind, ind, ind, ind, ind, ind, spec->name,
			suffix, args.s ? args.s : "", ind);
	pm_strbuf_printf(b, "%spm_kernel_%s%s<<<grid, %d, %ld, stream>>>(%s);\n"
		"%sreturn cudaGetLastError();\n", ind, spec->name, suffix,
		pm_emit_threads(k), smem, args.s ? args.s : "", ind);
	if (args.failed)
		b->failed = 1;
	pm_strbuf_free(&args);
}

/* The small variant: its twin with TMA copies (small->small_tma) when its
 * grid has 3/2 blocks per SM or more, else the cp.async one (TMA's longer
 * latency measured slower on grids below; docs/PERF.md). sms: the C
 * expression of the device's SM count. */
static void launch_small(struct pm_kernel *small, struct pm_strbuf *b,
	const char *sms)
{
	const struct pm_config *c = small->cfg;
	char d0[64], d1[64];

	if (small->small_tma) {
		pm_scop_dim_str(small->scop, small->con[0].out, 0, d0,
			sizeof(d0));
		pm_scop_dim_str(small->scop, small->con[0].out, 1, d1,
			sizeof(d1));
		pm_strbuf_printf(b, "\t\tif (2 * (int64_t) ((%s + %d - 1) / %d) "
			"* ((%s + %d - 1) / %d) >= 3 * (int64_t) %s) {\n", d0,
			c->bm, c->bm, d1, c->bn, c->bn, sms);
		launch(small->small_tma, "_small_tma", b, "\t\t\t", NULL);
		pm_strbuf_add(b, "\t\t}\n");
	}
	launch(small, "_small", b, "\t\t", NULL);
}

/* Size and alignment checks (k's tiles: the small variant's divide them);
 * sizes only when ptrs is 0. */
static void checks(struct pm_kernel *k, struct pm_strbuf *b, int ptrs,
	const char *fail)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);

	for (int i = 0; i < n; ++i) {
		const char *s = spec->syms[order[i]].name;
		pm_strbuf_printf(b, "\tif (%s < 1 || %s > 0x7fffffff || %s %% %d)"
			"\n\t\treturn %s;\n", s, s, s,
			pm_kernel_size_multiple(k, order[i]), fail);
	}
	if (!ptrs)
		return;
	for (int t = 0; t < spec->ntensors; ++t)
		if (t == k->con[0].a || t == k->con[0].b || t == k->con[0].out ||
		    t == k->con[k->ncon - 1].a || t == k->con[k->ncon - 1].b)
			pm_strbuf_printf(b, "\tif ((uintptr_t) %s %% 16)\n\t\t"
				"return cudaErrorMisalignedAddress;\n",
				spec->tensors[t].name);
}

/* "Blocks per SM of pm_kernel_NAME<suffix> into o" (occupancy API). */
static void occupancy(struct pm_kernel *k, const char *suffix,
	struct pm_strbuf *b)
{
	const char *name = k->scop->spec->name;
	long smem = pm_emit_smem_bytes(k, 0, NULL);

	if (smem > 48 * 1024)
		pm_strbuf_printf(b, "\t\tif (cudaFuncSetAttribute(pm_kernel_%s%s, "
			"cudaFuncAttributeMaxDynamicSharedMemorySize, %ld) != "
			"cudaSuccess)\n\t\t\treturn cudaGetLastError();\n", name,
			suffix, smem);
	pm_strbuf_printf(b, "\t\tif (cudaOccupancyMaxActiveBlocksPerMultiprocessor"
		"(&o, pm_kernel_%s%s, %d, %ld) != cudaSuccess)\n\t\t\treturn "
		"cudaGetLastError();\n", name, suffix,
		pm_emit_threads(k), smem);
}

/* static cudaError_t pm_device_NAME(int *sms, int occ[6]): the GPU's SMs
 * and the blocks per SM of the kernel, the medium, the persistent, the
 * wide, the split persistent and the tall variants (0: none), asked once
 * per process. */
static void device_fn(struct pm_kernel *k, struct pm_strbuf *b)
{
	const char *name = k->scop->spec->name;

	pm_strbuf_printf(b, "\n/* The GPU's SMs and the kernels' blocks per SM "
		"(asked once per process): occ[0] the\n * big kernel's, [1] the "
		"medium, [2] the persistent, [3] the wide, [4] the split\n"
		" * persistent and [5] the tall variant's (0: none). */\n"
		"static cudaError_t pm_device_%s(int *sms, int occ[6])\n{\n"
		"\tstatic int pm_sms, pm_occ[6];\n\tif "
		"(!pm_sms) {\n\t\tint dev, n, o;\n"
		"\t\tif (cudaGetDevice(&dev) != cudaSuccess || "
		"cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev)"
		" != cudaSuccess)\n\t\t\treturn cudaGetLastError();\n", name);
	{
		struct pm_kernel *v[6] = { k, k->medium, k->persist,
			k->persist_wide, k->persist_split, k->persist_tall };
		const char *suf[6] = { "", "_medium", "_persist",
			"_persist_wide", "_persist_split", "_persist_tall" };

		for (int i = 0; i < 6; ++i) {
			if (!v[i])
				continue;
			occupancy(v[i], suf[i], b);
			pm_strbuf_printf(b, "\t\tpm_occ[%d] = o > 0 ? o : 1;\n", i);
		}
	}
	pm_strbuf_add(b, "\t\tpm_sms = n;\n\t}\n\t*sms = pm_sms;\n\tfor (int "
		"i = 0; i < 6; ++i)\n\t\tocc[i] = pm_occ[i];\n\treturn "
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
		"\tif (!pm_n[s]) {\n\t\tcudaLaunchConfig_t pm_lc = {};\n"
		"\t\tcudaLaunchAttribute pm_la[1];\n\t\tint n = 0;\n"
		"\t\tpm_lc.gridDim = dim3((unsigned) s, 1, 1);\n"
		"\t\tpm_lc.blockDim = dim3(%d, 1, 1);\n"
		"\t\tpm_lc.dynamicSmemBytes = %ld;\n"
		"\t\tpm_la[0].id = cudaLaunchAttributeClusterDimension;\n"
		"\t\tpm_la[0].val.clusterDim.x = (unsigned) s;\n"
		"\t\tpm_la[0].val.clusterDim.y = 1;\n"
		"\t\tpm_la[0].val.clusterDim.z = 1;\n"
		"\t\tpm_lc.attrs = pm_la;\n\t\tpm_lc.numAttrs = 1;\n"
		"\t\tif (cudaOccupancyMaxActiveClusters(&n, "
		"pm_kernel_%s_persist_split, &pm_lc) != cudaSuccess) {\n"
		"\t\t\t(void) cudaGetLastError();\n\t\t\tn = 0;\n\t\t}\n"
		"\t\tpm_n[s] = n > 0 ? n : -1;\n\t}\n"
		"\treturn pm_n[s] > 0 ? pm_n[s] : 0;\n}\n", name, pm_emit_threads(ps),
		pm_emit_smem_bytes(ps, 0, NULL), name);
}

/* Split persistent units in clusters (p->cl = s): the tile's s chunks in
 * one cluster, reduced through distributed shared memory (fixup.c), no
 * workspace; where every tile's cluster is resident at once and the
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
		"\t\tfor (c = c < 8 ? c : 8; c >= 2 && c >= s && !cl; --c)\n"
		"\t\t\tif (pm_fit_%s(kt, c, %d, c) == c && (int64_t) %d * (c - "
		"1) * %ld * ((%d + c - 1) / c) * 128 <= %ld && tiles <= "
		"pm_ncl_%s((int) c))\n\t\t\t\tcl = c;\n"
		"\t\tif (cl)\n\t\t\ts = cl;\n\t}\n", ps->scop->spec->name,
		(PM_MIN_CKT + ps->ncon - 1) / ps->ncon, nacc, r, w,
		off[ps->nbufs], ps->scop->spec->name);
}

/* struct pm_plan_NAME and pm_plan_NAME(sizes, &p) (see the top). */
static void plan_fn(struct pm_kernel *k, struct pm_kernel *small,
	struct pm_strbuf *b)
{
	const struct pm_config *c = k->cfg;
	const char *name = k->scop->spec->name;
	int ns = k->scop->nsplit, nacc = k->acc_shared ? 1 : k->ncon;
	char d0[64], d1[64], half[400] = "";

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
	pm_strbuf_printf(b, "\n/* The launch plan: s chunks of k (kc elements "
		"each), the workspace, the small variant. */\nstruct pm_plan_%s "
		"{\n\tint s, small, small1, medium, medium1, persist, sms, cl;\n"
		"\tint64_t pblocks, tdp, kc[%d];\n"
		"\tsize_t cnt_bytes, bytes;\n};\n\nstatic cudaError_t pm_plan_%s(", name, ns, name);
	size_list(k, b, 1);
	pm_strbuf_printf(b, "%sstruct pm_plan_%s *p)\n{\n\tint sms, oc[6];\n"
		"\tconst cudaError_t e = pm_device_%s(&sms, oc);\n"
		"\tconst int occ = oc[0], occm = oc[1];\n\t(void) occm;\n"
		"\tconst int64_t tiles = ((%s + %d - 1) / %d) * ((%s + %d - 1) / "
		"%d);\n", nsizes(k) ? ", " : "",
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
	 * than the small variant; docs/PERF.md) */
	if (k->persist && c->split_k <= 1)
		pm_strbuf_add(b, "\tconst int pfew = oc[2] > 0 && tiles * 5 >= "
			"(int64_t) sms * 3 && tiles <= sms;\n\tif (pfew)\n"
			"\t\ts = 1;\n");
	/* under 3/5 tile per SM: split-K in the persistent kernel, one
	 * chunk of a tile per block (the tile's blocks reduce-scatter their
	 * partials; PERF.md) */
	if (k->persist_split)
		pm_strbuf_printf(b, "\tconst int psplit = oc[4] > 0 && tiles * "
			"5 < (int64_t) sms * 3;\n\tif (psplit)\n"
			"\t\ts = pm_fit_%s(kt, (int64_t) sms * oc[4] / tiles, %d, "
			"%d);\n", name, PM_MIN_PKT,
			pm_config_threads(k->persist_split->cfg) / 32);
	/* under 3/5 tile per SM, in clusters (fixup.c): the most chunks, at
	 * least the split's above, of PM_MIN_CKT k tiles or more, whose
	 * clusters are all resident at once and whose partials fit in the
	 * stages (plan_cluster) */
	if (k->persist_split && pm_emit_dsm(k->persist_split))
		plan_cluster(k->persist_split, b);
	else
		pm_strbuf_add(b, "\tconst int64_t cl = 0;\n");
	/* the split persistent kernel where its units fill half the SMs or
	 * more (fewer: the small variant's 4x more blocks measured faster);
	 * in clusters, counting a unit of Add(GEMM, GEMM) twice (its two
	 * contractions' chunks: measured 7-36 % faster at 40-96 units,
	 * GEMM's 3-26 % slower at 20-60; PERF.md) */
	if (k->persist_split)
		snprintf(half, sizeof(half), "\t/* the split persistent kernel "
			"where its units (in clusters: x contractions) fill\n"
			"\t * half the SMs or more (fewer: the small variant's 4x "
			"more blocks measured\n\t * faster; PERF.md) */\n"
			"\tif (psplit && tiles * s * (cl ? %d : 1) * 2 < (int64_t) "
			"sms)\n\t\ts = 1;\n", k->persist_split->ncon);
	/* the counters' fixed area: at most PM_CNT_BYTES / 4 split tiles */
	pm_strbuf_printf(b, "\tif (tiles > %d)\n\t\ts = 1;\n", PM_CNT_BYTES / 4);
	pm_strbuf_printf(b, "\t/* chunks of whole k tiles, none empty */\n"
		"\ts = pm_fit_%s(kt, s, 1, s);\n%s\tp->s = (int) s;\n"
		"\tp->sms = sms;\n"
		"\tfor (int r = 0; r < %d; ++r)\n"
		"\t\tp->kc[r] = (kt[r] + s - 1) / s * %d;\n"
		"\tp->cnt_bytes = s > 1 ? %d : 0;\n\tp->bytes = s > 1 ? p->cnt_bytes + (size_t) tiles * (size_t) "
		"s * %ld : 0;\n\tp->small1 = %s%s;\n\tp->small = s == 1 && "
		"p->small1;\n",
		name, half, ns, c->bk, PM_CNT_BYTES, (long) nacc * c->bm * c->bn * 4,
		small ? "tiles < sms" : "0", small && k->persist &&
		c->split_k <= 1 ? " && !pfew" : "");
	/* the medium variant, for a big grid of one partial wave: when its
	 * grid's wave efficiency t / (waves x blocks per wave) is at least
	 * 5/4 of the big kernel's (measured: 5-11 % faster there; 5-18 %
	 * slower on grids of several waves, where three medium blocks per
	 * SM run less efficiently than two big ones; docs/PERF.md) */
	pm_strbuf_add(b, "\tp->medium1 = 0;\n");
	if (k->medium) {
		const struct pm_config *m = k->medium->cfg;

		pm_strbuf_printf(b, "\tif (occm > 0 && !p->small1 && tiles < "
			"(int64_t) sms * occ%s) {\n"
			"\t\tconst int64_t t2 = ((%s + %d - 1) / %d) * ((%s + %d - "
			"1) / %d);\n\t\tconst int64_t b1 = (int64_t) sms * occ, b2 = "
			"(int64_t) sms * occm;\n\t\tconst int64_t w1 = (tiles + b1 - "
			"1) / b1, w2 = (t2 + b2 - 1) / b2;\n"
			"\t\tp->medium1 = t2 * w1 * b1 * 4 > tiles * w2 * b2 * 5;\n"
			"\t}\n", k->persist && c->split_k <= 1 ? " && !pfew" : "",
			d0, m->bm, m->bm, d1, m->bn, m->bn);
	}
	pm_strbuf_add(b, "\tp->medium = s == 1 && p->medium1;\n");
	/* the persistent variant, for grids of more than one wave: there
	 * its producer warp and its loop over tiles (the epilogue of one
	 * overlapping the copies of the next) measured faster; on one wave
	 * the big kernel, two blocks per SM, was (docs/PERF.md) */
	pm_strbuf_add(b, "\tp->persist = 0;\n");
	if (k->persist_split)
		pm_strbuf_add(b, "\tif (psplit && s > 1)\n\t\tp->persist = 3, "
			"p->pblocks = (int64_t) sms * oc[4];\n");
	if (k->persist) {
		if (c->split_k <= 1)
			pm_strbuf_add(b, "\tif (pfew)\n\t\tp->persist = 1, "
				"p->pblocks = (int64_t) sms * oc[2];\n");
	}
	/* grids of several waves; with a prologue through the MMA's
	 * registers the wide and tall blocks only (their producer warpgroup
	 * gives its registers to the consumers: 8-15 % faster there than two
	 * 128x128 blocks per SM; the 128x128 persistent kernel measured 6 %
	 * slower: the ldmatrix latency shows with 8 warps per SM; PERF.md) */
	if (k->persist && (!pm_kernel_pro_regs(k->persist) ||
	    k->persist_wide || k->persist_tall)) {
		const struct pm_config *w = k->persist_wide ?
			k->persist_wide->cfg : NULL;
		const struct pm_config *t = k->persist_tall ?
			k->persist_tall->cfg : NULL;

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
		const char *fill = pm_kernel_pro_regs(k->persist) ?
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
		if (!pm_kernel_pro_regs(k->persist))
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
	if (k->persist_split && c->split_k <= 1 &&
	    !pm_kernel_pro_regs(k->persist_split)) {
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
			pm_config_threads(k->persist_split->cfg) / 32, ns, ns,
			c->bk, PM_CNT_BYTES,
			(long) nacc * c->bm * c->bn * 4);
	}
	pm_strbuf_add(b, "\tp->cl = p->persist == 3 && !p->tdp && p->s > 1 && p->s == cl ? "
		"(int) cl : 0;\n\tif (p->cl)\n\t\tp->cnt_bytes = 0, p->bytes = 0;\n"
		"\treturn cudaSuccess;\n}\n");
}

/* static cudaError_t pm_ws_alloc_NAME(void **p, size_t bytes, stream):
 * stream-ordered from a memory pool of the file's own per device, which
 * keeps its memory across synchronizations (the default pool returns it
 * to the system at each one: a new mapping per launch, measured at tens of
 * microseconds). */
static void alloc_fn(struct pm_kernel *k, struct pm_strbuf *b)
{
	pm_strbuf_printf(b, "\n/* Workspace memory: stream-ordered, from a pool "
		"of this file's own per device that\n * keeps its memory (the "
		"default pool unmaps it at every synchronization). */\n"
		"static cudaError_t pm_ws_alloc_%s(void **p, size_t bytes, "
		"cudaStream_t stream)\n{\n"
		"\tstatic cudaMemPool_t pools[64];\n\tint dev;\n\n"
		"\tif (cudaGetDevice(&dev) != cudaSuccess)\n"
		"\t\treturn cudaGetLastError();\n"
		"\tif (dev < 0 || dev >= 64)\n"
		"\t\treturn cudaMallocAsync(p, bytes, stream);\n"
		"\tif (!pools[dev]) {\n\t\tcudaMemPoolProps props;\n"
		"\t\tcudaMemPool_t pool;\n"
		"\t\tuint64_t keep = ~(uint64_t) 0;\n\n"
		"\t\tmemset(&props, 0, sizeof(props));\n"
		"\t\tprops.allocType = cudaMemAllocationTypePinned;\n"
		"\t\tprops.location.type = cudaMemLocationTypeDevice;\n"
		"\t\tprops.location.id = dev;\n"
		"\t\tif (cudaMemPoolCreate(&pool, &props) != cudaSuccess)\n"
		"\t\t\treturn cudaGetLastError();\n"
		"\t\t(void) cudaMemPoolSetAttribute(pool, "
		"cudaMemPoolAttrReleaseThreshold, &keep);\n"
		"\t\t/* another thread may have been first */\n"
		"\t\tif (!__sync_bool_compare_and_swap(&pools[dev], "
		"(cudaMemPool_t) 0, pool))\n"
		"\t\t\t(void) cudaMemPoolDestroy(pool);\n\t}\n"
		"\treturn cudaMallocFromPoolAsync(p, bytes, pools[dev], stream);"
		"\n}\n", k->scop->spec->name);
}

/* static cudaError_t pm_ws_get_NAME(void **p, size_t bytes, stream): the
 * workspace kept for the current device and this stream (cudaStreamGetId:
 * an id no other stream gets), grown stream-ordered when too small, zero
 * when allocated; launches on one stream run one after the other, and each
 * leaves the counters 0. At most PM_WS_KEPT streams; then an error (the
 * caller takes a workspace for the launch alone). */
#define PM_WS_KEPT 32
static void get_fn(struct pm_kernel *k, struct pm_strbuf *b)
{
	pm_strbuf_printf(b, "\n/* The workspace kept for the current device and "
		"this stream (zero when allocated,\n * every launch leaves its "
		"counters 0; grown stream-ordered); an error when\n * %d "
		"streams have one. */\nstatic cudaError_t pm_ws_get_%s(void **p, "
		"size_t bytes, cudaStream_t stream)\n{\n"
		"\tstatic struct { int dev; unsigned long long id; void *p; "
		"size_t n; } kept[%d];\n\tstatic int lock;\n"
		"\tunsigned long long id;\n\tint dev, i, slot = -1;\n"
		"\tcudaError_t e = cudaSuccess;\n\tvoid *q = 0;\n\n"
		"\tif (cudaGetDevice(&dev) != cudaSuccess || cudaStreamGetId("
		"stream, &id) != cudaSuccess)\n\t\treturn cudaGetLastError();\n"
		"\twhile (__sync_lock_test_and_set(&lock, 1))\n\t\t;\n"
		"\tfor (i = 0; i < %d; ++i) {\n"
		"\t\tif (kept[i].p && kept[i].dev == dev && kept[i].id == id) "
		"{\n\t\t\tslot = i;\n\t\t\tbreak;\n\t\t}\n"
		"\t\tif (!kept[i].p && slot < 0)\n\t\t\tslot = i;\n\t}\n"
		"\tif (slot >= 0 && kept[slot].p && kept[slot].n >= bytes) {\n"
		"\t\t*p = kept[slot].p;\n\t\t__sync_lock_release(&lock);\n"
		"\t\treturn cudaSuccess;\n\t}\n"
		"\tif (slot < 0)\n\t\te = cudaErrorMemoryAllocation;\n"
		"\tif (e == cudaSuccess)\n\t\te = pm_ws_alloc_%s(&q, bytes, "
		"stream);\n"
		"\tif (e == cudaSuccess && (e = cudaMemsetAsync(q, 0, bytes, "
		"stream)) != cudaSuccess)\n\t\t(void) cudaFreeAsync(q, stream);"
		"\n\tif (e == cudaSuccess) {\n\t\tif (kept[slot].p)\n"
		"\t\t\t(void) cudaFreeAsync(kept[slot].p, stream);\n"
		"\t\tkept[slot].dev = dev;\n\t\tkept[slot].id = id;\n"
		"\t\tkept[slot].p = *p = q;\n\t\tkept[slot].n = bytes;\n\t}\n"
		"\t__sync_lock_release(&lock);\n\treturn e;\n}\n", PM_WS_KEPT,
		k->scop->spec->name, PM_WS_KEPT, PM_WS_KEPT,
		k->scop->spec->name);
}

/* The plain entry of a splitting kernel: the stream's kept workspace, or
 * one of its own (stream-ordered). */
static void plain_entry(struct pm_kernel *k, struct pm_strbuf *b)
{
	const char *name = k->scop->spec->name;

	alloc_fn(k, b);
	get_fn(k, b);
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_PLAIN);
	pm_strbuf_printf(b, "\n{\n\tstruct pm_plan_%s p;\n\tvoid *ws = 0;\n"
		"\tcudaError_t e, e2;\n\n", name);
	checks(k, b, 0, "cudaErrorInvalidValue");
	pm_strbuf_printf(b, "\tif ((e = pm_plan_%s(", name);
	size_list(k, b, 0);
	pm_strbuf_printf(b, "%s&p)) != cudaSuccess)\n\t\treturn e;\n"
		"\t/* the stream's kept workspace */\n"
		"\tif (p.s > 1 && !p.cl && pm_ws_get_%s(&ws, p.bytes, stream) == "
		"cudaSuccess)\n\t\treturn %s_ws(", nsizes(k) ? ", " : "", name,
		name);
	entry_args(k, b);
	pm_strbuf_printf(b, ", ws, p.bytes, stream);\n"
		"\tif (p.s > 1 && !p.cl)\n\t\t(void) cudaGetLastError();\n"
		"\t/* no split, a split in clusters (no workspace), or no memory "
		"for its\n\t * workspace: unsplit */\n"
		"\tif (p.s == 1 || p.cl || pm_ws_alloc_%s(&ws, p.bytes, stream) != "
		"cudaSuccess) {\n\t\tif (p.s > 1)\n\t\t\t(void) "
		"cudaGetLastError();\n\t\treturn %s_ws(", name, name);
	entry_args(k, b);
	pm_strbuf_printf(b, ", 0, 0, stream);\n\t}\n"
		"\te = cudaMemsetAsync(ws, 0, p.cnt_bytes, stream);\n"
		"\tif (e == cudaSuccess)\n\t\te = %s_ws(", name);
	entry_args(k, b);
	pm_strbuf_add(b, ", ws, p.bytes, stream);\n"
		"\te2 = cudaFreeAsync(ws, stream);\n"
		"\treturn e != cudaSuccess ? e : e2;\n}\n");
}

static void split_launcher(struct pm_kernel *k, struct pm_kernel *small,
	struct pm_strbuf *b)
{
	const char *name = k->scop->spec->name;

	device_fn(k, b);
	if (k->persist_split && pm_emit_dsm(k->persist_split))
		ncl_fn(k->persist_split, b);
	plan_fn(k, small, b);
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_WS_SIZE);
	pm_strbuf_printf(b, "\n{\n\tstruct pm_plan_%s p;\n\n", name);
	checks(k, b, 0, "0");
	pm_strbuf_printf(b, "\tif (pm_plan_%s(", name);
	size_list(k, b, 0);
	pm_strbuf_printf(b, "%s&p) != cudaSuccess) {\n\t\t(void) "
		"cudaGetLastError();\n\t\treturn 0;\n\t}\n\treturn p.bytes;\n}\n",
		nsizes(k) ? ", " : "");
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_WS);
	pm_strbuf_printf(b, "\n{\n\tstruct pm_plan_%s p;\n\tcudaError_t e;\n\n",
		name);
	checks(k, b, 1, "cudaErrorInvalidValue");
	pm_strbuf_printf(b, "\tif ((e = pm_plan_%s(", name);
	size_list(k, b, 0);
	pm_strbuf_printf(b, "%s&p)) != cudaSuccess)\n\t\treturn e;\n",
		nsizes(k) ? ", " : "");
	pm_strbuf_add(b, "\t/* no room for the split: one chunk */\n"
		"\tif (p.s > 1 && !p.cl && (!workspace || workspace_bytes < "
		"p.bytes)) {\n"
		"\t\tp.s = 1;\n\t\tp.small = p.small1;\n\t\tp.medium = "
		"p.medium1;\n\t\tif (p.persist == 3)\n\t\t\tp.persist = p.tdp ? "
		"1 : 0;\n");
	for (int r = 0; r < k->scop->nsplit; ++r)
		pm_strbuf_printf(b, "\t\tp.kc[%d] = %s;\n", r,
			k->scop->split_ext[r]);
	pm_strbuf_add(b, "\t}\n");
	if (small) {
		pm_strbuf_printf(b, "\t/* unsplit and fewer %dx%d blocks than "
			"SMs: the %dx%d variant */\n\tif (p.small) {\n",
			k->cfg->bm, k->cfg->bn, small->cfg->bm, small->cfg->bn);
		launch_small(small, b, "p.sms");
		pm_strbuf_add(b, "\t}\n");
	}
	if (k->medium) {
		pm_strbuf_printf(b, "\t/* unsplit, a grid of %dx%d blocks that "
			"fills the waves better */\n\tif (p.medium) {\n",
			k->medium->cfg->bm, k->medium->cfg->bn);
		launch(k->medium, "_medium", b, "\t\t", NULL);
		pm_strbuf_add(b, "\t}\n");
	}
	/* the persistent variants, p.persist 2, 1 and 3 */
	{
		struct pm_kernel *pv[4] = { k->persist_wide, k->persist_tall,
			k->persist, k->persist_split };
		const char *suf[4] = { "_persist_wide", "_persist_tall",
			"_persist", "_persist_split" };
		const char *why[4] = { "several waves, filled by the wide "
			"persistent kernel", "several waves, filled by the tall "
			"persistent kernel", "several waves, filled better by the "
			"persistent kernel", "under 3/5 tile per SM, or the tail of "
			"several waves: split-K in the\n\t * persistent kernel" };
		const int id[4] = { 2, 4, 1, 3 };

		for (int i = 0; i < 4; ++i) {
			if (!pv[i])
				continue;
			pm_strbuf_printf(b, "\t/* %s */\n\tif (p.persist == %d) "
				"{\n", why[i], id[i]);
			launch(pv[i], suf[i], b, "\t\t", "p.pblocks");
			pm_strbuf_add(b, "\t}\n");
		}
	}
	pm_strbuf_add(b, "\tif (p.s > 1) {\n");
	launch(k, "_split", b, "\t\t", NULL);
	pm_strbuf_add(b, "\t}\n");
	launch(k->unsplit ? k->unsplit : k, "", b, "\t", NULL);
	pm_strbuf_add(b, "}\n");
	plain_entry(k, b);
}

/* The unsplit launcher: checks, then k, or the small-tile variant when
 * k's grid has fewer blocks than the device has SMs. */
void pm_emit_launcher(struct pm_kernel *k, struct pm_kernel *small,
	struct pm_strbuf *b)
{
	const struct pm_config *c = k->cfg;
	char d0[64], d1[64];

	if (k->scop->nsplit) {
		split_launcher(k, small, b);
		return;
	}
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_PLAIN);
	pm_strbuf_add(b, "\n{\n");
	checks(k, b, 1, "cudaErrorInvalidValue");
	if (small) {
		pm_scop_dim_str(k->scop, k->con[0].out, 0, d0, sizeof(d0));
		pm_scop_dim_str(k->scop, k->con[0].out, 1, d1, sizeof(d1));
		pm_strbuf_printf(b, "\t/* fewer %dx%d blocks than SMs: the "
			"%dx%d variant */\n\tstatic int pm_sms;\n"
			"\tif (!pm_sms) {\n\t\tint dev;\n"
			"\t\tif (cudaGetDevice(&dev) != cudaSuccess || "
			"cudaDeviceGetAttribute(&pm_sms, "
			"cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)\n"
			"\t\t\treturn cudaGetLastError();\n\t}\n",
			c->bm, c->bn, small->cfg->bm, small->cfg->bn);
		pm_strbuf_printf(b, "\tif ((int64_t) ((%s + %d - 1) / %d) * "
			"((%s + %d - 1) / %d) < pm_sms) {\n", d0, c->bm, c->bm,
			d1, c->bn, c->bn);
		launch_small(small, b, "pm_sms");
		pm_strbuf_add(b, "\t}\n");
	}
	if (k->ws) {
		/* persistent: SMs x blocks per SM, asked once */
		pm_strbuf_printf(b, "\tstatic int64_t pm_pblocks;\n"
			"\tif (!pm_pblocks) {\n\t\tint dev, n, o;\n"
			"\t\tif (cudaGetDevice(&dev) != cudaSuccess || "
			"cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, "
			"dev) != cudaSuccess)\n\t\t\treturn cudaGetLastError();\n");
		occupancy(k, "", b);
		pm_strbuf_add(b, "\t\tpm_pblocks = (int64_t) n * (o > 0 ? o : "
			"1);\n\t}\n");
	}
	launch(k, "", b, "\t", "pm_pblocks");
	pm_strbuf_add(b, "}\n");
}

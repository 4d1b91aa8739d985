/* The host entry points of a generated file.
 *
 *   NAME(tensors, sizes, stream)
 *       checks the sizes and alignments, then launches; when the launch
 *       splits k it takes a stream-ordered workspace (cudaMallocAsync,
 *       counters zeroed, cudaFreeAsync after the kernel).
 *   NAME_ws(tensors, sizes, workspace, workspace_bytes, stream)
 *       the same with the caller's workspace (zero-filled before its first
 *       use; every launch leaves it so); too small or NULL: no split
 *       (a split in clusters needs none: it runs as planned).
 *   NAME_argv(tensors[], sizes[], stream)
 *       NAME with the tensors in an array (inputs, then outputs) and the
 *       value of every size symbol in the spec's order, fixed ones (-D)
 *       included: a fixed one that differs is cudaErrorInvalidValue. For
 *       callers that bind one signature to every file (ctypes, checkers).
 *   NAME_workspace_size(sizes)
 *       the bytes NAME_ws would use (0: it does not split these sizes, or
 *       splits them in clusters).
 * The last two exist when the kernel can split k (scop->nsplit > 0), or
 * reads K-major copies of operands (emit/kcopy.h,
 * docs/decisions/0033-kmajor-copies.md): then every launch takes a
 * workspace, the split's part first (counters at 0) and the copies after
 * it (pm_rt_copy_offset), written by pm_launch_NAME before the kernels
 * (entries.c; NULL or too small for the copies: cudaErrorInvalidValue).
 *
 * The launch plan (pm_plan_NAME, table.c) picks the kernel, the chunks of k
 * and the workspace at run time.
 * Every launch is a 1-D grid of tiles (file.c maps block x to its tile in
 * raster order); sm_90a kernels with TMA copies get one tensor map per
 * copied operand.
 * The plain entry keeps one workspace per device and stream (pm_ws_get). */
#include <stdio.h>
#include <string.h>

#include "emit/batch.h"
#include "emit/group.h"
#include "emit/entries.h"
#include "emit/epired.h"
#include "emit/kcopy.h"
#include "emit/launch.h"
#include "emit/pointwise.h"
#include "emit/pre.h"
#include "emit/table.h"
#include "target/target.h"
#include "variant/variant.h"

/* "(const __half *) A, ..." the tensors as the kernel takes them. */
static void tensor_args(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;

	for (int i = 0, t; (t = pm_emit_arg_tensor(spec, i)) >= 0; ++i)
		pm_strbuf_printf(b, "%s(%s%s *) %s", i ? ", " : "",
			spec->tensors[t].role == PM_INPUT ? "const " : "",
			pm_emit_ctype(k, t, 0), spec->tensors[t].name);
}

/* TMA stores (promote/store.c, docs/decisions/0048-tma-stores.md): the
 * output's map pm_tm<nbufs>, boxes of
 * the tile's rows and one 128-byte column block, swizzled by 128 bytes;
 * the stores write no element past the sizes. */
static void out_map(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind)
{
	int t = k->con[0].out;
	const struct pm_elem *e = pm_elem_of(k->scop->spec->tensors[t].type);
	char d0[64], d1[64];

	pm_scop_dim_str(k->scop, t, 0, d0, sizeof(d0));
	pm_scop_dim_str(k->scop, t, 1, d1, sizeof(d1));
	if (k->scop->spec->tensors[t].batch) {
		char nb[256], sl[256];

		pm_emit_batch_count(k, nb, sizeof(nb));
		pm_emit_batch_slice(k, t, sl, sizeof(sl));
		pm_strbuf_printf(b, "%sCUtensorMap pm_tm%d;\n%sif ("
			"pm_tma_map_3d_ty(&pm_tm%d, %s, %s, %d, %s, %s, %s, %s, "
			"%s, %d, %d, 128) != cudaSuccess)\n%s\treturn "
			"cudaErrorInvalidValue;\n", ind, k->nbufs, ind, k->nbufs,
			k->scop->spec->tensors[t].name, e->tma, e->bytes, d0, d1,
			d1, nb, sl, k->cfg->bm, k->tma_store, ind);
		return;
	}
	pm_strbuf_printf(b, "%sCUtensorMap pm_tm%d;\n%sif (pm_tma_map_2d_ty("
		"&pm_tm%d, %s, %s, %d, %s, %s, %s, %d, %d, 128) != cudaSuccess)"
		"\n%s\treturn cudaErrorInvalidValue;\n", ind, k->nbufs, ind,
		k->nbufs, k->scop->spec->tensors[t].name, e->tma, e->bytes, d0,
		d1, d1, k->cfg->bm, k->tma_store, ind);
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
		long w = pm_buffer_box_cols(buf);
		char d0[64], d1[64], p[96], ty[160];
		const struct pm_elem *st;

		if (!buf->tma)
			continue;
		pm_scop_dim_str(k->scop, buf->tensor, 0, d0, sizeof(d0));
		pm_scop_dim_str(k->scop, buf->tensor, 1, d1, sizeof(d1));
		/* a K-major copy's rows are padded (emit/kcopy.h) */
		snprintf(p, sizeof(p), k->scop->spec->tensors[buf->tensor].kcopy ?
			"pm_kc_pitch(%s)" : "%s", d1);
		/* a batched operand: the batch its third dimension
		 * (emit/batch.h) */
		if (k->scop->spec->tensors[buf->tensor].batch) {
			char nb[256], sl[256];

			pm_emit_batch_count(k, nb, sizeof(nb));
			pm_emit_batch_slice(k, buf->tensor, sl, sizeof(sl));
			pm_strbuf_printf(b, "%sCUtensorMap pm_tm%d;\n%sif ("
				"pm_tma_map_3d(&pm_tm%d, %s, %s, %s, %s, %s, %s, "
				"%ld, %ld, %ld) != cudaSuccess)\n%s\treturn "
				"cudaErrorInvalidValue;\n", ind, i, ind, i, name, d0,
				d1, p, nb, sl, buf->size[0] /
				(k->bufs[i].mc_rows ? 2 : 1), w,
				pm_buffer_eb(k, i) * w, ind);
			continue;
		}
		/* widened in the MMA's registers: the stored type's map */
		if ((st = pm_buffer_stored(k, i)))
			snprintf(ty, sizeof(ty), "_ty(&pm_tm%d, %s, %s, %d, ", i,
				name, st->tma, st->bytes);
		else
			snprintf(ty, sizeof(ty), "(&pm_tm%d, %s, ", i, name);
		pm_strbuf_printf(b, "%sCUtensorMap pm_tm%d;\n%sif (pm_tma_map_2d"
			"%s%s, %s, %s, %ld, %ld, %ld) != cudaSuccess)"
			"\n%s\treturn cudaErrorInvalidValue;\n", ind, i, ind, ty,
			d0, d1, p, buf->size[0] /
			(k->bufs[i].mc_rows ? 2 : 1), w, pm_buffer_eb(k, i) * w, ind);
	}
	if (k->tma_store)
		out_map(k, b, ind);
}

/* A cluster of two (k->mc): "dim3 grid" of 2 min(pairs, pblocks / 2,
 * the clusters resident at once) blocks; the last asked once per process
 * (the occupancy API), so that one round of clusters runs every block. */
static void mc_grid(struct pm_kernel *k, const char *suffix,
	struct pm_strbuf *b, const char *ind, const char *pblocks, long smem)
{
	const struct pm_config *c = k->cfg;
	char d0[64], d1[64], nb[256];

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
		ind, ind, ind, pm_kernel_threads(k), ind, smem, ind,
		k->scop->spec->name, suffix, ind, ind, ind, ind, suffix, ind);
	pm_emit_batch_count(k, nb, sizeof(nb));
	pm_strbuf_printf(b, "%sint64_t pm_g = (int64_t) ((%s + %d - 1) / %d) * "
		"((((%s + %d - 1) / %d) + 1) / 2)%s%s;\n%sif (pm_g > (int64_t) (%s) / "
		"2)\n%s\tpm_g = (int64_t) (%s) / 2;\n%sif (pm_g > pm_nc%s)\n"
		"%s\tpm_g = pm_nc%s;\n%sif (pm_g < 1)\n%s\tpm_g = 1;\n"
		"%sdim3 grid((unsigned) (2 * pm_g), 1);\n", ind, d1, c->bn,
		c->bn, d0, c->bm, c->bm, pm_emit_batched(k) ? " * " : "",
		pm_emit_batched(k) ? nb : "", ind, pblocks, ind, pblocks, ind, suffix,
		ind, suffix, ind, ind, ind);
}

/* "(M % 128 == 0 && N % 128 == 0)": k's tile divides its ragged sizes
 * (its exact twin runs). */
static void twin_cond(struct pm_kernel *k, char *buf, size_t len)
{
	const struct pm_spec *spec = k->scop->spec;
	size_t off = 0;

	off += snprintf(buf + off, len - off, "(");
	for (int s = 0, any = 0; s < spec->nsyms && off < len; ++s) {
		if (!pm_kernel_sym_ragged(k, s))
			continue;
		off += snprintf(buf + off, len - off, "%s%s %% %d == 0",
			any ? " && " : "", spec->syms[s].name,
			pm_kernel_size_multiple(k, s));
		any = 1;
	}
	if (off < len)
		snprintf(buf + off, len - off, ")");
}

/* "return pm_launch_pdl(KERNEL, grid, threads, smem, stream, args);":
 * the kernel (its exact twin where ex holds) launched so that it may
 * start while the stream's previous grid ends; its first statement waits
 * for that grid (file.c, docs/decisions/0068-pdl.md). */
static void launch_pdl(struct pm_kernel *k, struct pm_strbuf *b,
	const char *ind, const char *suffix, const char *ex, long smem,
	const char *args)
{
	const char *name = k->scop->spec->name;

	pm_strbuf_printf(b, "%sreturn pm_launch_pdl(", ind);
	if (ex)
		pm_strbuf_printf(b, "%s ? pm_kernel_%s%s_x : ", ex, name,
			suffix);
	pm_strbuf_printf(b, "pm_kernel_%s%s, grid, %d, %ld, stream, %s);\n",
		name, suffix, pm_kernel_threads(k), smem, args);
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
	long smem = pm_kernel_smem_bytes(k, 0, NULL);
	char d0[64], d1[64], n[256], nu[1000], ex[256], nb[256];
	struct pm_strbuf args;
	int twin;

	pm_scop_dim_str(k->scop, k->con[0].out, 0, d0, sizeof(d0));
	pm_scop_dim_str(k->scop, k->con[0].out, 1, d1, sizeof(d1));
	snprintf(n, sizeof(n), "(int64_t) ((%s + %d - 1) / %d) * ((%s + %d - 1) "
		"/ %d)", d0, c->bm, c->bm, d1, c->bn, c->bn);
	pm_strbuf_printf(b, "%sif (%s > 2147483647)\n%s\treturn "
		"cudaErrorInvalidValue;\n", ind, n, ind);
	/* batched: the batch in gridDim.z, at most 65535; persistent: in
	 * the units (batch, tile) of the loop, at most 2^31 - 1 of them
	 * (emit/batch.h) */
	/* grouped: units (group, tile) in x (emit/group.h) */
	if (pm_emit_grouped(k)) {
		char g[400];

		pm_emit_group_units(k, g, sizeof(g));
		pm_strbuf_printf(b, "%sif (%s > 2147483647)\n%s\treturn "
			"cudaErrorInvalidValue;\n", ind, g, ind);
		/* persistent: at most the plan's blocks, looping over the
		 * units (emit/group.h) */
		if (k->ws)
			snprintf(nu, sizeof(nu), "%s < (int64_t) %s ? %s : "
				"(int64_t) %s", g, pblocks ? pblocks : "c->grid", g,
				pblocks ? pblocks : "c->grid");
		else
			snprintf(nu, sizeof(nu), "%s", g);
	} else if (pm_emit_batched(k)) {
		pm_emit_batch_count(k, nb, sizeof(nb));
		pm_strbuf_printf(b, "%sif (%s > 65535)\n%s\treturn "
			"cudaErrorInvalidValue;\n", ind, nb, ind);
		if (k->ws)
			pm_strbuf_printf(b, "%sif (%s * %s > 2147483647)\n%s"
				"\treturn cudaErrorInvalidValue;\n", ind, n, nb, ind);
	}
	/* planned (pblocks NULL): the plan's grid (persistent: at most its
	 * blocks, looping over tiles; split: c->tdp whole tiles, then c->s
	 * units per tile of the tail), else n tiles or pblocks */
	if (!pm_emit_grouped(k))
		snprintf(nu, sizeof(nu), "%s", "c->grid");
	/* before a cluster's occupancy is asked; once per device (a driver
	 * call of ~0.6 us on the host, before the launch: measured in every
	 * call's time otherwise; docs/PERF.md) */
	/* the kernel's exact twin (k->twin): launched where its tile
	 * divides the ragged sizes, ex is that condition */
	twin = k->twin;
	if (twin)
		twin_cond(k, ex, sizeof(ex));
	/* planned: pm_attrs_NAME did it for every kernel */
	if (smem > 48 * 1024 && pblocks) {
		pm_strbuf_printf(b, "%s{\n%s\tstatic int pm_set[64];\n%s\tint "
			"pm_dev = -1;\n%s\tif (cudaGetDevice(&pm_dev) != "
			"cudaSuccess)\n%s\t\treturn cudaGetLastError();\n%s\tif "
			"(pm_dev < 0 || pm_dev >= 64 || !pm_set[pm_dev]) {\n%s\t\t"
			"if (cudaFuncSetAttribute(pm_kernel_%s%s, "
			"cudaFuncAttributeMaxDynamicSharedMemorySize, %ld) != "
			"cudaSuccess)\n%s\t\t\treturn cudaGetLastError();\n", ind,
			ind, ind, ind, ind, ind, ind, spec->name, suffix, smem, ind);
		if (twin)
			pm_strbuf_printf(b, "%s\t\tif (cudaFuncSetAttribute("
				"pm_kernel_%s%s_x, "
				"cudaFuncAttributeMaxDynamicSharedMemorySize, %ld) != "
				"cudaSuccess)\n%s\t\t\treturn cudaGetLastError();\n",
				ind, spec->name, suffix, smem, ind);
		pm_strbuf_printf(b, "%s\t\t"
			"if (pm_dev >= 0 && pm_dev < 64)\n%s\t\t\tpm_set[pm_dev] = "
			"1;\n%s\t}\n%s}\n", ind, ind, ind, ind);
	}
	/* a cluster of two: pairs of blocks, planned too (the plan's grid
	 * its blocks at most; an odd grid is a launch error:
	 * docs/decisions/0017-multicast-off-by-default.md) */
	if (k->mc)
		mc_grid(k, suffix, b, ind, pblocks ? pblocks : "c->grid", smem);
	else if (pm_emit_grouped(k))
		pm_strbuf_printf(b, "%sdim3 grid((unsigned) (%s), 1);\n", ind,
			nu);
	else if (k->ws && pblocks && pm_emit_batched(k))
		pm_strbuf_printf(b, "%sdim3 grid((unsigned) (%s * %s < (int64_t) "
			"(%s) ? %s * %s : (int64_t) (%s)), 1);\n", ind, n, nb,
			pblocks, n, nb, pblocks);
	else if (k->ws && pblocks)
		pm_strbuf_printf(b, "%sdim3 grid((unsigned) (%s < (int64_t) (%s) "
			"? %s : (int64_t) (%s)), 1);\n", ind, n, pblocks, n,
			pblocks);
	else if (pm_emit_batched(k) && !k->ws)
		pm_strbuf_printf(b, "%sdim3 grid((unsigned) (%s), 1, (unsigned) "
			"%s);\n", ind, pblocks ? n : nu, nb);
	else
		pm_strbuf_printf(b, "%sdim3 grid((unsigned) (%s), 1%s);\n", ind,
			pblocks ? n : nu, k->scop->nsplit && !k->ws ?
			", (unsigned) c->s" : "");
	tma_maps(k, b, ind);
	pm_strbuf_init(&args);
	tensor_args(k, &args);
	for (int i = 0; i < ns; ++i)
		pm_strbuf_printf(&args, ", (int) %s", spec->syms[order[i]].name);
	if (k->scop->nsplit) {
		pm_strbuf_add(&args, ", c->s > 1 && workspace ? (float *) ((char *) "
			"workspace + c->cnt_bytes) : (float *) 0, (unsigned *) "
			"workspace");
		for (int r = 0; r < k->scop->nsplit; ++r)
			pm_strbuf_printf(&args, ", (int) c->kc[%d]", r);
		if (k->ws)
			pm_strbuf_add(&args, ", (unsigned) c->tdp");
		if (k->dsm)
			pm_strbuf_add(&args, ", (int) c->cl");
	}
	/* an epilogue reduction: its counters, then its partials
	 * (emit/epired.h) */
	if (pm_emit_has_red(k)) {
		pm_strbuf_printf(&args, ", (float *) ((char *) workspace + "
			"pm_red_cnt_%s(", spec->name);
		pm_emit_size_list(k, &args, 0);
		pm_strbuf_add(&args, ")), (unsigned *) workspace");
	}
	for (int i = 0; i < k->nbufs; ++i)
		if (k->bufs[i].tma)
			pm_strbuf_printf(&args, ", pm_tm%d", i);
	if (k->tma_store)
		pm_strbuf_printf(&args, ", pm_tm%d", k->nbufs);
	/* clusters of c->cl blocks, the chunks of a tile (fixup.c) */
	if (k->dsm) {
		char in2[16];

		snprintf(in2, sizeof(in2), "%s\t", ind);
		pm_strbuf_printf(b, "%sif (c->cl > 1) {\n", ind);
		pm_emit_cluster_config(k, b, in2, "grid", "(unsigned) c->cl", 1);
		if (twin)
			pm_strbuf_printf(b, "%s\treturn cudaLaunchKernelEx(&pm_lc, "
				"%s ? pm_kernel_%s%s_x : pm_kernel_%s%s, %s);\n%s}\n",
				ind, ex, spec->name, suffix, spec->name, suffix,
				args.s ? args.s : "", ind);
		else
			pm_strbuf_printf(b, "%s\treturn cudaLaunchKernelEx(&pm_lc, "
				"pm_kernel_%s%s, %s);\n%s}\n", ind, spec->name,
				suffix, args.s ? args.s : "", ind);
	}
	if (k->cfg->pdl > 0)
		launch_pdl(k, b, ind, suffix, twin ? ex : NULL, smem,
			args.s ? args.s : "");
	else {
		if (twin)
			pm_strbuf_printf(b, "%sif (%s)\n%s\tpm_kernel_%s%s_x<<<"
				"grid, %d, %ld, stream>>>(%s);\n%selse\n\t", ind, ex,
				ind, spec->name, suffix, pm_kernel_threads(k), smem,
				args.s ? args.s : "", ind);
		pm_strbuf_printf(b, "%spm_kernel_%s%s<<<grid, %d, %ld, "
			"stream>>>(%s);\n%sreturn cudaGetLastError();\n", ind,
			spec->name, suffix, pm_kernel_threads(k), smem,
			args.s ? args.s : "", ind);
	}
	if (args.failed)
		b->failed = 1;
	pm_strbuf_free(&args);
}

/* "Blocks per SM of pm_kernel_NAME<suffix> into o" (occupancy API). */
static void emit_occupancy(struct pm_kernel *k, const char *suffix,
	struct pm_strbuf *b)
{
	const char *name = k->scop->spec->name;
	long smem = pm_kernel_smem_bytes(k, 0, NULL);

	if (smem > 48 * 1024)
		pm_strbuf_printf(b, "\t\tif (cudaFuncSetAttribute(pm_kernel_%s%s, "
			"cudaFuncAttributeMaxDynamicSharedMemorySize, %ld) != "
			"cudaSuccess)\n\t\t\treturn cudaGetLastError();\n", name,
			suffix, smem);
	pm_strbuf_printf(b, "\t\tif (cudaOccupancyMaxActiveBlocksPerMultiprocessor"
		"(&o, pm_kernel_%s%s, %d, %ld) != cudaSuccess)\n\t\t\treturn "
		"cudaGetLastError();\n", name, suffix,
		pm_kernel_threads(k), smem);
}

/* The plain entry of a splitting kernel: the stream's kept workspace, or
 * one of its own (stream-ordered), or none (the plan without one). */
static void plain_entry(struct pm_kernel *k, struct pm_strbuf *b)
{
	const char *name = k->scop->spec->name;

	pm_entry_alloc_fn(k, b);
	pm_entry_get_fn(k, b);
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_PLAIN);
	pm_strbuf_add(b, "\n{\n\tstruct pm_rt_choice c;\n\tvoid *ws = 0;\n"
		"\tcudaError_t e, e2;\n\n");
	pm_entry_checks(k, b, 1, "cudaErrorInvalidValue");
	pm_entry_plan(k, b, 0, "\t");
	pm_strbuf_printf(b, "\t/* the stream's kept workspace */\n"
		"\tif (c.ws_bytes && pm_ws_get_%s(&ws, c.ws_bytes, stream) == "
		"cudaSuccess)\n\t\treturn pm_launch_%s(&c, ", name, name);
	pm_entry_args(k, b);
	pm_strbuf_printf(b, ", ws, c.ws_bytes, stream);\n"
		"\t/* no split, a split in clusters (no workspace), or no memory "
		"for its\n\t * workspace: the plan without one */\n"
		"\tif (!c.ws_bytes || pm_ws_alloc_%s(&ws, c.ws_bytes, stream) != "
		"cudaSuccess) {\n\t\tif (c.ws_bytes) {\n\t\t\t(void) "
		"cudaGetLastError();\n", name);
	pm_entry_plan(k, b, 1, "\t\t\t");
	pm_strbuf_printf(b, "\t\t}\n\t\treturn pm_launch_%s(&c, ", name);
	pm_entry_args(k, b);
	pm_strbuf_printf(b, ", 0, 0, stream);\n\t}\n"
		"\te = cudaMemsetAsync(ws, 0, c.cnt_bytes, stream);\n"
		"\tif (e == cudaSuccess)\n\t\te = pm_launch_%s(&c, ", name);
	pm_entry_args(k, b);
	pm_strbuf_add(b, ", ws, c.ws_bytes, stream);\n"
		"\te2 = cudaFreeAsync(ws, stream);\n"
		"\treturn e != cudaSuccess ? e : e2;\n}\n");
}

/* static cudaError_t pm_launch_NAME(c, tensors, sizes, workspace, bytes,
 * stream): the launch of the plan's choice c, one case per row. */
static void launch_fn(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	const struct pm_target *t = vs->target;
	struct pm_kernel *k = vs->main;

	pm_strbuf_add(b, "\nstatic ");
	pm_emit_signature(k, b, PM_ENTRY_LAUNCH);
	pm_strbuf_printf(b, "\n{\n\tcudaError_t e = pm_attrs_%s();\n\n"
		"\t(void) workspace_bytes;\n\tif (e != cudaSuccess)\n\t\treturn "
		"e;\n", k->scop->spec->name);
	if (pm_emit_kcopies(k))
		pm_emit_kcopy_call(k, b, "\t", k->scop->nsplit ?
			"pm_rt_copy_offset(c)" : "0");
	pm_strbuf_add(b, "\tswitch (c->v) {\n");
	for (int i = 0, n = 0; i < t->nvariants; ++i) {
		const struct pm_variant *v = &vs->v[t->variants[i].role];

		if (!v->k)
			continue;
		pm_strbuf_printf(b, "\tcase %d: { /* %s; %d stages */\n", n++,
			v->desc->why, v->k->cfg->stages);
		pm_emit_pre_call(vs, v->k, b, "\t\t");
		launch(v->k, v->desc->suffix, b, "\t\t", NULL);
		pm_strbuf_add(b, "\t}\n");
	}
	pm_strbuf_add(b, "\t}\n\treturn cudaErrorInvalidValue;\n}\n");
}

/* Persistent: "static int64_t pm_pblocks", SMs x blocks per SM, asked
 * once. */
static void pblocks(struct pm_kernel *k, struct pm_strbuf *b)
{
	if (!k->ws)
		return;
	pm_strbuf_printf(b, "\tstatic int64_t pm_pblocks;\n"
		"\tif (!pm_pblocks) {\n\t\tint dev, n, o;\n"
		"\t\tif (cudaGetDevice(&dev) != cudaSuccess || "
		"cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, "
		"dev) != cudaSuccess)\n\t\t\treturn cudaGetLastError();\n");
	emit_occupancy(k, "", b);
	pm_strbuf_add(b, "\t\tpm_pblocks = (int64_t) n * (o > 0 ? o : "
		"1);\n\t}\n");
}

/* A file of one kernel and K-major copies: pm_launch_NAME (c unused)
 * writes the copies at the workspace's start, then launches it. */
static void kc_single(struct pm_kernel *k, struct pm_strbuf *b)
{
	pm_emit_kcopy_fns(k, b);
	pm_emit_red_fns(k, b, k->cfg->bm, k->cfg->bn);
	pm_strbuf_add(b, "\nstatic ");
	pm_emit_signature(k, b, PM_ENTRY_LAUNCH);
	pm_strbuf_printf(b, "\n{\n%s\t(void) c;\n"
		"\t(void) workspace_bytes;\n", pm_emit_kcopies(k) ?
		"\tcudaError_t e;\n\n" : "");
	pblocks(k, b);
	if (pm_emit_kcopies(k))
		pm_emit_kcopy_call(k, b, "\t", "0");
	launch(k, "", b, "\t", "pm_pblocks");
	pm_strbuf_add(b, "}\n");
	pm_emit_kc_entries(k, b, 0);
}

/* An epilogue reduction's workspace sizes, for the file's smallest
 * block tile (emit/epired.h). */
static void red_fns(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	int bm, bn;

	pm_emit_red_tile(vs, &bm, &bn);
	pm_emit_red_fns(vs->main, b, bm, bn);
}

/* The entries of a file of several kernels: the plan picks one. */
static void planned_launcher(const struct pm_variant_set *vs,
	struct pm_strbuf *b)
{
	struct pm_kernel *k = vs->main;
	const char *name = k->scop->spec->name;

	pm_emit_plan(vs, b);
	pm_emit_kcopy_fns(k, b);
	red_fns(vs, b);
	launch_fn(vs, b);
	if (pm_emit_kcopies(k) || pm_emit_has_red(k)) {
		pm_emit_kc_entries(k, b, 1);
		return;
	}
	/* no workspace: no split and no launcher-applied prologue */
	if (!k->scop->nsplit && !pm_emit_has_pre(k)) {
		pm_strbuf_add(b, "\nextern \"C\" ");
		pm_emit_signature(k, b, PM_ENTRY_PLAIN);
		pm_strbuf_add(b, "\n{\n\tstruct pm_rt_choice c;\n"
			"\tcudaError_t e;\n\n");
		pm_entry_checks(k, b, 1, "cudaErrorInvalidValue");
		pm_entry_plan(k, b, 0, "\t");
		pm_strbuf_printf(b, "\treturn pm_launch_%s(&c, ", name);
		pm_entry_args(k, b);
		pm_strbuf_add(b, ", 0, 0, stream);\n}\n");
		return;
	}
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_WS_SIZE);
	pm_strbuf_add(b, "\n{\n\tstruct pm_rt_choice c;\n\n");
	pm_entry_checks(k, b, 0, "0");
	pm_strbuf_add(b, "\tif (");
	pm_entry_plan_call(k, b, 0);
	pm_strbuf_add(b, " != cudaSuccess) {\n\t\t(void) cudaGetLastError();"
		"\n\t\treturn 0;\n\t}\n\treturn c.ws_bytes;\n}\n");
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_WS);
	pm_strbuf_add(b, "\n{\n\tstruct pm_rt_choice c;\n\tcudaError_t e;\n\n");
	pm_entry_checks(k, b, 1, "cudaErrorInvalidValue");
	pm_entry_plan(k, b, 0, "\t");
	pm_strbuf_add(b, "\t/* no room for the split: the plan without a "
		"workspace */\n\tif (c.ws_bytes && (!workspace || "
		"workspace_bytes < c.ws_bytes) &&\n\t    (e = ");
	pm_entry_plan_call(k, b, 1);
	pm_strbuf_printf(b, ") != cudaSuccess)\n\t\treturn e;\n"
		"\treturn pm_launch_%s(&c, ", name);
	pm_entry_args(k, b);
	pm_strbuf_add(b, ", workspace, workspace_bytes, stream);\n}\n");
	plain_entry(k, b);
}

/* NAME_argv: NAME's arguments from the arrays. */
static void argv_entry(struct pm_kernel *k, struct pm_strbuf *b)
{
	const struct pm_spec *spec = k->scop->spec;
	int order[64], n = pm_emit_size_order(k, order);
	long v;

	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_ARGV);
	pm_strbuf_add(b, "\n{\n\tif (!tensors || !sizes)\n\t\treturn "
		"cudaErrorInvalidValue;\n");
	for (int s = 0; s < spec->nsyms; ++s)
		if (pm_scop_sym_fixed(k->scop, s, &v))
			pm_strbuf_printf(b, "\tif (sizes[%d] != %ld)\n\t\treturn "
				"cudaErrorInvalidValue;\n", s, v);
	pm_strbuf_printf(b, "\treturn %s(", spec->name);
	for (int i = 0; pm_emit_arg_tensor(spec, i) >= 0; ++i)
		pm_strbuf_printf(b, "tensors[%d], ", i);
	for (int i = 0; i < n; ++i)
		pm_strbuf_printf(b, "sizes[%d], ", order[i]);
	pm_strbuf_add(b, "stream);\n}\n");
}

/* The plain entry (and the _ws ones): the plan's when the file has
 * several kernels; else checks, then k. */
static void entries(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	struct pm_kernel *k = vs->main;
	int n = 0;

	for (int i = 0; i < PM_RT_NROLES; ++i)
		n += !!vs->v[i].k;
	if (n > 1) {
		planned_launcher(vs, b);
		return;
	}
	if (pm_emit_kcopies(k) || pm_emit_has_red(k)) {
		kc_single(k, b);
		return;
	}
	pm_strbuf_add(b, "\nextern \"C\" ");
	pm_emit_signature(k, b, PM_ENTRY_PLAIN);
	pm_strbuf_add(b, "\n{\n");
	pm_entry_checks(k, b, 1, "cudaErrorInvalidValue");
	pblocks(k, b);
	launch(k, "", b, "\t", "pm_pblocks");
	pm_strbuf_add(b, "}\n");
}

void pm_emit_launcher(const struct pm_variant_set *vs, struct pm_strbuf *b)
{
	entries(vs, b);
	argv_entry(vs->main, b);
}

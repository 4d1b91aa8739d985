/* The persistent warp-specialized kernels' bodies (emit/file.c's
 * kernel_def, k->ws): the loop over the block's tiles (or units of work:
 * split-K; pairs of tile rows: a cluster of two) and in it the producer's
 * copies and the consumers' rest of the AST (print.c's roles).
 *
 *   one producer warp:  for (tiles) { if (producer) { copies; continue; }
 *                                      consumers }
 *   a producer warpgroup (k->wg: a prologue through the MMA's
 *   registers): if (producer warpgroup) { setmaxnreg.dec 40; thread 0:
 *   for (tiles) copies } else { setmaxnreg.inc R; for (tiles) rest }
 *   (R: what the register file leaves the consumers, at most 232)
 *   (the roles in two branches: ptxas gives each its own registers).
 *
 * The loop runs tiles blockIdx.x, + gridDim.x, ... of the raster order
 * (groups of PM_RASTER tile rows, file.c's tile_map); pm_qc counts the k
 * tiles before the block's current one: the ring's position. */
#include <string.h>

#include "emit/batch.h"
#include "emit/emit.h"
#include "emit/group.h"
#include "emit/persist.h"
#include "target/target.h"

/* The k tiles of a persistent kernel's unit of work (every contraction's;
 * split: its chunks). */
static void unit_ktiles(struct pm_kernel *k, struct pm_strbuf *b)
{
	for (int c = 0; c < pm_kernel_npipes(k); ++c) {
		if (c)
			pm_strbuf_add(b, " + ");
		pm_print_ktiles(k, b, c);
	}
}

/* The output tile (pm_by, pm_bx) of tile pm_t of the raster order, in a
 * persistent kernel's loop (tile_map). */
static void unit_tile(struct pm_strbuf *b)
{
	pm_strbuf_printf(b, "\t\tconst unsigned pm_r0 = pm_t / pm_gw * %du;\n"
		"\t\tconst unsigned pm_gh = min(pm_ty - pm_r0, %du), pm_ti = "
		"pm_t %% pm_gw;\n\t\tconst int pm_by = (int) (pm_r0 + pm_ti %% "
		"pm_gh), pm_bx = (int) (pm_ti / pm_gh);\n"
		/* a fixed size of one tile row or column: the AST's 0 */
		"\t\t(void) pm_by;\n\t\t(void) pm_bx;\n", PM_RASTER,
		PM_RASTER);
}

/* Split-K in a persistent kernel: the loop runs over units of work, the
 * first pm_tdp whole tiles (the full waves of a grid of several, none on
 * a small one), then the pm_nt - pm_tdp tiles of the tail in pm_ns chunks
 * each, unit (chunk pm_z, tile pm_t) the chunks of a tile pm_nt - pm_tdp
 * units apart (units of one chunk in raster order run side by side);
 * pm_ts: the tile's place in the tail (its counter and workspace slots);
 * pm_qn: the unit's k tiles (every contraction's chunk), added to the ring
 * position pm_qc at the loop's step; each unit stores its strip of the
 * tile (emit/fixup.c). The plan keeps the tail's units at most the blocks
 * resident at once and pm_tdp a multiple of the grid: the units of a tile
 * run in the same round and wait for each other. */
static void split_loop(struct pm_kernel *k, struct pm_strbuf *b)
{
	int w = pm_config_threads(k->cfg) / 32, dsm = k->dsm;
	char pad[80];

	pm_strbuf_printf(b, "\tconst unsigned pm_nt = pm_tx * pm_ty, pm_nr = "
		"pm_nt - pm_tdp;\n"
		"\tconst int pm_ns = (%s + pm_kc0 - 1) / pm_kc0;\n"
		"\tunsigned pm_qc = 0, pm_qn = 0;\n"
		"\tfor (unsigned pm_u = blockIdx.x; pm_u < pm_tdp + pm_nr * "
		"(unsigned) pm_ns; pm_u += gridDim.x, pm_qc += pm_qn) {\n"
		"\t\tconst int pm_whole = pm_u < pm_tdp;\n", k->scop->split_ext[0]);
	/* a cluster (pm_cl > 1; no whole tiles, one unit per block): the
	 * tile's chunks in the cluster's blocks, chunk = rank */
	pm_strbuf_printf(b, "\t\tconst unsigned pm_ts = pm_whole ? 0u : %s(pm_u "
		"- pm_tdp) %% pm_nr;\n"
		"\t\tconst unsigned pm_t = pm_whole ? pm_u : pm_tdp + pm_ts;\n"
		"\t\tconst int pm_z = pm_whole ? 0 : %s(int) ((pm_u - pm_tdp) / "
		"pm_nr), pm_nz = pm_whole ? 1 : pm_ns;\n", dsm ? "pm_cl > 1 ? "
		"(pm_u - pm_tdp) / (unsigned) pm_cl : " : "", dsm ? "pm_cl > 1 ? "
		"(int) ((pm_u - pm_tdp) % (unsigned) pm_cl) : " : "");
	/* chunks of whole k tiles: of the padded extent (ragged k) */
	for (int r = 0; r < k->scop->nsplit; ++r) {
		const char *e = pm_emit_padded_ext(k, k->scop->split_ext[r],
			pad, sizeof(pad));

		pm_strbuf_printf(b, "\t\tconst int pm_k0_%d = pm_z * pm_kc%d, "
			"pm_kn_%d = pm_whole ? %s : min(pm_kc%d, %s - pm_k0_%d);\n"
			"\t\t(void) pm_k0_%d;\n\t\t(void) pm_kn_%d;\n", r, r, r,
			e, r, e, r, r, r);
	}
	/* the unit's strip: the rows of consumer warps [pm_w0, pm_w1)
	 * (fixup.c) */
	pm_strbuf_printf(b, "\t\tconst int pm_w0 = %d * pm_z / pm_nz, pm_w1 = "
		"%d * (pm_z + 1) / pm_nz;\n\t\t(void) pm_w0;\n\t\t(void) pm_w1;\n",
		w, w);
	pm_strbuf_add(b, "\t\tpm_qn = ");
	unit_ktiles(k, b);
	pm_strbuf_add(b, ";\n");
	unit_tile(b);
}

/* A cluster of two blocks (k->mc): cluster x / 2 runs pairs of tile
 * rows' tiles x / 2, x / 2 + gridDim.x / 2, ... of the raster order over
 * the pm_ty2 pairs (groups of PM_RASTER / 2 pairs), block pm_rk the tile
 * in row 2 y + pm_rk; past the last row (M of an odd number of tiles) it
 * runs its partner's tile and stores nothing (pm_own 0; its copies of B
 * still serve the partner). */
static void mc_loop(struct pm_kernel *k, struct pm_strbuf *b)
{
	const int bat = pm_emit_batched(k);

	pm_strbuf_printf(b, "\tunsigned pm_qc = 0;\n"
		"\tfor (unsigned %s = blockIdx.x / 2u; %s < pm_tx * pm_ty2%s; "
		"%s += gridDim.x / 2u, pm_qc += ", bat ? "pm_u" : "pm_t",
		bat ? "pm_u" : "pm_t", bat ? " * pm_nb" : "",
		bat ? "pm_u" : "pm_t");
	unit_ktiles(k, b);
	pm_strbuf_add(b, ") {\n");
	/* batched: units (batch, pair of rows' tile) (emit/batch.h) */
	if (bat)
		pm_emit_batch_unit(k, b, "pm_tx * pm_ty2");
	pm_strbuf_printf(b, "\t\tconst unsigned pm_r0 = pm_t / pm_gw * "
		"%du;\n\t\tconst unsigned pm_gh = min(pm_ty2 - pm_r0, %du), "
		"pm_ti = pm_t %% pm_gw;\n\t\tconst unsigned pm_y = 2u * (pm_r0 "
		"+ pm_ti %% pm_gh) + pm_rk;\n\t\tconst int pm_own = pm_y < "
		"pm_ty;\n\t\tconst int pm_by = (int) min(pm_y, pm_ty - 1u), "
		"pm_bx = (int) (pm_ti / pm_gh);\n\t\t(void) pm_by;\n\t\t(void) "
		"pm_bx;\n", PM_RASTER / 2, PM_RASTER / 2);
}

/* A persistent kernel's loop over output tiles: block x runs tiles x,
 * x + gridDim.x, ... of the raster order (tile_map); pm_qc counts the k
 * tiles of the tiles before, the ring's position (pm_print_ring). */
static void persistent_loop(struct pm_kernel *k, struct pm_strbuf *b)
{
	if (k->scop->nsplit) {
		split_loop(k, b);
		return;
	}
	if (k->mc) {
		mc_loop(k, b);
		return;
	}
	if (pm_emit_grouped(k)) {
		/* units (group, tile), each group's in raster order
		 * (emit/group.h) */
		pm_strbuf_add(b, "\tunsigned pm_qc = 0;\n"
			"\tfor (unsigned pm_u = blockIdx.x; pm_u < pm_nu; "
			"pm_u += gridDim.x, pm_qc += ");
		unit_ktiles(k, b);
		pm_strbuf_add(b, ") {\n");
		pm_emit_group_punit(k, b);
		pm_emit_batch_shift(k, b, "(pm_bz - pm_bzp)", "\t\t");
		pm_emit_group_prows(k, b);
		unit_tile(b);
		return;
	}
	if (pm_emit_batched(k)) {
		/* units (batch, tile), each batch's in raster order
		 * (emit/batch.h) */
		pm_strbuf_add(b, "\tunsigned pm_qc = 0;\n"
			"\tfor (unsigned pm_u = blockIdx.x; pm_u < pm_tx * pm_ty * "
			"pm_nb; pm_u += gridDim.x, pm_qc += ");
		unit_ktiles(k, b);
		pm_strbuf_add(b, ") {\n");
		pm_emit_batch_unit(k, b, "pm_tx * pm_ty");
		unit_tile(b);
		return;
	}
	pm_strbuf_add(b, "\tunsigned pm_qc = 0;\n"
		"\tfor (unsigned pm_t = blockIdx.x; pm_t < pm_tx * pm_ty; pm_t += "
		"gridDim.x, pm_qc += ");
	unit_ktiles(k, b);
	pm_strbuf_add(b, ") {\n");
	unit_tile(b);
}

/* Append t to b, each line indented by n more tabs. */
static void add_indented(struct pm_strbuf *b, const char *t, int n)
{
	for (const char *l = t; *l;) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t) (e - l + 1) : strlen(l);

		for (int i = 0; i < n && len > 1; ++i)
			pm_strbuf_add(b, "\t");
		pm_strbuf_printf(b, "%.*s", (int) len, l);
		l += len;
	}
}

/* One role's loop over the tiles (role 1: the producer's, 2: the
 * consumers'), indented by n more tabs. */
static int role_loop(struct pm_kernel *k, __isl_keep isl_ast_node *ast,
	struct pm_strbuf *b, int role, int n, struct pm_diags *d)
{
	struct pm_strbuf t;
	int r;

	pm_strbuf_init(&t);
	persistent_loop(k, &t);
	r = pm_emit_body(k, ast, &t, 2, role, d);
	pm_strbuf_add(&t, "\t}\n");
	if (t.failed)
		r = -1;
	else
		add_indented(b, t.s, n);
	pm_strbuf_free(&t);
	return r;
}

int pm_emit_ws_body(struct pm_kernel *k, __isl_keep isl_ast_node *ast,
	struct pm_strbuf *b, struct pm_diags *d)
{
	int nt = pm_config_threads(k->cfg);
	/* split in clusters (fixup.c): no block leaves before its peers'
	 * last access to its shared memory (the "recv" wait already orders
	 * them; this makes it a cluster barrier, which compute-sanitizer's
	 * racecheck recognizes; relaxed: a release one cost ~3 %, PERF.md) */
	const char *dsm_end = k->dsm ?
		"\tif (pm_cl > 1)\n\t\tpm_cluster_sync_relaxed();\n" : "";
	/* TMA stores (ops.c, TSTG): complete before the block leaves */
	const char *tstg_end = k->tma_store ?
		"\tif (threadIdx.x == 0)\n\t\tpm_bulk_wait();\n" : "";

	if (k->wg) {
		pm_strbuf_printf(b, "\tif (threadIdx.x >= %d) {\n"
			"\t\tpm_setmaxnreg_dec<%d>();\n"
			"\t\tif (threadIdx.x == %d) {\n", nt, PM_WG_PRODUCER_REGS,
			nt);
		if (role_loop(k, ast, b, 1, 2, d) < 0)
			return -1;
		pm_strbuf_printf(b, "\t\t}\n\t} else {\n"
			"\t\tpm_setmaxnreg_inc<%d>();\n", pm_wg_consumer_regs(nt));
		if (role_loop(k, ast, b, 2, 1, d) < 0)
			return -1;
		add_indented(b, tstg_end, 1);
		pm_strbuf_printf(b, "\t}\n%s}\n", dsm_end);
		return 0;
	}
	persistent_loop(k, b);
	if (pm_emit_body(k, ast, b, 2, 0, d) < 0)
		return -1;
	/* a cluster: neither block leaves while the other may copy into
	 * its shared memory or arrive on its barriers */
	pm_strbuf_printf(b, "\t}\n%s%s}\n", tstg_end, k->mc ?
		"\tpm_cluster_sync();\n" : dsm_end);
	return 0;
}

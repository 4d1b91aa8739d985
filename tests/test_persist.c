#define _POSIX_C_SOURCE 200809L
/* The persistent warp-specialized kernel (promote/tma.c
 * pm_tma_ws_pipeline, emit/): its producer warp and its loop over tiles,
 * the ring position carried across tiles, the consumers' named barriers,
 * its own C tile, the launcher's grid and the variant's launch rule, the
 * split variant (reduce-scatter of a tile's chunks), and the refusals of
 * --persistent on. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"

/* The text of kernel `name` (up to the next kernel or the host code). */
static char *kernel_text(const char *s, const char *name)
{
	const char *a = strstr(s, name), *e;
	char *k;

	assert_non_null(a);
	e = strstr(a, "\nextern \"C\"");
	if (!e)
		e = a + strlen(a);
	k = strndup(a, (size_t) (e - a));
	assert_non_null(k);
	return k;
}

/* Generate spec text (or layout) with opts; NULL and the diagnostics in
 * *diag when it fails. */
static char *try_gen(const char *spec, const char *const *opts, char **diag)
{
	char path[64], *text, *src = NULL;
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;

	snprintf(path, sizeof(path), "examples/%s.tc", spec);
	text = strchr(spec, '(') ? strdup(spec) : pm_test_read(path);
	assert_non_null(text);
	for (int i = 0; opts && opts[i]; i += 2)
		assert_int_equal(polymma_options_set(o, opts[i], opts[i + 1],
			NULL), POLYMMA_OK);
	if (polymma_generate(ctx, text, path, o, &r) == POLYMMA_OK)
		src = strdup(polymma_result_source(r));
	*diag = strdup(polymma_diagnostics(ctx));
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
	return src;
}

/* --persistent on: one kernel of 288 threads (a producer warp after the 8
 * consumer warps), one block per SM; the block loops over tiles and the
 * ring position pm_qc advances by the k tiles of each. */
static void test_structure(void **state)
{
	const char *opts[] = { "target", "sm_90a", "persistent", "on", NULL };
	char *meta, *s = gen("nn", opts, NULL, &meta), *k, *prod, *cons;

	(void) state;
	assert_non_null(strstr(meta, "\"threads\": 288,"));
	assert_non_null(strstr(meta, "\"stages\": 4,"));
	assert_non_null(strstr(meta, "\"persistent\": \"on\","));
	free(meta);
	assert_int_equal(count(s, "__global__"), 1);
	k = kernel_text(s, "__launch_bounds__(288, 1) pm_kernel_gemm_nn(");
	assert_non_null(strstr(k, "unsigned pm_qc = 0;\n\tfor (unsigned pm_t = "
		"blockIdx.x; pm_t < pm_tx * pm_ty; pm_t += gridDim.x, pm_qc += "
		"((unsigned) K + 63u) / 64u) {"));
	/* 4 stages of 32 KB, the C tile after them, then the barriers */
	assert_non_null(strstr(k, "__half *pm_cst = (__half *) (pm_smem + "
		"131072);"));
	assert_non_null(strstr(k, "uint64_t *pm_bar = (uint64_t *) (pm_smem + "
		"165888);"));
	assert_non_null(strstr(k, "pm_mbar_init(&pm_bar[pm_i], pm_i % 8 < 4 ? "
		"1 : 8);"));
	/* the producer: thread 256 alone, every k tile's boxes, then on to
	 * the next tile */
	prod = strstr(k, "if (threadIdx.x >= 256) {");
	assert_non_null(prod);
	cons = strstr(prod, "continue;\n");
	assert_non_null(cons);
	assert_non_null(strstr(prod, "if (threadIdx.x == 256) {"));
	assert_true(strstr(prod, "// producer") < cons);
	assert_true(strstr(prod, "{ const unsigned pm_q = pm_qc + ((c2)), pm_s "
		"= pm_q % 4; if (pm_q >= 4) pm_mbar_wait(&pm_bar[4 + pm_s], (pm_q "
		"/ 4 + 1) & 1); pm_mbar_arrive_tx(&pm_bar[0 + pm_s], 32768); "
		"pm_tma_load_2d(&A_shared[pm_s * 8192 + 0], &pm_tm0, &pm_bar[0 + "
		"pm_s], (64 * c2) + 0, (128 * c0)); }") < cons);
	/* all 3 boxes in the producer's loop, none in the consumers' */
	assert_int_equal(count(k, "pm_tma_load_2d("), 3);
	assert_null(strstr(cons, "pm_tma_load_2d("));
	assert_null(strstr(cons, "pm_mbar_arrive_tx("));
	/* the consumers: wait, MMA, drain, release at ring position pm_qc +
	 * kt; barriers among themselves only */
	{
		const char *w = strstr(cons, "pm_mbar_wait(&pm_bar[0 + ((pm_qc + "
			"((c2))) % 4)], (((pm_qc + ((c2))) / 4) & 1));");
		const char *m = strstr(cons, "pm_sm90_mma_tile<64, 128, 64, 1, "
			"64, 1, 1, 128, 2, 128, 64>(pm_acc[(0)], A_shared + ((pm_qc + "
			"((c2))) % 4) * 8192,");
		const char *dr = strstr(cons, "pm_sm90_drain<64>((float *) "
			"pm_acc);");
		const char *r = strstr(cons, "if (pm_lane_id() == 0) "
			"pm_mbar_arrive(&pm_bar[4 + ((pm_qc + ((c2))) % 4)]);");

		assert_true(w && m && dr && r);
		assert_true(w < m && m < dr && dr < r);
	}
	assert_null(strstr(prod, "__syncthreads"));
	assert_int_equal(count(k, "pm_bar_sync_n<256>();"), 2);
	free(k);
	/* the launcher: SMs x blocks per SM asked once, at most that many
	 * blocks */
	assert_non_null(strstr(s, "pm_pblocks = (int64_t) n * (o > 0 ? o : 1);"));
	assert_non_null(strstr(s, "< (int64_t) (pm_pblocks) ? "));
	assert_non_null(strstr(s, "pm_kernel_gemm_nn<<<grid, 288, 165952, "
		"stream>>>("));
	free(s);
}

/* A prologue on A through the MMA's registers: the producer is a
 * warpgroup that gives its registers to the consumers (384 threads, the
 * roles in the two branches of one if/else, each with its own loop over
 * the tiles: setmaxnreg needs that shape); an epilogue chain: the
 * persistent kernel is the same around it. */
static void test_fused(void **state)
{
	const char *opts[] = { "target", "sm_90a", "persistent", "on", NULL };
	char *diag, *s = try_gen("relu_gemm", opts, &diag), *k;
	const char *dec, *inc, *prod, *mma;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(384, 1) pm_kernel_relu_gemm(");
	assert_non_null(strstr(k, "pm_sm90_mma_tile_ra<"));
	assert_non_null(strstr(k, "((pm_qc + ((c2))) % 4) * 8192"));
	assert_int_equal(count(k, "continue;"), 0);
	assert_int_equal(count(k, "for (unsigned pm_t = blockIdx.x;"), 2);
	dec = strstr(k, "\tif (threadIdx.x >= 256) {\n\t\tpm_setmaxnreg_dec<40>"
		"();\n\t\tif (threadIdx.x == 256) {\n\t\t\tunsigned pm_qc = 0;\n");
	inc = strstr(k, "\t} else {\n\t\tpm_setmaxnreg_inc<232>();\n\t\t"
		"unsigned pm_qc = 0;\n");
	prod = strstr(k, "// producer");
	mma = strstr(k, "pm_sm90_mma_tile_ra<");
	assert_non_null(dec);
	assert_non_null(inc);
	assert_true(dec < prod && prod < inc && inc < mma);
	assert_int_equal(count(k, "// producer"), 1);
	assert_int_equal(count(k, "pm_tma_load_2d("), 3);
	free(k);
	assert_non_null(strstr(s, "pm_kernel_relu_gemm<<<grid, 384, "));
	assert_non_null(strstr(s, "(&o, pm_kernel_relu_gemm, 384, "));
	free(s);
	free(diag);
	s = try_gen("gemm_epilogue_chain", opts, &diag);
	assert_non_null(s);
	assert_int_equal(count(s, "__launch_bounds__(288, 1)"), 1);
	free(s);
	free(diag);
}

/* The default: _persist and _persist_wide variants in files with the
 * split-K launch plan, launched on grids of more than one wave of the big
 * kernel whose waves they fill better, and on 3/5 to 1 tile per SM;
 * none for sm_80 or off. */
static void test_variant(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	const char *off[] = { "target", "sm_90a", "persistent", "off", NULL };
	const char *sm80[] = { "target", "sm_80", NULL };
	char *diag, *s = try_gen("gemm_bias_relu", opts, &diag), *k;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_bias_relu_persist(");
	assert_int_equal(count(k, "pm_tma_load_2d("), 3);
	free(k);
	/* the wide variant: 128x256 blocks, 3 stages of 48 KB and its own
	 * 128 x 264 C tile */
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_bias_relu_persist_wide(");
	assert_int_equal(count(k, "pm_tma_load_2d("), 5);
	assert_non_null(strstr(k, "pm_sm90_mma_tile<64, 256, 64,"));
	assert_non_null(strstr(k, "__half *pm_cst = (__half *) (pm_smem + "
		"147456);"));
	free(k);
	/* the launcher raises a kernel's shared-memory limit once per device
	 * (not a driver call in every launch), for every kernel that needs
	 * more than 48 KB */
	{
		const char *l = strstr(s, "cudaError_t gemm_bias_relu_ws(");
		const char *w = l ? strstr(l, "static int pm_set[64];\n\t\t\t"
			"int pm_dev = -1;\n\t\t\tif (cudaGetDevice(&pm_dev) != "
			"cudaSuccess)\n\t\t\t\treturn cudaGetLastError();\n"
			"\t\t\tif (pm_dev < 0 || pm_dev >= 64 || !pm_set[pm_dev]) "
			"{\n\t\t\t\tif (cudaFuncSetAttribute("
			"pm_kernel_gemm_bias_relu_persist_wide, "
			"cudaFuncAttributeMaxDynamicSharedMemorySize, ") : NULL;

		assert_non_null(w);
		assert_non_null(strstr(w, "\t\t\t\tif (pm_dev >= 0 && pm_dev < "
			"64)\n\t\t\t\t\tpm_set[pm_dev] = 1;\n"));
		assert_int_equal(count(l, "cudaFuncSetAttribute("),
			count(l, "static int pm_set[64];"));
	}
	/* the plan: only on grids of more than one wave of the big kernel;
	 * the wide kernel where it divides N and fills its waves to 85 %,
	 * else the 128x128 one where its waves are fuller */
	assert_non_null(strstr(s, "if (oc[2] > 0 && tiles > (int64_t) sms * "
		"occ) {"));
	assert_non_null(strstr(s, "if (oc[3] > 0 && M % 128 == 0 && N % 256 "
		"== 0) {"));
	assert_non_null(strstr(s, "if (t2 * 100 >= 85 * ((t2 + bw - 1) / bw) "
		"* bw)\n\t\t\t\tp->persist = 2, p->pblocks = bw;"));
	assert_non_null(strstr(s, "if (!p->persist && (tiles + bp - 1) / bp * "
		"bp < (tiles + b1 - 1) / b1 * b1)\n\t\t\tp->persist = 1, "
		"p->pblocks = bp;"));
	/* 3/5 to 1 block per SM: the persistent kernel, unsplit, neither
	 * the small nor the medium variant */
	assert_non_null(strstr(s, "\tconst int pfew = oc[2] > 0 && tiles <= "
		"sms && (tiles * 5 >= (int64_t) sms * 3 ||\n\t    (tiles * 2 > "
		"(int64_t) sms && kt[0] >= 16));\n\tif (pfew)\n\t\ts = "
		"1;\n"));
	assert_non_null(strstr(s, "p->small1 = tiles < sms && !pfew;"));
	assert_non_null(strstr(s, "tiles < (int64_t) sms * occ && !pfew) {"));
	assert_non_null(strstr(s, "\tif (pfew)\n\t\tp->persist = 1, "
		"p->pblocks = (int64_t) sms * oc[2];\n"));
	assert_non_null(strstr(s, "\tif (p.persist == 1) {\n"));
	assert_non_null(strstr(s, "\tif (p.persist == 2) {\n"));
	assert_non_null(strstr(s, "pm_kernel_gemm_bias_relu_persist<<<grid, "
		"288, 165952, stream>>>("));
	assert_non_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_wide<<<"
		"grid, 288, 215088, stream>>>("));
	assert_non_null(strstr(s, "pm_occ[2] = o > 0 ? o : 1;"));
	assert_non_null(strstr(s, "pm_occ[3] = o > 0 ? o : 1;"));
	free(s);
	free(diag);
	/* Add(GEMM, GEMM): both contractions' tiles through one ring */
	s = try_gen("add_gemm", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_add_gemm_persist(");
	assert_int_equal(count(k, "// producer"), 2);
	assert_non_null(strstr(k, "pm_qc += ((unsigned) K + 63u) / 64u + "
		"((unsigned) K + 63u) / 64u) {"));
	assert_non_null(strstr(k, "{ const unsigned pm_q = pm_qc + ((unsigned) "
		"K + 63u) / 64u + ((c2)), pm_s = pm_q % 4; if (pm_q >= 4) "
		"pm_mbar_wait(&pm_bar[4 + pm_s], (pm_q / 4 + 1) & 1); "
		"pm_mbar_arrive_tx(&pm_bar[0 + pm_s], 32768); pm_tma_load_2d("
		"&E_shared[pm_s * 8192 + 0]"));
	assert_non_null(strstr(k, "pm_mbar_wait(&pm_bar[0 + ((pm_qc + "
		"((unsigned) K + 63u) / 64u + ((c2))) % 4)], (((pm_qc + "
		"((unsigned) K + 63u) / 64u + ((c2))) / 4) & 1));"));
	assert_non_null(strstr(k, "pm_mbar_init(&pm_bar[pm_i], pm_i % 8 < 4 ? "
		"1 : 8);"));
	assert_null(strstr(k, "__syncthreads();\n\t\t"));
	free(k);
	free(s);
	free(diag);
	/* a prologue through the MMA's registers: the 128x128 variant for
	 * 3/5 to 1 tile per SM only (measured slower on several waves), the
	 * wide and tall ones on several waves (a producer warpgroup) */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist("));
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist_wide("));
	assert_non_null(strstr(s, "\tif (pfew)\n\t\tp->persist = 1, "));
	assert_non_null(strstr(s, "if (oc[2] > 0 && tiles > (int64_t) sms * "
		"occ) {"));
	assert_non_null(strstr(s, "if (t2 * 100 >= (kt[0] >= 16 ? 70 : 85) * "
		"((t2 + bw - 1) / bw) * bw)\n\t\t\t\tp->persist = 2, p->pblocks "
		"= bw;"));
	assert_null(strstr(s, "p->persist = 1, p->pblocks = bp;"));
	assert_null(strstr(s, "p->persist != 4 && tiles > (int64_t) sms * "
		"oc[4]) {"));
	free(s);
	free(diag);
	s = try_gen("gemm_bias_relu", off, &diag);
	assert_null(strstr(s, "_persist"));
	free(s);
	free(diag);
	s = try_gen("gemm_bias_relu", sm80, &diag);
	assert_null(strstr(s, "_persist"));
	free(s);
	free(diag);
}

/* Grids under 3/5 tile per SM: split-K in the persistent kernel. Its loop
 * runs over units (chunk pm_z, tile pm_t), the ring advancing by the
 * unit's chunk; the units of a tile reduce-scatter their partials (each
 * puts the other warps' rows, waits for the tile's units, adds its own
 * rows' partials and stores only them); grids of several waves run the
 * full waves' tiles whole and split the tail's; the plan's rules and the
 * launch. */
static void test_split(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	const char *fixed[] = { "target", "sm_90a", "split-k", "3", NULL };
	const char *never[] = { "target", "sm_90a", "split-k", "1", NULL };
	char *diag, *s = try_gen("gemm_nn", opts, &diag), *k;
	const char *fix, *st;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_nn_persist_split(");
	assert_non_null(strstr(k, "int K, float *__restrict__ pm_ws, unsigned "
		"*__restrict__ pm_cnt, int pm_kc0, unsigned pm_tdp, int pm_cl, "
		"const __grid_constant__"));
	/* the whole tiles first, then the tail's in chunks */
	assert_non_null(strstr(k, "\tconst unsigned pm_nt = pm_tx * pm_ty, "
		"pm_nr = pm_nt - pm_tdp;\n\tconst int pm_ns = (K + pm_kc0 - 1) / "
		"pm_kc0;\n"));
	assert_non_null(strstr(k, "for (unsigned pm_u = blockIdx.x; pm_u < "
		"pm_tdp + pm_nr * (unsigned) pm_ns; pm_u += gridDim.x, pm_qc += "
		"pm_qn) {"));
	assert_non_null(strstr(k, "const unsigned pm_ts = pm_whole ? 0u : "
		"pm_cl > 1 ? (pm_u - pm_tdp) / (unsigned) pm_cl : (pm_u - pm_tdp) "
		"% pm_nr;"));
	assert_non_null(strstr(k, "const int pm_z = pm_whole ? 0 : pm_cl > 1 ? "
		"(int) ((pm_u - pm_tdp) % (unsigned) pm_cl) : (int) ((pm_u - "
		"pm_tdp) / pm_nr), pm_nz = pm_whole ? 1 : pm_ns;"));
	assert_non_null(strstr(k, "const int pm_k0_0 = pm_z * pm_kc0, pm_kn_0 "
		"= pm_whole ? K : min(pm_kc0, K - pm_k0_0);"));
	assert_non_null(strstr(k, "pm_qn = ((unsigned) pm_kn_0 + 63u) / 64u;"));
	assert_non_null(strstr(k, "const int pm_w0 = 8 * pm_z / pm_nz, pm_w1 = "
		"8 * (pm_z + 1) / pm_nz;"));
	/* the producer's and the consumers' k loops: the chunk */
	assert_int_equal(count(k, "c2 < pm_kn_0 / 64); c2 += (1)) {"), 2);
	assert_non_null(strstr(k, "(pm_k0_0 + 64 * c2) + 0, (128 * c0));"));
	fix = strstr(k, " } else { pm_rs_put<64, 256>((const float *) "
		"pm_acc, pm_ws + ((int64_t) pm_ts * pm_nz + pm_z) * 16384 + 0, "
		"pm_w0, pm_w1); pm_rs_sync<256>(pm_cnt + pm_ts, (unsigned) pm_nz);"
		" for (int pm_q = 0; pm_q < pm_nz; ++pm_q) if (pm_q != pm_z) { "
		"pm_rs_add<64, 256>((float *) pm_acc, pm_ws + ((int64_t) pm_ts * "
		"pm_nz + pm_q) * 16384 + 0, pm_w0, pm_w1); } pm_rs_done(pm_cnt + "
		"pm_ts, (unsigned) pm_nz); } }");
	assert_non_null(fix);
	st = strstr(k, "pm_sm90_store<64, 128>(");
	assert_non_null(st);
	assert_true(strstr(k, "pm_sm90_drain<64>") < fix);
	assert_true(fix < st);
	/* every row of C stored under the strip's predicate */
	assert_int_equal(count(k, "if (pm_nz == 1 || ("), 8);
	assert_non_null(strstr(k, "if (pm_nz == 1 || ((c2 + 16) / 16 >= pm_w0 "
		"&& (c2 + 16) / 16 < pm_w1)) pm_copy16_s2g(&C["));
	free(k);
	/* the others do not reduce-scatter */
	assert_int_equal(count(s, "pm_rs_sync<256>(pm_cnt"), 1);
	/* the counter as CUTLASS's barriers: one thread's release after the
	 * warps' barrier (no per-thread fence), the second arrival after the
	 * adds */
	{
		const char *h = strstr(s, "void pm_rs_sync(unsigned *cnt");
		const char *e = h ? strstr(h, "pm_rs_done(unsigned *cnt") : NULL;

		assert_non_null(e);
		assert_non_null(strstr(h, "\"fence.acq_rel.gpu;\\n\"\n"
			"                 \"red.relaxed.gpu.global.add.u32 [%0], "
			"1;\\n\""));
		assert_true(strstr(h, "fence.acq_rel.gpu") < e);
		assert_true(!strstr(h, "__threadfence") ||
			strstr(h, "__threadfence") > e);
		assert_non_null(strstr(e, "atomicAdd(cnt, 1u) == 2 * nz - 1"));
	}
	/* the plan: under 3/5 tile per SM, chunks of 16 k tiles or more, at
	 * most 8 (one strip per consumer warp), units filling half the SMs */
	assert_non_null(strstr(s, "\tconst int psplit = oc[4] > 0 && tiles * 5 "
		"< (int64_t) sms * 3;\n\tif (psplit)\n\t\ts = pm_fit_gemm_nn(kt, "
		"(int64_t) sms * oc[4] / tiles, 16, 8);\n"));
	/* the chunks: at most s and max_s, min_kt k tiles or more each, whole
	 * and none empty */
	assert_non_null(strstr(s, "static int64_t pm_fit_gemm_nn(const int64_t "
		"*kt, int64_t s, int64_t min_kt, int64_t max_s)\n{\n\tif (s > "
		"max_s)\n\t\ts = max_s;\n\tfor (int r = 0; r < 1; ++r)\n\t\tif "
		"(s > kt[r] / min_kt)\n\t\t\ts = kt[r] / min_kt;\n\tif (s < 1)\n"
		"\t\ts = 1;\n"));
	assert_non_null(strstr(s, "\ts = pm_fit_gemm_nn(kt, s, 1, s);\n"));
	assert_non_null(strstr(s, "\tif (psplit && tiles * s * (cl ? 1 : 1) * "
		"2 < (int64_t) sms)\n\t\ts = 1;\n\tp->s = (int) s;"));
	assert_non_null(strstr(s, "\tif (psplit && s > 1)\n\t\tp->persist = "
		"3, p->pblocks = (int64_t) sms * oc[4];\n"));
	/* no workspace: unsplit, not this kernel */
	assert_non_null(strstr(s, "\t\tp.s = 1;\n\t\tp.small = p.small1;\n"
		"\t\tp.medium = p.medium1;\n\t\tif (p.persist == 3)\n\t\t\t"
		"p.persist = p.tdp ? 1 : 0;\n"));
	assert_non_null(strstr(s, "\tif (p.persist == 3) {\n"));
	assert_non_null(strstr(s, "dim3 grid((unsigned) ((p.tdp + ((int64_t) "
		"((M + 128 - 1) / 128) * ((N + 128 - 1) / 128) - p.tdp) * p.s) < "
		"(int64_t) (p.pblocks) ? "));
	assert_non_null(strstr(s, ", (int) p.kc[0], (unsigned) p.tdp, (int) "
		"p.cl, pm_tm0, pm_tm1);"));
	/* several waves whose last is at most half full: the full waves'
	 * tiles whole, the tail's split */
	assert_non_null(strstr(s, "\tp->tdp = 0;\n\tif (oc[4] > 0 && "
		"p->persist != 2 && p->persist != 4 && tiles > (int64_t) sms * "
		"oc[4]) {\n\t\tconst "
		"int64_t pb = (int64_t) sms * oc[4], rt = tiles % pb;\n\t\t"
		"int64_t s3 = rt > 0 && 2 * rt <= pb ? pm_fit_gemm_nn(kt, pb / rt, "
		"4, 8) : 1;\n"));
	assert_non_null(strstr(s, "\t\t\tif (kt[r] < 16)\n\t\t\t\ts3 = "
		"1;\n"));
	assert_non_null(strstr(s, "p->persist = 3, p->pblocks = pb, p->tdp = "
		"tiles - rt, p->s = (int) s3;"));
	assert_non_null(strstr(s, "p->bytes = p->cnt_bytes + (size_t) rt * "
		"(size_t) s3 * 65536;"));
	assert_non_null(strstr(s, "pm_kernel_gemm_nn_persist_split<<<grid, 288, "
		"165968, stream>>>("));
	assert_non_null(strstr(s, "pm_occ[4] = o > 0 ? o : 1;"));
	free(s);
	free(diag);
	/* Add(GEMM, GEMM): the unit's chunks of both contractions */
	s = try_gen("add_gemm", opts, &diag);
	assert_non_null(s);
	k = kernel_text(s, "pm_kernel_add_gemm_persist_split(");
	assert_non_null(strstr(k, "pm_qn = ((unsigned) pm_kn_0 + 63u) / 64u + "
		"((unsigned) pm_kn_1 + 63u) / 64u;"));
	assert_non_null(strstr(k, "const unsigned pm_q = pm_qc + ((unsigned) "
		"pm_kn_0 + 63u) / 64u + ((c2))"));
	free(k);
	free(s);
	free(diag);
	/* a prologue through the MMA's registers has it too, for small grids
	 * only (no tail rule: its persistent kernels lose on several waves) */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "pm_kernel_relu_gemm_persist_split("));
	assert_non_null(strstr(s, "\tif (psplit && s > 1)\n\t\tp->persist = 3"));
	assert_null(strstr(s, "p->tdp = tiles - rt"));
	free(s);
	free(diag);
	/* only with --split-k auto */
	for (int i = 0; i < 2; ++i) {
		s = try_gen("gemm_nn", i ? never : fixed, &diag);
		assert_non_null(s);
		assert_null(strstr(s, "_persist_split"));
		free(s);
		free(diag);
	}
}

/* --persistent on where it cannot be: clear errors, no output. */
static void test_refusals(void **state)
{
	static const struct {
		const char *spec, *opt[8], *msg;
	} cases[] = {
		{ "def p(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
		  "    C(i, j) +=! A(i, k) * tanh(B(k, j))\n}\n",
		  { "target", "sm_90a", "persistent", "on" },
		  "--persistent on: not possible here (it needs TMA copies: "
		  "--target sm_90a, --tma not off)" },
		{ "gemm_nn", { "target", "sm_80", "persistent", "on" },
		  "--persistent on: it needs TMA copies (--target sm_90a, --tma "
		  "not off); target sm_80" },
		{ "gemm_nn", { "target", "sm_90a", "persistent", "on", "tma",
		  "off" }, "with --tma off" },
		{ "gemm_nn", { "target", "sm_90a", "persistent", "on",
		  "split-k", "2" }, "--persistent on: the persistent kernel does "
		  "not split k (--split-k 2)" },
	};
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;

	(void) state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
		char *diag, *s = try_gen(cases[i].spec, cases[i].opt, &diag);

		assert_null(s);
		if (!strstr(diag, cases[i].msg))
			fprintf(stderr, "case %zu: %s\n", i, diag);
		assert_non_null(strstr(diag, cases[i].msg));
		free(diag);
	}
	assert_int_equal(polymma_options_set(o, "persistent", "yes", &err),
		POLYMMA_ERR_USAGE);
	assert_string_equal(err, "--persistent expects auto, on or off");
	polymma_options_free(o);
}

/* --dump-schedule shows the producer's subtree under its mark, in front
 * of the k loop. */
static void test_dump(void **state)
{
	const char *opts[] = { "target", "sm_90a", "persistent", "on",
		"dump-schedule", "promote", NULL };
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	char *text = pm_test_read("examples/gemm_nn.tc"), *dump = NULL, *p;
	size_t len = 0;
	FILE *f = open_memstream(&dump, &len);

	(void) state;
	assert_non_null(f);
	for (int i = 0; opts[i]; i += 2)
		assert_int_equal(polymma_options_set(o, opts[i], opts[i + 1],
			NULL), POLYMMA_OK);
	polymma_options_set_dump_stream(o, f);
	assert_int_equal(polymma_generate(ctx, text, "gemm_nn.tc", o, &r),
		POLYMMA_OK);
	fclose(f);
	p = strstr(dump, "mark: \"producer\"");
	assert_non_null(p);
	assert_non_null(strstr(p, "mark: \"red\""));
	free(dump);
	free(text);
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

/* The tall variant: 256x128 blocks (two warpgroups of 128x128, two
 * 64x128 wgmma each per k step), 3 stages of 48 KB and its own 256 x 136
 * C tile; launched on grids of several waves whose M it divides and N not
 * the wide variant's, where it fills its waves to 85 %; the tail rule
 * leaves it alone. */
static void test_tall(void **state)
{
	const char *opts[] = { "target", "sm_90a", NULL };
	char *diag, *s = try_gen("gemm_bias_relu", opts, &diag), *k;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) "
		"pm_kernel_gemm_bias_relu_persist_tall(");
	assert_int_equal(count(k, "pm_tma_load_2d("), 3);
	assert_int_equal(count(k, "pm_sm90_mma_tile<64, 128, 64, 1, 64, 1, 1, "
		"128, 2, 256, 64>("), 2);
	assert_non_null(strstr(k, "float pm_acc[2][64];"));
	assert_non_null(strstr(k, "pm_mbar_arrive_tx(&pm_bar[0 + pm_s], "
		"49152);"));
	assert_non_null(strstr(k, "__half *pm_cst = (__half *) (pm_smem + "
		"147456);"));
	assert_null(strstr(k, "__cluster_dims__"));
	free(k);
	/* the plan: after the wide rule, on its terms */
	assert_non_null(strstr(s, "\t\tif (!p->persist && oc[5] > 0 && M % 256 "
		"== 0 && N % 128 == 0) {\n\t\t\tconst int64_t t2 = (M / 256) * "
		"(N / 128), bw = (int64_t) sms * oc[5];\n\t\t\tif (t2 * 100 >= 85 "
		"* ((t2 + bw - 1) / bw) * bw)\n\t\t\t\tp->persist = 4, p->pblocks "
		"= bw;\n"));
	assert_true(strstr(s, "p->persist = 4") > strstr(s, "p->persist = 2"));
	assert_true(strstr(s, "p->persist = 4") < strstr(s, "p->persist = 1, "
		"p->pblocks = bp;"));
	assert_non_null(strstr(s, "if (oc[4] > 0 && p->persist != 2 && "
		"p->persist != 4 && tiles > (int64_t) sms * oc[4]) {"));
	assert_non_null(strstr(s, "pm_occ[5] = o > 0 ? o : 1;"));
	assert_non_null(strstr(s, "\tif (p.persist == 4) {\n"));
	assert_non_null(strstr(s, "pm_kernel_gemm_bias_relu_persist_tall<<<"
		"grid, 288, 217136, stream>>>("));
	free(s);
	free(diag);
	/* a register prologue: a producer warpgroup (test_fused) */
	s = try_gen("relu_gemm", opts, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "__launch_bounds__(384, 1) "
		"pm_kernel_relu_gemm_persist_tall("));
	assert_non_null(strstr(s, "p->persist = 4, p->pblocks = bw;"));
	free(s);
	free(diag);
}

/* --cluster 2 (only asked for: measured slower): pairs of blocks on
 * vertically adjacent tiles (cluster dims 2; rank pm_rk, the pairs of tile
 * rows in raster groups of 4), each copying half of the B tile into both
 * by multicast, the stage released by both blocks' warps (16 arrivals),
 * the cluster synchronized after the barriers' initialisation and before
 * exit, a block past the last tile row storing nothing; a B tile of one
 * box by halves of its rows (the tensor map's box too); the launch's grid
 * from the clusters resident at once. */
static void test_cluster(void **state)
{
	const char *on[] = { "target", "sm_90a", "persistent", "on",
		"cluster", "2", NULL };
	const char *def[] = { "target", "sm_90a", NULL };
	char *diag, *s = try_gen("gemm_nn", on, &diag), *k;
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "__launch_bounds__(288, 1) __cluster_dims__(2, 1, 1) "
		"pm_kernel_gemm_nn(");
	assert_non_null(strstr(k, "const unsigned pm_rk = pm_cluster_rank(), "
		"pm_ty2 = (pm_ty + 1u) / 2u;"));
	assert_non_null(strstr(k, "for (unsigned pm_t = blockIdx.x / 2u; pm_t "
		"< pm_tx * pm_ty2; pm_t += gridDim.x / 2u,"));
	assert_non_null(strstr(k, "const int pm_own = pm_y < pm_ty;"));
	assert_non_null(strstr(k, "pm_by = (int) min(pm_y, pm_ty - 1u)"));
	assert_non_null(strstr(k, "pm_mbar_init(&pm_bar[pm_i], pm_i % 8 < 4 ? "
		"1 : 16);"));
	assert_int_equal(count(k, "pm_cluster_sync();"), 2);
	assert_null(strstr(k, "__syncthreads()"));
	/* A whole by each block, B by halves to both */
	assert_int_equal(count(k, "pm_tma_load_2d("), 1);
	assert_non_null(strstr(k, "pm_tma_load_2d_mc(&B_shared[pm_s * 8192 + "
		"(0 + pm_rk) * 4096], &pm_tm1, &pm_bar[0 + pm_s], (128 * c1) + "
		"(0 + (int) pm_rk) * 64, (64 * c2), 3);"));
	assert_non_null(strstr(k, "pm_mbar_arrive_peer(&pm_bar[4 + ((pm_qc + "
		"((c2))) % 4)], pm_rk ^ 1u); }"));
	assert_int_equal(count(k, "if (pm_own) pm_copy16_s2g("), 8);
	free(k);
	assert_non_null(strstr(s, "cudaOccupancyMaxActiveClusters(&pm_n, "
		"pm_kernel_gemm_nn, &pm_lc)"));
	assert_non_null(strstr(s, "dim3 grid((unsigned) (2 * pm_g), 1);"));
	free(s);
	free(diag);
	/* B as N x K: one box of 128 rows, halves of 64 */
	s = try_gen("gemm_nt", on, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "pm_tma_load_2d_mc(&B_shared[pm_s * 8192 + "
		"pm_rk * 4096], &pm_tm1, &pm_bar[0 + pm_s], (64 * c2), (128 * c1) "
		"+ (int) pm_rk * 64, 3);"));
	assert_non_null(strstr(s, "pm_tma_map_2d(&pm_tm1, B, N, K, K, 64, 64, "
		"128)"));
	free(s);
	free(diag);
	/* by default: none; the split variant never */
	s = try_gen("gemm_nn", def, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "__cluster_dims__"));
	free(s);
	free(diag);
	{
		const char *v2[] = { "target", "sm_90a", "cluster", "2", NULL };

		s = try_gen("gemm_nn", v2, &diag);
		assert_non_null(s);
		k = kernel_text(s, "pm_kernel_gemm_nn_persist_split(");
		assert_null(strstr(k, "pm_tma_load_2d_mc("));
		free(k);
		k = kernel_text(s, "__cluster_dims__(2, 1, 1) "
			"pm_kernel_gemm_nn_persist(");
		free(k);
		free(s);
		free(diag);
	}
	/* not with a producer warpgroup (a register prologue) */
	s = try_gen("relu_gemm", on, &diag);
	assert_non_null(s);
	assert_null(strstr(s, "__cluster_dims__"));
	free(s);
	free(diag);
	assert_int_equal(polymma_options_set(o, "cluster", "3", &err),
		POLYMMA_ERR_USAGE);
	assert_string_equal(err, "--cluster expects auto, 1 or 2");
	polymma_options_free(o);
}

/* Grids under 3/5 tile per SM, split in clusters (the default; fixup.c):
 * the split persistent kernel takes the cluster's size pm_cl; launched in
 * clusters of a tile's chunks (cudaLaunchKernelEx), the chunk is the
 * block's rank, the partials go to the strip owner's shared memory (the
 * stages) behind "go" and "recv" barriers after the ring's, no workspace;
 * the plan asks how many clusters fit and takes chunks of 16 k tiles of
 * the unit's work (8 per contraction for Add(GEMM, GEMM)). --cluster 1:
 * the workspace fixup only. */
static void test_cluster_split(void **state)
{
	const char *def[] = { "target", "sm_90a", NULL };
	const char *none[] = { "target", "sm_90a", "cluster", "1", NULL };
	char *diag, *s = try_gen("gemm_nn", def, &diag), *k;
	const char *a, *b;

	(void) state;
	assert_non_null(s);
	k = kernel_text(s, "pm_kernel_gemm_nn_persist_split(");
	/* 8 ring barriers, then "go" and "recv" with the cluster's counts */
	assert_non_null(strstr(k, "for (int pm_i = 0; pm_i < 8; ++pm_i)"));
	assert_non_null(strstr(k, "\t\tif (pm_cl > 1) {\n\t\t\tconst int pm_rk "
		"= (int) pm_cluster_rank();\n\t\t\tpm_mbar_init(&pm_bar[8], "
		"(unsigned) pm_cl - 1u);\n\t\t\tpm_mbar_init(&pm_bar[9], "
		"(unsigned) (pm_cl - 1) * 32u * (unsigned) (8 * (pm_rk + 1) / "
		"pm_cl - 8 * pm_rk / pm_cl));\n\t\t}\n\t\tpm_mbar_init_fence();"));
	assert_non_null(strstr(k, "\tif (pm_cl > 1)\n\t\tpm_cluster_sync();\n"
		"\telse\n\t\t__syncthreads();\n"));
	/* the reduction: ready, put, sent, add; then the workspace's */
	a = strstr(k, "if (pm_nz > 1) { if (pm_cl > 1) { pm_dsm_ready<256>("
		"&pm_bar[8], pm_z, pm_nz); pm_dsm_put<64, 256>((const float *) "
		"pm_acc, (float *) pm_smem, 0, &pm_bar[8], pm_z, pm_nz); "
		"pm_dsm_sent<256>(&pm_bar[9], pm_z, pm_nz); pm_dsm_add<64, 256>("
		"(float *) pm_acc, (const float *) pm_smem, 0, &pm_bar[9], pm_z, "
		"pm_nz); } else { pm_rs_put<64, 256>(");
	assert_non_null(a);
	b = strstr(k, "pm_sm90_store<64, 128>(");
	assert_non_null(b);
	assert_true(strstr(k, "pm_sm90_drain<64>") < a);
	assert_true(a < b);
	/* no block leaves before its peers: a cluster barrier at the end */
	assert_non_null(strstr(k, "\t}\n\tif (pm_cl > 1)\n\t\t"
		"pm_cluster_sync_relaxed();\n}\n"));
	free(k);
	/* the other kernels have neither */
	assert_int_equal(count(s, "int pm_cl"), 1);
	assert_int_equal(count(s, "pm_dsm_ready<256>(&pm_bar"), 1);
	/* the plan: the clusters the GPU holds, asked once per size */
	assert_non_null(strstr(s, "static int pm_ncl_gemm_nn(int s)\n{\n"
		"\tstatic int pm_n[9];\n\tif (s < 2 || s > 8)\n\t\treturn 0;\n"));
	assert_non_null(strstr(s, "\t\tpm_lc.dynamicSmemBytes = 165968;\n"));
	assert_non_null(strstr(s, "if (cudaOccupancyMaxActiveClusters(&n, "
		"pm_kernel_gemm_nn_persist_split, &pm_lc) != cudaSuccess) {"));
	/* the most chunks, at least the workspace split's, of 16 k tiles or
	 * more, whose clusters are all resident and whose 64 floats per
	 * thread of s - 1 peers and ceil(8 / s) warps fit in 128 KB */
	assert_non_null(strstr(s, "\tint64_t cl = 0;\n\tif (psplit) {\n"
		"\t\tint64_t c = (int64_t) sms * oc[4] / tiles;\n\t\tfor (c = c < 8 "
		"? c : 8; c >= 2 && c >= s && !cl; --c)\n\t\t\tif (pm_fit_gemm_nn("
		"kt, c, 16, c) == c && (int64_t) 1 * (c - 1) * 64 * ((8 + c - 1) / "
		"c) * 128 <= 131072 && tiles <= pm_ncl_gemm_nn((int) c))\n\t\t\t\t"
		"cl = c;\n\t\tif (cl)\n\t\t\ts = cl;\n\t}\n"));
	assert_non_null(strstr(s, "\tp->cl = p->persist == 3 && !p->tdp && "
		"p->s > 1 && p->s == cl ? (int) cl : 0;\n\tif (p->cl)\n\t\t"
		"p->cnt_bytes = 0, p->bytes = 0;\n"));
	/* no workspace needed: neither entry asks for one */
	assert_non_null(strstr(s, "\tif (p.s > 1 && !p.cl && (!workspace || "
		"workspace_bytes < p.bytes)) {\n"));
	assert_non_null(strstr(s, "\tif (p.s > 1 && !p.cl && pm_ws_get_gemm_nn("
		"&ws, p.bytes, stream) == cudaSuccess)\n"));
	assert_non_null(strstr(s, "\tif (p.s == 1 || p.cl || "
		"pm_ws_alloc_gemm_nn(&ws, p.bytes, stream) != cudaSuccess) {"));
	/* the launch: clusters of p.cl blocks */
	assert_non_null(strstr(s, "\t\tif (p.cl > 1) {\n\t\t\tcudaLaunchConfig_t "
		"pm_lc = {};\n"));
	assert_non_null(strstr(s, "\t\t\tpm_la[0].id = "
		"cudaLaunchAttributeClusterDimension;\n\t\t\tpm_la[0].val."
		"clusterDim.x = (unsigned) p.cl;\n"));
	assert_non_null(strstr(s, "\t\t\treturn cudaLaunchKernelEx(&pm_lc, "
		"pm_kernel_gemm_nn_persist_split, (const __half *) A, "));
	free(s);
	free(diag);
	/* Add(GEMM, GEMM): 8 k tiles per contraction, units counted twice
	 * against the half-SM rule */
	s = try_gen("add_gemm", def, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "if (pm_fit_add_gemm(kt, c, 8, c) == c && "));
	assert_non_null(strstr(s, "\tif (psplit && tiles * s * (cl ? 2 : 1) * "
		"2 < (int64_t) sms)\n\t\ts = 1;\n"));
	/* the persistent kernel unsplit from 1/2 tile per SM with 16 k
	 * tiles of work, both contractions' */
	assert_non_null(strstr(s, "(tiles * 2 > (int64_t) sms && kt[0] + kt[1] "
		">= 16));"));
	/* the workspace split keeps its 16 */
	assert_non_null(strstr(s, "s = pm_fit_add_gemm(kt, (int64_t) sms * "
		"oc[4] / tiles, 16, 8);"));
	free(s);
	free(diag);
	/* a register prologue: the consumer warpgroups' 256 threads */
	s = try_gen("relu_gemm", def, &diag);
	assert_non_null(s);
	k = kernel_text(s, "pm_kernel_relu_gemm_persist_split(");
	assert_non_null(strstr(k, "pm_setmaxnreg_inc<232>();"));
	assert_non_null(strstr(k, "pm_dsm_put<64, 256>("));
	assert_non_null(strstr(k, "\t}\n\tif (pm_cl > 1)\n\t\t"
		"pm_cluster_sync_relaxed();\n}\n"));
	free(k);
	free(s);
	free(diag);
	/* the file's header and its configuration say so */
	{
		const char *da[] = { "target", "sm_90a", "split-k", "auto",
			NULL };
		const char *n1[] = { "target", "sm_90a", "split-k", "auto",
			"cluster", "1", NULL };
		char *meta, *t = gen("nn", da, NULL, &meta);

		assert_non_null(strstr(t, "of a tile (a tile's chunks as one "
			"cluster,\n *          reduced through distributed shared "
			"memory, where the GPU holds every cluster)\n"));
		assert_non_null(strstr(meta, "\"cluster\": \"auto\",\n"));
		free(meta);
		free(t);
		t = gen("nn", n1, NULL, &meta);
		assert_null(strstr(t, "as one cluster"));
		assert_non_null(strstr(meta, "\"cluster\": \"1\",\n"));
		free(meta);
		free(t);
	}
	/* --cluster 1: the workspace's reduce-scatter only */
	s = try_gen("gemm_nn", none, &diag);
	assert_non_null(s);
	k = kernel_text(s, "pm_kernel_gemm_nn_persist_split(");
	assert_non_null(strstr(k, "unsigned pm_tdp, const __grid_constant__"));
	assert_non_null(strstr(k, "if (pm_nz > 1) { pm_rs_put<64, 256>("));
	assert_non_null(strstr(k, "const unsigned pm_ts = pm_whole ? 0u : "
		"(pm_u - pm_tdp) % pm_nr;"));
	assert_non_null(strstr(k, "for (int pm_i = 0; pm_i < 8; ++pm_i)"));
	assert_null(strstr(k, "pm_cl"));
	free(k);
	assert_null(strstr(s, "pm_ncl_gemm_nn"));
	assert_null(strstr(s, "cudaLaunchKernelEx"));
	assert_non_null(strstr(s, "\tconst int64_t cl = 0;\n"));
	assert_non_null(strstr(s, "\tp->cl = p->persist == 3"));
	assert_non_null(strstr(s, "pm_kernel_gemm_nn_persist_split<<<grid, 288, "
		"165952, stream>>>("));
	free(s);
	free(diag);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_fused),
		cmocka_unit_test(test_variant),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_tall),
		cmocka_unit_test(test_cluster),
		cmocka_unit_test(test_cluster_split),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_dump),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#define _POSIX_C_SOURCE 200809L
/* Thread-block clusters on sm_90a: --cluster 2's pairs of persistent
 * blocks sharing B by TMA multicast, and split-K in clusters (the
 * split persistent kernel's chunks of a tile as one cluster, reduced
 * through distributed shared memory; --cluster 1 without it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "polymma.h"
#include "tests/util.h"
#include "tests/emit_util.h"

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
	assert_int_equal(count(k, "if (pm_own) if ((128 * c0 + c2"), 8);
	assert_int_equal(count(k, " < N) pm_copy16_s2g("), 8);
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
 * the split persistent kernel's cluster twin (_persist_split_cl, without
 * the workspace's fixup; the plain one without its cluster path: each
 * measured ~2 % on the other's k loops) takes the cluster's size pm_cl;
 * launched in
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
	k = kernel_text(s, "pm_kernel_gemm_nn_persist_split_cl(");
	/* 8 ring barriers, then "go" and "recv" with the cluster's counts */
	assert_non_null(strstr(k, "for (int pm_i = 0; pm_i < 8; ++pm_i)"));
	assert_non_null(strstr(k, "\t\tif (pm_cl > 1) {\n\t\t\tconst int pm_rk "
		"= (int) pm_cluster_rank();\n\t\t\tpm_mbar_init(&pm_bar[8], "
		"(unsigned) pm_cl - 1u);\n\t\t\tpm_mbar_init(&pm_bar[9], "
		"(unsigned) (pm_cl - 1) * 32u * (unsigned) (8 * (pm_rk + 1) / "
		"pm_cl - 8 * pm_rk / pm_cl));\n\t\t}\n\t\tpm_mbar_init_fence();"));
	assert_non_null(strstr(k, "\tif (pm_cl > 1)\n\t\tpm_cluster_sync();\n"
		"\telse\n\t\t__syncthreads();\n"));
	/* the reduction: ready, put, sent, add; not the workspace's */
	a = strstr(k, "if (pm_nz > 1) { if (pm_cl > 1) { pm_dsm_ready<256>("
		"&pm_bar[8], pm_z, pm_nz); pm_dsm_put<64, 256>((const float *) "
		"pm_acc, (float *) pm_smem, 0, &pm_bar[8], pm_z, pm_nz); "
		"pm_dsm_sent<256>(&pm_bar[9], pm_z, pm_nz); pm_dsm_add<64, 256>("
		"(float *) pm_acc, (const float *) pm_smem, 0, &pm_bar[9], pm_z, "
		"pm_nz); } }\n");
	assert_non_null(a);
	assert_null(strstr(k, "pm_rs_"));
	b = strstr(k, "pm_sm90_store<64, 128>(");
	assert_non_null(b);
	assert_true(strstr(k, "pm_sm90_drain<64>") < a);
	assert_true(a < b);
	/* no block leaves before its peers: a cluster barrier at the end */
	assert_non_null(strstr(k, "\t}\n\tif (pm_cl > 1)\n\t\t"
		"pm_cluster_sync_relaxed();\n}\n"));
	free(k);
	/* the other kernels have neither; the plain split kernel reduces
	 * through the workspace only */
	assert_int_equal(count(s, "int pm_cl"), 1);
	assert_int_equal(count(s, "pm_dsm_ready<256>(&pm_bar"), 1);
	k = kernel_text(s, "pm_kernel_gemm_nn_persist_split(");
	assert_non_null(strstr(k, "if (pm_nz > 1) { pm_rs_put<64, 256>("));
	assert_null(strstr(k, "pm_cl"));
	assert_null(strstr(k, "pm_dsm_"));
	free(k);
	/* the plan: the clusters the GPU holds, asked once per size */
	assert_non_null(strstr(s, "static int pm_ncl_gemm_nn(int s)\n{\n"
		"\tstatic int pm_n[9];\n\tif (s < 2 || s > 8)\n\t\treturn 0;\n"));
	assert_non_null(strstr(s, "\t\tpm_lc.dynamicSmemBytes = 165968;\n"));
	/* the cluster twin's shared memory above 48 KB allowed before the
	 * ask (else it fails, and no plan splits in clusters) */
	assert_non_null(strstr(s, "\t\tif (cudaFuncSetAttribute("
		"pm_kernel_gemm_nn_persist_split_cl, cudaFuncAttribute"
		"MaxDynamicSharedMemorySize, 165968) != cudaSuccess ||\n\t\t    "
		"cudaOccupancyMaxActiveClusters(&n, "
		"pm_kernel_gemm_nn_persist_split_cl, &pm_lc) != cudaSuccess) {"));
	/* the most chunks, more than the workspace split's (after its
	 * half-SM rule: at as many chunks the workspace measured faster), of
	 * 16 k tiles or more, whose clusters are all resident and whose 64
	 * floats per thread of s - 1 peers and ceil(8 / s) warps fit in
	 * 128 KB */
	assert_non_null(strstr(s, "\tint64_t cl = 0;\n\tif (psplit) {\n"
		"\t\tint64_t c = (int64_t) sms * oc[4] / tiles;\n"
		"\t\tconst int64_t sw = tiles * s * 2 < (int64_t) sms ? 1 : s;\n"
		"\t\tfor (c = c < 8 ? c : 8; c >= 2 && c > sw && !cl; --c)\n"
		"\t\t\tif (pm_fit_gemm_nn("
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
	/* the launch: clusters of p.cl blocks of the cluster twin, else the
	 * plain split kernel */
	a = strstr(s, "\tif (p.persist == 3) {\n\t\tif (p.cl) {\n");
	assert_non_null(a);
	a = strstr(a, "\t\t\tif (p.cl > 1) {\n\t\t\t\tcudaLaunchConfig_t "
		"pm_lc = {};\n");
	assert_non_null(a);
	assert_non_null(strstr(a, "\t\t\t\tpm_la[0].id = "
		"cudaLaunchAttributeClusterDimension;\n\t\t\t\tpm_la[0].val."
		"clusterDim.x = (unsigned) p.cl;\n"));
	b = strstr(a, "\t\t\t\treturn cudaLaunchKernelEx(&pm_lc, (M % 128 == 0 "
		"&& N % 128 == 0) ? pm_kernel_gemm_nn_persist_split_cl_x : "
		"pm_kernel_gemm_nn_persist_split_cl, (const __half *) A, ");
	assert_non_null(b);
	assert_non_null(strstr(b, "\t\t}\n\t\tdim3 grid("));
	assert_non_null(strstr(b, "\t\tpm_kernel_gemm_nn_persist_split<<<grid, "
		"288, "));
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
	/* a register prologue: no clusters (the workspace split measured
	 * faster at every size), chunks of 8 k tiles or more, and the
	 * workspace split down to a quarter of the SMs (PERF.md, session
	 * 15) */
	s = try_gen("relu_gemm", def, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "pm_kernel_relu_gemm_persist_split("));
	assert_null(strstr(s, "pm_kernel_relu_gemm_persist_split_cl("));
	assert_null(strstr(s, "__cluster_dims__"));
	assert_non_null(strstr(s, "\tconst int64_t cl = 0;\n"));
	assert_non_null(strstr(s, "s = pm_fit_relu_gemm(kt, (int64_t) sms * "
		"oc[4] / tiles, 8, "));
	assert_non_null(strstr(s, "\tif (psplit && tiles * s * (cl ? 1 : 1) * "
		"4 < (int64_t) sms)\n\t\ts = 1;\n"));
	free(s);
	free(diag);
	/* the file's header and its configuration say so */
	{
		const char *da[] = { "target", "sm_90a", "split-k", "auto",
			NULL };
		const char *n1[] = { "target", "sm_90a", "split-k", "auto",
			"cluster", "1", NULL };
		char *meta, *t = gen("nn", da, NULL, &meta);

		assert_non_null(strstr(t, "of a tile (_cl: a tile's chunks as "
			"one cluster,\n *          reduced through distributed shared "
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
	assert_null(strstr(s, "_persist_split_cl"));
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
		cmocka_unit_test(test_cluster),
		cmocka_unit_test(test_cluster_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

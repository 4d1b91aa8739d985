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
#include "tests/plan_util.h"

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
	/* the block past the last tile row stores nothing (TMA stores,
	 * decision 0048) */
	assert_int_equal(count(k, "if (threadIdx.x == 0 && pm_own) { "
		"pm_tma_store_2d(&pm_tm2, "), 2);
	assert_int_equal(count(k, "pm_copy16_s2g("), 0);
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
static void test_cluster_split(void **state);

/* --cluster 2 in a planned file (the plan's grid, which may be odd): each
 * kernel of cluster dims 2 launched on 2 pm_g blocks, pairs at most half
 * the plan's grid (an odd grid is a launch error: "cluster
 * misconfiguration", gemm_nn's _persist at 128x384x64 before; docs/GPU.md),
 * and every row built with clusters has such a launch. */
static void test_cluster_planned_grid(void **state)
{
	const char *on[] = { "target", "sm_90a", "cluster", "2", NULL };
	char *diag, *s = try_gen("gemm_bias_relu", on, &diag);
	const char *p;
	int kernels = 0, launches = 0;

	(void) state;
	assert_non_null(s);
	for (p = s; (p = strstr(p, "__cluster_dims__(2, 1, 1) pm_kernel_"));
	     ++p) {
		char name[96], call[128];
		const char *q = p + strlen("__cluster_dims__(2, 1, 1) "), *l, *g;
		size_t n = strcspn(q, "(");

		snprintf(name, sizeof(name), "%.*s", (int) n, q);
		if (n > 2 && !strcmp(name + n - 2, "_x"))
			continue;	/* launched beside its kernel */
		kernels++;
		/* launched with the programmatic dependency (--pdl) */
		snprintf(call, sizeof(call), "%s, grid, ", name);
		l = strstr(s, call);
		assert_non_null(l);
		/* the last grid before the launch */
		for (g = NULL, q = s; (q = strstr(q, "dim3 grid(")) && q < l; ++q)
			g = q;
		assert_non_null(g);
		assert_memory_equal(g, "dim3 grid((unsigned) (2 * pm_g), 1);",
			strlen("dim3 grid((unsigned) (2 * pm_g), 1);"));
		assert_non_null(strstr(s, "\t\tif (pm_g > (int64_t) (c->grid) / "
			"2)\n"));
		launches++;
	}
	assert_true(kernels >= 3);	/* _persist, _persist_wide, _persist_tall */
	assert_int_equal(launches, kernels);
	free(s);
	free(diag);
}

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
	/* the other kernels have neither (the parameter pm_cl); the plain
	 * split kernel reduces through the workspace only */
	assert_int_equal(count(s, " int pm_cl,"), 1);
	assert_int_equal(count(s, "pm_dsm_ready<256>(&pm_bar"), 1);
	k = kernel_text(s, "pm_kernel_gemm_nn_persist_split(");
	assert_non_null(strstr(k, "if (pm_nz > 1) { pm_rs_put<64, 256>("));
	assert_null(strstr(k, "pm_cl"));
	assert_null(strstr(k, "pm_dsm_"));
	free(k);
	/* the plan: the clusters the GPU holds, asked once per size, for the
	 * device's pm_rt_plan */
	assert_non_null(strstr(s, "static int pm_clusters_gemm_nn(void *ctx, "
		"int s)\n{\n\tstatic int pm_n[9];\n\t(void) ctx;\n\tif (s < 2 "
		"|| s > 8)\n\t\treturn 0;\n"));
	assert_non_null(strstr(s, "\t\tpm_lc.dynamicSmemBytes = 165968;\n"));
	assert_non_null(strstr(s, "\t\tt.clusters = pm_clusters_gemm_nn;\n"));
	/* the cluster twin's shared memory above 48 KB allowed before the
	 * ask (else it fails, and no plan splits in clusters) */
	assert_non_null(strstr(s, "\t\tif (cudaFuncSetAttribute("
		"pm_kernel_gemm_nn_persist_split_cl, cudaFuncAttribute"
		"MaxDynamicSharedMemorySize, 165968) != cudaSuccess ||\n\t\t    "
		"cudaOccupancyMaxActiveClusters(&n, "
		"pm_kernel_gemm_nn_persist_split_cl, &pm_lc) != cudaSuccess) {"));
	/* its row: 288 threads, 8 consumer warps (at most 8 chunks), a
	 * warp's strip of 64 floats per thread (8192 bytes) per peer, 128 KB
	 * of stages to receive them */
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		const int nv = pm_test_rows("gemm_nn", "sm_90a", NULL, rows, &f);
		const int i = pm_test_role(rows, nv, PM_RT_PERSIST_SPLIT_CL);

		assert_true(i >= 0);
		assert_string_equal(rows[i].suffix, "_persist_split_cl");
		assert_int_equal(rows[i].threads, 288);
		assert_int_equal(rows[i].smem, 165968);
		assert_int_equal(rows[i].cwarps, 8);
		assert_int_equal(rows[i].cl_warp_bytes, 64 * 32 * 4);
		assert_int_equal(rows[i].cl_room, 131072);
		assert_int_equal(f.ncon, 1);
		/* no workspace needed: neither entry asks for one where the
		 * plan's ws_bytes is 0 */
		assert_non_null(strstr(s, "\tif (c.ws_bytes && (!workspace || "
			"workspace_bytes < c.ws_bytes) &&\n"));
		assert_non_null(strstr(s, "\tif (c.ws_bytes && pm_ws_get_gemm_nn("
			"&ws, c.ws_bytes, stream) == cudaSuccess)\n"));
		assert_non_null(strstr(s, "\tif (!c.ws_bytes || "
			"pm_ws_alloc_gemm_nn(&ws, c.ws_bytes, stream) != "
			"cudaSuccess) {"));
		/* the launch: clusters of c->cl blocks of the cluster twin
		 * (its own case), the plain split kernel in the other */
		k = launch_case(s, i);
		assert_non_null(k);
		a = strstr(k, "\t\tif (c->cl > 1) {\n\t\t\tcudaLaunchConfig_t "
			"pm_lc = {};\n");
		assert_non_null(a);
		assert_non_null(strstr(a, "\t\t\tpm_la[0].id = "
			"cudaLaunchAttributeClusterDimension;\n\t\t\tpm_la[0].val."
			"clusterDim.x = (unsigned) c->cl;\n"));
		assert_non_null(strstr(a, "\t\t\treturn cudaLaunchKernelEx(&pm_lc, "
			"(M % 128 == 0 && K % 64 == 0 && N % 128 == 0) ? "
			"pm_kernel_gemm_nn_persist_split_cl_x : "
			"pm_kernel_gemm_nn_persist_split_cl, (const __half *) A, "));
		assert_null(strstr(k, "pm_kernel_gemm_nn_persist_split<<<"));
		free(k);
		k = launch_case(s, pm_test_role(rows, nv, PM_RT_PERSIST_SPLIT));
		assert_non_null(k);
		assert_non_null(strstr(k, "\t\treturn pm_launch_pdl("));
		assert_non_null(strstr(k, " : pm_kernel_gemm_nn_persist_split, "
			"grid, 288, "));
		assert_null(strstr(k, "cudaLaunchKernelEx"));
		free(k);
	}
	free(s);
	free(diag);
	/* the rule, on the H100 model (Add(GEMM, GEMM): one GEMM's clusters
	 * never pass the half-SM rule there): the most chunks, more than the
	 * workspace split's (after its half-SM rule: at as many chunks the
	 * workspace measured faster), of 16 k tiles of the unit's work or
	 * more (8 per contraction), whose clusters are all resident; launched
	 * as c->cl = s blocks, no workspace, unsplit where there is none */
	{
		struct pm_rt_choice c;

		/* 20 tiles, 16 k tiles each: clusters of 2 (a workspace split
		 * of 16 k tiles would be 1 chunk) */
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 640, 512, 1024, &c), "_persist_split_cl");
		assert_int_equal(c.s, 2);
		assert_int_equal(c.cl, 2);
		assert_int_equal(c.kc[0], 512);
		assert_int_equal(c.kc[1], 512);
		assert_int_equal(c.grid, 40);
		assert_int_equal(c.tdp, 0);
		assert_int_equal(c.ws_bytes, 0);
		assert_int_equal(c.cnt_bytes, 0);
		assert_int_equal(c.v_nows, c.v);
		/* 15 k tiles: under 8 per chunk, none */
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 640, 512, 960, &c), "_small");
		assert_int_equal(c.cl, 0);
		/* 32 k tiles: 4 chunks fit, but 20 clusters of 4 are not
		 * resident (16): 3 */
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 640, 512, 2048, &c), "_persist_split_cl");
		assert_int_equal(c.cl, 3);
		assert_int_equal(c.s, 3);
		/* 16 tiles: 16 clusters of 4 resident */
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 512, 512, 2048, &c), "_persist_split_cl");
		assert_int_equal(c.cl, 4);
		/* 40 tiles, 64 k tiles: the workspace split's 3 chunks, as
		 * many as clusters could have */
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 1280, 512, 4096, &c), "_persist_split");
		assert_int_equal(c.s, 3);
		assert_int_equal(c.cl, 0);
		assert_true(c.ws_bytes > 0);
		/* the units counted once per contraction against the half-SM
		 * rule: 16 tiles x 2 chunks x 2 x 2 < 132 SMs, unsplit */
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 512, 512, 1024, &c), "_small");
		/* the persistent kernel unsplit from 1/2 tile per SM with 16 k
		 * tiles of work, both contractions' (72 tiles: 8 + 8) */
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 9216, 128, 512, &c), "_persist");
		assert_int_equal(c.s, 1);
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 9216, 128, 448, &c), "_small_tma");
		assert_string_equal(pm_test_plan_suffix("gemm_nn", "sm_90a",
			NULL, 9216, 128, 512, &c), "_small_tma");
		/* the workspace split keeps its 16 k tiles per contraction
		 * (40 tiles: 47 k tiles, 2 chunks; 48, 3) */
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 1280, 512, 3008, &c), "_persist_split");
		assert_int_equal(c.s, 2);
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			NULL, 1280, 512, 3072, &c), "_persist_split");
		assert_int_equal(c.s, 3);
	}
	/* a register prologue: no clusters (the workspace split measured
	 * faster at every size), chunks of 8 k tiles or more, and the
	 * workspace split down to a quarter of the SMs (PERF.md, session
	 * 15) */
	s = try_gen("relu_gemm", def, &diag);
	assert_non_null(s);
	assert_non_null(strstr(s, "pm_kernel_relu_gemm_persist_split("));
	assert_null(strstr(s, "pm_kernel_relu_gemm_persist_split_cl("));
	assert_null(strstr(s, "__cluster_dims__"));
	free(s);
	free(diag);
	{
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		struct pm_rt_choice c;
		const int nv = pm_test_rows("relu_gemm", "sm_90a", NULL, rows,
			&f);

		assert_true(nv > 0);
		assert_int_equal(pm_test_role(rows, nv, PM_RT_PERSIST_SPLIT_CL),
			-1);
		/* 20 tiles, 32 k tiles: 4 chunks of 8 (16 would make 2) */
		assert_string_equal(pm_test_plan_suffix("relu_gemm", "sm_90a",
			NULL, 640, 512, 2048, &c), "_persist_split");
		assert_int_equal(c.s, 4);
		assert_int_equal(c.kc[0], 512);
		assert_int_equal(c.cl, 0);
		/* 28 k tiles: 3 chunks; 27: too little work to split */
		assert_string_equal(pm_test_plan_suffix("relu_gemm", "sm_90a",
			NULL, 640, 512, 1792, &c), "_persist_split");
		assert_int_equal(c.s, 3);
		assert_string_equal(pm_test_plan_suffix("relu_gemm", "sm_90a",
			NULL, 640, 512, 1728, &c), "_small");
		/* a quarter of the SMs: 9 tiles x 4 chunks x 4 >= 132 split
		 * (under half the SMs), 8 x 4 x 4 < 132 not */
		assert_string_equal(pm_test_plan_suffix("relu_gemm", "sm_90a",
			NULL, 384, 384, 2048, &c), "_persist_split");
		assert_int_equal(c.s, 4);
		assert_string_equal(pm_test_plan_suffix("relu_gemm", "sm_90a",
			NULL, 512, 256, 2048, &c), "_small");
	}
	/* the file's header and its configuration say so */
	{
		const char *da[] = { "target", "sm_90a", "split-k", "auto",
			NULL };
		const char *n1[] = { "target", "sm_90a", "split-k", "auto",
			"cluster", "1", NULL };
		char *meta, *t = gen("nn", da, NULL, &meta);

		assert_non_null(strstr(t, " *   _persist_split_cl  128x128x64, "
			"warp 64x128, 4 stages (+ _x): split-K in clusters, "
			"reduced through distributed shared memory\n"));
		assert_non_null(strstr(meta, "\"cluster\": \"auto\",\n"));
		free(meta);
		free(t);
		t = gen("nn", n1, NULL, &meta);
		assert_non_null(strstr(t, " *   _persist_split_cl  not built: "
			"--cluster 1\n"));
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
	assert_null(strstr(s, "pm_clusters_gemm_nn"));
	/* (runtime/plan.h, embedded, names the role) */
	assert_null(strstr(s, "pm_kernel_gemm_nn_persist_split_cl"));
	assert_null(strstr(s, "\"_persist_split_cl\", PM_RT_"));
	assert_null(strstr(s, "cudaLaunchKernelEx(&pm_lc"));
	assert_non_null(strstr(s, " : pm_kernel_gemm_nn_persist_split, grid, "
		"288, 165952, stream, ("));
	free(s);
	free(diag);
	/* no cluster row, and the sizes split in clusters by default split
	 * through the workspace or not at all */
	{
		const char *a1[] = { "cluster", "1", NULL };
		struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
		struct pm_rt_spec f;
		struct pm_rt_choice c;
		int nv = pm_test_rows("gemm_nn", "sm_90a", a1, rows, &f);

		assert_true(nv > 0);
		assert_int_equal(pm_test_role(rows, nv, PM_RT_PERSIST_SPLIT_CL),
			-1);
		assert_true(pm_test_role(rows, nv, PM_RT_PERSIST_SPLIT) >= 0);
		nv = pm_test_rows("add_gemm", "sm_90a", a1, rows, &f);
		assert_int_equal(pm_test_role(rows, nv, PM_RT_PERSIST_SPLIT_CL),
			-1);
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			a1, 640, 512, 1024, &c), "_small");
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			a1, 640, 512, 2048, &c), "_small");
		assert_string_equal(pm_test_plan_suffix("add_gemm", "sm_90a",
			a1, 1280, 512, 4096, &c), "_persist_split");
		assert_int_equal(c.cl, 0);
		assert_int_equal(c.s, 3);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cluster),
		cmocka_unit_test(test_cluster_split),
		cmocka_unit_test(test_cluster_planned_grid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

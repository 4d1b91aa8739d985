/* sm_90a: wgmma with operands in shared memory through descriptors, TMA
 * copies with mbarriers, persistent warp-specialized kernels. */
#include "target/embedded.h"
#include "target/targets.h"

/* warpgroup macros: MM = 64, one wgmma m64nNk16 per 16 of MK */
static const struct pm_macro macros[] = {
	{ 64, 128, 64 }, { 64, 64, 16 }, { 64, 128, 16 }, { 64, 256, 16 },
	{ 64, 64, 32 }, { 64, 128, 32 }, { 64, 256, 32 }, { 64, 64, 64 },
	{ 64, 256, 64 }, { 64, 192, 16 }, { 64, 192, 32 }, { 64, 192, 64 },
	{ 64, 80, 16 }, { 64, 80, 32 }, { 64, 80, 64 }, { 64, 96, 16 },
	{ 64, 96, 32 }, { 64, 96, 64 }, { 64, 16, 16 }, { 64, 16, 32 },
	{ 64, 16, 64 }, { 64, 32, 16 }, { 64, 32, 32 }, { 64, 32, 64 },
};

static const char *const helpers[] = {
	pm_embed_common_cuh, pm_embed_sm90_wgmma_cuh, pm_embed_sm90_cuh,
	pm_embed_sm90_store_cuh,
	pm_embed_sm90_split_cuh,
};

#define PERSIST (PM_VF_AUTO_BLOCK | PM_VF_SPLIT_PLAN | PM_VF_PERSIST)

/* In file order.  The launch plan's rules (runtime/plan.c) and the
 * measurements behind each row are in docs/decisions/. */
static const struct pm_variant_desc variants[] = {
	PM_VARIANT_BASE_ROWS,
	{ .role = PM_RT_SMALL, .suffix = "_small", .from = PM_RT_NROLES,
	  .shape = { 64, 64, 64, 64, 4 },
	  .flags = PM_VF_AUTO_BLOCK | PM_VF_SMALL_ON | PM_VF_UNSPLIT |
		PM_VF_MIN_STAGES | PM_VF_NO_AUTO_TMA | PM_VF_ROW_RASTER,
	  .why = "64x64 blocks (cp.async) for grids smaller than the GPU" },
	{ .role = PM_RT_MEDIUM, .suffix = "_medium", .from = PM_RT_NROLES,
	  .shape = { 64, 128, 64, 128, 0 },
	  .flags = PM_VF_AUTO_BLOCK | PM_VF_SMALL_ON | PM_VF_SPLIT_PLAN |
		PM_VF_UNSPLIT,
	  .rate = 950,
	  .why = "64x128 blocks for grids of one partial wave" },
	{ .role = PM_RT_PERSIST, .suffix = "_persist", .from = PM_RT_NROLES,
	  .flags = PERSIST | PM_VF_UNSPLIT,
	  .why = "persistent 128x128 blocks, a producer warp" },
	{ .role = PM_RT_PERSIST_WIDE, .suffix = "_persist_wide",
	  .from = PM_RT_NROLES, .shape = { 128, 256, 64, 256, 3 },
	  .flags = PERSIST | PM_VF_UNSPLIT | PM_VF_ONE_MACRO |
		PM_VF_EXACT_IF_CHAIN | PM_VF_EXACT_IF_RED | PM_VF_NO_GROUPED,
	  .rate = 1090,
	  .why = "persistent 128x256 blocks for grids of several waves" },
	{ .role = PM_RT_PERSIST_TALL, .suffix = "_persist_tall",
	  .from = PM_RT_NROLES, .shape = { 256, 128, 128, 128, 3 },
	  .flags = PERSIST | PM_VF_UNSPLIT | PM_VF_EXACT_IF_CHAIN |
		PM_VF_EXACT_IF_RED | PM_VF_NO_GROUPED,
	  .rate = 1000,
	  .why = "persistent 256x128 blocks for grids of several waves" },
	{ .role = PM_RT_PERSIST_MID, .suffix = "_persist_mid",
	  .from = PM_RT_NROLES, .shape = { 128, 192, 64, 192, 4 },
	  .flags = PERSIST | PM_VF_UNSPLIT | PM_VF_ONE_MACRO |
		PM_VF_EXACT_IF_CHAIN,
	  .rate = 1060,
	  .why = "persistent 128x192 blocks for grids they fill better" },
	{ .role = PM_RT_PERSIST_SQ, .suffix = "_persist_sq",
	  .from = PM_RT_NROLES, .shape = { 192, 192, 64, 192, 3 },
	  .flags = PERSIST | PM_VF_UNSPLIT | PM_VF_ONE_MACRO |
		PM_VF_EXACT_IF_CHAIN | PM_VF_NO_GROUPED,
	  .rate = 1090,
	  .why = "persistent 192x192 blocks for grids they run in fewer "
		"rounds" },
	{ .role = PM_RT_PERSIST_NARROW, .suffix = "_persist_narrow",
	  .from = PM_RT_NROLES, .shape = { 64, 192, 64, 192, 6 },
	  .flags = PERSIST | PM_VF_UNSPLIT | PM_VF_ONE_MACRO |
		PM_VF_INFLIGHT,
	  .why = "persistent 64x192 blocks, MMAs in flight, one-wave grids" },
	{ .role = PM_RT_PERSIST_SLIM, .suffix = "_persist_slim",
	  .from = PM_RT_NROLES, .shape = { 64, 128, 64, 128, 8 },
	  .flags = PERSIST | PM_VF_UNSPLIT | PM_VF_ONE_MACRO |
		PM_VF_INFLIGHT | PM_VF_NO_GROUPED,
	  .why = "persistent 64x128 blocks, MMAs in flight, 8 stages, for "
		"small grids they hold in one wave" },
	{ .role = PM_RT_PERSIST_SPLIT, .suffix = "_persist_split",
	  .from = PM_RT_NROLES,
	  .flags = PERSIST | PM_VF_PSPLIT | PM_VF_NO_CLUSTER,
	  .why = "split-K in the persistent kernel, through the workspace" },
	{ .role = PM_RT_PERSIST_SPLIT_CL, .suffix = "_persist_split_cl",
	  .from = PM_RT_NROLES,
	  .flags = PERSIST | PM_VF_PSPLIT | PM_VF_CLUSTER,
	  .why = "split-K in clusters, reduced through distributed shared "
		"memory" },
	{ .role = PM_RT_PERSIST_SKINNY, .suffix = "_persist_skinny",
	  .from = PM_RT_NROLES, .shape = { 64, 128, 64, 128, 8 },
	  .flags = PERSIST | PM_VF_PSPLIT | PM_VF_NO_CLUSTER,
	  .why = "split-K units of 64x128, for M of 64 or fewer" },
	{ .role = PM_RT_PERSIST_SWAP, .suffix = "_persist_swap",
	  .from = PM_RT_NROLES, .shape = { 128, 16, 64, 16, 6 },
	  .flags = PERSIST | PM_VF_PSPLIT | PM_VF_NO_CLUSTER | PM_VF_SWAP |
		PM_VF_LAST,
	  .why = "the operands swapped: split-K units of 128 of N by 16 of M, "
		"for M of 16 or fewer" },
	{ .role = PM_RT_PERSIST_SWAP32, .suffix = "_persist_swap32",
	  .from = PM_RT_NROLES, .shape = { 64, 32, 64, 32, 12 },
	  .flags = PERSIST | PM_VF_PSPLIT | PM_VF_NO_CLUSTER | PM_VF_SWAP |
		PM_VF_LAST,
	  .why = "the operands swapped: split-K units of 64 of N by 32 of M, "
		"for M of 32 or fewer" },
	{ .role = PM_RT_PERSIST_SWAP64, .suffix = "_persist_swap64",
	  .from = PM_RT_NROLES, .shape = { 64, 64, 64, 64, 8 },
	  .flags = PERSIST | PM_VF_PSPLIT | PM_VF_NO_CLUSTER | PM_VF_SWAP,
	  .why = "the operands swapped: split-K units of 64 of N by 64 of M, "
		"for M of 64 or fewer" },
	{ .role = PM_RT_SMALL_TMA, .suffix = "_small_tma", .from = PM_RT_SMALL,
	  .flags = PM_VF_TMA | PM_VF_ROW_RASTER,
	  .why = "the small variant with TMA copies (3/2 blocks per SM)" },
	PM_VARIANT_UNALIGNED_ROW,
};

static const struct pm_operand_row operands[] = {
	PM_OPERAND_F16, PM_OPERAND_BF16, PM_OPERAND_E4M3, PM_OPERAND_E5M2,
	PM_OPERAND_S8,
};

const struct pm_target pm_target_sm90a = {
	.name = "sm_90a",
	.nvcc_arch = "-gencode=arch=compute_90a,code=sm_90a",
	.instr = "wgmma.mma_async.sync.aligned.m64nNk16.f32.%s.%s",
	.im = 64, .in = 8, .ik = 16,
	.mma_fn = "pm_sm90",
	.nmacros = PM_N(macros), .macros = macros, .default_macro = 0,
	.bm = 128, .bn = 128, .bk = 64, .wm = 64, .wn = 128,
	.stages = 3, .smem = 2,
	.helpers = helpers, .nhelpers = PM_N(helpers),
	.emits_cuda = 1, .async_copy = 1,
	.unit = 128, .unit_thread = "pm_wg_thread",
	.desc_smem = 1, .mma_drain = "pm_sm90_drain",
	.mma_wait_prev = "pm_wgmma_wait<1>();",
	.mma_ra = 1, .tma = 2, .pstages = 4, .pdl = 1,
	/* the H100's 227 KB */
	.smem_max = 232448,
	.ra_partial = 500, .sq_gain = 1100, .big_mid_rate = 1130,
	.nvariants = PM_N(variants), .variants = variants,
	.noperands = PM_N(operands), .operands = operands,
};

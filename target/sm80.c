/* sm_80: mma.sync.m16n8k16 (m16n8k32 for i8) with ldmatrix and cp.async. */
#include "target/embedded.h"
#include "target/targets.h"

static const struct pm_macro macros[] = {
	{ 16, 8, 16 }, { 16, 16, 16 }, { 32, 16, 16 }, { 32, 32, 16 },
	{ 64, 32, 16 }, { 32, 64, 16 }, { 64, 64, 16 }, { 32, 32, 32 },
	{ 64, 32, 32 },
	{ 64, 64, 32 },
};

static const char *const helpers[] = {
	pm_embed_common_cuh, pm_embed_sm80_cuh,
};

static const struct pm_variant_desc variants[] = {
	PM_VARIANT_BASE_ROWS,
	/* 4 stages: cheap at 8 KB each, and free of the 4-byte spill ptxas
	 * makes at 3 (docs/decisions/0002-small-variant-under-sm-count.md) */
	{ .role = PM_RT_SMALL, .suffix = "_small", .from = PM_RT_NROLES,
	  .shape = { 64, 64, 32, 32, 4 },
	  .flags = PM_VF_AUTO_BLOCK | PM_VF_SMALL_ON | PM_VF_UNSPLIT |
		PM_VF_MIN_STAGES | PM_VF_NO_AUTO_TMA | PM_VF_ROW_RASTER,
	  .why = "64x64 blocks for grids smaller than the GPU" },
	PM_VARIANT_UNALIGNED_ROW,
};

static const struct pm_operand_row operands[] = {
	PM_OPERAND_F16, PM_OPERAND_BF16, PM_OPERAND_S8_MMA_SYNC,
};

const struct pm_target pm_target_sm80 = {
	.name = "sm_80",
	.nvcc_arch = "sm_80",
	.instr = "mma.sync.aligned.m16n8k16.row.col.f32.%s.%s.f32",
	.im = 16, .in = 8, .ik = 16,
	.mma_fn = "pm_sm80",
	.nmacros = PM_N(macros), .macros = macros, .default_macro = 3,
	.bm = 128, .bn = 128, .bk = 32, .wm = 64, .wn = 64,
	.stages = 3, .smem = 2,
	.helpers = helpers, .nhelpers = PM_N(helpers),
	.emits_cuda = 1, .frag_pipe = 1, .async_copy = 1,
	.unit = 32, .unit_thread = "pm_lane_id",
	/* the A100's 163 KB (sm_86 and sm_89 have 99 KB: a launch there
	 * reports the kernels the device cannot run, runtime/plan.c) */
	.smem_max = 166912,
	.nvariants = PM_N(variants), .variants = variants,
	.noperands = PM_N(operands), .operands = operands,
};

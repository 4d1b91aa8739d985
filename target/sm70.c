/* sm_70: mma.sync.m8n8k4 composed into warp macro-MMAs (the paper). */
#include "target/embedded.h"
#include "target/targets.h"

static const struct pm_macro macros[] = {
	{ 16, 16, 8 }, { 32, 32, 8 },
};

static const char *const helpers[] = {
	pm_embed_common_cuh, pm_embed_sm70_cuh,
};

/* no small variant: emulated on the GPUs we measure, and the small
 * 16x16x8 variant was not free of stack use */
static const struct pm_variant_desc variants[] = {
	PM_VARIANT_BASE_ROWS,
	PM_VARIANT_UNALIGNED_ROW,
};

static const struct pm_operand_row operands[] = {
	PM_OPERAND_F16,
};

const struct pm_target pm_target_sm70 = {
	.name = "sm_70",
	.nvcc_arch = "sm_75",
	.instr = "mma.sync.aligned.m8n8k4.row.col.f32.%s.%s.f32",
	.im = 8, .in = 8, .ik = 4,
	.mma_fn = "pm_sm70",
	.nmacros = PM_N(macros), .macros = macros, .default_macro = 1,
	.bm = 128, .bn = 128, .bk = 32, .wm = 64, .wn = 64,
	.stages = 2, .smem = 1,
	.helpers = helpers, .nhelpers = PM_N(helpers),
	.emits_cuda = 1,
	.unit = 32, .unit_thread = "pm_lane_id",
	/* built for sm_75 and later (CUDA 13): Turing's 64 KB */
	.smem_max = 65536,
	.nvariants = PM_N(variants), .variants = variants,
	.noperands = PM_N(operands), .operands = operands,
};

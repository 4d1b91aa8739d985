/* The sequential host-C rendering of a kernel (tests/test_host_render). */
#include "target/embedded.h"
#include "target/targets.h"

static const struct pm_macro macros[] = {
	{ 8, 8, 4 }, { 16, 8, 16 }, { 16, 16, 8 }, { 16, 16, 16 },
	{ 32, 32, 8 }, { 32, 32, 16 },
};

static const char *const helpers[] = {
	pm_embed_host_h,
};

static const struct pm_variant_desc variants[] = {
	{ .role = PM_RT_BASE, .suffix = "", .from = PM_RT_NROLES,
	  .why = "the kernel" },
};

static const struct pm_operand_row operands[] = {
	PM_OPERAND_F16, PM_OPERAND_BF16,
};

const struct pm_target pm_target_host_c = {
	.name = "host",
	.nvcc_arch = "",
	.instr = "scalar C",
	.im = 1, .in = 1, .ik = 1,
	.mma_fn = "pm_host",
	.nmacros = PM_N(macros), .macros = macros, .default_macro = 0,
	.bm = 64, .bn = 64, .bk = 16, .wm = 32, .wn = 32,
	.stages = 2, .smem = 2,
	.helpers = helpers, .nhelpers = PM_N(helpers),
	.emits_cuda = 0, .frag_pipe = 1,
	.unit = 32, .unit_thread = "pm_lane_id",
	.mma_ra = 1, .tma = 1,
	.nvariants = PM_N(variants), .variants = variants,
	.noperands = PM_N(operands), .operands = operands,
};

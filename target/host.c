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

/* The 8-bit rows as sm_90a's, K-major (the rendering reads the K-major
 * copies the GPU's kernels read; tests/test_kmajor.c,
 * docs/decisions/0033-kmajor-copies.md), one element deep per step as
 * the scalar MMA; elements held as floats. */
static const struct pm_operand_row operands[] = {
	PM_OPERAND_F16, PM_OPERAND_BF16,
	{ .in = PM_F8E4M3, .ptx = "e4m3", .acc = PM_F32, .outs = PM_OUT_FLOAT,
	  .elem = &pm_elem_e4m3, .k_major = 1 },
	{ .in = PM_F8E5M2, .ptx = "e5m2", .acc = PM_F32, .outs = PM_OUT_FLOAT,
	  .elem = &pm_elem_e5m2, .k_major = 1 },
	{ .in = PM_I8, .ptx = "s8", .acc = PM_I32,
	  .outs = 1u << PM_I32 | PM_OUT_FLOAT, .elem = &pm_elem_s8,
	  .k_major = 1 },
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

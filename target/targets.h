/* The target tables (one file each) and what they share. */
#ifndef PM_TARGETS_H
#define PM_TARGETS_H

#include "target/target.h"

#define PM_N(a) ((int) (sizeof(a) / sizeof((a)[0])))

extern const struct pm_target pm_target_sm70, pm_target_sm80;
extern const struct pm_target pm_target_sm90a, pm_target_host_c;

/* The rows every CUDA target has: the kernel launched unsplit and its
 * split-K twin (variant/variant.c builds the first only where the kernel
 * splits k; without split-K the main kernel is the base row). */
#define PM_VARIANT_BASE_ROWS \
	{ .role = PM_RT_BASE, .suffix = "", .from = PM_RT_NROLES, \
	  .flags = PM_VF_UNSPLIT, \
	  .why = "the kernel launched unsplit" }, \
	{ .role = PM_RT_SPLIT, .suffix = "_split", .from = PM_RT_NROLES, \
	  .why = "split-K over blockIdx.z, reduced through a workspace" }

/* The row of problems whose rows are not whole 16-byte units or whose
 * pointers are not 16-byte aligned: the user's tiles, copies and stores
 * narrower than 16 bytes (cp.async of 16 or 4 bytes where the addresses
 * allow, element by element through registers elsewhere), no TMA, not
 * split, launched only where the problem needs it; the last row of every
 * CUDA target (docs/decisions/0046-narrow-copies.md). */
#define PM_VARIANT_UNALIGNED_ROW \
	{ .role = PM_RT_UNALIGNED, .suffix = "_unaligned", \
	  .from = PM_RT_NROLES, .flags = PM_VF_UNSPLIT | PM_VF_NARROW, \
	  .why = "copies narrower than 16 bytes: rows that are not whole " \
		"16-byte units, unaligned pointers" }

/* The operand rows shared by the targets: 16-bit floats, f32
 * accumulation, an output of either 16-bit type or f32 (the accumulators
 * are converted once, at the store, whatever the operands were). */
#define PM_OUT_FLOAT (1u << PM_F16 | 1u << PM_BF16 | 1u << PM_F32)
/* every i8 is exact in f16 and bf16: an i8 operand beside a 16-bit one
 * is widened to its type on the way (docs/decisions/0047) */
#define PM_WIDEN_16 (1u << PM_I8)
#define PM_OPERAND_F16 \
	{ .in = PM_F16, .ptx = "f16", .acc = PM_F32, .outs = PM_OUT_FLOAT, \
	  .elem = &pm_elem_f16, .widen = PM_WIDEN_16 }
#define PM_OPERAND_BF16 \
	{ .in = PM_BF16, .ptx = "bf16", .acc = PM_F32, .outs = PM_OUT_FLOAT, \
	  .elem = &pm_elem_bf16, .widen = PM_WIDEN_16 }
/* wgmma's 8-bit floats (sm_90a): k = 32 per instruction, operands K-major
 * in shared memory, f32 accumulation (docs/decisions/0029) */
#define PM_WGMMA_K32 "wgmma.mma_async.sync.aligned.m64nNk32.f32.%s.%s"
#define PM_OPERAND_E4M3 \
	{ .in = PM_F8E4M3, .ptx = "e4m3", .acc = PM_F32, \
	  .outs = PM_OUT_FLOAT, .elem = &pm_elem_e4m3, .k = 32, .k_major = 1, \
	  .bk = 128, .instr = PM_WGMMA_K32 }
#define PM_OPERAND_E5M2 \
	{ .in = PM_F8E5M2, .ptx = "e5m2", .acc = PM_F32, \
	  .outs = PM_OUT_FLOAT, .elem = &pm_elem_e5m2, .k = 32, .k_major = 1, \
	  .bk = 128, .instr = PM_WGMMA_K32 }
/* wgmma's s8 (sm_90a): k = 32, K-major, s32 accumulators stored as i32
 * or converted by an epilogue into a float output (no split-K:
 * docs/decisions/0029) */
#define PM_OPERAND_S8 \
	{ .in = PM_I8, .ptx = "s8", .acc = PM_I32, \
	  .outs = 1u << PM_I32 | PM_OUT_FLOAT, \
	  .elem = &pm_elem_s8, .k = 32, .k_major = 1, .bk = 128, \
	  .instr = "wgmma.mma_async.sync.aligned.m64nNk32.s32.%s.%s" }
/* mma.sync's s8 (sm_80): m16n8k32, K-major (ldmatrix transposes 16-bit
 * units, not bytes), s32 accumulators as on sm_90a, a block k of 64
 * elements (64-byte rows, two k-steps a tile;
 * docs/decisions/0032-sm80-i8.md) */
#define PM_OPERAND_S8_MMA_SYNC \
	{ .in = PM_I8, .ptx = "s8", .acc = PM_I32, \
	  .outs = 1u << PM_I32 | PM_OUT_FLOAT, \
	  .elem = &pm_elem_s8, .k = 32, .k_major = 1, .bk = 64, \
	  .instr = "mma.sync.aligned.m16n8k32.row.col.s32.%s.%s.s32" }
extern const struct pm_elem pm_elem_f16, pm_elem_bf16, pm_elem_e4m3,
	pm_elem_e5m2, pm_elem_s8;

#endif

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

#endif

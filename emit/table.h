/* Internal to emit/ (and the plan tests): a generated file's variant table
 * and launch plan (table.c). */
#ifndef PM_EMIT_TABLE_H
#define PM_EMIT_TABLE_H

#include "emit/frame.h"
#include "runtime/plan.h"

struct pm_variant_set;
/* runtime/plan.c's text, pm_variants_NAME, pm_kernels_NAME, pm_spec_NAME,
 * pm_device_NAME (SMs, blocks per SM of each variant, the clusters the
 * GPU holds) and the launch plan pm_plan_NAME of vs's kernels. */
void pm_emit_plan(const struct pm_variant_set *vs, struct pm_strbuf *b);
/* The plan's rows of vs's kernels (and the kernels, where kern is not
 * NULL) and its spec; returns the number of rows. */
int pm_emit_rt_table(const struct pm_variant_set *vs,
	struct pm_rt_variant *rows, const struct pm_kernel **kern,
	struct pm_rt_spec *spec);

#endif

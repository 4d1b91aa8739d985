/* The pipeline: spec -> variant set -> CUDA (api/pipeline.c); the pass
 * table and the set: variant/variant.h. */
#ifndef PM_PIPELINE_H
#define PM_PIPELINE_H

#include "emit/emit.h"
#include "frontend/frontend.h"
#include "poly/config.h"
#include "variant/variant.h"

/* spec -> CUDA with the user's configuration cfg (not changed). Returns a
 * polymma_status. */
int pm_pipeline_generate(const struct pm_spec *spec,
	const struct pm_config *cfg, struct pm_output *out, struct pm_diags *d);
/* The same, and the launch description of the file's kernels into *jit
 * (emit/jit.h; an unsupported error where the JIT cannot launch them). */
struct pm_rt_jit;
int pm_pipeline_jit(const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_output *out, struct pm_rt_jit *jit, struct pm_diags *d);

#endif

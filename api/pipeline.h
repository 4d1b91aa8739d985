/* The pipeline: one pass per line (api/pipeline.c). */
#ifndef PM_PIPELINE_H
#define PM_PIPELINE_H

#include "emit/emit.h"
#include "frontend/frontend.h"
#include "poly/config.h"

/* Fill in the target's defaults and check the configuration: returns
 * POLYMMA_OK or POLYMMA_ERR_SPEC (message in d). */
int pm_config_finish(struct pm_config *cfg, struct pm_diags *d);

/* spec -> CUDA. Returns a polymma_status. */
int pm_pipeline_generate(const struct pm_spec *spec, struct pm_config *cfg,
	struct pm_output *out, struct pm_diags *d);

/* A pass of the pipeline as seen by tests: run the pipeline up to and
 * including the pass named `last` ("tile_block", "strip_k", "tile_warp",
 * "contract", "promote") and hand the kernel over (free it with
 * pm_pipeline_kernel_free). */
struct pm_kernel *pm_pipeline_until(isl_ctx *ctx, const struct pm_spec *spec,
	struct pm_config *cfg, const char *last, struct pm_diags *d);
void pm_pipeline_kernel_free(struct pm_kernel *k);

#endif

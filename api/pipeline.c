/* spec -> variant set -> CUDA. */
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>

#include "api/pipeline.h"
#include "polymma.h"

int pm_pipeline_generate(const struct pm_spec *spec,
	const struct pm_config *cfg, struct pm_output *out, struct pm_diags *d)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_variant_set *vs;
	int rc;

	if (!ctx)
		return POLYMMA_ERR_INTERNAL;
	vs = malloc(sizeof(*vs));
	rc = vs ? pm_variant_set_build(ctx, spec, cfg, vs, d) :
		POLYMMA_ERR_INTERNAL;
	if (rc == POLYMMA_OK && pm_emit_file(vs, out, d) < 0)
		rc = POLYMMA_ERR_INTERNAL;
	if (vs)
		pm_variant_set_clear(vs);
	free(vs);
	isl_ctx_free(ctx);
	return rc;
}

/* spec -> variant set -> CUDA. */
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>

#include "api/pipeline.h"
#include "emit/jit.h"
#include "frontend/limits.h"
#include "poly/poly.h"
#include "polymma.h"

/* The file, and jit's launch description where jit is not NULL. */
static int generate(const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_output *out, struct pm_rt_jit *jit, struct pm_diags *d)
{
	isl_ctx *ctx = isl_ctx_alloc();
	struct pm_variant_set *vs;
	int rc;

	if (!ctx)
		return POLYMMA_ERR_INTERNAL;
	if (pm_spec_check_gen_limits(spec, d) < 0) {
		isl_ctx_free(ctx);
		return POLYMMA_ERR_SPEC;
	}
	pm_isl_bound(ctx);
	vs = malloc(sizeof(*vs));
	rc = vs ? pm_variant_set_build(ctx, spec, cfg, vs, d) :
		POLYMMA_ERR_INTERNAL;
	if (rc == POLYMMA_OK && jit && pm_emit_jit(vs, jit, d) < 0)
		rc = pm_diags_class(d) == PM_ERR_INTERNAL ?
			POLYMMA_ERR_INTERNAL : POLYMMA_ERR_SPEC;
	if (rc == POLYMMA_OK && pm_emit_file(vs, out, d) < 0)
		rc = POLYMMA_ERR_INTERNAL;
	/* out of budget, also where a variant was dropped for it: the
	 * whole generation fails, as an error of the spec */
	if (pm_isl_quota_diag(ctx, d) || (vs && pm_variant_set_quota_diag(vs, d)))
		rc = POLYMMA_ERR_SPEC;
	if (vs)
		pm_variant_set_clear(vs);
	free(vs);
	isl_ctx_free(ctx);
	return rc;
}

int pm_pipeline_generate(const struct pm_spec *spec,
	const struct pm_config *cfg, struct pm_output *out, struct pm_diags *d)
{
	return generate(spec, cfg, out, NULL, d);
}

int pm_pipeline_jit(const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_output *out, struct pm_rt_jit *jit, struct pm_diags *d)
{
	return generate(spec, cfg, out, jit, d);
}

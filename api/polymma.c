#define _POSIX_C_SOURCE 200809L
/* The library front door: include/polymma.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/options.h>

#include "api/options.h"
#include "api/pipeline.h"
#include "target/target.h"
#include "frontend/frontend.h"
#include "poly/poly.h"
#include "polymma.h"

struct polymma_ctx {
	char *diag;
};

struct polymma_result {
	struct pm_output out;
};

polymma_ctx *polymma_ctx_alloc(void)
{
	return calloc(1, sizeof(polymma_ctx));
}

void polymma_ctx_free(polymma_ctx *ctx)
{
	if (!ctx)
		return;
	free(ctx->diag);
	free(ctx);
}

const char *polymma_diagnostics(const polymma_ctx *ctx)
{
	return ctx && ctx->diag ? ctx->diag : "";
}

static void keep_diag(polymma_ctx *ctx, struct pm_diags *d)
{
	free(ctx->diag);
	ctx->diag = strdup(pm_diags_text(d));
	pm_diags_clear(d);
}

int polymma_generate(polymma_ctx *ctx, const char *text, const char *filename,
	const polymma_options *o, polymma_result **result)
{
	struct pm_diags d;
	struct pm_spec *spec;
	struct pm_config cfg;
	polymma_result *r;
	int rc;

	if (result)
		*result = NULL;
	if (!ctx || !text || !o || !result)
		return POLYMMA_ERR_USAGE;
	if (!filename)
		filename = "<spec>";
	pm_diags_init(&d, filename, text);
	spec = pm_spec_parse(text, filename, &d);
	if (!spec) {
		keep_diag(ctx, &d);
		return POLYMMA_ERR_SPEC;
	}
	cfg = *pm_options_config(o);
	r = calloc(1, sizeof(*r));
	rc = r ? pm_pipeline_generate(spec, &cfg, &r->out, &d) :
		POLYMMA_ERR_INTERNAL;
	pm_spec_free(spec);
	keep_diag(ctx, &d);
	if (rc != POLYMMA_OK) {
		polymma_result_free(r);
		return rc;
	}
	*result = r;
	return POLYMMA_OK;
}

const char *polymma_result_source(const polymma_result *r)
{
	return r ? r->out.source : NULL;
}

const char *polymma_result_header(const polymma_result *r)
{
	return r ? r->out.header : NULL;
}

const char *polymma_result_meta(const polymma_result *r)
{
	return r ? r->out.meta : NULL;
}

void polymma_result_free(polymma_result *r)
{
	if (!r)
		return;
	pm_output_clear(&r->out);
	free(r);
}

int polymma_check(polymma_ctx *ctx, const char *text, const char *filename,
	const polymma_options *o, char **report)
{
	struct pm_diags d;
	struct pm_spec *spec;
	struct pm_scop *scop;
	struct pm_config cfg;
	isl_ctx *ictx;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (report)
		*report = NULL;
	if (!ctx || !text || !o || !report)
		return POLYMMA_ERR_USAGE;
	if (!filename)
		filename = "<spec>";
	pm_diags_init(&d, filename, text);
	spec = pm_spec_parse(text, filename, &d);
	if (!spec) {
		keep_diag(ctx, &d);
		return POLYMMA_ERR_SPEC;
	}
	cfg = *pm_options_config(o);
	/* the spec's program: split-K chunks belong to a generated kernel */
	cfg.split_k = 1;
	ictx = isl_ctx_alloc();
	isl_options_set_on_error(ictx, ISL_ON_ERROR_CONTINUE);
	pm_isl_bound(ictx);
	scop = pm_scop_build(ictx, spec, &cfg, &d);
	if (scop) {
		f = open_memstream(&buf, &len);
		if (f) {
			pm_scop_print(f, scop);
			fclose(f);
		}
	}
	pm_scop_free(scop);
	isl_ctx_free(ictx);
	pm_spec_free(spec);
	keep_diag(ctx, &d);
	if (!scop)
		return POLYMMA_ERR_SPEC;
	*report = buf;
	return buf ? POLYMMA_OK : POLYMMA_ERR_INTERNAL;
}

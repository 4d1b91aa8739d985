#define _POSIX_C_SOURCE 200809L
/* The library front door: include/polymma.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/options.h>

#include "api/ctx.h"
#include "api/options.h"
#include "api/pipeline.h"
#include "target/target.h"
#include "frontend/frontend.h"
#include "frontend/limits.h"
#include "poly/poly.h"
#include "polymma.h"
#include "variant/group.h"

struct polymma_result {
	struct pm_output out;
};

int polymma_generate(polymma_ctx *ctx, const char *text, const char *filename,
	const polymma_options *o, polymma_result **result)
{
	struct pm_diags d;
	struct pm_spec *spec;
	polymma_result *r = NULL;
	int rc, oom;

	if (result)
		*result = NULL;
	rc = pm_api_parse(ctx, "polymma_generate", text, filename, o, result,
		"result is NULL", &d, &spec);
	if (rc != POLYMMA_OK)
		return rc;
	if (spec)
		r = calloc(1, sizeof(*r));
	rc = !spec ? POLYMMA_ERR_SPEC : !r ? POLYMMA_ERR_INTERNAL :
		pm_pipeline_generate(spec, pm_options_config(o), &r->out, &d);
	oom = spec && !r;
	pm_spec_free(spec);
	pm_api_keep_diag(ctx, &d);
	if (oom)
		pm_api_set_diag(ctx, "polymma_generate", "out of memory");
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

/* polymma_check's report for a parsed spec (into *buf): a status. */
static int scop_report(const struct pm_spec *spec, const polymma_options *o,
	struct pm_diags *d, char **buf)
{
	struct pm_config cfg = *pm_options_config(o);
	struct pm_spec *g = NULL;
	struct pm_scop *scop;
	isl_ctx *ictx;
	size_t len = 0;
	FILE *f;

	/* the spec's program: split-K chunks belong to a generated kernel */
	cfg.split_k = 1;
	/* one kernel's statements: the dependences are quadratic in them
	 * (docs/decisions/0027-check-kernel-limits.md) */
	if (pm_spec_check_kernel_limits(spec, d) < 0)
		return POLYMMA_ERR_SPEC;
	/* a grouped spec: one group's parametric domain, the group's rows
	 * the rows' symbol (variant/group.h, docs/decisions/0045) */
	if (pm_group_spec(spec, &g, d) < 0)
		return pm_diags_class(d) == PM_ERR_INTERNAL ?
			POLYMMA_ERR_INTERNAL : POLYMMA_ERR_SPEC;
	if (g)
		spec = g;
	ictx = isl_ctx_alloc();
	if (!ictx) {
		pm_spec_free(g);
		return POLYMMA_ERR_INTERNAL;
	}
	isl_options_set_on_error(ictx, ISL_ON_ERROR_CONTINUE);
	pm_isl_bound(ictx);
	scop = pm_scop_build(ictx, spec, &cfg, d);
	if (scop && (f = open_memstream(buf, &len))) {
		/* a grouped spec: the program printed is one group's */
		if (g)
			fprintf(f, "# grouped by '%s': below, one group's "
				"program (rows '%s': the group's; docs/decisions/"
				"0045)\n", g->tensors[g->group_offs].name,
				g->syms[g->group_rows].name);
		pm_scop_print(f, scop);
		fclose(f);
	}
	pm_scop_free(scop);
	isl_ctx_free(ictx);
	pm_spec_free(g);
	if (!scop)
		return POLYMMA_ERR_SPEC;
	return *buf ? POLYMMA_OK : POLYMMA_ERR_INTERNAL;
}

int polymma_check(polymma_ctx *ctx, const char *text, const char *filename,
	const polymma_options *o, char **report)
{
	struct pm_diags d;
	struct pm_spec *spec;
	char *buf = NULL;
	int rc;

	if (report)
		*report = NULL;
	rc = pm_api_parse(ctx, "polymma_check", text, filename, o, report,
		"report is NULL", &d, &spec);
	if (rc != POLYMMA_OK)
		return rc;
	rc = spec ? scop_report(spec, o, &d, &buf) : POLYMMA_ERR_SPEC;
	pm_spec_free(spec);
	pm_api_keep_diag(ctx, &d);
	if (rc == POLYMMA_ERR_INTERNAL && !*polymma_diagnostics(ctx))
		pm_api_set_diag(ctx, "polymma_check", "out of memory");
	if (rc == POLYMMA_OK)
		*report = buf;
	else
		free(buf);
	return rc;
}

#define _POSIX_C_SOURCE 200809L
/* The library front door: include/polymma.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>
#include <isl/options.h>

#include "api/pipeline.h"
#include "target/target.h"
#include "frontend/frontend.h"
#include "poly/poly.h"
#include "polymma.h"

struct polymma_ctx {
	char *diag;
};

struct polymma_options {
	struct pm_config cfg;
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

polymma_options *polymma_options_alloc(void)
{
	polymma_options *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->cfg.target = pm_target_default();
	o->cfg.split_k = 0;	/* auto */
	o->cfg.stages = 0;
	o->cfg.smem = -1;
	o->cfg.frag_pipe = -1;
	o->cfg.staged_store = -1;
	o->cfg.mma_inflight = -1;
	o->cfg.pro_overlap = -1;
	o->cfg.pro_regs = -1;
	o->cfg.tma = -1;
	o->cfg.persistent = -1;
	o->cfg.cluster = -1;
	o->cfg.small_variant = -1;
	o->cfg.reg_stage = -1;
	return o;
}

void polymma_options_free(polymma_options *o)
{
	free(o);
}

void polymma_options_set_dump_stream(polymma_options *o, FILE *f)
{
	if (o)
		o->cfg.dump = f;
}

/* "AxBxC" (n numbers) or "A" */
static int parse_ints(const char *s, int *v, int n)
{
	for (int i = 0; i < n; ++i) {
		char *end;
		long x = strtol(s, &end, 10);

		if (end == s || x <= 0 || x > 65536)
			return -1;
		v[i] = (int) x;
		s = end;
		if (i + 1 < n) {
			if (*s != 'x' && *s != 'X')
				return -1;
			s++;
		}
	}
	return *s ? -1 : 0;
}

static int set_err(const char **err, const char *msg)
{
	if (err)
		*err = msg;
	return POLYMMA_ERR_USAGE;
}

static int set_define(struct pm_config *c, const char *value,
	const char **err)
{
	const char *eq = strchr(value, '=');
	struct pm_define *d;
	char *end;
	long v;

	if (!eq || eq == value || eq - value >= 64)
		return set_err(err, "-D expects NAME=VALUE");
	v = strtol(eq + 1, &end, 10);
	if (end == eq + 1 || *end || v <= 0)
		return set_err(err, "-D NAME=VALUE: VALUE must be a positive "
			"integer");
	for (int i = 0; i < c->ndefines; ++i)
		if (!strncmp(c->defines[i].name, value, eq - value) &&
		    !c->defines[i].name[eq - value]) {
			c->defines[i].value = v;
			return POLYMMA_OK;
		}
	if (c->ndefines >= PM_MAX_DEFINES)
		return set_err(err, "too many -D options");
	d = &c->defines[c->ndefines++];
	memcpy(d->name, value, eq - value);
	d->name[eq - value] = '\0';
	d->value = v;
	return POLYMMA_OK;
}

int polymma_options_set(polymma_options *o, const char *key,
	const char *value, const char **err)
{
	struct pm_config *c = &o->cfg;
	int v[3];

	if (!o || !key)
		return set_err(err, "no option");
	if (!value)
		value = "";
	if (!strcmp(key, "target")) {
		if (!strcmp(value, "host"))
			return set_err(err, "unknown target (sm_70, sm_80, "
				"sm_90a)");
		c->target = pm_target_find(value);
		if (!c->target) {
			c->target = pm_target_default();
			return set_err(err, "unknown target (sm_70, sm_80, "
				"sm_90a)");
		}
		return POLYMMA_OK;
	}
	if (!strcmp(key, "host-target")) {	/* tests: host rendering */
		c->target = pm_target_host();
		return POLYMMA_OK;
	}
	if (!strcmp(key, "define"))
		return set_define(c, value, err);
	if (!strcmp(key, "block")) {
		if (parse_ints(value, v, 3) < 0)
			return set_err(err, "--block expects MxNxK");
		c->bm = v[0], c->bn = v[1], c->bk = v[2];
		return POLYMMA_OK;
	}
	if (!strcmp(key, "warp")) {
		if (parse_ints(value, v, 3) < 0 && parse_ints(value, v, 2) < 0)
			return set_err(err, "--warp expects MxN or MxNxK");
		c->wm = v[0], c->wn = v[1];
		return POLYMMA_OK;
	}
	if (!strcmp(key, "mma")) {
		if (parse_ints(value, v, 3) < 0)
			return set_err(err, "--mma expects MxNxK");
		c->mm = v[0], c->mn = v[1], c->mk = v[2];
		return POLYMMA_OK;
	}
	if (!strcmp(key, "split-k") && !strcmp(value, "auto")) {
		c->split_k = 0;
		return POLYMMA_OK;
	}
	if (!strcmp(key, "split-k") || !strcmp(key, "stages")) {
		if (parse_ints(value, v, 1) < 0)
			return set_err(err, "expects a positive integer");
		*(key[0] == 's' && key[1] == 'p' ? &c->split_k : &c->stages) =
			v[0];
		return POLYMMA_OK;
	}
	if (!strcmp(key, "smem")) {
		if (!strcmp(value, "plain"))
			c->smem = 0;
		else if (!strcmp(value, "pad"))
			c->smem = 1;
		else if (!strcmp(value, "swizzle"))
			c->smem = 2;
		else
			return set_err(err, "--smem expects swizzle, pad or "
				"plain");
		return POLYMMA_OK;
	}
	if (!strcmp(key, "frag-pipeline") || !strcmp(key, "staged-store") ||
	    !strcmp(key, "reg-stage") || !strcmp(key, "mma-inflight") ||
	    !strcmp(key, "pro-overlap") || !strcmp(key, "pro-regs") ||
	    !strcmp(key, "tma")) {
		int *f = key[0] == 'f' ? &c->frag_pipe : key[0] == 's' ?
			&c->staged_store : key[0] == 'r' ? &c->reg_stage :
			!strcmp(key, "pro-regs") ? &c->pro_regs :
			key[0] == 't' ? &c->tma :
			key[0] == 'p' ? &c->pro_overlap : &c->mma_inflight;

		if (!strcmp(value, "on"))
			*f = 1;
		else if (!strcmp(value, "off"))
			*f = 0;
		else
			return set_err(err, key[0] == 'f' ?
				"--frag-pipeline expects on or off" :
				key[0] == 's' ? "--staged-store expects on or off" :
				key[0] == 'r' ? "--reg-stage expects on or off" :
				!strcmp(key, "pro-regs") ?
				"--pro-regs expects on or off" :
				key[0] == 't' ? "--tma expects on or off" :
				key[0] == 'p' ? "--pro-overlap expects on or off" :
				"--mma-inflight expects on or off");
		return POLYMMA_OK;
	}
	if (!strcmp(key, "persistent")) {
		if (!strcmp(value, "on"))
			c->persistent = 1;
		else if (!strcmp(value, "off"))
			c->persistent = 0;
		else if (!strcmp(value, "auto"))
			c->persistent = -1;
		else
			return set_err(err, "--persistent expects auto, on or "
				"off");
		return POLYMMA_OK;
	}
	if (!strcmp(key, "cluster")) {
		if (!strcmp(value, "auto"))
			c->cluster = -1;
		else if (!strcmp(value, "1") || !strcmp(value, "off"))
			c->cluster = 1;
		else if (!strcmp(value, "2"))
			c->cluster = 2;
		else
			return set_err(err, "--cluster expects auto, 1 or 2");
		return POLYMMA_OK;
	}
	if (!strcmp(key, "small-variant")) {
		if (!strcmp(value, "auto"))
			c->small_variant = -1;
		else if (!strcmp(value, "off"))
			c->small_variant = 0;
		else
			return set_err(err, "--small-variant expects auto or off");
		return POLYMMA_OK;
	}
	if (!strcmp(key, "dump-schedule")) {
		c->dump_all = !*value;
		snprintf(c->dump_pass, sizeof(c->dump_pass), "%s", value);
		return POLYMMA_OK;
	}
	return set_err(err, "unknown option");
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
	cfg = o->cfg;
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
	cfg = o->cfg;
	/* the spec's program: split-K chunks belong to a generated kernel */
	cfg.split_k = 1;
	ictx = isl_ctx_alloc();
	isl_options_set_on_error(ictx, ISL_ON_ERROR_CONTINUE);
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

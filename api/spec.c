#define _POSIX_C_SOURCE 200809L
/* The library's context and a parsed spec with the reference semantics
 * (include/polymma.h): the front end only, no isl (a checker links these
 * without isl). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/ctx.h"
#include "frontend/eval.h"
#include "frontend/frontend.h"

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

void pm_api_keep_diag(polymma_ctx *ctx, struct pm_diags *d)
{
	free(ctx->diag);
	ctx->diag = strdup(pm_diags_text(d));
	pm_diags_clear(d);
}

void pm_api_set_diag(polymma_ctx *ctx, const char *fn, const char *what)
{
	size_t n = strlen(fn) + strlen(what) + sizeof(": error: \n");

	free(ctx->diag);
	ctx->diag = malloc(n);
	if (ctx->diag)
		snprintf(ctx->diag, n, "%s: error: %s\n", fn, what);
}

int pm_api_begin_call(polymma_ctx *ctx, const char *fn, const char *text,
	const void *o, const void *out, const char *out_name)
{
	const char *what = !text ? "spec_text is NULL" :
		!o ? "options is NULL" : !out ? out_name : NULL;

	if (!ctx)
		return POLYMMA_ERR_USAGE;
	free(ctx->diag);
	ctx->diag = NULL;
	if (!what)
		return POLYMMA_OK;
	pm_api_set_diag(ctx, fn, what);
	return POLYMMA_ERR_USAGE;
}

int pm_api_parse(polymma_ctx *ctx, const char *fn, const char *text,
	const char *filename, const void *o, const void *out,
	const char *out_name, struct pm_diags *d, struct pm_spec **spec)
{
	int rc = pm_api_begin_call(ctx, fn, text, o, out, out_name);

	*spec = NULL;
	if (rc != POLYMMA_OK)
		return rc;
	if (!filename)
		filename = "<spec>";
	pm_diags_init(d, filename, text);
	*spec = pm_spec_parse(text, filename, d);
	return POLYMMA_OK;
}

/* ---- A parsed spec and the reference semantics ---- */

struct polymma_spec {
	struct pm_spec *spec;
	int nargs;
	int arg[PM_LIMIT_TENSORS];	/* launcher order -> spec tensor */
};

int polymma_spec_parse(polymma_ctx *ctx, const char *text,
	const char *filename, polymma_spec **out)
{
	struct pm_diags d;
	struct pm_spec *spec;
	polymma_spec *s;
	int rc;

	if (out)
		*out = NULL;
	rc = pm_api_parse(ctx, "polymma_spec_parse", text, filename, ctx, out,
		"spec is NULL", &d, &spec);
	if (rc != POLYMMA_OK)
		return rc;
	pm_api_keep_diag(ctx, &d);
	if (!spec)
		return POLYMMA_ERR_SPEC;
	s = calloc(1, sizeof(*s));
	if (!s) {
		pm_spec_free(spec);
		pm_api_set_diag(ctx, "polymma_spec_parse", "out of memory");
		return POLYMMA_ERR_INTERNAL;
	}
	s->spec = spec;
	for (int r = 0; r < 2; ++r)
		for (int t = 0; t < s->spec->ntensors; ++t)
			if (s->spec->tensors[t].role ==
			    (r ? PM_OUTPUT : PM_INPUT))
				s->arg[s->nargs++] = t;
	*out = s;
	return POLYMMA_OK;
}

void polymma_spec_free(polymma_spec *s)
{
	if (!s)
		return;
	pm_spec_free(s->spec);
	free(s);
}

const char *polymma_spec_name(const polymma_spec *s)
{
	return s ? s->spec->name : NULL;
}

int polymma_spec_nsizes(const polymma_spec *s)
{
	return s ? s->spec->nsyms : 0;
}

const char *polymma_spec_size_name(const polymma_spec *s, int i)
{
	return s && i >= 0 && i < s->spec->nsyms ? s->spec->syms[i].name :
		NULL;
}

int polymma_spec_ntensors(const polymma_spec *s)
{
	return s ? s->nargs : 0;
}

static const struct pm_tensor *arg_tensor(const polymma_spec *s, int i)
{
	return s && i >= 0 && i < s->nargs ? &s->spec->tensors[s->arg[i]] :
		NULL;
}

const char *polymma_spec_tensor_name(const polymma_spec *s, int i)
{
	const struct pm_tensor *t = arg_tensor(s, i);

	return t ? t->name : NULL;
}

const char *polymma_spec_tensor_type(const polymma_spec *s, int i)
{
	const struct pm_tensor *t = arg_tensor(s, i);

	return t ? pm_type_name(t->type) : NULL;
}

int polymma_spec_group_offsets(const polymma_spec *s)
{
	for (int i = 0; s && s->spec->grouped && i < s->nargs; ++i)
		if (s->arg[i] == s->spec->group_offs)
			return i;
	return -1;
}

int polymma_spec_tensor_is_output(const polymma_spec *s, int i)
{
	const struct pm_tensor *t = arg_tensor(s, i);

	return t ? t->role == PM_OUTPUT : -1;
}

int polymma_spec_tensor_rank(const polymma_spec *s, int i)
{
	const struct pm_tensor *t = arg_tensor(s, i);

	return t ? t->rank : -1;
}

int polymma_spec_tensor_dim(const polymma_spec *s, int i, int d,
	int64_t *literal)
{
	const struct pm_tensor *t = arg_tensor(s, i);

	if (literal)
		*literal = 0;
	if (!t || d < 0 || d >= t->rank)
		return -2;
	if (t->dims[d].sym < 0 && literal)
		*literal = t->dims[d].value;
	return t->dims[d].sym < 0 ? -1 : t->dims[d].sym;
}

int polymma_reference(polymma_ctx *ctx, const polymma_spec *s,
	const int64_t *sizes, void *const *tensors)
{
	void *bufs[PM_LIMIT_TENSORS] = { NULL };
	static const char *const why[] = {
		[PM_EVAL_SIZE] = "a size is below 1 or a tensor has more than "
			"2^40 elements",
		[PM_EVAL_NOMEM] = "out of memory",
		[PM_EVAL_NULL] = "spec, sizes or a tensor is NULL",
	};
	enum pm_eval_status st;

	if (!ctx)
		return POLYMMA_ERR_USAGE;
	free(ctx->diag);
	ctx->diag = NULL;
	if (!s || !sizes || !tensors) {
		pm_api_set_diag(ctx, "polymma_reference", why[PM_EVAL_NULL]);
		return POLYMMA_ERR_USAGE;
	}
	for (int i = 0; i < s->nargs; ++i)
		bufs[s->arg[i]] = tensors[i];
	st = pm_spec_eval(s->spec, sizes, bufs);
	if (st == PM_EVAL_OK)
		return POLYMMA_OK;
	pm_api_set_diag(ctx, "polymma_reference", why[st]);
	return st == PM_EVAL_NOMEM ? POLYMMA_ERR_INTERNAL : POLYMMA_ERR_USAGE;
}

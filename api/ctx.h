/* api/ctx — the library's context and its diagnostics, shared by the
 * entry points of api/ (internal). */
#ifndef PM_API_CTX_H
#define PM_API_CTX_H

#include "frontend/diag.h"
#include "frontend/frontend.h"
#include "polymma.h"

struct polymma_ctx {
	char *diag;
};

/* d's text as ctx's diagnostics (d cleared). */
void pm_api_keep_diag(polymma_ctx *ctx, struct pm_diags *d);
/* "FN: error: WHAT\n" as ctx's diagnostics (none when out of memory). */
void pm_api_set_diag(polymma_ctx *ctx, const char *fn, const char *what);
/* The start of every call on ctx that can fail: the previous call's
 * diagnostics are dropped, then the arguments are checked (text, o and
 * out must not be NULL; out_name says what a NULL out is).
 * POLYMMA_OK or POLYMMA_ERR_USAGE. */
int pm_api_begin_call(polymma_ctx *ctx, const char *fn, const char *text,
	const void *o, const void *out, const char *out_name);

/* begin_call, then the spec parsed into *spec (NULL on a spec error)
 * with its diagnostics in *d (initialised here; the caller keeps them
 * with pm_api_keep_diag). Returns begin_call's status: with POLYMMA_OK,
 * *d is live and *spec may still be NULL. */
int pm_api_parse(polymma_ctx *ctx, const char *fn, const char *text,
	const char *filename, const void *o, const void *out,
	const char *out_name, struct pm_diags *d, struct pm_spec **spec);

#endif

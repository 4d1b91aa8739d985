/* polymma — polyhedral tensor-core kernel generator, library interface.
 *
 * No global state. One polymma_ctx per thread; every object returned by an
 * _alloc or a generate call is released by its _free. Strings returned by
 * getters are owned by the object they come from and live until it is freed.
 *
 *   polymma_ctx *ctx = polymma_ctx_alloc();
 *   polymma_options *o = polymma_options_alloc();
 *   polymma_options_set(o, "target", "sm_80");
 *   polymma_options_set(o, "define", "K=4096");
 *   polymma_result *r = NULL;
 *   int rc = polymma_generate(ctx, text, "gemm.tc", o, &r);
 *   if (rc != POLYMMA_OK) fputs(polymma_diagnostics(ctx), stderr);
 *   else puts(polymma_result_source(r));
 *   polymma_result_free(r); polymma_options_free(o); polymma_ctx_free(ctx);
 */
#ifndef POLYMMA_H
#define POLYMMA_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define POLYMMA_VERSION "0.1.0"

/* Status codes; they are also the exit codes of the command line. */
enum polymma_status {
	POLYMMA_OK = 0,
	POLYMMA_ERR_SPEC = 1,		/* invalid spec or unsupported request */
	POLYMMA_ERR_USAGE = 2,		/* bad option */
	POLYMMA_ERR_INTERNAL = 3	/* a bug in polymma */
};

typedef struct polymma_ctx polymma_ctx;
typedef struct polymma_options polymma_options;
typedef struct polymma_result polymma_result;

polymma_ctx *polymma_ctx_alloc(void);
void polymma_ctx_free(polymma_ctx *ctx);
/* Diagnostics of the last call on ctx (gcc style), "" when none. */
const char *polymma_diagnostics(const polymma_ctx *ctx);

polymma_options *polymma_options_alloc(void);
void polymma_options_free(polymma_options *o);
/* Set one option by its command-line name without dashes ("target",
 * "block", "split-k", ...; -D is "define", NAME=VALUE, repeatable) to a
 * value spelled as on the command line ("sm_90a", "128x128x64", "auto").
 * docs/OPTIONS.md lists every option, its values and its default (it is
 * generated from the table in api/options.c: `make docs`).
 * Returns POLYMMA_OK or POLYMMA_ERR_USAGE (message in *err when err is not
 * NULL: a static string): for an unknown key, a bad value, or a NULL o,
 * key or value. A failed call leaves o unchanged. */
int polymma_options_set(polymma_options *o, const char *key,
	const char *value, const char **err);
/* Where --dump-schedule output goes (default stderr). */
void polymma_options_set_dump_stream(polymma_options *o, FILE *f);

/* Parse, validate and generate. On success *result holds the CUDA source,
 * the C header and the JSON meta data. On failure *result is NULL and
 * polymma_diagnostics(ctx) says why. */
int polymma_generate(polymma_ctx *ctx, const char *spec_text,
	const char *filename, const polymma_options *o,
	polymma_result **result);
const char *polymma_result_source(const polymma_result *r);
const char *polymma_result_header(const polymma_result *r);
const char *polymma_result_meta(const polymma_result *r);
void polymma_result_free(polymma_result *r);

/* Parse and validate; on success *report (malloc'ed, caller frees) holds
 * the DAG, the isl domains, accesses, dependences and initial schedule. */
int polymma_check(polymma_ctx *ctx, const char *spec_text,
	const char *filename, const polymma_options *o, char **report);

#ifdef __cplusplus
}
#endif
#endif

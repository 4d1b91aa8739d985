/* polymma — polyhedral tensor-core kernel generator, library interface.
 *
 * No global state. One polymma_ctx per thread; every object returned by an
 * _alloc or a generate call is released by its _free. Strings returned by
 * getters are owned by the object they come from and live until it is freed.
 *
 * NULL: every function accepts NULL for every pointer argument without
 * crashing. The _free functions and polymma_options_set_dump_stream(NULL,
 * f) do nothing with NULL; the getters return NULL (polymma_diagnostics:
 * ""). polymma_options_set, polymma_generate and polymma_check return
 * POLYMMA_ERR_USAGE for a NULL object, text, options or output pointer
 * (a NULL filename is "<spec>"); their output pointer, when not NULL, is
 * set to NULL first.
 *
 * Diagnostics: polymma_generate and polymma_check clear the ctx's
 * diagnostics when they start, so polymma_diagnostics(ctx) always tells
 * about the last of these calls, never an earlier one (a usage error such
 * as a NULL text says so there too; with a NULL ctx there is nowhere to
 * say it).
 *
 * Example: a program that prints the CUDA file of the spec given as its
 * argument (tests/test_api.c compiles and runs the lines between the
 * markers; the `*` of each line is not part of the program):
 *
 * BEGIN EXAMPLE
 * #define _POSIX_C_SOURCE 200809L	// getdelim
 * #include <stdio.h>
 * #include <stdlib.h>
 * #include "polymma.h"
 *
 * int main(int argc, char **argv)
 * {
 * 	FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
 * 	char *text = NULL;
 * 	size_t cap = 0;
 * 	const char *err = NULL;
 * 	polymma_ctx *ctx = polymma_ctx_alloc();
 * 	polymma_options *o = polymma_options_alloc();
 * 	polymma_result *r = NULL;
 * 	int rc = POLYMMA_ERR_USAGE;
 *
 * 	if (f && getdelim(&text, &cap, '\0', f) >= 0)
 * 		rc = polymma_options_set(o, "target", "sm_80", &err);
 * 	if (rc == POLYMMA_OK)
 * 		rc = polymma_options_set(o, "define", "K=4096", &err);
 * 	if (rc != POLYMMA_OK)
 * 		fprintf(stderr, "bad spec file or option: %s\n",
 * 			err ? err : argc == 2 ? argv[1] : "no argument");
 * 	else if ((rc = polymma_generate(ctx, text, argv[1], o, &r)))
 * 		fputs(polymma_diagnostics(ctx), stderr);
 * 	else
 * 		fputs(polymma_result_source(r), stdout);
 * 	polymma_result_free(r);
 * 	polymma_options_free(o);
 * 	polymma_ctx_free(ctx);
 * 	free(text);
 * 	if (f)
 * 		fclose(f);
 * 	return rc;
 * }
 * END EXAMPLE
 */
#ifndef POLYMMA_H
#define POLYMMA_H

#include <stdint.h>
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
/* Diagnostics of the last polymma_generate or polymma_check on ctx (gcc
 * style), "" when none (or ctx is NULL). Owned by ctx: valid until the next
 * call on ctx or polymma_ctx_free. */
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
/* Where --dump-schedule output goes (default, and f NULL: stderr). */
void polymma_options_set_dump_stream(polymma_options *o, FILE *f);

/* Parse, validate and generate. On success *result holds the CUDA source,
 * the C header and the JSON meta data. On failure *result is NULL and
 * polymma_diagnostics(ctx) says why. Returns a polymma_status;
 * POLYMMA_ERR_USAGE for a NULL ctx, spec_text, o or result. */
int polymma_generate(polymma_ctx *ctx, const char *spec_text,
	const char *filename, const polymma_options *o,
	polymma_result **result);
/* The texts of a result (owned by r); NULL for a NULL r. */
const char *polymma_result_source(const polymma_result *r);
const char *polymma_result_header(const polymma_result *r);
const char *polymma_result_meta(const polymma_result *r);
void polymma_result_free(polymma_result *r);

/* Parse and validate; on success *report (malloc'ed, caller frees) holds
 * the DAG, the isl domains, accesses, dependences and initial schedule.
 * On failure *report is NULL. POLYMMA_ERR_USAGE for a NULL ctx,
 * spec_text, o or report. */
int polymma_check(polymma_ctx *ctx, const char *spec_text,
	const char *filename, const polymma_options *o, char **report);

/* A parsed spec (the front end only, no scheduling: fast): its size
 * symbols and the generated launcher's tensors, and the language's
 * reference semantics. polymma_spec_parse returns a polymma_status, with
 * polymma_diagnostics(ctx) as polymma_check's; *spec is NULL on failure. */
typedef struct polymma_spec polymma_spec;
int polymma_spec_parse(polymma_ctx *ctx, const char *spec_text,
	const char *filename, polymma_spec **spec);
void polymma_spec_free(polymma_spec *s);
const char *polymma_spec_name(const polymma_spec *s);
/* The size symbols, in order of first appearance in the declarations
 * (the order of NAME_argv's sizes; not the launcher's own order, which
 * the --meta "sizes" gives). */
int polymma_spec_nsizes(const polymma_spec *s);
const char *polymma_spec_size_name(const polymma_spec *s, int i);
/* The launcher's tensors: the inputs, then the outputs, each in declared
 * order (temporaries are not listed). Type "f16", "bf16", "f32", "i8",
 * "i32", "f8e4m3" or "f8e5m2"; dimension d of tensor i is size symbol number
 * polymma_spec_tensor_dim (>= 0), or -1 with *literal its value; -2 (and
 * the getters' NULL / -1) for an index out of range. */
int polymma_spec_ntensors(const polymma_spec *s);
const char *polymma_spec_tensor_name(const polymma_spec *s, int i);
const char *polymma_spec_tensor_type(const polymma_spec *s, int i);
int polymma_spec_tensor_is_output(const polymma_spec *s, int i);
int polymma_spec_tensor_rank(const polymma_spec *s, int i);
int polymma_spec_tensor_dim(const polymma_spec *s, int i, int d,
	int64_t *literal);
/* The reference semantics on host buffers, for checking kernels:
 * sizes[i] the value of size symbol i (every one); tensors[i] the
 * launcher's tensor i (dense, row-major in declared order, in its type:
 * f16 and bf16 as 16-bit patterns, f8e4m3 and f8e5m2 as bytes). Every
 * tensor is held in double, the statements run in program order over their
 * whole domains, the outputs are rounded to their type once at the end
 * (nearest even; integers and the 8-bit floats saturate). Writes the outputs. POLYMMA_ERR_USAGE for a NULL argument
 * or a size below 1; POLYMMA_ERR_INTERNAL when out of memory. Cost: about
 * one multiply-add per point of each contraction's domain. */
int polymma_reference(polymma_ctx *ctx, const polymma_spec *s,
	const int64_t *sizes, void *const *tensors);

#ifdef __cplusplus
}
#endif
#endif

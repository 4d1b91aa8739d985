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
	POLYMMA_ERR_INTERNAL = 3,	/* a bug in polymma */
	POLYMMA_ERR_CUDA = 4		/* JIT: NVRTC or the CUDA driver missing
					 * or failing (never from the command) */
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
/* A grouped spec (`group e by offs`, docs/LANGUAGE.md "Grouped
 * contractions"): the launcher's tensor index of offs, the groups'
 * cumulative row ends; -1 for a spec without groups (or s NULL). */
int polymma_spec_group_offsets(const polymma_spec *s);
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

/* The JIT: a spec's kernels compiled at run time by NVRTC and launched
 * by the CUDA driver API, without nvcc and without the generated host
 * launcher (docs/decisions/0038-jit.md). NVRTC (libnvrtc.so.13, .so.12,
 * .so, or $POLYMMA_NVRTC) and the driver (libcuda.so.1) are loaded when
 * first needed: without them these calls fail with POLYMMA_ERR_CUDA and
 * the rest of the library works as before. NVRTC needs the CUDA headers
 * (cuda_fp16.h, ...): $POLYMMA_CUDA_INCLUDE, $CUDA_HOME/include,
 * $CUDA_PATH/include, the include/ next to NVRTC's lib64/, or
 * /usr/local/cuda/include.
 *
 * polymma_jit_compile generates the spec's CUDA file with options o and
 * compiles its kernels into a cubin for arch ("sm_80", "sm_86", "sm_90a";
 * NULL or "": the current device's, device 0 where no context is
 * current). The generator's target is the options' "target" where they
 * set one (it must run on arch), else arch's family: sm_9x -> sm_90a (arch
 * sm_90a), sm_8x and later -> sm_80, sm_7x -> sm_70. The result is cached
 * on disk: $POLYMMA_CACHE_DIR, else $XDG_CACHE_HOME/polymma, else
 * ~/.cache/polymma, keyed on the spec text, the options, the target, the
 * arch, polymma's version, NVRTC's version and the helper headers (a hit
 * costs no generation and no NVRTC); at most $POLYMMA_CACHE_MAX_MB
 * megabytes (default 512; the oldest entries go first). Compiling needs no
 * GPU when arch is given. Returns a polymma_status with
 * polymma_diagnostics(ctx) as polymma_generate's: POLYMMA_ERR_SPEC for
 * the spec (or past the JIT launcher's limits: "unsupported:"),
 * POLYMMA_ERR_USAGE for a bad
 * arch, POLYMMA_ERR_INTERNAL with NVRTC's log where it refuses the file,
 * POLYMMA_ERR_CUDA without NVRTC (or without a device to ask for arch).
 *
 * polymma_kernel_launch runs it as the generated NAME_argv does: tensors
 * (device pointers: inputs, then outputs, in declared order), sizes (every
 * size symbol in the spec's order, -D ones included: they must equal their
 * value), a cudaStream_t / CUstream (NULL: the default stream). The same
 * checks, plan (POLYMMA_VARIANT honoured), workspace and kernels as the
 * generated launcher. The module is loaded in the current context at its
 * first launch there (none current: device 0's primary context, made
 * current). POLYMMA_OK; POLYMMA_ERR_USAGE for sizes, alignment or a NULL
 * argument; POLYMMA_ERR_CUDA for the driver; polymma_kernel_error(k) says
 * why. polymma_kernel_launch_ws takes the caller's workspace (zero-filled
 * before its first use, every launch leaves it so) of
 * polymma_kernel_workspace_size(k, sizes) bytes (too small or NULL: no
 * split), as NAME_ws. Launches are thread-safe. A launch on a stream
 * being captured into a CUDA graph takes a workspace of its own in the
 * capture (allocated, zeroed and freed as graph nodes), never the kept
 * one (docs/decisions/0060). */
typedef struct polymma_kernel polymma_kernel;
int polymma_jit_compile(polymma_ctx *ctx, const char *spec_text,
	const polymma_options *o, const char *arch, polymma_kernel **kernel);
int polymma_kernel_launch(polymma_kernel *k, void *const *tensors,
	const int64_t *sizes, void *stream);
int polymma_kernel_launch_ws(polymma_kernel *k, void *const *tensors,
	const int64_t *sizes, void *workspace, size_t workspace_bytes,
	void *stream);
size_t polymma_kernel_workspace_size(polymma_kernel *k, const int64_t *sizes);
/* The last failed launch's message ("" none); the arch compiled for;
 * whether the kernel came from the disk cache. */
const char *polymma_kernel_error(const polymma_kernel *k);
const char *polymma_kernel_arch(const polymma_kernel *k);
int polymma_kernel_cached(const polymma_kernel *k);
void polymma_kernel_free(polymma_kernel *k);
/* Removes every entry of the JIT cache: their number, or -1 where the
 * directory cannot be named or read (`polymma cache clear`). */
int polymma_jit_cache_clear(void);

#ifdef __cplusplus
}
#endif
#endif

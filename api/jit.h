/* api/jit — the JIT's internals (api/jit.c), for tests. */
#ifndef PM_API_JIT_H
#define PM_API_JIT_H

#include <stddef.h>

#include "frontend/diag.h"
#include "runtime/cudadl.h"

/* The cache key of an entry: the spec text, the options' log
 * (pm_options_log), the target, the arch, the generator's build id
 * (pm_build_id, api/build_id.h), NVRTC's version and include directory,
 * polymma's version and the helper headers. */
void pm_jit_key(const char *text, const char *log, const char *target,
	const char *arch, const char *build, const struct pm_nvrtc *nv,
	unsigned char key[32]);
/* NVRTC: the generated file src -> a cubin for arch (*cubin malloc'ed,
 * *n bytes), with one more NVRTC option extra (NULL: none); NVRTC's log
 * into *log (malloc'ed) where log is not NULL. A polymma_status; the log
 * in d where NVRTC refuses src. */
int pm_jit_nvrtc(const struct pm_nvrtc *nv, const char *src,
	const char *name, const char *arch, const char *extra, char **log,
	unsigned char **cubin, size_t *n, struct pm_diags *d);

/* k's launch description (tests/gpu/jit_check.c forces each row). */
struct polymma_kernel;
struct pm_rt_jit;
const struct pm_rt_jit *pm_jit_desc(const struct polymma_kernel *k);

#endif

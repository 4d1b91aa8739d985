/* api/jit — the JIT's internals (api/jit.c), for tests. */
#ifndef PM_API_JIT_H
#define PM_API_JIT_H

#include <stddef.h>

#include "frontend/diag.h"
#include "runtime/cudadl.h"
#include "runtime/jitlaunch.h"

/* The cache key of an entry: the spec text, the options' log
 * (pm_options_log), the target, the arch, the generator's build id
 * (pm_build_id, api/build_id.h), NVRTC's version and include directory,
 * polymma's version and the helper headers. */
void pm_jit_key(const char *text, const char *log, const char *target,
	const char *arch, const char *build, const struct pm_nvrtc *nv,
	unsigned char key[32]);
/* NVRTC: the generated file src -> a cubin for arch (*cubin malloc'ed,
 * *n bytes), with nextra more NVRTC options extra; NVRTC's log into *log
 * (malloc'ed) where log is not NULL. A polymma_status; the log in d where
 * NVRTC refuses src. */
int pm_jit_nvrtc(const struct pm_nvrtc *nv, const char *src,
	const char *name, const char *arch, const char *const *extra,
	int nextra, char **log, unsigned char **cubin, size_t *n,
	struct pm_diags *d);

/* The cubins of a file's kernels (b[i] malloc'ed, len[i] bytes). */
struct pm_jit_cubins {
	int n;
	unsigned char *b[PM_RT_MAX_PARTS];
	size_t len[PM_RT_MAX_PARTS];
};
void pm_jit_cubins_free(struct pm_jit_cubins *c);
/* How many NVRTC programs compile j's kernels (api/jitparts.c,
 * docs/decisions/0054-jit-parts.md): $POLYMMA_THREADS where set, else
 * the CPUs online where at least PM_JIT_PARTS_MIN_CPUS, else 1; at most
 * PM_RT_MAX_PARTS and the kernels. */
#define PM_JIT_PARTS_MIN_CPUS 4
int pm_jit_parts(const struct pm_rt_jit *j);
/* j's kernels, in src, compiled by np NVRTC programs at once (each
 * defines PM_KERNELS and its kernels' PM_KERNEL_<function>, emit/file.c),
 * their costs balanced; np 1: one program, every kernel. c's cubins and
 * each row's part[] (its kernels' cubins), or a polymma_status and d. */
int pm_jit_nvrtc_parts(const struct pm_nvrtc *nv, const char *src,
	const char *name, const char *arch, struct pm_rt_jit *j,
	int np, struct pm_jit_cubins *c, struct pm_diags *d);

/* k's launch description (tests/gpu/jit_check.c forces each row). */
struct polymma_kernel;
const struct pm_rt_jit *pm_jit_desc(const struct polymma_kernel *k);
/* k's launcher and cubins (tests/test_jit.c). */
const struct pm_rt_kernel *pm_jit_rt(const struct polymma_kernel *k);

#endif

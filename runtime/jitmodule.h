/* runtime/jitmodule.h — internal to the JIT launcher (runtime/jitlaunch.c):
 * a kernel's cubins loaded into a module per CUDA context, and the kernel's
 * error message.
 *
 * pm_rt_module_current loads k's cubins into the current context (none:
 * device 0's primary context, made current) at its first use there, under
 * k's lock: every row's function and twin (dynamic shared memory allowed,
 * blocks per SM asked), the copy and prologue kernels, the SMs; at most
 * PM_RT_CTXS contexts. pm_rt_kernel_new and pm_rt_kernel_free
 * (runtime/jitlaunch.h) live here too.
 */
#ifndef PM_RT_JITMODULE_H
#define PM_RT_JITMODULE_H

#include "runtime/jitlaunch.h"

/* rc, the message fmt in k->err. */
int pm_rt_fail(struct pm_rt_kernel *k, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* PM_RT_L_ECUDA, "what: the driver's message (CUresult r)" in k->err. */
int pm_rt_cuda_fail(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	const char *what, pm_CUresult r);
/* The current context's module of k into *out (loaded at its first use);
 * a PM_RT_L_ code. */
int pm_rt_module_current(const struct pm_cuda *cu, struct pm_rt_kernel *k,
	struct pm_rt_module **out);

#endif

/* emit/jit — the launch description (runtime/jit.h) of a variant set, for
 * the JIT launcher (docs/decisions/0038-jit.md). */
#ifndef PM_EMIT_JIT_H
#define PM_EMIT_JIT_H

#include "frontend/diag.h"
#include "runtime/jit.h"

struct pm_variant_set;
/* *j from vs's kernels (what launch.c and table.c print from). -1 with a
 * message in d where the JIT launcher cannot launch them (an unsupported
 * error: multicast clusters, K-major copies; the host target). */
int pm_emit_jit(const struct pm_variant_set *vs, struct pm_rt_jit *j,
	struct pm_diags *d);

#endif

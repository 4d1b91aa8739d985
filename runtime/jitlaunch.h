/* runtime/jitlaunch.h — a JIT-compiled file's kernels launched by the CUDA
 * driver API, following its launch description (runtime/jit.h) as the
 * generated launcher does (emit/launch.c): the same checks, the same plan
 * (runtime/plan.c, POLYMMA_VARIANT honoured), the same grids, workspace
 * layout, tensor maps and arguments (docs/decisions/0038-jit.md).
 *
 * A kernel holds its cubins (one per NVRTC program that compiled some of
 * its kernels: api/jitparts.c) and loads them once per CUDA context, at its
 * first launch there (the current context; none: device 0's primary
 * context, made current). Per context it asks once for the SMs, each
 * row's blocks per SM and the clusters the split-in-clusters row fits,
 * and allows each kernel its dynamic shared memory. The plain launch
 * takes the workspace it keeps for the context and stream, or in a CUDA
 * graph capture its own (runtime/jitws.h); without one the plan runs
 * unsplit. Thread-safe: one lock per kernel around its tables (launches
 * themselves run unlocked).
 */
#ifndef PM_RT_JITLAUNCH_H
#define PM_RT_JITLAUNCH_H

#include <pthread.h>

#include "runtime/cudadl.h"
#include "runtime/jit.h"
#include "runtime/jitws.h"

#define PM_RT_CTXS 8
/* runtime/device/kcopy.cuh's tile and block: PM_KC_ROWS, PM_KC_COLS,
 * PM_KC_THREADS (tests/jit_mock.h checks the launches against them) */
#define PM_RT_KC_ROWS 64
#define PM_RT_KC_COLS 256
#define PM_RT_KC_THREADS 256

/* Return codes. */
#define PM_RT_L_OK 0
#define PM_RT_L_EINVAL 1	/* sizes, alignment, a NULL argument */
#define PM_RT_L_ECUDA 2		/* the driver (no device, load, launch) */

struct pm_rt_module {
	pm_CUcontext ctx;
	int nmod;
	pm_CUmodule mod[PM_RT_MAX_PARTS];
	pm_CUfunction f[PM_RT_MAX_VARIANTS][2];	/* row, its twin */
	pm_CUfunction kcf;	/* pm_kc_kernel (K-major copies; in every part) */
	/* pm_pre_NAME_<tensor> (launcher-applied prologues; every part) */
	pm_CUfunction pref[PM_RT_JIT_KC];
	int sms;
	int occ[PM_RT_MAX_VARIANTS];
	int clusters[9];	/* of s blocks, s = 2..8; -1 none, 0 not asked */
	/* each --cluster 2 row's clusters of two resident at once (0: not
	 * asked; launch.c, mc_grid's pm_nc) */
	int mc_clusters[PM_RT_MAX_VARIANTS];
};

struct pm_rt_kernel {
	struct pm_rt_jit j;
	int ncubins;
	unsigned char *cubin[PM_RT_MAX_PARTS];
	size_t ncubin[PM_RT_MAX_PARTS];
	pthread_mutex_t lock;
	int nmods;
	struct pm_rt_module mods[PM_RT_CTXS];
	struct pm_rt_kept_ws kept[PM_RT_KEPT];	/* runtime/jitws.h */
	char err[512];		/* the last failure's message */
};

/* A kernel of j and its n cubins (copied; each kernel function in the
 * cubin its row's part names); NULL when out of memory, n is not in
 * [1, PM_RT_MAX_PARTS] or a part is not below n. */
struct pm_rt_kernel *pm_rt_kernel_new(const struct pm_rt_jit *j, int n,
	const unsigned char *const *cubin, const size_t *len);
/* Frees the kept workspaces and unloads the modules (their contexts must
 * still be alive). */
void pm_rt_kernel_free(struct pm_rt_kernel *k);
/* The launch of tensors (inputs, then outputs) at sizes (every symbol in
 * the spec's order, fixed ones included: they must equal their value) on
 * stream. ws NULL and use_kept: the kept workspace; else the caller's ws
 * of ws_bytes (too small or NULL: no split). A PM_RT_L_ code; the
 * message in k->err. */
int pm_rt_kernel_launch(struct pm_rt_kernel *k, void *const *tensors,
	const int64_t *sizes, void *ws, size_t ws_bytes, int use_kept,
	pm_CUstream stream);
/* The bytes of workspace the launch at sizes would use (0: none, or an
 * error). */
size_t pm_rt_kernel_ws_size(struct pm_rt_kernel *k, const int64_t *sizes);

#endif

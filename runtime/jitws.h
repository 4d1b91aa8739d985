/* runtime/jitws.h — the workspaces of the JIT launcher (runtime/jitlaunch.h;
 * docs/decisions/0060-graph-capture-and-call-overhead.md).
 *
 * A kernel keeps one workspace per CUDA context and stream, zeroed when
 * allocated and stream-ordered (every launch leaves its counters 0), at
 * most PM_RT_KEPT of them. A launch on a stream being captured into a CUDA
 * graph takes none of them (a graph replays anywhere, beside the stream's
 * own launches; cuStreamGetId would invalidate the capture): it allocates
 * its own in the capture, zeroes its counters and frees it after its
 * kernels (graph nodes: each replay has its own).
 */
#ifndef PM_RT_JITWS_H
#define PM_RT_JITWS_H

#include <pthread.h>
#include <stddef.h>

#include "runtime/cudadl.h"

#define PM_RT_KEPT 32

/* One kept workspace: its context and stream, n bytes at p (0: none). */
struct pm_rt_kept_ws {
	pm_CUcontext ctx;
	unsigned long long stream;
	pm_CUdeviceptr p;
	size_t n;
};

/* A launch's own workspace: cap where its stream is being captured (then
 * every workspace it takes is this one), p once allocated. */
struct pm_rt_own_ws {
	int cap;
	pm_CUdeviceptr p;
};

/* o for a launch on stream: none allocated; cap where it may take a kept
 * workspace (use_kept) and stream is being captured, or cannot say (a
 * legacy stream beside a capture). */
void pm_rt_own_ws_begin(const struct pm_cuda *cu, struct pm_rt_own_ws *o,
	pm_CUstream stream, int use_kept);
/* Frees o's workspace after the launch's kernels (in a capture: a graph's
 * free node). */
void pm_rt_own_ws_done(const struct pm_cuda *cu, struct pm_rt_own_ws *o,
	pm_CUstream stream);
/* The kept workspace of ctx and stream in kept[PM_RT_KEPT], of n bytes at
 * least (reallocated when smaller), the table read and changed under
 * lock; in a capture (o->cap) o's own of n bytes, its first zero zeroed.
 * NULL where none can be had. */
void *pm_rt_ws_kept(const struct pm_cuda *cu, pthread_mutex_t *lock,
	struct pm_rt_kept_ws *kept, pm_CUcontext ctx, pm_CUstream stream,
	size_t n, struct pm_rt_own_ws *o, size_t zero);
/* Frees the kept workspaces of kept[PM_RT_KEPT] (their contexts alive). */
void pm_rt_ws_free_kept(const struct pm_cuda *cu, struct pm_rt_kept_ws *kept);

#endif

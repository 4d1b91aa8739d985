/* The JIT launcher's workspaces (runtime/jitws.h). */
#include <stdint.h>

#include "runtime/jitws.h"

/* Whether stream is being captured, or the driver cannot say (a legacy
 * stream beside a capture). */
static int capturing(const struct pm_cuda *cu, pm_CUstream stream)
{
	int st = 0;

	return cu->StreamIsCapturing &&
		(cu->StreamIsCapturing(stream, &st) || st != 0);
}

void pm_rt_own_ws_begin(const struct pm_cuda *cu, struct pm_rt_own_ws *o,
	pm_CUstream stream, int use_kept)
{
	o->p = 0;
	o->cap = use_kept && capturing(cu, stream);
}

void pm_rt_own_ws_done(const struct pm_cuda *cu, struct pm_rt_own_ws *o,
	pm_CUstream stream)
{
	if (o->p)
		cu->MemFreeAsync(o->p, stream);
	o->p = 0;
}

/* o's workspace of n bytes, the first zero of them zeroed, allocated in
 * the capture (graph nodes); NULL where it cannot be had. */
static void *own(const struct pm_cuda *cu, pm_CUstream stream,
	struct pm_rt_own_ws *o, size_t n, size_t zero)
{
	if (o->p)
		cu->MemFreeAsync(o->p, stream);
	o->p = 0;
	if (cu->MemAllocAsync(&o->p, n, stream))
		return (void *) (o->p = 0);
	if (zero && cu->MemsetD8Async(o->p, 0, zero, stream)) {
		cu->MemFreeAsync(o->p, stream);
		o->p = 0;
	}
	return (void *) (uintptr_t) o->p;
}

/* The slot of ctx and stream id in kept[], else the first free one, else
 * -1. */
static int slot_of(const struct pm_rt_kept_ws *kept, pm_CUcontext ctx,
	unsigned long long id)
{
	int slot = -1;

	for (int i = 0; i < PM_RT_KEPT; ++i) {
		if (kept[i].p && kept[i].ctx == ctx && kept[i].stream == id)
			return i;
		if (!kept[i].p && slot < 0)
			slot = i;
	}
	return slot;
}

void *pm_rt_ws_kept(const struct pm_cuda *cu, pthread_mutex_t *lock,
	struct pm_rt_kept_ws *kept, pm_CUcontext ctx, pm_CUstream stream,
	size_t n, struct pm_rt_own_ws *o, size_t zero)
{
	unsigned long long id = (unsigned long long) (uintptr_t) stream;
	pm_CUdeviceptr p = 0;
	void *out = NULL;
	int slot;

	if (o->cap)
		return own(cu, stream, o, n, zero);
	if (cu->StreamGetId && cu->StreamGetId(stream, &id))
		return NULL;
	pthread_mutex_lock(lock);
	slot = slot_of(kept, ctx, id);
	if (slot >= 0 && kept[slot].p && kept[slot].n >= n)
		out = (void *) (uintptr_t) kept[slot].p;
	else if (slot >= 0 && !cu->MemAllocAsync(&p, n, stream)) {
		if (cu->MemsetD8Async(p, 0, n, stream)) {
			cu->MemFreeAsync(p, stream);
		} else {
			if (kept[slot].p)
				cu->MemFreeAsync(kept[slot].p, stream);
			kept[slot].ctx = ctx;
			kept[slot].stream = id;
			kept[slot].p = p;
			kept[slot].n = n;
			out = (void *) (uintptr_t) p;
		}
	}
	pthread_mutex_unlock(lock);
	return out;
}

void pm_rt_ws_free_kept(const struct pm_cuda *cu, struct pm_rt_kept_ws *kept)
{
	for (int i = 0; i < PM_RT_KEPT; ++i)
		if (kept[i].p)
			cu->MemFreeAsync(kept[i].p, (pm_CUstream) (uintptr_t) 0);
}

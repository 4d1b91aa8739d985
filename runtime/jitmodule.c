/* A JIT-compiled kernel's cubins and their modules, one per CUDA context
 * (runtime/jitmodule.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/jitmodule.h"

/* the file's short names of jitmodule.h's error helpers */
#define fail pm_rt_fail
#define cuda_fail pm_rt_cuda_fail

int pm_rt_fail(struct pm_rt_kernel *k, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->err, sizeof(k->err), fmt, ap);
	va_end(ap);
	return rc;
}

int pm_rt_cuda_fail(struct pm_rt_kernel *k, const struct pm_cuda *cu,
	const char *what, pm_CUresult r)
{
	return fail(k, PM_RT_L_ECUDA, "%s: %s (CUresult %d)", what,
		pm_cuda_error(cu, r), r);
}

struct pm_rt_kernel *pm_rt_kernel_new(const struct pm_rt_jit *j, int n,
	const unsigned char *const *cubin, const size_t *len)
{
	struct pm_rt_kernel *k;

	if (n < 1 || n > PM_RT_MAX_PARTS)
		return NULL;
	for (int r = 0; r < j->nrows; ++r)
		if (j->kern[r].part[0] >= n || j->kern[r].part[1] >= n)
			return NULL;
	if (!(k = calloc(1, sizeof(*k))))
		return NULL;
	pthread_mutex_init(&k->lock, NULL);
	k->j = *j;
	pm_rt_jit_fix(&k->j);
	for (int i = 0; i < n; ++i) {
		if (!(k->cubin[i] = malloc(len[i] ? len[i] : 1))) {
			k->ncubins = i;
			pm_rt_kernel_free(k);
			return NULL;
		}
		memcpy(k->cubin[i], cubin[i], len[i]);
		k->ncubin[i] = len[i];
	}
	k->ncubins = n;
	return k;
}

static void unload(const struct pm_cuda *cu, struct pm_rt_module *m)
{
	for (int i = 0; i < m->nmod; ++i)
		cu->ModuleUnload(m->mod[i]);
	m->nmod = 0;
}

void pm_rt_kernel_free(struct pm_rt_kernel *k)
{
	const struct pm_cuda *cu;

	if (!k)
		return;
	cu = pm_cuda(NULL);
	if (cu)
		pm_rt_ws_free_kept(cu, k->kept);
	for (int i = 0; cu && i < k->nmods; ++i)
		unload(cu, &k->mods[i]);
	pthread_mutex_destroy(&k->lock);
	for (int i = 0; i < k->ncubins; ++i)
		free(k->cubin[i]);
	free(k);
}

/* "pm_kernel_NAME<suffix>[_x]" of row r */
static pm_CUresult get_fn(const struct pm_cuda *cu, struct pm_rt_kernel *k,
	struct pm_rt_module *m, int r, int x)
{
	char name[160];

	snprintf(name, sizeof(name), "pm_kernel_%s%s%s", k->j.name,
		k->j.kern[r].suffix, x ? "_x" : "");
	/* in the module of the program that compiled it (no lookup that
	 * fails: compute-sanitizer counts each as an error) */
	return cu->ModuleGetFunction(&m->f[r][x],
		m->mod[k->j.kern[r].part[x]], name);
}

/* Module load, functions, shared memory allowed, SMs and blocks per SM
 * (table.c: pm_device_NAME, pm_attrs_NAME). */
static int load(const struct pm_cuda *cu, struct pm_rt_kernel *k,
	pm_CUcontext ctx, struct pm_rt_module *m)
{
	pm_CUdevice dev;
	pm_CUresult r;

	memset(m, 0, sizeof(*m));
	m->ctx = ctx;
	if ((r = cu->CtxGetDevice(&dev)) ||
	    (r = cu->DeviceGetAttribute(&m->sms, PM_CU_ATTR_SMS, dev)))
		return cuda_fail(k, cu, "the device", r);
	for (; m->nmod < k->ncubins; m->nmod++)
		if ((r = cu->ModuleLoadData(&m->mod[m->nmod],
		    k->cubin[m->nmod]))) {
			unload(cu, m);
			return cuda_fail(k, cu, "cuModuleLoadData", r);
		}
	/* the copy kernel: in every program (emit/file.c) */
	if (k->j.nkc && (r = cu->ModuleGetFunction(&m->kcf, m->mod[0],
	    "pm_kc_kernel"))) {
		unload(cu, m);
		return cuda_fail(k, cu, "the K-major copy kernel", r);
	}
	/* the launcher-applied prologues' kernels: in every program */
	for (int i = 0; i < k->j.npre; ++i) {
		char name[160];

		snprintf(name, sizeof(name), "pm_pre_%s_%s", k->j.name,
			k->j.tname[k->j.pre[i].tensor]);
		if ((r = cu->ModuleGetFunction(&m->pref[i], m->mod[0], name))) {
			unload(cu, m);
			return cuda_fail(k, cu, "a launcher-applied prologue's "
				"kernel", r);
		}
	}
	for (int i = 0; i < k->j.nrows; ++i) {
		const struct pm_rt_jit_row *w = &k->j.kern[i];
		int o = 0;

		for (int x = 0; x <= w->twin; ++x) {
			if ((r = get_fn(cu, k, m, i, x)))
				break;
			if (w->smem > 48 * 1024 && (r = cu->FuncSetAttribute(
			    m->f[i][x], PM_CU_FUNC_MAX_DYN_SMEM, (int) w->smem)))
				break;
		}
		if (!r)
			r = cu->OccupancyMaxActiveBlocksPerMultiprocessor(&o,
				m->f[i][0], w->threads, (size_t) w->smem);
		if (r) {
			unload(cu, m);
			return cuda_fail(k, cu, "a kernel of the module", r);
		}
		m->occ[i] = o > 0 ? o : 1;
	}
	return PM_RT_L_OK;
}

int pm_rt_module_current(const struct pm_cuda *cu, struct pm_rt_kernel *k,
	struct pm_rt_module **out)
{
	pm_CUcontext ctx = NULL;
	pm_CUresult r;
	int rc = PM_RT_L_OK;

	if ((r = cu->CtxGetCurrent(&ctx)))
		return cuda_fail(k, cu, "cuCtxGetCurrent", r);
	if (!ctx) {
		pm_CUdevice dev;

		if ((r = cu->DeviceGet(&dev, 0)) ||
		    (r = cu->DevicePrimaryCtxRetain(&ctx, dev)) ||
		    (r = cu->CtxSetCurrent(ctx)))
			return cuda_fail(k, cu, "device 0's primary context", r);
	}
	pthread_mutex_lock(&k->lock);
	*out = NULL;
	for (int i = 0; i < k->nmods; ++i)
		if (k->mods[i].ctx == ctx)
			*out = &k->mods[i];
	if (!*out && k->nmods == PM_RT_CTXS)
		rc = fail(k, PM_RT_L_ECUDA, "more than %d CUDA contexts",
			PM_RT_CTXS);
	else if (!*out && (rc = load(cu, k, ctx, &k->mods[k->nmods])) ==
	    PM_RT_L_OK)
		*out = &k->mods[k->nmods++];
	pthread_mutex_unlock(&k->lock);
	return rc;
}

/* NVRTC and the CUDA driver through dlopen (runtime/cudadl.h). Loaded
 * once per process (pthread_once); never unloaded. */
#define _GNU_SOURCE		/* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/cudadl.h"

static struct pm_nvrtc nv;
static const char *nv_why;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;
static struct pm_cuda cu;
static const char *cu_why;
static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

static void *open_first(const char *const *names, int n)
{
	void *h = NULL;

	for (int i = 0; i < n && !h; ++i)
		if (names[i] && *names[i])
			h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	return h;
}

/* dir/rel when dir is set */
static const char *under(char *buf, size_t n, const char *dir,
	const char *rel)
{
	int w;

	if (!dir || !*dir)
		return NULL;
	w = snprintf(buf, n, "%s/%s", dir, rel);
	return w > 0 && (size_t) w < n ? buf : NULL;
}

static int has_fp16(const char *dir)
{
	char p[600];
	struct stat st;

	if (!dir || !*dir)
		return 0;
	int w = snprintf(p, sizeof(p), "%s/cuda_fp16.h", dir);

	return w > 0 && (size_t) w < sizeof(p) && stat(p, &st) == 0;
}

/* The CUDA headers NVRTC needs (cuda_fp16.h and its kin):
 * $POLYMMA_CUDA_INCLUDE, $CUDA_HOME/include, $CUDA_PATH/include, the
 * include/ next to the lib64/ NVRTC came from, /usr/local/cuda/include. */
static void find_include(void *sym)
{
	char b[3][512], lib[512];
	Dl_info info;
	const char *cand[5];

	cand[0] = getenv("POLYMMA_CUDA_INCLUDE");
	cand[1] = under(b[0], sizeof(b[0]), getenv("CUDA_HOME"), "include");
	cand[2] = under(b[1], sizeof(b[1]), getenv("CUDA_PATH"), "include");
	cand[3] = NULL;
	if (sym && dladdr(sym, &info) && info.dli_fname) {
		char *s;

		int w = snprintf(lib, sizeof(lib), "%s", info.dli_fname);

		s = w > 0 && (size_t) w < sizeof(lib) ? strrchr(lib, '/') : NULL;
		if (s) {
			*s = 0;
			cand[3] = under(b[2], sizeof(b[2]), lib, "../include");
		}
	}
	cand[4] = "/usr/local/cuda/include";
	for (int i = 0; i < 5; ++i)
		if (has_fp16(cand[i])) {
			if (strlen(cand[i]) < sizeof(nv.include))
				memcpy(nv.include, cand[i], strlen(cand[i]) + 1);
			return;
		}
}

#define SYM(t, s, name) (*(void **) &(t).s = dlsym(h, name))

static void load_nvrtc(void)
{
	char b[3][512];
	const char *names[] = {
		getenv("POLYMMA_NVRTC"), "libnvrtc.so.13", "libnvrtc.so.12",
		"libnvrtc.so",
		under(b[0], sizeof(b[0]), getenv("CUDA_HOME"), "lib64/libnvrtc.so"),
		under(b[1], sizeof(b[1]), getenv("CUDA_PATH"), "lib64/libnvrtc.so"),
		"/usr/local/cuda/lib64/libnvrtc.so",
	};
	void *h = open_first(names, (int) (sizeof(names) / sizeof(*names)));

	(void) b[2];
	if (!h) {
		nv_why = "libnvrtc.so cannot be loaded (set POLYMMA_NVRTC to "
			"its path, or CUDA_HOME)";
		return;
	}
	SYM(nv, Version, "nvrtcVersion");
	SYM(nv, GetErrorString, "nvrtcGetErrorString");
	SYM(nv, CreateProgram, "nvrtcCreateProgram");
	SYM(nv, DestroyProgram, "nvrtcDestroyProgram");
	SYM(nv, CompileProgram, "nvrtcCompileProgram");
	SYM(nv, GetProgramLogSize, "nvrtcGetProgramLogSize");
	SYM(nv, GetProgramLog, "nvrtcGetProgramLog");
	SYM(nv, GetCUBINSize, "nvrtcGetCUBINSize");
	SYM(nv, GetCUBIN, "nvrtcGetCUBIN");
	if (!nv.Version || !nv.GetErrorString || !nv.CreateProgram ||
	    !nv.DestroyProgram || !nv.CompileProgram ||
	    !nv.GetProgramLogSize || !nv.GetProgramLog || !nv.GetCUBINSize ||
	    !nv.GetCUBIN || nv.Version(&nv.major, &nv.minor) != 0) {
		nv_why = "libnvrtc.so lacks the functions polymma needs (NVRTC "
			"11.1 or later)";
		return;
	}
	find_include((void *) nv.Version);
}

const struct pm_nvrtc *pm_nvrtc(const char **why)
{
	pthread_once(&nv_once, load_nvrtc);
	if (nv_why && why)
		*why = nv_why;
	return nv_why ? NULL : &nv;
}

static void load_cuda(void)
{
	const char *names[] = { "libcuda.so.1", "libcuda.so" };
	void *h = open_first(names, 2);

	if (!h) {
		cu_why = "libcuda.so.1 (the CUDA driver) cannot be loaded";
		return;
	}
	SYM(cu, Init, "cuInit");
	SYM(cu, DriverGetVersion, "cuDriverGetVersion");
	SYM(cu, GetErrorString, "cuGetErrorString");
	SYM(cu, DeviceGet, "cuDeviceGet");
	SYM(cu, DeviceGetAttribute, "cuDeviceGetAttribute");
	SYM(cu, DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	SYM(cu, CtxGetCurrent, "cuCtxGetCurrent");
	SYM(cu, CtxSetCurrent, "cuCtxSetCurrent");
	SYM(cu, CtxGetDevice, "cuCtxGetDevice");
	SYM(cu, CtxSynchronize, "cuCtxSynchronize");
	SYM(cu, ModuleLoadData, "cuModuleLoadData");
	SYM(cu, ModuleUnload, "cuModuleUnload");
	SYM(cu, ModuleGetFunction, "cuModuleGetFunction");
	SYM(cu, FuncSetAttribute, "cuFuncSetAttribute");
	SYM(cu, OccupancyMaxActiveBlocksPerMultiprocessor,
		"cuOccupancyMaxActiveBlocksPerMultiprocessor");
	SYM(cu, OccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters");
	SYM(cu, LaunchKernel, "cuLaunchKernel");
	SYM(cu, LaunchKernelEx, "cuLaunchKernelEx");
	SYM(cu, TensorMapEncodeTiled, "cuTensorMapEncodeTiled");
	SYM(cu, MemAlloc, "cuMemAlloc_v2");
	SYM(cu, MemFree, "cuMemFree_v2");
	SYM(cu, MemAllocAsync, "cuMemAllocAsync");
	SYM(cu, MemFreeAsync, "cuMemFreeAsync");
	SYM(cu, MemsetD8Async, "cuMemsetD8Async");
	SYM(cu, MemcpyHtoD, "cuMemcpyHtoD_v2");
	SYM(cu, MemcpyDtoH, "cuMemcpyDtoH_v2");
	SYM(cu, StreamGetId, "cuStreamGetId");
	SYM(cu, StreamIsCapturing, "cuStreamIsCapturing");
	if (!cu.Init || !cu.GetErrorString || !cu.DeviceGet ||
	    !cu.DeviceGetAttribute || !cu.DevicePrimaryCtxRetain ||
	    !cu.CtxGetCurrent || !cu.CtxSetCurrent || !cu.CtxGetDevice ||
	    !cu.ModuleLoadData || !cu.ModuleUnload || !cu.ModuleGetFunction ||
	    !cu.FuncSetAttribute || !cu.LaunchKernel || !cu.MemAllocAsync ||
	    !cu.MemFreeAsync || !cu.MemsetD8Async ||
	    !cu.OccupancyMaxActiveBlocksPerMultiprocessor) {
		cu_why = "the CUDA driver lacks the functions polymma needs "
			"(CUDA 11.2 or later)";
		return;
	}
	if (cu.Init(0) != 0)
		cu_why = "cuInit failed (no CUDA device, or the driver cannot "
			"start)";
}

static const struct pm_cuda *cu_override;

void pm_cuda_override(const struct pm_cuda *c)
{
	cu_override = c;
}

const struct pm_cuda *pm_cuda(const char **why)
{
	if (cu_override)
		return cu_override;
	pthread_once(&cu_once, load_cuda);
	if (cu_why && why)
		*why = cu_why;
	return cu_why ? NULL : &cu;
}

const char *pm_cuda_error(const struct pm_cuda *c, pm_CUresult r)
{
	const char *s = NULL;

	if (c && c->GetErrorString && c->GetErrorString(r, &s) == 0 && s)
		return s;
	return "unknown CUDA driver error";
}

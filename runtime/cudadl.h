/* runtime/cudadl.h — NVRTC and the CUDA driver, loaded with dlopen when
 * first needed (no link-time CUDA dependency: the library, the command
 * and the generator run on machines without CUDA).
 *
 * Only the few types and constants the JIT uses are declared here, with
 * cuda.h's values (checked against cuda.h by tests/test_jit.c where the
 * header is installed). Function pointers are NULL where the library or
 * the symbol is missing; pm_nvrtc() / pm_cuda() return NULL with a
 * message in *why when the library itself cannot be loaded.
 */
#ifndef PM_RT_CUDADL_H
#define PM_RT_CUDADL_H

#include <stddef.h>
#include <stdint.h>

typedef int pm_CUresult;
typedef int pm_CUdevice;
typedef void *pm_CUcontext;
typedef void *pm_CUmodule;
typedef void *pm_CUfunction;
typedef void *pm_CUstream;
typedef unsigned long long pm_CUdeviceptr;

typedef struct {
	_Alignas(64) uint64_t opaque[16];
} pm_CUtensorMap;

#define PM_CU_ATTR_SMS 16			/* MULTIPROCESSOR_COUNT */
#define PM_CU_ATTR_CC_MAJOR 75
#define PM_CU_ATTR_CC_MINOR 76
#define PM_CU_FUNC_MAX_DYN_SMEM 8		/* MAX_DYNAMIC_SHARED_SIZE_BYTES */
#define PM_CU_LAUNCH_ATTR_CLUSTER_DIM 4
#define PM_CU_LAUNCH_ATTR_PROG_SERIAL 6	/* PROGRAMMATIC_STREAM_SERIALIZATION */
#define PM_CU_TMAP_INTERLEAVE_NONE 0
#define PM_CU_TMAP_L2_256B 3
#define PM_CU_TMAP_OOB_NONE 0

typedef struct {
	int id;
	char pad[4];
	union {
		char pad[64];
		struct {
			unsigned x, y, z;
		} cluster;
		int prog_serial;	/* programmaticStreamSerializationAllowed */
	} value;
} pm_CUlaunchAttribute;

typedef struct {
	unsigned grid[3], block[3];
	unsigned smem;
	pm_CUstream stream;
	pm_CUlaunchAttribute *attrs;
	unsigned nattrs;
} pm_CUlaunchConfig;

struct pm_cuda {
	pm_CUresult (*Init)(unsigned);
	pm_CUresult (*DriverGetVersion)(int *);
	pm_CUresult (*GetErrorString)(pm_CUresult, const char **);
	pm_CUresult (*DeviceGet)(pm_CUdevice *, int);
	pm_CUresult (*DeviceGetAttribute)(int *, int, pm_CUdevice);
	pm_CUresult (*DevicePrimaryCtxRetain)(pm_CUcontext *, pm_CUdevice);
	pm_CUresult (*CtxGetCurrent)(pm_CUcontext *);
	pm_CUresult (*CtxSetCurrent)(pm_CUcontext);
	pm_CUresult (*CtxGetDevice)(pm_CUdevice *);
	pm_CUresult (*CtxSynchronize)(void);
	pm_CUresult (*ModuleLoadData)(pm_CUmodule *, const void *);
	pm_CUresult (*ModuleUnload)(pm_CUmodule);
	pm_CUresult (*ModuleGetFunction)(pm_CUfunction *, pm_CUmodule,
		const char *);
	pm_CUresult (*FuncSetAttribute)(pm_CUfunction, int, int);
	pm_CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *,
		pm_CUfunction, int, size_t);
	pm_CUresult (*OccupancyMaxActiveClusters)(int *, pm_CUfunction,
		const pm_CUlaunchConfig *);
	pm_CUresult (*LaunchKernel)(pm_CUfunction, unsigned, unsigned,
		unsigned, unsigned, unsigned, unsigned, unsigned, pm_CUstream,
		void **, void **);
	pm_CUresult (*LaunchKernelEx)(const pm_CUlaunchConfig *,
		pm_CUfunction, void **, void **);
	pm_CUresult (*TensorMapEncodeTiled)(pm_CUtensorMap *, int, unsigned,
		void *, const uint64_t *, const uint64_t *, const unsigned *,
		const unsigned *, int, int, int, int);
	pm_CUresult (*MemAlloc)(pm_CUdeviceptr *, size_t);
	pm_CUresult (*MemFree)(pm_CUdeviceptr);
	pm_CUresult (*MemAllocAsync)(pm_CUdeviceptr *, size_t, pm_CUstream);
	pm_CUresult (*MemFreeAsync)(pm_CUdeviceptr, pm_CUstream);
	pm_CUresult (*MemsetD8Async)(pm_CUdeviceptr, unsigned char, size_t,
		pm_CUstream);
	pm_CUresult (*MemcpyHtoD)(pm_CUdeviceptr, const void *, size_t);
	pm_CUresult (*MemcpyDtoH)(void *, pm_CUdeviceptr, size_t);
	pm_CUresult (*StreamGetId)(pm_CUstream, unsigned long long *);
	/* CUstreamCaptureStatus: 0 none, 1 active, 2 invalidated */
	pm_CUresult (*StreamIsCapturing)(pm_CUstream, int *);
};

typedef int pm_nvrtcResult;
#define PM_NVRTC_INVALID_OPTION 5	/* NVRTC_ERROR_INVALID_OPTION */
typedef void *pm_nvrtcProgram;

struct pm_nvrtc {
	pm_nvrtcResult (*Version)(int *, int *);
	const char *(*GetErrorString)(pm_nvrtcResult);
	pm_nvrtcResult (*CreateProgram)(pm_nvrtcProgram *, const char *,
		const char *, int, const char *const *, const char *const *);
	pm_nvrtcResult (*DestroyProgram)(pm_nvrtcProgram *);
	pm_nvrtcResult (*CompileProgram)(pm_nvrtcProgram, int,
		const char *const *);
	pm_nvrtcResult (*GetProgramLogSize)(pm_nvrtcProgram, size_t *);
	pm_nvrtcResult (*GetProgramLog)(pm_nvrtcProgram, char *);
	pm_nvrtcResult (*GetCUBINSize)(pm_nvrtcProgram, size_t *);
	pm_nvrtcResult (*GetCUBIN)(pm_nvrtcProgram, char *);
	int major, minor;	/* nvrtcVersion */
	char include[512];	/* a directory with cuda_fp16.h ("": none) */
};

/* NVRTC: $POLYMMA_NVRTC, libnvrtc.so.13, .so.12, .so, then under
 * $CUDA_HOME, $CUDA_PATH and /usr/local/cuda (lib64/). NULL with *why. */
const struct pm_nvrtc *pm_nvrtc(const char **why);
/* The driver: libcuda.so.1 (cuInit(0) done). NULL with *why. */
const struct pm_cuda *pm_cuda(const char **why);
/* Tests: pm_cuda() returns c from now on (NULL: the real driver again). */
void pm_cuda_override(const struct pm_cuda *c);
/* "CUDA_ERROR_...: text" of r, static or in buf. */
const char *pm_cuda_error(const struct pm_cuda *cu, pm_CUresult r);

#endif

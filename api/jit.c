/* The JIT (include/polymma.h, polymma_jit_compile): spec -> kernels
 * compiled by NVRTC into a cubin, cached on disk, launched by the driver
 * API (runtime/jitlaunch.c). docs/decisions/0038-jit.md. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/build_id.h"
#include "api/ctx.h"
#include "api/jit.h"
#include "api/options.h"
#include "api/pipeline.h"
#include "runtime/cache.h"
#include "runtime/cudadl.h"
#include "runtime/jitlaunch.h"
#include "target/embedded.h"
#include "target/target.h"
#include "polymma.h"

/* The cache entry's layout; change it with what a key must cover. */
#define PM_JIT_FORMAT "polymma-jit-7"

struct polymma_kernel {
	struct pm_rt_kernel *k;
	char arch[16];
	int cached;
};

/* What NVRTC cannot find without a C library: the few declarations the
 * generated kernels use from those headers (the launcher, which uses more,
 * is not compiled under __CUDACC_RTC__). */
static const char *const hdr_names[] = {
	"stdint.h", "stddef.h", "string.h", "stdlib.h", "cuda.h",
};
static const char *const hdr_texts[] = {
	"#pragma once\ntypedef signed char int8_t;\ntypedef unsigned char "
	"uint8_t;\ntypedef short int16_t;\ntypedef unsigned short uint16_t;\n"
	"typedef int int32_t;\ntypedef unsigned int uint32_t;\ntypedef long "
	"long int64_t;\ntypedef unsigned long long uint64_t;\ntypedef long "
	"long intptr_t;\ntypedef unsigned long long uintptr_t;\n",
	"#pragma once\ntypedef unsigned long long size_t;\n",
	"#pragma once\n",
	"#pragma once\n",
	("#pragma once\ntypedef struct CUtensorMap_st { alignas(64) unsigned "
	"long long opaque[16]; } CUtensorMap;\n"),
};

/* "sm_XY[a]" -> 10 X + Y; -1 */
static int arch_cc(const char *a)
{
	int x, y;
	char rest[4] = "";

	if (!a || sscanf(a, "sm_%1d%1d%3s", &x, &y, rest) < 2 ||
	    (*rest && strcmp(rest, "a")))
		return -1;
	return 10 * x + y;
}

/* The current device's "sm_XY" (no current context: device 0). */
static int device_arch(polymma_ctx *ctx, char *buf, size_t n)
{
	const char *why = NULL;
	const struct pm_cuda *cu = pm_cuda(&why);
	pm_CUcontext c = NULL;
	pm_CUdevice dev = 0;
	int ma = 0, mi = 0;

	if (!cu) {
		pm_api_set_diag(ctx, "polymma_jit_compile", why);
		return POLYMMA_ERR_CUDA;
	}
	if ((cu->CtxGetCurrent(&c) || !c || cu->CtxGetDevice(&dev)) &&
	    cu->DeviceGet(&dev, 0)) {
		pm_api_set_diag(ctx, "polymma_jit_compile", "no CUDA device");
		return POLYMMA_ERR_CUDA;
	}
	if (cu->DeviceGetAttribute(&ma, PM_CU_ATTR_CC_MAJOR, dev) ||
	    cu->DeviceGetAttribute(&mi, PM_CU_ATTR_CC_MINOR, dev)) {
		pm_api_set_diag(ctx, "polymma_jit_compile", "the device's "
			"compute capability cannot be read");
		return POLYMMA_ERR_CUDA;
	}
	snprintf(buf, n, "sm_%d%d", ma, mi);
	return POLYMMA_OK;
}

/* The generator's target of arch (sm_90 -> sm_90a: wgmma and TMA need
 * the arch-specific features); NULL where none runs there. */
static const char *target_of(char *arch, size_t n)
{
	int cc = arch_cc(arch);

	if (cc >= 90 && cc < 100) {
		snprintf(arch, n, "sm_%da", cc);
		return "sm_90a";
	}
	if (cc >= 80)
		return "sm_80";
	return cc >= 70 ? "sm_70" : NULL;
}

/* The cache key: every input of the entry (docs/decisions/0038-jit.md). */
void pm_jit_key(const char *text, const char *log, const char *target,
	const char *arch, const char *build, const struct pm_nvrtc *nv,
	unsigned char key[32])
{
	const char *const helpers[] = {
		pm_embed_common_cuh, pm_embed_sm70_cuh, pm_embed_sm80_cuh,
		pm_embed_sm90_wgmma_cuh, pm_embed_sm90_cuh,
		pm_embed_sm90_store_cuh,
		pm_embed_sm90_split_cuh, pm_embed_kcopy_cuh,
		pm_embed_batch_cuh, pm_embed_red_cuh, pm_embed_convert_cuh,
	};
	char ver[32];
	struct pm_sha256 s;

	snprintf(ver, sizeof(ver), "%d.%d", nv->major, nv->minor);
	pm_sha256_init(&s);
	pm_sha256_part(&s, PM_JIT_FORMAT, strlen(PM_JIT_FORMAT));
	pm_sha256_part(&s, POLYMMA_VERSION, strlen(POLYMMA_VERSION));
	pm_sha256_part(&s, build, strlen(build));
	pm_sha256_part(&s, text, strlen(text));
	pm_sha256_part(&s, log, strlen(log));
	pm_sha256_part(&s, target, strlen(target));
	pm_sha256_part(&s, arch, strlen(arch));
	pm_sha256_part(&s, ver, strlen(ver));
	pm_sha256_part(&s, nv->include, strlen(nv->include));
	for (size_t i = 0; i < sizeof(helpers) / sizeof(*helpers); ++i)
		pm_sha256_part(&s, helpers[i], strlen(helpers[i]));
	pm_sha256_end(&s, key);
}

/* NVRTC: src -> cubin for arch (*cubin malloc'ed). The log in d on
 * failure (an internal error: the generator wrote code NVRTC refuses). */
int pm_jit_nvrtc(const struct pm_nvrtc *nv, const char *src,
	const char *name, const char *arch, const char *const *extra,
	int nextra, char **plog, unsigned char **cubin, size_t *n,
	struct pm_diags *d)
{
	char a[32], inc[600];
	/* --split-compile=0: NVRTC's optimizer and ptxas over every core
	 * (on the H200 machine's 16: 4.9 -> 2.2 s for gemm_nn, 8.3 -> 2.7 s
	 * for gemm_bias_relu; docs/decisions/0038-jit.md); an NVRTC
	 * without it (before 12.1) compiles again without */
	const char **opts = malloc((size_t) (nextra + 4) * sizeof(*opts));
	int nopt = 0, split;
	pm_nvrtcProgram p = NULL;
	pm_nvrtcResult r;
	size_t ln = 0;
	char *log;
	int rc = POLYMMA_OK;

	*cubin = NULL;
	if (!opts) {
		pm_diag_internal(d, "out of memory");
		return POLYMMA_ERR_INTERNAL;
	}
	snprintf(a, sizeof(a), "--gpu-architecture=%s", arch);
	snprintf(inc, sizeof(inc), "-I%s", nv->include);
	opts[nopt++] = a;
	opts[nopt++] = "-std=c++17";
	for (int i = 0; i < nextra; ++i)
		opts[nopt++] = extra[i];
	if (*nv->include)
		opts[nopt++] = inc;
	split = nopt;
	opts[nopt++] = "--split-compile=0";
	for (int again = 1; again; ) {
		if ((r = nv->CreateProgram(&p, src, name, 5, hdr_texts,
		    hdr_names))) {
			pm_diag_internal(d, "nvrtcCreateProgram: %s",
				nv->GetErrorString(r));
			free(opts);
			return POLYMMA_ERR_INTERNAL;
		}
		r = nv->CompileProgram(p, nopt, opts);
		again = r == PM_NVRTC_INVALID_OPTION && nopt > split;
		if (again) {
			nv->DestroyProgram(&p);
			nopt = split;
		}
	}
	free(opts);
	if (plog && !nv->GetProgramLogSize(p, &ln) && (*plog = malloc(ln + 1)))
		if (nv->GetProgramLog(p, *plog))
			**plog = 0;
	if (r) {
		nv->GetProgramLogSize(p, &ln);
		log = malloc(ln + 1);
		if (log && !nv->GetProgramLog(p, log))
			log[ln] = 0;
		pm_diag_internal(d, "NVRTC (%s) cannot compile the generated "
			"kernels for %s%s:\n%s", nv->GetErrorString(r), arch,
			*nv->include ? "" : " (no CUDA headers found: set "
			"POLYMMA_CUDA_INCLUDE)", log ? log : "");
		free(log);
		rc = POLYMMA_ERR_INTERNAL;
	} else if (nv->GetCUBINSize(p, n) || !(*cubin = malloc(*n)) ||
		   nv->GetCUBIN(p, (char *) *cubin)) {
		pm_diag_internal(d, "NVRTC: the cubin");
		rc = POLYMMA_ERR_INTERNAL;
	}
	nv->DestroyProgram(&p);
	return rc;
}

static uint64_t get64(const unsigned char *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; ++i)
		v |= (uint64_t) b[i] << (8 * i);
	return v;
}

static void put64(unsigned char *b, uint64_t v)
{
	for (int i = 0; i < 8; ++i)
		b[i] = (unsigned char) (v >> (8 * i));
}

/* payload: description length (8 bytes), description, the number of
 * cubins (8 bytes), each cubin's length (8 bytes) and bytes */
static polymma_kernel *from_payload(const unsigned char *b, size_t n)
{
	struct pm_rt_jit *j = malloc(sizeof(*j));
	polymma_kernel *k = calloc(1, sizeof(*k));
	const unsigned char *cubin[PM_RT_MAX_PARTS];
	size_t len[PM_RT_MAX_PARTS], dl = 0, o = n + 1;
	uint64_t np = 0;
	int c = 0;

	if (n >= 16 && get64(b) <= n - 16) {
		dl = (size_t) get64(b);
		np = get64(b + 8 + dl);
		o = 16 + dl;
	}
	for (; np <= PM_RT_MAX_PARTS && c < (int) np && o <= n &&
	     n - o >= 8 && get64(b + o) <= n - o - 8; ++c) {
		len[c] = (size_t) get64(b + o);
		cubin[c] = b + o + 8;
		o += 8 + len[c];
	}
	if (!j || !k || np < 1 || c != (int) np || o != n ||
	    pm_rt_jit_unpack(b + 8, dl, j) < 0 ||
	    !(k->k = pm_rt_kernel_new(j, c, cubin, len))) {
		free(j);
		free(k);
		return NULL;
	}
	free(j);
	return k;
}

static unsigned char *to_payload(const struct pm_rt_jit *j,
	const struct pm_jit_cubins *c, size_t *n)
{
	size_t dl, o;
	unsigned char *b;

	pm_rt_jit_pack(j, NULL, &dl);
	*n = 16 + dl;
	for (int i = 0; i < c->n; ++i)
		*n += 8 + c->len[i];
	if (!(b = malloc(*n)))
		return NULL;
	put64(b, dl);
	pm_rt_jit_pack(j, b + 8, &dl);
	put64(b + 8 + dl, (uint64_t) c->n);
	o = 16 + dl;
	for (int i = 0; i < c->n; ++i) {
		put64(b + o, c->len[i]);
		memcpy(b + o + 8, c->b[i], c->len[i]);
		o += 8 + c->len[i];
	}
	return b;
}

/* Generate and compile: *payload for the cache. */
static int build(polymma_ctx *ctx, const char *text, const polymma_options *o,
	const char *target, const char *arch, const struct pm_nvrtc *nv,
	unsigned char **payload, size_t *n)
{
	struct pm_config cfg = *pm_options_config(o);
	struct pm_output out = { NULL, NULL, NULL };
	struct pm_rt_jit *j = calloc(1, sizeof(*j));
	struct pm_jit_cubins c = { 0 };
	struct pm_spec *spec;
	struct pm_diags d;
	char name[80];
	int rc;

	rc = pm_api_parse(ctx, "polymma_jit_compile", text, "<spec>", o,
		payload, "kernel is NULL", &d, &spec);
	if (rc != POLYMMA_OK) {
		free(j);
		return rc;
	}
	cfg.target = pm_target_find(target);
	rc = !spec ? POLYMMA_ERR_SPEC : !j || !cfg.target ?
		POLYMMA_ERR_INTERNAL : pm_pipeline_jit(spec, &cfg, &out, j, &d);
	if (rc == POLYMMA_OK) {
		snprintf(name, sizeof(name), "%s.cu", j->name);
		rc = pm_jit_nvrtc_parts(nv, out.source, name, arch, j,
			pm_jit_parts(j), &c, &d);
	}
	if (rc == POLYMMA_OK && !(*payload = to_payload(j, &c, n)))
		rc = POLYMMA_ERR_INTERNAL;
	pm_spec_free(spec);
	pm_api_keep_diag(ctx, &d);
	pm_output_clear(&out);
	pm_jit_cubins_free(&c);
	free(j);
	return rc;
}

int polymma_jit_compile(polymma_ctx *ctx, const char *spec_text,
	const polymma_options *o, const char *arch, polymma_kernel **kernel)
{
	const char *why = NULL, *log, *target;
	const struct pm_nvrtc *nv;
	unsigned char key[32], *payload = NULL;
	char a[16], dir[4096];
	size_t n = 0;
	int rc, cached = 0, have_dir;

	if (kernel)
		*kernel = NULL;
	rc = pm_api_begin_call(ctx, "polymma_jit_compile", spec_text, o,
		kernel, "kernel is NULL");
	if (rc != POLYMMA_OK)
		return rc;
	if (!(nv = pm_nvrtc(&why))) {
		pm_api_set_diag(ctx, "polymma_jit_compile", why);
		return POLYMMA_ERR_CUDA;
	}
	if (arch && *arch)
		snprintf(a, sizeof(a), "%s", arch);
	else if ((rc = device_arch(ctx, a, sizeof(a))) != POLYMMA_OK)
		return rc;
	/* the options' target where they set one, else the arch's */
	log = pm_options_log(o);
	target = log && !strstr(log, "target=") ? target_of(a, sizeof(a)) :
		pm_options_config(o)->target->name;
	if (!target || arch_cc(a) < 0) {
		pm_api_set_diag(ctx, "polymma_jit_compile", "unknown or "
			"unsupported arch (sm_70 and later: \"sm_80\", "
			"\"sm_90a\", ...)");
		return POLYMMA_ERR_USAGE;
	}
	if (!strcmp(target, "sm_90a"))
		target_of(a, sizeof(a));
	if (arch_cc(a) < (!strcmp(target, "sm_90a") ? 90 : !strcmp(target,
	    "sm_80") ? 80 : 70) || (!strcmp(target, "sm_90a") &&
	    arch_cc(a) >= 100)) {
		pm_api_set_diag(ctx, "polymma_jit_compile", "the options' "
			"target does not run on this arch");
		return POLYMMA_ERR_USAGE;
	}
	have_dir = log && pm_cache_dir(dir, sizeof(dir)) == 0;
	if (have_dir) {
		pm_jit_key(spec_text, log, target, a, pm_build_id, nv, key);
		if (pm_cache_load(dir, key, &payload, &n) == 0) {
			*kernel = from_payload(payload, n);
			cached = !!*kernel;
			free(payload);
			payload = NULL;
		}
	}
	if (!cached) {
		rc = build(ctx, spec_text, o, target, a, nv, &payload, &n);
		if (rc != POLYMMA_OK)
			return rc;
		if (have_dir)
			(void) pm_cache_store(dir, key, payload, n,
				pm_cache_max_bytes());
		*kernel = from_payload(payload, n);
		free(payload);
	}
	if (!*kernel) {
		pm_api_set_diag(ctx, "polymma_jit_compile", "out of memory");
		return POLYMMA_ERR_INTERNAL;
	}
	(*kernel)->cached = cached;
	snprintf((*kernel)->arch, sizeof((*kernel)->arch), "%s", a);
	return POLYMMA_OK;
}

static int status(int rc)
{
	return rc == PM_RT_L_OK ? POLYMMA_OK : rc == PM_RT_L_EINVAL ?
		POLYMMA_ERR_USAGE : POLYMMA_ERR_CUDA;
}

int polymma_kernel_launch(polymma_kernel *k, void *const *tensors,
	const int64_t *sizes, void *stream)
{
	if (!k)
		return POLYMMA_ERR_USAGE;
	return status(pm_rt_kernel_launch(k->k, tensors, sizes, NULL, 0, 1,
		stream));
}

int polymma_kernel_launch_ws(polymma_kernel *k, void *const *tensors,
	const int64_t *sizes, void *workspace, size_t workspace_bytes,
	void *stream)
{
	if (!k)
		return POLYMMA_ERR_USAGE;
	return status(pm_rt_kernel_launch(k->k, tensors, sizes, workspace,
		workspace_bytes, 0, stream));
}

size_t polymma_kernel_workspace_size(polymma_kernel *k, const int64_t *sizes)
{
	return k ? pm_rt_kernel_ws_size(k->k, sizes) : 0;
}

const char *polymma_kernel_error(const polymma_kernel *k)
{
	return k ? k->k->err : NULL;
}

const char *polymma_kernel_arch(const polymma_kernel *k)
{
	return k ? k->arch : NULL;
}

int polymma_kernel_cached(const polymma_kernel *k)
{
	return k ? k->cached : 0;
}

void polymma_kernel_free(polymma_kernel *k)
{
	if (!k)
		return;
	pm_rt_kernel_free(k->k);
	free(k);
}

int polymma_jit_cache_clear(void)
{
	char dir[4096];

	return pm_cache_dir(dir, sizeof(dir)) < 0 ? -1 : pm_cache_clear(dir);
}

const struct pm_rt_jit *pm_jit_desc(const polymma_kernel *k)
{
	return k ? &k->k->j : NULL;
}

const struct pm_rt_kernel *pm_jit_rt(const polymma_kernel *k)
{
	return k ? k->k : NULL;
}

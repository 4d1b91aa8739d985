/* jit_check: the JIT on a GPU (docs/decisions/0038-jit.md).
 *
 *   jit_check [--target sm_XY] [--opt KEY=VALUE]... [--so NAME=LIB.so]...
 *             [--sizes M=..,N=..,K=..;...] SPEC.tc...
 *
 * For each spec: polymma_jit_compile cold (cache cleared: generation +
 * NVRTC) and warm (a cache hit), timed; then at each size, the plan's
 * launch and every row forced (POLYMMA_VARIANT=<suffix>; SKIP where a row
 * cannot run the size) checked against the fp64 reference
 * (polymma_reference; check_spec.cu's tolerances) and,
 * with --so NAME=LIB.so (the nvcc-built generated file of spec NAME, with
 * NAME_argv), bit for bit against the generated launcher under the same
 * POLYMMA_VARIANT; then the host time per launch of both at a small size.
 * --opt: a generator option for the specs after it (cluster=2).
 * --target: the kernels' target (default: the device's family), e.g.
 * sm_80 kernels on an sm_90 device (the cubins still the device's).
 * Built here with static isl (make build/tests/gpu/jit_check); the GPU
 * machine needs only the driver and NVRTC (tests/gpu/jit_check.sh).
 * Exit 0 when every check passes. f16, bf16, f32, f8e4m3, f8e5m2 and i8
 * tensors (the 8-bit ones random finite bytes of moderate magnitude,
 * inputs only), and a grouped
 * spec's i32 offsets (polymma_spec_group_offsets): the cumulative ends of
 * the counts 0 1 7 127 129 64 255 33 over and over (clamped to the rows
 * by the kernels and the reference alike); rows of no group stay zero
 * under both launchers. Batched specs take their batch sizes in --sizes
 * ("Bt=3,M=...").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/jit.h"
#include "runtime/cudadl.h"
#include "runtime/jit.h"
#include "polymma.h"

typedef int (*argv_fn)(void *const *, const int64_t *, void *);

static const struct pm_cuda *cu;
static int failures;
static int grouped;	/* the spec's offsets tensor is an input */

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint16_t f2h(float f)
{
	uint32_t x;
	uint32_t s, e, m;

	memcpy(&x, &f, 4);
	s = (x >> 16) & 0x8000;
	e = (x >> 23) & 0xff;
	m = x & 0x7fffff;
	if (e < 113)	/* tiny: zero (the inputs are in [-1, 1], |x| >= 1/64) */
		return (uint16_t) s;
	m += 0x1000;	/* round to nearest */
	if (m & 0x800000) {
		m = 0;
		e++;
	}
	return (uint16_t) (s | (e - 112) << 10 | m >> 13);
}

static double h2d(uint16_t h)
{
	int e = (h >> 10) & 31, m = h & 1023;
	double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);

	return h & 0x8000 ? -v : v;
}

struct buf {
	int f32, i32, bf16, f8, i8, out; /* f8: 0, or 4 (e4m3) or 5 (e5m2) */
	size_t n;
	void *host, *ref;
	pm_CUdeviceptr dev;
};

/* Bytes of an element of b. */
static size_t esz(const struct buf *b)
{
	return b->f32 || b->i32 ? 4 : b->f8 || b->i8 ? 1 : 2;
}

/* Element i of a 16-bit or f32 buffer as a double. */
static double val(const struct buf *b, const void *p, size_t i)
{
	uint32_t x;
	float f;

	if (b->f32)
		return ((const float *) p)[i];
	if (!b->bf16)
		return h2d(((const uint16_t *) p)[i]);
	x = (uint32_t) ((const uint16_t *) p)[i] << 16;
	memcpy(&f, &x, 4);
	return f;
}

/* A random finite 8-bit float: e4m3 exponents 3..10 (2^-4 .. 2^3, bias
 * 7), e5m2 12..17 (2^-3 .. 2^2, bias 15). */
static uint8_t rand_f8(int kind)
{
	const int s = rand() % 2;

	return kind == 4 ? (uint8_t) (s << 7 | (3 + rand() % 8) << 3 |
		rand() % 8) : (uint8_t) (s << 7 | (12 + rand() % 6) << 2 |
		rand() % 4);
}

/* f to bf16, nearest even. */
static uint16_t f2bf(float f)
{
	uint32_t x;

	memcpy(&x, &f, 4);
	return (uint16_t) ((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

static int64_t elems(const polymma_spec *s, int t, const int64_t *sz)
{
	int64_t n = 1, lit;

	for (int d = 0; d < polymma_spec_tensor_rank(s, t); ++d) {
		int k = polymma_spec_tensor_dim(s, t, d, &lit);

		n *= k >= 0 ? sz[k] : lit;
	}
	return n;
}

/* check_spec.cu's tolerances: the spec's coarsest floating type's (f16
 * 5e-3 / 1e-2, bf16 2e-2 / 4e-2, else 2e-3 / 5e-3), at least 5e-3 / 2e-2
 * with 8-bit float operands (fp8 wgmma's accumulation, docs/GPU.md). */
static double tol_l2 = 5e-3, tol_elem = 1e-2;

static void tolerances(const polymma_spec *s)
{
	int f16 = 0, bf16 = 0, f8 = 0;

	for (int t = 0; t < polymma_spec_ntensors(s); ++t) {
		const char *ty = polymma_spec_tensor_type(s, t);

		f16 |= !strcmp(ty, "f16");
		bf16 |= !strcmp(ty, "bf16");
		f8 |= !strncmp(ty, "f8", 2);
	}
	tol_l2 = bf16 ? 2e-2 : f16 ? 5e-3 : 2e-3;
	tol_elem = bf16 ? 4e-2 : f16 ? 1e-2 : 5e-3;
	if (f8 && tol_l2 < 5e-3)
		tol_l2 = 5e-3;
	if (f8 && tol_elem < 2e-2)
		tol_elem = 2e-2;
}

/* |C - R| / (rms(R) + |R|) < tol_elem, relative l2 < tol_l2. */
static int compare(const struct buf *b, const void *got)
{
	double se = 0, sr = 0, rms, emax = 0;

	for (size_t i = 0; i < b->n; ++i) {
		double r = val(b, b->ref, i);

		sr += r * r;
	}
	rms = sqrt(sr / (double) b->n) + 1e-30;
	for (size_t i = 0; i < b->n; ++i) {
		double r = val(b, b->ref, i);
		double c = val(b, got, i);
		double e = fabs(c - r) / (rms + fabs(r));

		if (!isfinite(c))
			return 0;
		se += (c - r) * (c - r);
		emax = e > emax ? e : emax;
	}
	return sqrt(se / (sr + 1e-300)) < tol_l2 && emax < tol_elem;
}

/* One launch (the JIT's, or the library's NAME_argv), checked. */
static void run_one(polymma_kernel *k, argv_fn so, const char *name,
	const char *size, const char *variant, struct buf *b, int nt,
	const int64_t *sz)
{
	void *ptr[16], *jit_out[16] = { 0 };
	int rc;

	for (int t = 0; t < nt; ++t) {
		ptr[t] = (void *) (uintptr_t) b[t].dev;
		if (b[t].out)
			cu->MemsetD8Async(b[t].dev, 0, b[t].n * esz(&b[t]), NULL);
	}
	if (variant)
		setenv("POLYMMA_VARIANT", variant, 1);
	else
		unsetenv("POLYMMA_VARIANT");
	rc = polymma_kernel_launch(k, ptr, sz, NULL);
	if (rc == POLYMMA_ERR_USAGE && variant) {
		printf("SKIP %s %s %s: %s\n", name, size, variant,
			polymma_kernel_error(k));
		return;
	}
	if (rc || cu->CtxSynchronize()) {
		printf("FAIL %s %s %s: launch: %s\n", name, size,
			variant ? variant : "plan", polymma_kernel_error(k));
		failures++;
		return;
	}
	for (int t = 0; t < nt; ++t) {
		size_t bytes = b[t].n * esz(&b[t]);

		if (!b[t].out)
			continue;
		jit_out[t] = malloc(bytes);
		cu->MemcpyDtoH(jit_out[t], b[t].dev, bytes);
		if (!compare(&b[t], jit_out[t])) {
			printf("FAIL %s %s %s: output %d against the reference\n",
				name, size, variant ? variant : "plan", t);
			failures++;
		}
	}
	if (so) {
		/* poisoned, but where rows of no group stay unwritten:
		 * zero, as for the JIT's launch */
		for (int t = 0; t < nt; ++t)
			if (b[t].out)
				cu->MemsetD8Async(b[t].dev, grouped ? 0 : 0xff,
					b[t].n * esz(&b[t]), NULL);
		rc = so(ptr, sz, NULL);
		cu->CtxSynchronize();
		for (int t = 0; t < nt && !rc; ++t) {
			size_t bytes = b[t].n * esz(&b[t]);
			void *o = malloc(bytes);

			if (!b[t].out)
				continue;
			cu->MemcpyDtoH(o, b[t].dev, bytes);
			if (memcmp(o, jit_out[t], bytes)) {
				printf("FAIL %s %s %s: output %d differs from the "
					"generated launcher's\n", name, size,
					variant ? variant : "plan", t);
				failures++;
			}
			free(o);
		}
		if (rc) {
			printf("FAIL %s %s %s: the generated launcher returned "
				"%d\n", name, size, variant ? variant : "plan", rc);
			failures++;
		}
	}
	for (int t = 0; t < nt; ++t)
		free(jit_out[t]);
	printf("PASS %s %s %s\n", name, size, variant ? variant : "plan");
}

/* "M=1000,N=776,K=520" into sz (spec order); -1 on a missing symbol. */
static int parse_size(const polymma_spec *s, const char *str, int64_t *sz)
{
	for (int i = 0; i < polymma_spec_nsizes(s); ++i) {
		char pat[80];
		const char *p;

		snprintf(pat, sizeof(pat), "%s=", polymma_spec_size_name(s, i));
		p = strstr(str, pat);
		if (!p || (p != str && p[-1] != ','))
			return -1;
		sz[i] = atoll(p + strlen(pat));
	}
	return 0;
}

static void at_size(polymma_kernel *k, argv_fn so, const polymma_spec *s,
	polymma_ctx *ctx, const char *size)
{
	const struct pm_rt_jit *j = pm_jit_desc(k);
	int nt = polymma_spec_ntensors(s);
	struct buf b[16];
	void *refs[16];
	int64_t sz[16];

	if (nt > 16 || parse_size(s, size, sz) < 0) {
		printf("FAIL %s %s: bad size\n", j->name, size);
		failures++;
		return;
	}
	grouped = polymma_spec_group_offsets(s) >= 0;
	tolerances(s);
	for (int t = 0; t < nt; ++t) {
		static const int32_t counts[8] = { 0, 1, 7, 127, 129, 64, 255,
			33 };
		int32_t end = 0;

		const char *ty = polymma_spec_tensor_type(s, t);

		b[t].f32 = !strcmp(ty, "f32");
		b[t].bf16 = !strcmp(ty, "bf16");
		b[t].f8 = !strcmp(ty, "f8e4m3") ? 4 : !strcmp(ty, "f8e5m2") ?
			5 : 0;
		b[t].i8 = !strcmp(ty, "i8");
		b[t].i32 = t == polymma_spec_group_offsets(s);
		b[t].out = polymma_spec_tensor_is_output(s, t);
		b[t].n = (size_t) elems(s, t, sz);
		b[t].host = malloc(b[t].n * 4);
		b[t].ref = b[t].host;
		for (size_t i = 0; i < b[t].n; ++i) {
			float v = b[t].out ? 0.f : (float) (rand() % 2001 -
				1000) / 1000.f;

			if (b[t].i32)
				((int32_t *) b[t].host)[i] = end += counts[i % 8];
			else if (b[t].f32)
				((float *) b[t].host)[i] = v;
			else if (b[t].f8)
				((uint8_t *) b[t].host)[i] = b[t].out ? 0 :
					rand_f8(b[t].f8);
			else if (b[t].i8)	/* -8..8, as f8's magnitudes */
				((int8_t *) b[t].host)[i] = b[t].out ? 0 :
					(int8_t) (rand() % 17 - 8);
			else if (b[t].bf16)
				((uint16_t *) b[t].host)[i] = f2bf(v);
			else
				((uint16_t *) b[t].host)[i] = f2h(v);
		}
		cu->MemAlloc(&b[t].dev, b[t].n * esz(&b[t]));
		cu->MemcpyHtoD(b[t].dev, b[t].host, b[t].n * esz(&b[t]));
		refs[t] = b[t].host;
	}
	if (polymma_reference(ctx, s, sz, refs)) {
		printf("FAIL %s %s: the reference\n", j->name, size);
		failures++;
	} else {
		run_one(k, so, j->name, size, NULL, b, nt, sz);
		for (int r = 0; r < j->nrows; ++r)
			run_one(k, so, j->name, size, *j->kern[r].suffix ?
				j->kern[r].suffix : "_base", b, nt, sz);
	}
	unsetenv("POLYMMA_VARIANT");
	for (int t = 0; t < nt; ++t) {
		cu->MemFree(b[t].dev);
		free(b[t].host);
	}
}

/* Host microseconds per launch, n launches of the same size. */
static void overhead(polymma_kernel *k, argv_fn so, const polymma_spec *s)
{
	int nt = polymma_spec_ntensors(s), n = 2000;
	int64_t sz[16];
	void *ptr[16];
	double t0, t1;

	for (int i = 0; i < polymma_spec_nsizes(s); ++i)
		sz[i] = 256;
	for (int t = 0; t < nt; ++t) {
		pm_CUdeviceptr p;

		cu->MemAlloc(&p, (size_t) elems(s, t, sz) * 4);
		ptr[t] = (void *) (uintptr_t) p;
	}
	for (int pass = 0; pass < 2; ++pass) {
		if (pass && !so)
			break;
		for (int i = 0; i < 20; ++i)	/* warm */
			pass ? so(ptr, sz, NULL) : polymma_kernel_launch(k, ptr,
				sz, NULL);
		cu->CtxSynchronize();
		t0 = now();
		for (int i = 0; i < n; ++i)
			pass ? so(ptr, sz, NULL) : polymma_kernel_launch(k, ptr,
				sz, NULL);
		t1 = now();
		cu->CtxSynchronize();
		printf("TIME %s launch (256^3, host only): %.2f us per launch\n",
			pass ? "generated launcher (nvcc)" : "JIT",
			(t1 - t0) / n * 1e6);
	}
	for (int t = 0; t < nt; ++t)
		cu->MemFree((pm_CUdeviceptr) (uintptr_t) ptr[t]);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	s = malloc((size_t) n + 1);
	if (fread(s, 1, (size_t) n, f) != (size_t) n)
		n = 0;
	s[n] = 0;
	fclose(f);
	return s;
}

int main(int argc, char **argv)
{
	const char *sizes = "M=1000,N=776,K=520;M=129,N=264,K=72;"
		"M=2048,N=2048,K=4096;M=64,N=64,K=64;M=33,N=200,K=1000;"
		"M=256,N=384,K=8192";
	const char *sos[16] = { 0 }, *why = NULL;
	int nso = 0;
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();

	pm_CUcontext pctx = NULL;
	pm_CUdevice dev;

	if (!(cu = pm_cuda(&why))) {
		printf("FAIL: %s\n", why);
		return 1;
	}
	/* device 0's primary context (the runtime API's), current before
	 * the first allocation */
	if (cu->DeviceGet(&dev, 0) || cu->DevicePrimaryCtxRetain(&pctx, dev) ||
	    cu->CtxSetCurrent(pctx)) {
		printf("FAIL: no CUDA device 0\n");
		return 1;
	}
	for (int a = 1; a < argc; ++a) {
		char *text, list[1024], *save, *one;
		polymma_kernel *k = NULL;
		polymma_spec *s = NULL;
		argv_fn so = NULL;
		double t0, t1, t2;

		if (!strcmp(argv[a], "--so") && a + 1 < argc && nso < 16) {
			sos[nso++] = argv[++a];
			continue;
		}
		if (!strcmp(argv[a], "--target") && a + 1 < argc) {
			if (polymma_options_set(o, "target", argv[++a], NULL)) {
				printf("FAIL: --target %s\n", argv[a]);
				return 1;
			}
			continue;
		}
		if (!strcmp(argv[a], "--sizes") && a + 1 < argc) {
			sizes = argv[++a];
			continue;
		}
		if (!strcmp(argv[a], "--opt") && a + 1 < argc) {
			char key[64];
			const char *eq = strchr(argv[++a], '=');

			snprintf(key, sizeof(key), "%.*s", eq ? (int) (eq -
				argv[a]) : 0, argv[a]);
			if (!eq || polymma_options_set(o, key, eq + 1, NULL)) {
				printf("FAIL: --opt %s\n", argv[a]);
				return 1;
			}
			continue;
		}
		if (!(text = read_file(argv[a])) ||
		    polymma_spec_parse(ctx, text, argv[a], &s)) {
			printf("FAIL %s: cannot read or parse\n", argv[a]);
			return 1;
		}
		polymma_jit_cache_clear();
		t0 = now();
		if (polymma_jit_compile(ctx, text, o, NULL, &k)) {
			printf("FAIL %s: %s\n", argv[a], polymma_diagnostics(ctx));
			return 1;
		}
		t1 = now();
		polymma_kernel_free(k);
		polymma_jit_compile(ctx, text, o, NULL, &k);
		t2 = now();
		printf("TIME %s %s: cold compile (generation + NVRTC) %.2f s, "
			"warm (cache hit: %s) %.1f ms\n", polymma_spec_name(s),
			polymma_kernel_arch(k), t1 - t0,
			polymma_kernel_cached(k) ? "yes" : "NO", (t2 - t1) * 1e3);
		if (!polymma_kernel_cached(k))
			failures++;
		for (int i = 0; i < nso; ++i) {
			size_t n = strlen(polymma_spec_name(s));
			char sym[128];
			void *h;

			if (strncmp(sos[i], polymma_spec_name(s), n) ||
			    sos[i][n] != '=')
				continue;
			if (!(h = dlopen(sos[i] + n + 1, RTLD_NOW))) {
				printf("FAIL %s\n", dlerror());
				return 1;
			}
			snprintf(sym, sizeof(sym), "%s_argv", polymma_spec_name(s));
			*(void **) &so = dlsym(h, sym);
		}
		snprintf(list, sizeof(list), "%s", sizes);
		for (one = strtok_r(list, ";", &save); one;
		     one = strtok_r(NULL, ";", &save))
			at_size(k, so, s, ctx, one);
		overhead(k, so, s);
		polymma_kernel_free(k);
		polymma_spec_free(s);
		free(text);
	}
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	printf("%s: %d failure%s\n", failures ? "FAIL" : "OK", failures,
		failures == 1 ? "" : "s");
	return failures != 0;
}

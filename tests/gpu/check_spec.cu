// check_spec.cu: GPU correctness check of the generated kernel of ANY spec
// against the language's reference semantics (polymma_reference, fp64 on
// the host): every tensor, type and size symbol comes from the spec.
//
// Built once per generated file (scripts/gpu-spec-check.sh does this):
//   nvcc -O2 -gencode=arch=compute_90a,code=sm_90a -std=c++17 -I. -Iinclude
//        -DKERNEL_FILE='"/abs/gen.cu"' -DKFN=name tests/gpu/check_spec.cu
//        build/libpolymma.a -o bin
//   (the library's spec and reference functions need no isl)
// Usage: bin SPEC.tc [--tag T] [--seed S] SIZES ...
//   SIZES: "M=1000,N=3000,K=512", a value for every size symbol; with
//   ",off=E" every tensor at E elements past the start of an allocation of
//   exactly its size and those E (pointers not 16-byte aligned: the
//   _unaligned row, docs/decisions/0046-narrow-copies.md; an access past a
//   tensor is outside its allocation), the E in front of each output
//   poisoned and checked untouched.
// Per size: fresh random inputs (floats uniform in [-1, 1] rounded to their
// type, integers in [-8, 8]), outputs poisoned (all bits set: NaN for
// floats), one launch through KFN_argv, then every output element against
// the reference rounded to the output type:
//   integers exactly;
//   floats: no non-finite value where the reference is finite, the
//   relative L2 error ||C - R|| / ||R|| and the largest element error
//   |C - R| / (rms(R) + |R|) under the output type's tolerances below
//   (f16 5e-3 / 1e-2, bf16 2e-2 / 4e-2, f32 2e-3 / 5e-3: they cover the
//   kernels' fp32 pointwise work and their rounding of prologues to the
//   operand type), the coarsest of the spec's 16-bit floating types (f32
//   if none). 8-bit float inputs (f8e4m3, f8e5m2): the reference reads the
//   same rounded inputs exactly and the kernel multiplies them exactly; what
//   is left is the tensor cores' accumulation (fewer bits than f32 on
//   Hopper) and the output's rounding: at least 5e-3 / 2e-2.
// One PASS|FAIL|SKIP line per size, last "N passed, M failed"; exit 1 on a
// failure. POLYMMA_VARIANT=<suffix>[,s=N] forces a row (report.cuh): a
// size it cannot run is a SKIP.
// --ws (files with KFN_ws; scripts/gpu-spec-check.sh builds them with
// -DWS_HEADER, the file's argv call turned into KFN_ws's): every launch
// through KFN_ws with a workspace of the caller's, of KFN_workspace_size
// bytes, zeroed once and kept across sizes (grown and zeroed again where
// too small); a file with K-major copies (docs/decisions/0033) must also
// refuse a NULL workspace (cudaErrorInvalidValue, nothing launched).
// Tags end in "+ws".
// A grouped spec (docs/decisions/0045; polymma_spec_group_offsets): a
// size's "groups=A:B:..." (one count per group) or "groups=auto" (the
// counts 0 1 7 127 129 64 255 33 over and over) give offs, their
// cumulative ends (the kernels clamp them to the rows, as the reference
// does); the reference starts from the poisoned outputs too, so that a
// row of no group must stay NaN.
// CHECK_REF_CACHE=DIR (scripts/gpu-spec-check.sh sets it): each size's
// reference outputs are kept in DIR (runtime/cache.h's entries) under a
// SHA-256 of the spec's text, the sizes and every tensor's bytes before the
// reference runs, so that the runs of one file (a row forced each) compute
// the reference of a size once; an entry is only ever read back for the
// same inputs.
#include <cuda_runtime.h>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define PM_REPORT_TAG (STR(KFN))
#define STR1(x) #x
#define STR(x) STR1(x)
#include "report.cuh"

#include KERNEL_FILE

extern "C" {
#include "polymma.h"
#include "frontend/eval.h"
#include "runtime/cache.h"
}

#define CAT1(a, b) a##b
#define CAT(a, b) CAT1(a, b)
#define ARGV CAT(KFN, _argv)
#ifdef WS_HEADER
#include WS_HEADER
#endif

using namespace pm_report;

struct tensor {
	std::string name;
	enum pm_type type;
	bool out;
	int64_t n = 1;
	size_t esize;
	std::vector<unsigned char> host, ref;
	void *dev = nullptr;
	void *base = nullptr;	// the allocation (dev - off elements)
};

static void check(cudaError_t e, const char *what) {
	if (e != cudaSuccess)
		die(what, cudaGetErrorString(e));
}

static size_t esize(enum pm_type t) {
	return t == PM_I8 || t == PM_F8E4M3 || t == PM_F8E5M2 ? 1 :
		t == PM_F16 || t == PM_BF16 ? 2 : 4;
}

static char *slurp(const char *path) {
	FILE *f = fopen(path, "rb");
	std::string s;
	char buf[4096];
	size_t n;
	if (!f)
		return nullptr;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		s.append(buf, n);
	fclose(f);
	return strdup(s.c_str());
}

// "M=1000,N=3000,K=512" into sizes (spec order); false if one is missing.
static bool parse_sizes(const polymma_spec *s, const char *arg,
	std::vector<int64_t> &sizes) {
	sizes.assign(polymma_spec_nsizes(s), 0);
	for (int i = 0; i < polymma_spec_nsizes(s); ++i) {
		std::string name = polymma_spec_size_name(s, i);
		for (const char *p = arg; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : nullptr)
			if (!strncmp(p, name.c_str(), name.size()) && p[name.size()] == '=')
				sizes[i] = atoll(p + name.size() + 1);
		if (sizes[i] < 1)
			return false;
	}
	return true;
}

// ",off=E" of a size label: the elements every tensor is offset by (0).
static int64_t parse_off(const char *arg) {
	const char *p = strstr(arg, "off=");
	return p && (p == arg || p[-1] == ',') ? atoll(p + 4) : 0;
}

// CHECK_REF_CACHE (above): the spec's text, the folder (NULL: none)
static const char *spec_text = nullptr;
static const char *ref_dir = nullptr;
static const uint64_t ref_max = 4ull << 30;

static void ref_key(const std::vector<tensor> &ts,
	const std::vector<int64_t> &sizes, unsigned char key[32]) {
	struct pm_sha256 h;
	pm_sha256_init(&h);
	pm_sha256_part(&h, "check_spec ref 1", 16);
	pm_sha256_part(&h, spec_text, strlen(spec_text));
	pm_sha256_part(&h, sizes.data(), sizes.size() * sizeof(int64_t));
	for (const tensor &t : ts)
		pm_sha256_part(&h, t.ref.data(), t.ref.size());
	pm_sha256_end(&h, key);
}

// The outputs' reference from the cache: true on a hit.
static bool ref_load(std::vector<tensor> &ts, const unsigned char key[32]) {
	unsigned char *data = nullptr;
	size_t len = 0, need = 0, at = 0;
	if (!ref_dir || pm_cache_load(ref_dir, key, &data, &len) != 0)
		return false;
	for (const tensor &t : ts)
		need += t.out ? t.ref.size() : 0;
	if (len == need)
		for (tensor &t : ts)
			if (t.out) {
				memcpy(t.ref.data(), data + at, t.ref.size());
				at += t.ref.size();
			}
	free(data);
	return len == need;
}

static void ref_store(const std::vector<tensor> &ts,
	const unsigned char key[32]) {
	std::vector<unsigned char> all;
	if (!ref_dir)
		return;
	for (const tensor &t : ts)
		if (t.out)
			all.insert(all.end(), t.ref.begin(), t.ref.end());
	pm_cache_store(ref_dir, key, all.data(), all.size(), ref_max);
}

// The coarsest floating type of the spec (its tolerances apply).
static enum pm_type coarse = PM_F32;
// 8-bit float operands: Hopper's fp8 wgmma adds its products into the
// accumulators with fewer bits than fp32 (measured on an H100: rel L2 1.9e-3,
// largest element 6.8e-3 / 1.2e-2 at K = 8192), so their tolerance is at
// least 5e-3 / 2e-2 (docs/GPU.md).
static bool f8_operands = false;
static double tol_l2(enum pm_type) {
	double t = coarse == PM_F16 ? 5e-3 : coarse == PM_BF16 ? 2e-2 : 2e-3;
	return f8_operands && t < 5e-3 ? 5e-3 : t;
}
static double tol_elem(enum pm_type) {
	double t = coarse == PM_F16 ? 1e-2 : coarse == PM_BF16 ? 4e-2 : 5e-3;
	return f8_operands && t < 2e-2 ? 2e-2 : t;
}

// A grouped spec's offsets' tensor (-1: none).
static int group_offs = -1;

// Compare output t with its reference; the verdict's text into info.
static bool compare(const tensor &t, std::string &info) {
	const void *c = t.host.data(), *r = t.ref.data();
	char buf[256];
	if (t.type == PM_I8 || t.type == PM_I32) {
		int64_t bad = 0, first = -1;
		for (int64_t i = 0; i < t.n; ++i)
			if (pm_eval_load(t.type, c, i) != pm_eval_load(t.type, r, i) &&
			    !bad++)
				first = i;
		snprintf(buf, sizeof(buf), "%s: %" PRId64 " wrong (exact)%s",
			t.name.c_str(), bad, bad ? " first at " : "");
		info += buf;
		if (bad)
			info += std::to_string(first);
		return !bad;
	}
	double se = 0, sr = 0, emax = 0, rms;
	int64_t nonfinite = 0, at = 0;
	for (int64_t i = 0; i < t.n; ++i) {
		double ri = pm_eval_load(t.type, r, i);
		if (std::isfinite(ri))
			sr += ri * ri;
	}
	rms = std::sqrt(sr / (double) t.n) + 1e-30;
	for (int64_t i = 0; i < t.n; ++i) {
		double ci = pm_eval_load(t.type, c, i), ri = pm_eval_load(t.type, r, i);
		if (!std::isfinite(ri)) {
			if (!(ci == ri) && !(group_offs >= 0 &&
			    std::isnan(ci) && std::isnan(ri)))
				nonfinite++;
			continue;
		}
		if (!std::isfinite(ci)) {
			nonfinite++;
			continue;
		}
		double e = std::fabs(ci - ri) / (rms + std::fabs(ri));
		se += (ci - ri) * (ci - ri);
		if (e > emax) {
			emax = e;
			at = i;
		}
	}
	double rel = std::sqrt(se / (sr + 1e-300));
	bool ok = !nonfinite && rel < tol_l2(t.type) && emax < tol_elem(t.type);
	snprintf(buf, sizeof(buf), "%s: rel=%.2e max=%.2e@%" PRId64 " nonfinite=%" PRId64 " ",
		t.name.c_str(), rel, emax, at, nonfinite);
	info += buf;
	return ok;
}

static void fill(tensor &t, uint64_t seed) {
	for (int64_t i = 0; i < t.n; ++i) {
		uint64_t z = mix(seed ^ mix((uint64_t) i));
		double u = (double) (z >> 11) / 9007199254740992.0;	// [0, 1)
		double x = t.type == PM_I8 || t.type == PM_I32 ?
			std::floor(u * 17) - 8 : 2 * u - 1;
		pm_eval_store(t.type, t.host.data(), i, x);
	}
}

// --ws: the caller's workspace, kept across sizes
static bool use_ws = false;
// the spec has an output of rank 0 or 1: an epilogue reduction's
static bool reduced = false;
static void *ws_dev = nullptr;
static size_t ws_have = 0;

// Grouped specs: offs from the size's groups (the kernels and the
// reference clamp them to the rows alike).
static void fill_offsets(tensor &t, const char *label) {
	static const int64_t pattern[8] = { 0, 1, 7, 127, 129, 64, 255, 33 };
	const char *g = strstr(label, "groups=");
	int64_t end = 0;
	if (!g)
		die("a grouped spec's size", "no groups=...");
	g += 7;
	for (int64_t e = 0; e < t.n; ++e) {
		if (!strncmp(g, "auto", 4)) {
			end += pattern[e % 8];
		} else {
			if (!*g || *g == ',')
				die("groups=", "fewer counts than groups");
			end += strtoll(g, (char **) &g, 10);
			g += *g == ':';
		}
		pm_eval_store(PM_I32, t.host.data(), e, (double) end);
	}
}

// One launch of the file at sizes: through KFN_argv, or with --ws through
// KFN_ws and the caller's workspace.
static cudaError_t launch(std::vector<void *> &dev,
	const std::vector<int64_t> &sizes) {
#ifdef CHECK_WS
	if (use_ws) {
		size_t n = ws_size_argv(sizes.data());
#ifdef CHECK_WS_COPIES
		cudaError_t r0 = ws_argv(dev.data(), sizes.data(), nullptr, 0, 0);
		if (r0 != cudaErrorInvalidValue)
			die("KFN_ws with a NULL workspace", cudaGetErrorString(r0));
#endif
		if (n > ws_have) {
			if (ws_dev)
				check(cudaFree(ws_dev), "cudaFree");
			check(cudaMalloc(&ws_dev, n), "cudaMalloc workspace");
			check(cudaMemset(ws_dev, 0, n), "zero workspace");
			ws_have = n;
		}
		return ws_argv(dev.data(), sizes.data(), ws_dev, ws_have, 0);
	}
#endif
	return ARGV(dev.data(), sizes.data(), 0);
}

static void run_size(const polymma_spec *s, polymma_ctx *ctx,
	std::vector<tensor> &ts, const std::vector<int64_t> &sizes,
	const char *label, uint64_t seed) {
	std::vector<void *> dev, ref;
	const int64_t off = parse_off(label);
	for (size_t i = 0; i < ts.size(); ++i) {
		tensor &t = ts[i];
		t.n = 1;
		for (int d = 0; d < polymma_spec_tensor_rank(s, (int) i); ++d) {
			int64_t lit;
			int sym = polymma_spec_tensor_dim(s, (int) i, d, &lit);
			t.n *= sym >= 0 ? sizes[sym] : lit;
		}
		t.host.assign(t.n * t.esize, 0);
		if ((int) i == group_offs)
			fill_offsets(t, label);
		else if (!t.out)
			fill(t, mix(seed + 977 * i));
		/* grouped: the reference from the poison (rows of no group) */
		if (t.out && group_offs >= 0)
			t.host.assign(t.n * t.esize, 0xff);
		t.ref = t.host;
		const size_t ob = (size_t) off * t.esize;
		check(cudaMalloc(&t.base, ob ? t.n * t.esize + ob : t.n * t.esize +
			256), "cudaMalloc");
		t.dev = (unsigned char *) t.base + ob;
		if (t.out)
			check(cudaMemset(t.base, 0xff, t.n * t.esize + ob), "poison");
		else
			check(cudaMemcpy(t.dev, t.host.data(), t.n * t.esize,
				cudaMemcpyHostToDevice), "copy in");
		dev.push_back(t.dev);
		ref.push_back(t.ref.data());
	}
	cudaError_t r = launch(dev, sizes);
	cudaError_t e = cudaDeviceSynchronize();
	if (r == cudaSuccess && e != cudaSuccess)
		die("kernel", cudaGetErrorString(e));
	bool skipped = refused_by_force(r);
	std::string info;
	bool ok = r == cudaSuccess;
	if (!ok && !skipped)
		info = std::string("launcher: ") + cudaGetErrorString(r) + " ";
	if (ok) {
		unsigned char key[32];
		ref_key(ts, sizes, key);
		if (!ref_load(ts, key)) {
			if (polymma_reference(ctx, s, sizes.data(), ref.data()) !=
			    POLYMMA_OK)
				die("polymma_reference", polymma_diagnostics(ctx));
			ref_store(ts, key);
		}
		for (tensor &t : ts)
			if (t.out) {
				check(cudaMemcpy(t.host.data(), t.dev, t.n * t.esize,
					cudaMemcpyDeviceToHost), "copy out");
				ok = compare(t, info) && ok;
				// ",off=E": the E elements in front untouched
				std::vector<unsigned char> front((size_t) off * t.esize);
				check(cudaMemcpy(front.data(), t.base, front.size(),
					cudaMemcpyDeviceToHost), "copy front");
				for (unsigned char c : front)
					if (c != 0xff) {
						info += t.name + std::string(": written in "
							"front of it ");
						ok = false;
						break;
					}
			}
	}
	// epilogue reductions (docs/decisions/0037): a second launch gives
	// every output bit for bit again (the reduced ones above all)
	if (ok && reduced) {
		for (tensor &t : ts)
			if (t.out)
				check(cudaMemset(t.dev, 0xff, t.n * t.esize), "poison");
		r = launch(dev, sizes);
		check(cudaDeviceSynchronize(), "second launch");
		for (tensor &t : ts) {
			std::vector<unsigned char> again(t.n * t.esize);
			if (!t.out)
				continue;
			check(cudaMemcpy(again.data(), t.dev, again.size(),
				cudaMemcpyDeviceToHost), "copy out");
			if (r != cudaSuccess || again != t.host) {
				info += t.name + std::string(": not bit-identical "
					"in a second run ");
				ok = false;
			}
		}
		if (ok)
			info += "(twice bit-identical) ";
	}
	for (tensor &t : ts)
		check(cudaFree(t.base), "cudaFree");
	if (skipped) {
		printf("SKIP %s %s (variant cannot run this size)\n",
			line_tag().c_str(), label);
		n_skip++;
	} else {
		printf("%s %s %s %s\n", ok ? "PASS" : "FAIL", line_tag().c_str(),
			label, info.c_str());
		(ok ? n_pass : n_fail)++;
		n_ran += r == cudaSuccess;
	}
	fflush(stdout);
}

int main(int argc, char **argv) {
	uint64_t seed = 12345;
	const char *path = nullptr;
	std::vector<const char *> labels;
	for (int a = 1; a < argc; ++a) {
		if (!strcmp(argv[a], "--tag") && a + 1 < argc)
			tag = argv[++a];
		else if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			seed = strtoull(argv[++a], nullptr, 0);
		else if (!strcmp(argv[a], "--ws"))
			use_ws = true;
		else if (!path)
			path = argv[a];
		else
			labels.push_back(argv[a]);
	}
#ifdef CHECK_WS
	if (use_ws)
		tag += "+ws";
#endif
	char *text = path ? slurp(path) : nullptr;
	spec_text = text;
	ref_dir = getenv("CHECK_REF_CACHE");
	if (ref_dir && !*ref_dir)
		ref_dir = nullptr;
	if (!text || labels.empty()) {
		fprintf(stderr, "usage: %s SPEC.tc [--tag T] [--seed S] [--ws] M=..,N=..,K=.. ...\n",
			argv[0]);
		return 2;
	}
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_spec *s = nullptr;
	if (polymma_spec_parse(ctx, text, path, &s) != POLYMMA_OK)
		die("polymma_spec_parse", polymma_diagnostics(ctx));
	std::vector<tensor> ts(polymma_spec_ntensors(s));
	group_offs = polymma_spec_group_offsets(s);
	for (size_t i = 0; i < ts.size(); ++i) {
		ts[i].name = polymma_spec_tensor_name(s, (int) i);
		ts[i].type = (enum pm_type) pm_type_from_name(
			polymma_spec_tensor_type(s, (int) i));
		ts[i].out = polymma_spec_tensor_is_output(s, (int) i) == 1;
		reduced |= ts[i].out && polymma_spec_tensor_rank(s, (int) i) < 2;
		ts[i].esize = esize(ts[i].type);
		if (ts[i].type == PM_BF16 || (ts[i].type == PM_F16 && coarse != PM_BF16))
			coarse = ts[i].type;
		if (ts[i].type == PM_F8E4M3 || ts[i].type == PM_F8E5M2)
			f8_operands = true;
	}
	for (size_t l = 0; l < labels.size(); ++l) {
		std::vector<int64_t> sizes;
		if (!parse_sizes(s, labels[l], sizes)) {
			fprintf(stderr, "%s: not a value for every size symbol\n", labels[l]);
			return 2;
		}
		run_size(s, ctx, ts, sizes, labels[l], mix(seed + l));
	}
	polymma_spec_free(s);
	polymma_ctx_free(ctx);
	free(text);
	if (ws_dev)
		check(cudaFree(ws_dev), "cudaFree");
	finish();
}

// check_fused.cu: GPU correctness check of one generated polymma kernel with
// fused pointwise prologues (on the operands) and/or epilogues (on the
// accumulator), against an fp64 reference computed on the host.
//
// Built once per generated file (scripts/gpu-fused-check.sh does this):
//   nvcc -O2 -arch=sm_90 -std=c++17 -DKERNEL_FILE='"/abs/path/gen.cu"'
//        -DKFN=epi_relu_nn -DA_KM=0 -DB_NK=0 -DHAS_BIAS=1
//        -DEPI='r_relu(v + bias[j])' tests/gpu/check_fused.cu -o bin
// nvcc splits -D values at commas: write a comma in a macro value as "\,"
// (-DEPI='r_max(v\, bias[j])').
// Macros:
//   KERNEL_FILE  the generated file (absolute, or relative to tests/gpu/ or a -I)
//   KFN          the launcher, called KFN(A, B, [bias,] [scale,] [R,] C, M, N,
//                K, stream): the spec declares its inputs in that order
//   LAUNCH       instead of KFN: the whole call, an expression of type
//                cudaError_t in A, B, bias, scale, R (device inputs, f16), C
//                (device output, f16), M, N, K (int64_t) and st (the stream)
//   A_KM=1       A is stored K x M (else M x K); B_NK=1: B is stored N x K (else
//                K x N); C, R are M x N; bias has N elements, scale M; all
//                row-major f16
//   HAS_BIAS, HAS_SCALE, HAS_RES (0|1): which extra inputs exist (others are
//                passed as null)
//   PRO_A, PRO_B reference prologue of A / B: an expression in double of x,
//                the operand element (its f16 value); the result is rounded
//                to f16 as the kernel does. Default: none (x, not rounded).
//   EPI          reference epilogue: an expression in double of v, the exact
//                accumulator of C(i, j), and i, j, N; it may read bias[j],
//                scale[i], R[i * N + j] (doubles holding the f16 inputs).
//                Default: v.
//   The r_* functions below (r_relu ... r_min) are the spec language's
//   functions in double, with the generator's definitions (gelu: tanh form).
//   BLOCK_M/N/K (128/128/32) give the tile for the negative size test.
// Usage: bin [--tag NAME] [--seed S] MxNxK ...
// Per size: fresh inputs uniform in [-1, 1] (f16), C poisoned with NaN, one
// launch, rel = ||C - ref||_2 / ||ref||_2 < 5e-3 and no non-finite output.
// Then the negative tests: M off the tile, C (and the bias, the residual
// where there are) misaligned by one half: the launcher must refuse and
// leave C poisoned. Prints one PASS|FAIL line per
// case and last "N passed, M failed"; exits 1 if any failed.
// POLYMMA_VARIANT=<suffix>[,s=N] (read by the generated launcher) forces
// one kernel of the file: case lines are tagged tag@<suffix>[,s=N], and a
// size it cannot run (the launcher returns cudaErrorInvalidValue, C left
// poisoned) is a SKIP line, not a FAIL (report.cuh;
// scripts/gpu-fused-check.sh --force runs every variant this way).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include KERNEL_FILE

#ifndef A_KM
#define A_KM 0
#endif
#ifndef B_NK
#define B_NK 0
#endif
#ifndef HAS_BIAS
#define HAS_BIAS 0
#endif
#ifndef HAS_SCALE
#define HAS_SCALE 0
#endif
#ifndef HAS_RES
#define HAS_RES 0
#endif
#ifndef LAUNCH
#ifndef KFN
#error "define KFN=<exported launcher name> (or LAUNCH=<launcher call>)"
#endif
#if HAS_BIAS
#define CF_BIAS_ARG bias,
#else
#define CF_BIAS_ARG
#endif
#if HAS_SCALE
#define CF_SCALE_ARG scale,
#else
#define CF_SCALE_ARG
#endif
#if HAS_RES
#define CF_RES_ARG R,
#else
#define CF_RES_ARG
#endif
#define LAUNCH KFN(A, B, CF_BIAS_ARG CF_SCALE_ARG CF_RES_ARG C, M, N, K, st)
#endif
#ifndef BLOCK_M
#define BLOCK_M 128
#endif
#ifndef BLOCK_N
#define BLOCK_N 128
#endif
#ifndef BLOCK_K
#define BLOCK_K 32
#endif
#define CF_STR2(...) #__VA_ARGS__
#define CF_STR(...) CF_STR2(__VA_ARGS__)

// The spec language's functions in double (emit/file.c has the fp32 ones).
inline double r_relu(double x) { return x > 0 ? x : 0; }
inline double r_sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
inline double r_tanh(double x) { return std::tanh(x); }
inline double r_gelu(double x) {
	return 0.5 * x * (1 + std::tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)));
}
inline double r_gelu_erf(double x) {
	return 0.5 * x * (1 + std::erf(x * 0.7071067811865476));
}
inline double r_silu(double x) { return x / (1 + std::exp(-x)); }
inline double r_exp(double x) { return std::exp(x); }
inline double r_abs(double x) { return std::fabs(x); }
inline double r_max(double a, double b) { return std::fmax(a, b); }
inline double r_min(double a, double b) { return std::fmin(a, b); }

#ifdef KFN
#define PM_REPORT_TAG CF_STR(KFN)
#else
#define PM_REPORT_TAG "fused"
#endif
#include "report.cuh"

namespace cf {

using namespace pm_report;
static cudaStream_t st;
static const double kTol = 5e-3;

#define CF_CK(x) do { cudaError_t e_ = (x); \
	if (e_ != cudaSuccess) pm_report::die(#x, cudaGetErrorString(e_)); } while (0)



// n f16 values uniform in [-1, 1].
static std::vector<__half> rand_half(int64_t n, uint64_t seed) {
	std::vector<__half> h((size_t)n);
	uint64_t s = mix(seed);
	for (int64_t i = 0; i < n; ++i) {
		uint64_t z = mix(s ^ (0xD1B54A32D192ED03ull * (uint64_t)(i + 1)));
		float u = (float)(z >> 40) * (1.0f / 16777216.0f);	// [0, 1)
		h[(size_t)i] = __float2half_rn(2.0f * u - 1.0f);
	}
	return h;
}
static std::vector<double> to_double(const std::vector<__half> &h) {
	std::vector<double> d(h.size());
	for (size_t i = 0; i < h.size(); ++i)
		d[i] = (double)__half2float(h[i]);
	return d;
}
// A prologue's value as the kernel stores it: computed, rounded to f16.
inline double round_half(double x) {
	return (double)__half2float(__float2half_rn((float)x));
}

struct Dev {	// device copies of the inputs (null where absent) and C
	__half *A = nullptr, *B = nullptr, *bias = nullptr, *scale = nullptr,
		*R = nullptr, *C = nullptr;
};
static __half *upload(const std::vector<__half> &h, size_t extra = 0) {
	void *p = nullptr;
	CF_CK(cudaMalloc(&p, (h.size() + extra) * sizeof(__half)));
	CF_CK(cudaMemcpy(p, h.data(), h.size() * sizeof(__half), cudaMemcpyHostToDevice));
	return (__half *)p;
}
static void free_dev(Dev &d) {
	for (__half *p : {d.A, d.B, d.bias, d.scale, d.R, d.C})
		if (p)
			CF_CK(cudaFree(p));
	d = Dev();
}
static void poison(__half *C, int64_t n) {	// 0xFFFF is a NaN in f16
	CF_CK(cudaMemsetAsync(C, 0xFF, (size_t)n * sizeof(__half), st));
}

// The inputs of one case, host f16 and device; C has `extra` spare halves.
struct Inputs {
	std::vector<__half> A, B, bias, scale, R;
	Dev d;
};
// C also has CF_RED halves more (poisoned: check_size counts those a kernel
// wrote, rows past M or columns past N of the last row).
#define CF_RED 8192
static Inputs make_inputs(int64_t M, int64_t N, int64_t K, uint64_t seed, size_t extra) {
	Inputs in;
	in.A = rand_half(M * K + (int64_t)extra, seed);
	in.B = rand_half(K * N + (int64_t)extra, seed + 1);
	in.d.A = upload(in.A);
	in.d.B = upload(in.B);
	in.A.resize((size_t)(M * K));
	in.B.resize((size_t)(K * N));
	// the bias and the residual padded too (the misaligned negative tests)
	if (HAS_BIAS) {
		in.bias = rand_half(N + (int64_t)extra, seed + 2);
		in.d.bias = upload(in.bias);
		in.bias.resize((size_t)N);
	}
	if (HAS_SCALE) { in.scale = rand_half(M, seed + 3); in.d.scale = upload(in.scale); }
	if (HAS_RES) {
		in.R = rand_half(M * N + (int64_t)extra, seed + 4);
		in.d.R = upload(in.R);
		in.R.resize((size_t)(M * N));
	}
	void *c = nullptr;
	CF_CK(cudaMalloc(&c, (size_t)(M * N + (int64_t)extra + CF_RED) * sizeof(__half)));
	in.d.C = (__half *)c;
	poison(in.d.C, M * N + (int64_t)extra + CF_RED);
	CF_CK(cudaStreamSynchronize(st));
	// the uploads ran on the legacy stream, which st (non-blocking) does
	// not wait for, and cudaMemcpy from pageable memory may return before
	// its DMA lands: without this the kernel could read inputs not yet
	// there (a rare all-zero C, seen twice: sessions 5 and 7)
	CF_CK(cudaDeviceSynchronize());
	return in;
}

static cudaError_t launch(const __half *A, const __half *B, const __half *bias,
	const __half *scale, const __half *R, __half *C, int64_t M, int64_t N, int64_t K) {
	(void)bias; (void)scale; (void)R;
	return LAUNCH;
}

// ref (M x N, row-major) = EPI(sum_k PRO_A(A(i, k)) * PRO_B(B(k, j)), i, j), fp64.
static void reference(const Inputs &in, std::vector<double> &ref,
	int64_t M, int64_t N, int64_t K) {
	std::vector<double> a((size_t)(M * K)), b((size_t)(K * N));	// a: M x K, b: K x N
	for (int64_t i = 0; i < M; ++i)
		for (int64_t k = 0; k < K; ++k) {
			double x = (double)__half2float(in.A[(size_t)(A_KM ? k * M + i : i * K + k)]);
			(void)x;
#ifdef PRO_A
			a[(size_t)(i * K + k)] = round_half(PRO_A);
#else
			a[(size_t)(i * K + k)] = x;
#endif
		}
	for (int64_t k = 0; k < K; ++k)
		for (int64_t j = 0; j < N; ++j) {
			double x = (double)__half2float(in.B[(size_t)(B_NK ? j * K + k : k * N + j)]);
			(void)x;
#ifdef PRO_B
			b[(size_t)(k * N + j)] = round_half(PRO_B);
#else
			b[(size_t)(k * N + j)] = x;
#endif
		}
	std::vector<double> bias_d = to_double(in.bias), scale_d = to_double(in.scale),
		R_d = to_double(in.R);
	const double *bias = bias_d.data(), *scale = scale_d.data(), *R = R_d.data();
	(void)bias; (void)scale; (void)R;
	ref.assign((size_t)(M * N), 0.0);
	std::vector<double> acc((size_t)N);
	for (int64_t i = 0; i < M; ++i) {
		std::fill(acc.begin(), acc.end(), 0.0);
		for (int64_t k = 0; k < K; ++k) {
			const double aik = a[(size_t)(i * K + k)];
			const double *bk = &b[(size_t)(k * N)];
			for (int64_t j = 0; j < N; ++j)
				acc[(size_t)j] += aik * bk[j];
		}
		for (int64_t j = 0; j < N; ++j) {
			double v = acc[(size_t)j];
			(void)v;
#ifdef EPI
			ref[(size_t)(i * N + j)] = EPI;
#else
			ref[(size_t)(i * N + j)] = v;
#endif
		}
	}
}

static void check_size(int64_t M, int64_t N, int64_t K, uint64_t seed) {
	Inputs in = make_inputs(M, N, K, seed, 0);
	cudaError_t r = launch(in.d.A, in.d.B, in.d.bias, in.d.scale, in.d.R, in.d.C, M, N, K);
	cudaError_t l = cudaGetLastError();
	cudaError_t s = cudaStreamSynchronize(st);
	if (s != cudaSuccess)
		die("kernel execution", cudaGetErrorString(s));
	if (l == cudaSuccess && refused_by_force(r)) {
		// the forced variant cannot run this size: SKIP where it
		// wrote nothing (C and its red zone still poisoned)
		std::vector<uint16_t> h((size_t)(M * N + CF_RED));
		CF_CK(cudaMemcpy(h.data(), in.d.C, h.size() * sizeof(__half),
			cudaMemcpyDeviceToHost));
		size_t written = 0;
		for (uint16_t v : h)
			written += v != 0xFFFF;
		if (written == 0)
			skip("", M, N, K);
		else
			result(false, "", M, N, K, "refused the forced variant (" +
				std::string(cudaGetErrorName(r)) + ") but wrote C: written=" +
				std::to_string(written));
		free_dev(in.d);
		return;
	}
	n_ran++;
	if (r != cudaSuccess || l != cudaSuccess) {
		result(false, "", M, N, K, std::string(r != cudaSuccess ? "launcher returned " :
			"launch error ") + cudaGetErrorName(r != cudaSuccess ? r : l));
		free_dev(in.d);
		return;
	}
	std::vector<__half> C((size_t)(M * N));
	CF_CK(cudaMemcpy(C.data(), in.d.C, C.size() * sizeof(__half), cudaMemcpyDeviceToHost));
	std::vector<uint16_t> red(CF_RED);
	CF_CK(cudaMemcpy(red.data(), in.d.C + M * N, CF_RED * sizeof(__half),
		cudaMemcpyDeviceToHost));
	size_t past = 0;
	for (uint16_t v : red)
		past += v != 0xFFFF;
	free_dev(in.d);

	std::vector<double> ref;
	reference(in, ref, M, N, K);
	double d2 = 0, r2 = 0, maxd = 0;
	size_t nonfinite = 0, refbad = 0, worst = 0;
	for (size_t t = 0; t < C.size(); ++t) {
		double c = (double)__half2float(C[t]), x = ref[t];
		if (!std::isfinite(x)) { refbad++; continue; }
		if (!std::isfinite(c)) { nonfinite++; continue; }
		d2 += (c - x) * (c - x);
		r2 += x * x;
		if (std::fabs(c - x) > maxd) { maxd = std::fabs(c - x); worst = t; }
	}
	double rel = r2 > 0 ? std::sqrt(d2 / r2) : (d2 > 0 ? INFINITY : 0.0);
	char b[256];
	snprintf(b, sizeof b, "rel=%.3e nonfinite=%zu maxabs=%.3e at (%zu,%zu): got %.6g want %.6g",
		rel, nonfinite, maxd, worst / (size_t)N, worst % (size_t)N,
		(double)__half2float(C[worst]), ref[worst]);
	std::string info = b;
	if (refbad)
		info += " reference-nonfinite=" + std::to_string(refbad);
	if (past)
		info += " WROTE PAST C: " + std::to_string(past);
	result(refbad == 0 && nonfinite == 0 && past == 0 && rel < kTol, "", M, N, K,
		info);
}

// Negative test: the launcher must refuse (return an error, launch nothing)
// and leave C poisoned. offC (offBias, offR) shifts C (the bias, the
// residual) by that many halves.
static void check_refused(const char *sub, int64_t M, int64_t N, int64_t K, int offC,
	uint64_t seed, int offBias = 0, int offR = 0) {
	Inputs in = make_inputs(M, N, K, seed, 8);
	cudaError_t r = launch(in.d.A, in.d.B, in.d.bias ? in.d.bias + offBias : nullptr,
		in.d.scale, in.d.R ? in.d.R + offR : nullptr, in.d.C + offC, M, N, K);
	cudaGetLastError();	// a refused launch may have left one; not sticky
	cudaError_t s = cudaStreamSynchronize(st);
	if (s != cudaSuccess)
		die("kernel execution (negative test)", cudaGetErrorString(s));
	std::vector<uint16_t> h((size_t)(M * N + 8));
	CF_CK(cudaMemcpy(h.data(), in.d.C, h.size() * 2, cudaMemcpyDeviceToHost));
	size_t written = 0;
	for (uint16_t v : h)
		written += v != 0xFFFF;
	char b[128];
	snprintf(b, sizeof b, "ret=%s written=%zu", cudaGetErrorName(r), written);
	result(r != cudaSuccess && written == 0, sub, M, N, K, b);
	free_dev(in.d);
}

struct Size { int64_t M, N, K; };

} // namespace cf

int main(int argc, char **argv) {
	using namespace cf;
	uint64_t seed = std::random_device{}() ^
		(uint64_t)std::chrono::high_resolution_clock::now().time_since_epoch().count();
	std::vector<Size> sizes;
	for (int i = 1; i < argc; ++i) {
		long long m, n, k;
		char tail;
		if (!strcmp(argv[i], "--tag") && i + 1 < argc) tag = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], 0, 0);
		else if (sscanf(argv[i], "%lldx%lldx%lld%c", &m, &n, &k, &tail) == 3 &&
			 m > 0 && n > 0 && k > 0)
			sizes.push_back({m, n, k});
		else {
			fprintf(stderr, "usage: %s [--tag NAME] [--seed S] MxNxK ...\n", argv[0]);
			return 2;
		}
	}
	if (sizes.empty()) {
		fprintf(stderr, "no sizes given\n");
		return 2;
	}
	int dev;
	cudaDeviceProp prop;
	CF_CK(cudaGetDevice(&dev));
	CF_CK(cudaGetDeviceProperties(&prop, dev));
	printf("# %s A_KM=%d B_NK=%d bias=%d scale=%d res=%d device=\"%s\" seed=0x%016llx\n",
		tag.c_str(), A_KM, B_NK, HAS_BIAS, HAS_SCALE, HAS_RES, prop.name,
		(unsigned long long)seed);
	printf("#   launch: %s\n", CF_STR(LAUNCH));
#ifdef PRO_A
	printf("#   PRO_A = %s\n", CF_STR(PRO_A));
#endif
#ifdef PRO_B
	printf("#   PRO_B = %s\n", CF_STR(PRO_B));
#endif
#ifdef EPI
	printf("#   EPI = %s\n", CF_STR(EPI));
#endif
	fflush(stdout);
	CF_CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

	for (size_t c = 0; c < sizes.size(); ++c)
		check_size(sizes[c].M, sizes[c].N, sizes[c].K, seed + 16 * c);

	// Negative tests last: a launcher that wrongly launches may fault.
	uint64_t ns = seed + 16 * sizes.size();
	// ragged M and N are sizes; C's rows must be of 16-byte units
	check_refused("/neg-M", 0, BLOCK_N, BLOCK_K, 0, ns);
	check_refused("/neg-N", BLOCK_M, BLOCK_N + 4, BLOCK_K, 0, ns + 7);
	check_refused("/neg-alignC", BLOCK_M, BLOCK_N, BLOCK_K, 1, ns + 8);
	// the epilogue loads the bias and the residual two halves at a time
	if (HAS_BIAS)
		check_refused("/neg-alignBias", BLOCK_M, BLOCK_N, BLOCK_K, 0, ns + 9, 1, 0);
	if (HAS_RES)
		check_refused("/neg-alignR", BLOCK_M, BLOCK_N, BLOCK_K, 0, ns + 10, 0, 1);
	finish();
}

// check_gemm.cu: GPU correctness check and first timing of one generated
// polymma gemm kernel, against an fp64 reference and cuBLAS.
//
// Built once per generated file (the script scripts/gpu-check.sh does this):
//   nvcc -O2 -arch=sm_90 -std=c++17 -DKERNEL_FILE='"/abs/path/gen.cu"'
//        -DKFN=gemm_nn -DA_KM=0 -DB_NK=0 tests/gpu/check_gemm.cu -lcublas -o bin
//   (KERNEL_FILE: an absolute path, or one relative to tests/gpu/ or to a -I)
//   A_KM=1: A is stored K x M (else M x K); B_NK=1: B is stored N x K (else
//   K x N); C is M x N; all row-major f16. Fixed-size kernels (generated with
//   -D M=.. -D N=.. -D K=..) take no size arguments: add -DFIXED_M=.. -DFIXED_N=..
//   -DFIXED_K=.. . BLOCK_M/N/K (default 128/128/32) give the block tile the
//   negative tests are derived from.
// Usage: bin [--time] [--tag NAME] [--seed S] MxNxK ...
//   (fixed mode: sizes may be left out; given ones must equal the fixed size)
// Prints one PASS|FAIL line per case, TIME lines with --time, and last
// "N passed, M failed"; exits 1 if any failed.
// POLYMMA_VARIANT=<suffix>[,s=N] (read by the generated launcher) forces
// one kernel of the file: case lines are tagged tag@<suffix>[,s=N], and a
// size it cannot run (the launcher returns cudaErrorInvalidValue, C left
// poisoned) is a SKIP line, not a FAIL (report.cuh; scripts/gpu-check.sh
// --force runs every variant of a file this way).
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>
#include <algorithm>
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

#ifndef KFN
#error "define KFN=<exported launcher name>"
#endif
#ifndef A_KM
#define A_KM 0
#endif
#ifndef B_NK
#define B_NK 0
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
#if defined(FIXED_M) || defined(FIXED_N) || defined(FIXED_K)
#if !(defined(FIXED_M) && defined(FIXED_N) && defined(FIXED_K))
#error "define all of FIXED_M, FIXED_N, FIXED_K or none"
#endif
#define CG_FIXED 1
#endif
#define CG_STR2(x) #x
#define CG_STR(x) CG_STR2(x)

#define PM_REPORT_TAG CG_STR(KFN)
#include "report.cuh"

namespace cg {

using namespace pm_report;
static cudaStream_t st;
static const double kTol = 2e-3;

#define CG_CK(x) do { cudaError_t e_ = (x); \
	if (e_ != cudaSuccess) pm_report::die(#x, cudaGetErrorString(e_)); } while (0)
#define CG_CKB(x) do { cublasStatus_t s_ = (x); \
	if (s_ != CUBLAS_STATUS_SUCCESS) pm_report::die(#x, cublasGetStatusString(s_)); } while (0)



// ---- device helpers -------------------------------------------------------
#include "../../bench/random.cuh"	// fill_kernel

__device__ __forceinline__ double a_at(const __half *A, int64_t i, int64_t k,
	int64_t M, int64_t K) {
	return (double)__half2float(A_KM ? A[k * M + i] : A[i * K + k]);
}
__device__ __forceinline__ double b_at(const __half *B, int64_t k, int64_t j,
	int64_t N, int64_t K) {
	return (double)__half2float(B_NK ? B[j * K + k] : B[k * N + j]);
}

// R(i, j) = sum_k A(i, k) * B(k, j) in fp64 (the products of halves are exact).
#define RT 16
__global__ void ref_kernel(const __half *A, const __half *B, double *R,
	int64_t M, int64_t N, int64_t K) {
	__shared__ double As[RT][RT + 1], Bs[RT][RT + 1];
	int tx = threadIdx.x, ty = threadIdx.y;
	int64_t i0 = (int64_t)blockIdx.y * RT, j0 = (int64_t)blockIdx.x * RT;
	int64_t i = i0 + ty, j = j0 + tx;
	double acc = 0;
	for (int64_t k0 = 0; k0 < K; k0 += RT) {
		// As[i][k], Bs[k][j]; threadIdx.x runs along the stored rows
		int ar = A_KM ? tx : ty, ac = A_KM ? ty : tx;
		int br = B_NK ? tx : ty, bc = B_NK ? ty : tx;
		As[ar][ac] = (i0 + ar < M && k0 + ac < K) ? a_at(A, i0 + ar, k0 + ac, M, K) : 0.0;
		Bs[br][bc] = (k0 + br < K && j0 + bc < N) ? b_at(B, k0 + br, j0 + bc, N, K) : 0.0;
		__syncthreads();
		for (int kk = 0; kk < RT; ++kk)
			acc = fma(As[ty][kk], Bs[kk][tx], acc);
		__syncthreads();
	}
	if (i < M && j < N)
		R[i * N + j] = acc;
}

// acc[0] += sum (C - R)^2, acc[1] += sum R^2 over finite C; *bad += #non-finite C.
__global__ void cmp_kernel(const __half *C, const double *R, int64_t n,
	double *acc, unsigned long long *bad) {
	__shared__ double s0[256], s1[256];
	__shared__ unsigned long long sb[256];
	double d2 = 0, r2 = 0;
	unsigned long long nb = 0;
	for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < n;
	     t += (int64_t)gridDim.x * blockDim.x) {
		float c = __half2float(C[t]);
		double r = R[t];
		if (!isfinite(c)) { nb++; continue; }
		d2 += ((double)c - r) * ((double)c - r);
		r2 += r * r;
	}
	s0[threadIdx.x] = d2; s1[threadIdx.x] = r2; sb[threadIdx.x] = nb;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s /= 2) {
		if (threadIdx.x < s) {
			s0[threadIdx.x] += s0[threadIdx.x + s];
			s1[threadIdx.x] += s1[threadIdx.x + s];
			sb[threadIdx.x] += sb[threadIdx.x + s];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		atomicAdd(&acc[0], s0[0]);
		atomicAdd(&acc[1], s1[0]);
		atomicAdd(bad, sb[0]);
	}
}

// ---- host helpers ---------------------------------------------------------
template <class T> static T *dalloc(int64_t n) {
	void *p = nullptr;
	CG_CK(cudaMalloc(&p, (size_t)n * sizeof(T)));
	return (T *)p;
}
static void fill(__half *p, int64_t n, uint64_t seed) {
	fill_kernel<<<1024, 256, 0, st>>>(p, n, seed);
	CG_CK(cudaGetLastError());
}
static void reference(const __half *A, const __half *B, double *R,
	int64_t M, int64_t N, int64_t K) {
	dim3 grid((unsigned)((N + RT - 1) / RT), (unsigned)((M + RT - 1) / RT));
	ref_kernel<<<grid, dim3(RT, RT), 0, st>>>(A, B, R, M, N, K);
	CG_CK(cudaGetLastError());
	CG_CK(cudaStreamSynchronize(st));
}
// Every C is allocated with a red zone of CG_RED halves after its n
// elements, poisoned with them; compare() counts the red zone's elements a
// kernel wrote (rows past M, columns past N of the last row: a ragged tile's
// guards).
#define CG_RED 8192
static void poison(__half *C, int64_t n) {	// 0xFFFF is a NaN in f16
	CG_CK(cudaMemsetAsync(C, 0xFF, (size_t)(n + CG_RED) * sizeof(__half), st));
}
struct Err { double rel; unsigned long long nonfinite, red; };
static Err compare(const __half *C, const double *R, int64_t n) {
	static double *acc = dalloc<double>(2);
	static unsigned long long *bad = dalloc<unsigned long long>(1);
	CG_CK(cudaMemsetAsync(acc, 0, 2 * sizeof(double), st));
	CG_CK(cudaMemsetAsync(bad, 0, sizeof(unsigned long long), st));
	cmp_kernel<<<512, 256, 0, st>>>(C, R, n, acc, bad);
	CG_CK(cudaGetLastError());
	double h[2];
	unsigned long long hb;
	CG_CK(cudaMemcpyAsync(h, acc, sizeof h, cudaMemcpyDeviceToHost, st));
	CG_CK(cudaMemcpyAsync(&hb, bad, sizeof hb, cudaMemcpyDeviceToHost, st));
	static std::vector<uint16_t> red(CG_RED);
	CG_CK(cudaMemcpyAsync(red.data(), C + n, CG_RED * sizeof(__half),
		cudaMemcpyDeviceToHost, st));
	CG_CK(cudaStreamSynchronize(st));
	unsigned long long written = 0;
	for (uint16_t v : red)
		written += v != 0xFFFF;
	return {std::sqrt(h[0]) / std::sqrt(h[1]), hb, written};
}
static std::string fmt_err(const Err &e) {
	char b[128];
	snprintf(b, sizeof b, "rel=%.3e nonfinite=%llu%s", e.rel, e.nonfinite,
		e.red ? " WROTE PAST C" : "");
	return b;
}
static bool ok(const Err &e) {
	return e.nonfinite == 0 && e.red == 0 && e.rel < kTol;
}
// A forced variant's refusal (r): SKIP where C (n halves, poisoned) and
// its red zone are untouched, else FAIL. Returns whether r was one.
static bool forced_refusal(cudaError_t r, const __half *C, const double *R,
	int64_t M, int64_t N, int64_t K, const char *sub) {
	if (!refused_by_force(r))
		return false;
	Err e = compare(C, R, M * N);
	if (e.nonfinite == (unsigned long long)(M * N) && e.red == 0)
		skip(sub, M, N, K);
	else
		result(false, sub, M, N, K, "refused the forced variant (" +
			std::string(cudaGetErrorName(r)) + ") but wrote C: " + fmt_err(e));
	return true;
}

static cudaError_t launch(const __half *A, const __half *B, __half *C,
	int64_t M, int64_t N, int64_t K) {
#ifdef CG_FIXED
	(void)M; (void)N; (void)K;
	return KFN(A, B, C, st);
#else
	return KFN(A, B, C, M, N, K, st);
#endif
}

// Launch the kernel under test and wait. Returns "" or why it failed (*ret:
// the launcher's return); a fault at synchronisation is sticky, so that
// ends the run.
static std::string launch_checked(const __half *A, const __half *B, __half *C,
	int64_t M, int64_t N, int64_t K, cudaError_t *ret) {
	cudaError_t r = *ret = launch(A, B, C, M, N, K);
	cudaError_t l = cudaGetLastError();
	cudaError_t s = cudaStreamSynchronize(st);
	if (s != cudaSuccess)
		die("kernel execution", cudaGetErrorString(s));
	if (r != cudaSuccess)
		return std::string("launcher returned ") + cudaGetErrorName(r);
	if (l != cudaSuccess)
		return std::string("launch error ") + cudaGetErrorName(l);
	return "";
}

// cuBLAS on the same row-major layouts: C^T (N x M, column-major, ld N) =
// op(B) * op(A), where the row-major buffers read as column-major are
// B (KxN) -> B^T, B (NxK) -> B, A (MxK) -> A^T, A (KxM) -> A.
static cublasHandle_t blas;
static cublasStatus_t cublas_gemm(const __half *A, const __half *B, __half *C,
	int64_t M, int64_t N, int64_t K) {
	const float one = 1.0f, zero = 0.0f;
	return cublasGemmEx(blas, B_NK ? CUBLAS_OP_T : CUBLAS_OP_N,
		A_KM ? CUBLAS_OP_T : CUBLAS_OP_N, (int)N, (int)M, (int)K, &one,
		B, CUDA_R_16F, B_NK ? (int)K : (int)N,
		A, CUDA_R_16F, A_KM ? (int)M : (int)K, &zero,
		C, CUDA_R_16F, (int)N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

// 3 warm-up and 20 timed calls of f(set), rotating over 2 input sets; the
// last call uses set 0. Median of the per-call event times, in ms.
template <class F> static double time_median(F f) {
	const int warm = 3, reps = 20;
	std::vector<cudaEvent_t> ev(2 * reps);
	for (auto &e : ev)
		CG_CK(cudaEventCreate(&e));
	for (int it = 0; it < warm; ++it)
		f(it % 2);
	for (int it = 0; it < reps; ++it) {
		CG_CK(cudaEventRecord(ev[2 * it], st));
		f((it + 1) % 2);
		CG_CK(cudaEventRecord(ev[2 * it + 1], st));
	}
	CG_CK(cudaStreamSynchronize(st));
	std::vector<float> ms(reps);
	for (int it = 0; it < reps; ++it)
		CG_CK(cudaEventElapsedTime(&ms[it], ev[2 * it], ev[2 * it + 1]));
	for (auto &e : ev)
		CG_CK(cudaEventDestroy(e));
	std::sort(ms.begin(), ms.end());
	return 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
}

#ifdef CG_WS
// The split-K entry with the caller's workspace (zero-filled once): two
// launches in a row (the first must leave the counters at zero), then one
// with a workspace one byte too small (the launcher runs unsplit), then one
// with a 64 MB workspace shared by every size of the run (zero-filled at
// the first: the launches of other sizes before must leave it usable).
#define CG_CAT2(a, b) a##b
#define CG_CAT(a, b) CG_CAT2(a, b)
// One launch through KFN_ws with `give` bytes of workspace ws, checked
// against R and reported under tag (note: what to add to the line).
static void ws_run(const __half *A, const __half *B, __half *C,
	const double *R, int64_t M, int64_t N, int64_t K, void *ws, size_t give,
	const char *tag, const std::string &note) {
	poison(C, M * N);
#ifdef CG_FIXED
	cudaError_t r = CG_CAT(KFN, _ws)(A, B, C, ws, give, st);
#else
	cudaError_t r = CG_CAT(KFN, _ws)(A, B, C, M, N, K, ws, give, st);
#endif
	cudaError_t l = cudaGetLastError();
	cudaError_t sy = cudaStreamSynchronize(st);
	if (sy != cudaSuccess)
		die("kernel execution", cudaGetErrorString(sy));
	if (l == cudaSuccess && forced_refusal(r, C, R, M, N, K, tag))
		return;
	if (r != cudaSuccess || l != cudaSuccess) {
		result(false, tag, M, N, K, std::string("launch error ") +
			cudaGetErrorName(r != cudaSuccess ? r : l));
		return;
	}
	Err e = compare(C, R, M * N);
	result(ok(e), tag, M, N, K, fmt_err(e) + note);
}

static void check_ws(const __half *A, const __half *B, __half *C,
	const double *R, int64_t M, int64_t N, int64_t K) {
#ifdef CG_FIXED
	size_t bytes = CG_CAT(KFN, _workspace_size)();
#else
	size_t bytes = CG_CAT(KFN, _workspace_size)(M, N, K);
#endif
	char *ws = nullptr;
	char tag2[64];
	/* no workspace needed (unsplit, or split in clusters): the entry
	 * with none */
	if (!bytes) {
		ws_run(A, B, C, R, M, N, K, nullptr, 0, "/ws-none", " ws=0");
		return;
	}
	CG_CK(cudaMalloc(&ws, bytes));
	CG_CK(cudaMemset(ws, 0, bytes));
	for (int run = 0; run < 3; ++run) {
		snprintf(tag2, sizeof tag2, "/ws%d%s", run, run == 2 ? "-small" : "");
		ws_run(A, B, C, R, M, N, K, ws, run < 2 ? bytes : bytes - 1, tag2,
			" ws=" + std::to_string(bytes));
	}
	CG_CK(cudaFree(ws));
	static char *shared = nullptr;
	const size_t shared_bytes = (size_t)64 << 20;
	if (bytes > shared_bytes)
		return;
	if (!shared) {
		CG_CK(cudaMalloc(&shared, shared_bytes));
		CG_CK(cudaMemset(shared, 0, shared_bytes));
	}
	ws_run(A, B, C, R, M, N, K, shared, shared_bytes, "/ws-shared", "");
}
#endif

static void check_size(int64_t M, int64_t N, int64_t K, uint64_t seed, bool timing) {
	__half *A[2] = {dalloc<__half>(M * K), nullptr};
	__half *B[2] = {dalloc<__half>(K * N), nullptr};
	__half *C = dalloc<__half>(M * N + CG_RED);
	double *R = dalloc<double>(M * N);
	fill(A[0], M * K, mix(seed));
	fill(B[0], K * N, mix(seed + 1));
	reference(A[0], B[0], R, M, N, K);

	poison(C, M * N);
	cudaError_t r;
	std::string why = launch_checked(A[0], B[0], C, M, N, K, &r);
	// a size the forced variant cannot run: nothing more to check here
	// (its workspace entry and timing would refuse it too)
	const bool refused = forced_refusal(r, C, R, M, N, K, "");
	if (refused) {
		timing = false;
	} else if (!why.empty()) {
		n_ran++;
		result(false, "", M, N, K, why);
	} else {
		n_ran++;
		Err e = compare(C, R, M * N);
		result(ok(e), "", M, N, K, fmt_err(e));
	}
#ifdef CG_WS
	if (!refused)
		check_ws(A[0], B[0], C, R, M, N, K);
#endif

	if (timing) {
		A[1] = dalloc<__half>(M * K);
		B[1] = dalloc<__half>(K * N);
		fill(A[1], M * K, mix(seed + 2));
		fill(B[1], K * N, mix(seed + 3));
		double flop = 2.0 * (double)M * (double)N * (double)K;
		// polymma; afterwards C holds the result of the last call (set 0)
		cudaError_t first = cudaSuccess;
		poison(C, M * N);
		double pm = time_median([&](int s) {
			cudaError_t r = launch(A[s], B[s], C, M, N, K);
			if (first == cudaSuccess) first = r;
		});
		cudaError_t l = cudaGetLastError();
		if (first != cudaSuccess || l != cudaSuccess) {
			result(false, "/timed", M, N, K, std::string("launch error ") +
				cudaGetErrorName(first != cudaSuccess ? first : l));
			pm = NAN;
		} else {
			Err e = compare(C, R, M * N);
			result(ok(e), "/timed", M, N, K, fmt_err(e));
		}
		// cuBLAS: check once on set 0, then time
		if (!blas) {
			CG_CKB(cublasCreate(&blas));
			CG_CKB(cublasSetStream(blas, st));
		}
		poison(C, M * N);
		CG_CKB(cublas_gemm(A[0], B[0], C, M, N, K));
		Err e = compare(C, R, M * N);
		result(ok(e), "/cublas", M, N, K, fmt_err(e));
		cublasStatus_t bs = CUBLAS_STATUS_SUCCESS;
		double bm = time_median([&](int s) {
			cublasStatus_t r = cublas_gemm(A[s], B[s], C, M, N, K);
			if (bs == CUBLAS_STATUS_SUCCESS) bs = r;
		});
		CG_CKB(bs);
		double pt = flop / (pm * 1e-3) / 1e12, bt = flop / (bm * 1e-3) / 1e12;
		printf("TIME %s %" PRId64 "x%" PRId64 "x%" PRId64
			" polymma_ms=%.4f polymma_tflops=%.1f cublas_ms=%.4f"
			" cublas_tflops=%.1f ratio=%.3f\n",
			tag.c_str(), M, N, K, pm, pt, bm, bt, pt / bt);
		fflush(stdout);
		CG_CK(cudaFree(A[1]));
		CG_CK(cudaFree(B[1]));
	}
	CG_CK(cudaFree(A[0]));
	CG_CK(cudaFree(B[0]));
	CG_CK(cudaFree(C));
	CG_CK(cudaFree(R));
}

// Negative test: the launcher must refuse (return an error, launch nothing)
// and leave C poisoned. off_* shift a pointer by that many halves.
static void check_refused(const char *sub, int64_t M, int64_t N, int64_t K,
	int offA, int offB, int offC, uint64_t seed) {
	__half *A = dalloc<__half>(M * K + 8), *B = dalloc<__half>(K * N + 8);
	__half *C = dalloc<__half>(M * N + 8 + CG_RED);
	fill(A, M * K + 8, mix(seed));
	fill(B, K * N + 8, mix(seed + 1));
	poison(C, M * N + 8);
	CG_CK(cudaStreamSynchronize(st));
	cudaError_t r = launch(A + offA, B + offB, C + offC, M, N, K);
	cudaGetLastError();	// a refused launch may have left one; not sticky
	cudaError_t s = cudaStreamSynchronize(st);
	if (s != cudaSuccess)
		die("kernel execution (negative test)", cudaGetErrorString(s));
	std::vector<uint16_t> h((size_t)(M * N + 8));
	CG_CK(cudaMemcpy(h.data(), C, h.size() * 2, cudaMemcpyDeviceToHost));
	size_t written = 0;
	for (uint16_t v : h)
		written += v != 0xFFFF;
	char b[128];
	snprintf(b, sizeof b, "ret=%s written=%zu", cudaGetErrorName(r), written);
	result(r != cudaSuccess && written == 0, sub, M, N, K, b);
	CG_CK(cudaFree(A));
	CG_CK(cudaFree(B));
	CG_CK(cudaFree(C));
}

struct Size { int64_t M, N, K; };

} // namespace cg

int main(int argc, char **argv) {
	using namespace cg;
	bool timing = false;
	uint64_t seed = std::random_device{}() ^
		(uint64_t)std::chrono::high_resolution_clock::now().time_since_epoch().count();
	std::vector<Size> sizes;
	for (int i = 1; i < argc; ++i) {
		long long m, n, k;
		char tail;
		if (!strcmp(argv[i], "--time")) timing = true;
		else if (!strcmp(argv[i], "--tag") && i + 1 < argc) tag = argv[++i];
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], 0, 0);
		else if (sscanf(argv[i], "%lldx%lldx%lld%c", &m, &n, &k, &tail) == 3 &&
			 m > 0 && n > 0 && k > 0)
			sizes.push_back({m, n, k});
		else {
			fprintf(stderr, "usage: %s [--time] [--tag NAME] [--seed S] MxNxK ...\n", argv[0]);
			return 2;
		}
	}
#ifdef CG_FIXED
	const Size fixed = {FIXED_M, FIXED_N, FIXED_K};
	for (const Size &s : sizes)
		if (s.M != fixed.M || s.N != fixed.N || s.K != fixed.K) {
			fprintf(stderr, "fixed-size kernel: only %dx%dx%d\n", FIXED_M, FIXED_N, FIXED_K);
			return 2;
		}
	if (sizes.empty())
		sizes.push_back(fixed);
#endif
	if (sizes.empty()) {
		fprintf(stderr, "no sizes given\n");
		return 2;
	}
	int dev;
	cudaDeviceProp prop;
	CG_CK(cudaGetDevice(&dev));
	CG_CK(cudaGetDeviceProperties(&prop, dev));
	printf("# %s kfn=%s A_KM=%d B_NK=%d%s device=\"%s\" seed=0x%016llx\n",
		tag.c_str(), CG_STR(KFN), A_KM, B_NK,
#ifdef CG_FIXED
		" fixed",
#else
		"",
#endif
		prop.name, (unsigned long long)seed);
	CG_CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));

	for (size_t c = 0; c < sizes.size(); ++c)
		check_size(sizes[c].M, sizes[c].N, sizes[c].K, seed + 16 * c, timing);

	// Negative tests last: a launcher that wrongly launches may fault.
	uint64_t ns = seed + 16 * sizes.size();
	Size v = sizes[0];	// a valid size for the alignment tests
#ifndef CG_FIXED
	// ragged M and N are sizes; rows of 16-byte units are required: N (C's
	// rows), M where A is K x M
	check_refused("/neg-M", 0, BLOCK_N, BLOCK_K, 0, 0, 0, ns);
	if (A_KM)
		check_refused("/neg-Mrow", BLOCK_M + 4, BLOCK_N, BLOCK_K, 0, 0, 0,
			ns + 1);
	check_refused("/neg-N", BLOCK_M, BLOCK_N + 4, BLOCK_K, 0, 0, 0, ns + 2);
	check_refused("/neg-K", BLOCK_M, BLOCK_N, BLOCK_K + 8, 0, 0, 0, ns + 4);
	v = {BLOCK_M, BLOCK_N, BLOCK_K};
#endif
	check_refused("/neg-alignA", v.M, v.N, v.K, 1, 0, 0, ns + 6);
	check_refused("/neg-alignB", v.M, v.N, v.K, 0, 1, 0, ns + 8);
	check_refused("/neg-alignC", v.M, v.N, v.K, 0, 0, 1, ns + 10);

	if (blas)
		cublasDestroy(blas);
	finish();
}

// bench.cu: polymma's generated kernels against cuBLAS and cuBLASLt on the
// paper's four idioms (bench/specs/*.tc), one CSV row per idiom, size and
// variant. Built and run by bench/run.sh; see bench/README.md. Compiled for
// one element type (dtype.cuh: -DBENCH_DTYPE=BENCH_DT_F16, _BF16, _I8 or
// _F8; i8 and f8 have the GEMM idiom only).
//
// Linked with the objects of the kernels polymma could generate; the
// launchers are weak symbols, so an idiom the generator refused is simply
// absent (its rows are "unsupported", as the manifest written by run.sh
// says). One case (an idiom at one size: its variants, gate and timing) is
// case.cuh's; the pure logic (size sets, the comparison gate, medians, CSV)
// is in stats.c, shared with the CPU tests.
//
// Usage: bench [--set paper|square|llm|odd|decode|all] [--quick] [--n N] [--seed S]
//              [--size MxNxK]... [--idioms a,b] [--kernels FILE] [--csv FILE]
//              [--reps R] [--warmup W] [--comment TEXT]... [--list]
//              [--dtype DT] [--fast-accum]
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "dtype.cuh"
#include "stats.h"

// The launchers of the four idiom specs (bench/specs/*.tc): inputs, outputs,
// then the size symbols M, N, K (run.sh checks this order in the --meta
// JSON), then the stream. Weak: absent when the generator refused the spec.
extern "C" {
cudaError_t bench_gemm(const void *A, const void *B, void *C, int64_t M, int64_t N,
	int64_t K, cudaStream_t) __attribute__((weak));
cudaError_t bench_relu_gemm(const void *A, const void *B, void *C, int64_t M,
	int64_t N, int64_t K, cudaStream_t) __attribute__((weak));
cudaError_t bench_gemm_bias_relu(const void *A, const void *B, const void *bias,
	void *C, int64_t M, int64_t N, int64_t K, cudaStream_t) __attribute__((weak));
cudaError_t bench_add_gemm(const void *A, const void *B, const void *E,
	const void *F, void *O, int64_t M, int64_t N, int64_t K,
	cudaStream_t) __attribute__((weak));
}

namespace {

enum Idiom { GEMM, RELU_GEMM, GEMM_BIAS_RELU, ADD_GEMM };

cudaStream_t st;
cublasHandle_t blas;
cublasLtHandle_t lt;
void *lt_ws;
const size_t kLtWs = 32u << 20;
size_t l2_bytes = 50u << 20;
int warmup = 5, reps = 30;
FILE *csv;
int n_fail = 0;

[[noreturn]] void fatal(const char *what, const char *why) {
	fprintf(stderr, "bench: fatal: %s: %s\n", what, why);
	printf("aborted: %s: %s\n", what, why);
	if (csv) {
		fprintf(csv, "# aborted: %s: %s\n", what, why);
		fclose(csv);
	}
	exit(1);
}
#define CK(x) do { cudaError_t e_ = (x); \
	if (e_ != cudaSuccess) fatal(#x, cudaGetErrorString(e_)); } while (0)

uint64_t mix(uint64_t z) {
	return bench_rng_next(&z);
}

#include "baselines.cuh"
#include "case.cuh"

// run.sh's manifest: one line per idiom, "idiom<TAB>status<TAB>config<TAB>note".
void read_manifest(const char *path) {
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "bench: cannot read %s\n", path);
		exit(2);
	}
	char line[2048];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!*line || *line == '#')
			continue;
		std::vector<std::string> fld;
		std::string cur;
		for (const char *p = line;; ++p) {
			if (*p == '\t' || !*p) {
				fld.push_back(cur);
				cur.clear();
				if (!*p) break;
			} else {
				cur += *p;
			}
		}
		fld.resize(4);
		for (int i = 0; i < BENCH_N_IDIOMS; ++i)
			if (fld[0] == bench_idioms[i]) {
				kernels[i].status = fld[1];
				kernels[i].config = fld[2];
				kernels[i].note = fld[3];
			}
	}
	fclose(f);
}

[[noreturn]] void usage() {
	fprintf(stderr,
		"usage: bench [--set paper|square|llm|odd|decode|all] [--quick] [--n N] [--seed S]\n"
		"             [--size MxNxK]... [--idioms gemm,relu_gemm,gemm_bias_relu,add_gemm]\n"
		"             [--kernels FILE] [--csv FILE] [--reps R] [--warmup W]\n"
		"             [--comment TEXT]... [--list] [--dtype DT] [--fast-accum]\n"
		"this bench is compiled for --dtype %s\n", dt::name);
	exit(2);
}

} // namespace

int main(int argc, char **argv) {
	const char *set = "all", *csv_path = nullptr, *manifest = nullptr;
	int quick = 0, paper_n = BENCH_PAPER_N, list = 0;
	uint64_t seed = BENCH_PAPER_SEED;
	bool want[BENCH_N_IDIOMS] = {true, true, true, true};
	std::vector<bench_size> custom;
	std::vector<std::string> comments;
	std::string args;
	for (int i = 1; i < argc; ++i) {
		args += std::string(i > 1 ? " " : "") + argv[i];
		auto val = [&]() -> const char * {
			if (i + 1 >= argc) usage();
			if (strcmp(argv[i], "--comment"))
				args += std::string(" ") + argv[i + 1];
			else
				args += " ...";
			return argv[++i];
		};
		if (!strcmp(argv[i], "--set")) set = val();
		else if (!strcmp(argv[i], "--quick")) quick = 1;
		else if (!strcmp(argv[i], "--n")) paper_n = atoi(val());
		else if (!strcmp(argv[i], "--seed")) seed = strtoull(val(), nullptr, 0);
		else if (!strcmp(argv[i], "--csv")) csv_path = val();
		else if (!strcmp(argv[i], "--kernels")) manifest = val();
		else if (!strcmp(argv[i], "--reps")) reps = atoi(val());
		else if (!strcmp(argv[i], "--warmup")) warmup = atoi(val());
		else if (!strcmp(argv[i], "--list")) list = 1;
		else if (!strcmp(argv[i], "--fast-accum")) lt_fast_accum = true;
		else if (!strcmp(argv[i], "--dtype")) {	// run.sh: that we are its build
			const char *d = val();
			if (strcmp(d, dt::name)) {
				fprintf(stderr, "bench: compiled for --dtype %s, not %s "
					"(rebuild: bash bench/run.sh --dtype %s --build-only)\n",
					dt::name, d, d);
				return 2;
			}
		}
		else if (!strcmp(argv[i], "--comment")) comments.push_back(val());
		else if (!strcmp(argv[i], "--size")) {
			bench_size s;
			if (bench_parse_size(val(), &s)) usage();
			custom.push_back(s);
		} else if (!strcmp(argv[i], "--idioms")) {
			std::string l = std::string(",") + val() + ",";
			for (int k = 0; k < BENCH_N_IDIOMS; ++k)
				want[k] = l.find(std::string(",") + bench_idioms[k] + ",") != std::string::npos;
		} else usage();
	}
	if (reps < 20) {
		fprintf(stderr, "bench: --reps must be at least 20\n");
		return 2;
	}
	if (warmup < 1 || paper_n < 1) usage();
	std::vector<bench_size> sizes(custom);
	if (custom.empty()) {
		int cap = paper_n + 64, n = 0;
		sizes.resize(cap);
		if (bench_sizes(set, quick, paper_n, seed, sizes.data(), &n, cap)) {
			fprintf(stderr, "bench: unknown set '%s'\n", set);
			return 2;
		}
		sizes.resize(n);
	}
	if (list) {
		for (const bench_size &s : sizes)
			printf("%s %" PRId64 "x%" PRId64 "x%" PRId64 "\n", s.set, s.m, s.n, s.k);
		return 0;
	}
	if (manifest)
		read_manifest(manifest);
	for (int i = 0; i < BENCH_N_IDIOMS; ++i)
		if (kernels[i].status.empty()) {	// not in a manifest: what is linked
			bool linked = launcher_linked((Idiom)i);
			kernels[i].status = linked ? "ok" : "unsupported";
			kernels[i].config = linked ? "?" : "";
			kernels[i].note = linked ? "" : "no kernel linked for this idiom";
		}

	csv = csv_path ? fopen(csv_path, "w") : stdout;
	if (!csv) {
		fprintf(stderr, "bench: cannot write %s\n", csv_path);
		return 2;
	}
	int dev, rt = 0, drv = 0, bmaj = 0, bmin = 0, bpat = 0;
	cudaDeviceProp prop;
	CK(cudaGetDevice(&dev));
	CK(cudaGetDeviceProperties(&prop, dev));
	CK(cudaRuntimeGetVersion(&rt));
	CK(cudaDriverGetVersion(&drv));
	cublasGetProperty(MAJOR_VERSION, &bmaj);
	cublasGetProperty(MINOR_VERSION, &bmin);
	cublasGetProperty(PATCH_LEVEL, &bpat);
	sm_count = prop.multiProcessorCount;
	l2_bytes = (size_t)prop.l2CacheSize;
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS ||
	    cublasSetStream(blas, st) != CUBLAS_STATUS_SUCCESS ||
	    cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS)
		fatal("cublasCreate", "failed");
	CK(cudaMalloc(&lt_ws, kLtWs));
	const float one = 1.0f;
	CK(cudaMalloc(&lt_scale_one, sizeof one));
	CK(cudaMemcpy(lt_scale_one, &one, sizeof one, cudaMemcpyHostToDevice));

	char date[64];
	time_t now = time(nullptr);
	strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
	fprintf(csv, "# device: %s (sm_%d%d, %d SMs, %d MiB L2), driver %d, CUDA runtime %d, "
		"cuBLAS %d.%d.%d, cuBLASLt %zu\n", prop.name, prop.major, prop.minor,
		prop.multiProcessorCount, prop.l2CacheSize >> 20, drv, rt, bmaj, bmin, bpat,
		cublasLtGetVersion());
	fprintf(csv, "# date: %s; bench %s\n", date, args.c_str());
	fprintf(csv, "# dtype: %s\n", dt::describe);
	fprintf(csv, "# timing: the variants of a case interleaved, round by round; warm-up "
		">= %d rounds and >= 25 ms; then >= %d timed rounds (up to ~60 ms, at most 1000; "
		"column reps); CUDA events around each run; the median; input sets rotated "
		"(column nsets: 2 to 16, enough to cover 2x L2 where memory allows)\n",
		warmup, reps);
	if (dt::gemm_only)
		fprintf(csv, "# baselines (GEMM only): cublaslt = cublasLtMatmul, TN, the heuristic's "
			"first algorithm%s; cublas = %s\n", dt::is_f8 ? (lt_fast_accum ?
			", fp8 fast accumulation on" : ", fp8 fast accumulation off (default)") : "",
			dt::has_gemm_ex ? "cublasGemmEx, TN" : "none (cublasGemmEx takes no fp8)");
	else
		fprintf(csv, "# baselines: cublas = cublasGemmEx plus one pointwise kernel per "
			"operation (the paper's: GEMM+bias+ReLU runs a bias kernel, then a relu "
			"kernel); cublaslt = cuBLASLt, fused RELU_BIAS epilogue; cublas_1pw "
			"(GEMM+bias+ReLU only) = cublasGemmEx plus one hand-fused bias+relu kernel\n");
	if (dt::is_i8)
		fprintf(csv, "# gate: every variant's output (poisoned first) vs fp64 at 256 sampled "
			"entries, and every other variant's vs all of %s's output: equal, element "
			"for element; before timing, and again after it\n",
			dt::ref_variant == 1 ? "cublas" : "cublaslt");
	else
		fprintf(csv, "# gate: every variant's output (poisoned first) vs fp64 at 256 sampled "
			"entries, and every other variant's vs all of %s's output: rel_l2 <= %g, "
			"max_err <= %g, no NaN/Inf; before timing, and again after it\n",
			dt::ref_variant == 1 ? "cublas" : "cublaslt", dt::tol_rel, dt::tol_max);
	for (const std::string &c : comments) {
		char b[1024];
		bench_field(b, sizeof b, c.c_str());
		fprintf(csv, "# %s\n", b);
	}
	bench_csv_write_header(csv);
	fflush(csv);
	printf("# %s, %s, %zu sizes x %d idioms\n", prop.name, dt::name, sizes.size(),
		(int)std::count(want, want + BENCH_N_IDIOMS, true));

	uint64_t data_seed = mix(seed ^ 0xB5AD4ECEDA1CE2A9ull);
	for (size_t c = 0; c < sizes.size(); ++c)
		for (int i = 0; i < BENCH_N_IDIOMS; ++i)
			if (want[i])
				run_case(sizes[c], (Idiom)i, data_seed + 4096 * (c * BENCH_N_IDIOMS + i));

	if (csv != stdout)
		fclose(csv);
	cublasLtDestroy(lt);
	cublasDestroy(blas);
	printf("bench done: %d rows failed or errored\n", n_fail);
	return n_fail ? 1 : 0;
}

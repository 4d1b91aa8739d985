// Shared by the GPU checkers (check_gemm.cu, check_fused.cu): PASS/FAIL
// lines, the final "N passed, M failed", aborting on infrastructure errors,
// and the splitmix64 finaliser behind their random inputs.
// Forced variants: where POLYMMA_VARIANT is set (the generated launcher
// then launches only that row of its table), every case line names it
// (tag@VARIANT), a case the launcher refuses with cudaErrorInvalidValue is
// a SKIP line (counted apart, not a failure), and finish() prints
// "VARIANT tag variant ran=R skipped=S" (R: sizes it launched) and
// "S skipped (variant cannot run this size)" before the last line.
// Define PM_REPORT_TAG (a string expression: the checker's default tag)
// before including.
#ifndef PM_GPU_REPORT_CUH
#define PM_GPU_REPORT_CUH

#include <cuda_runtime.h>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pm_report {

static int n_pass = 0, n_fail = 0, n_skip = 0, n_ran = 0;
static std::string tag = PM_REPORT_TAG;
// POLYMMA_VARIANT, or "" where unset (the plan chooses)
static const char *forced_env() {
	const char *v = getenv("POLYMMA_VARIANT");
	return v ? v : "";
}
static const std::string forced = forced_env();
// The tag of case lines: tag, then @VARIANT where one is forced.
static std::string line_tag() {
	return forced.empty() ? tag : tag + "@" + forced;
}

[[noreturn]] static void finish() {
	if (!forced.empty())
		printf("VARIANT %s %s ran=%d skipped=%d\n", tag.c_str(),
			forced.c_str(), n_ran, n_skip);
	if (n_skip)
		printf("%d skipped (variant cannot run this size)\n", n_skip);
	printf("%d passed, %d failed\n", n_pass, n_fail);
	fflush(stdout);
	exit(n_fail ? 1 : 0);
}
// An infrastructure error (or a sticky kernel fault): count it, stop.
[[noreturn]] static void die(const char *what, const char *why) {
	printf("FAIL %s - aborted: %s: %s\n", line_tag().c_str(), what, why);
	n_fail++;
	finish();
}

static void result(bool ok, const char *sub, int64_t M, int64_t N, int64_t K,
	const std::string &info) {
	printf("%s %s%s %" PRId64 "x%" PRId64 "x%" PRId64 " %s\n", ok ? "PASS" : "FAIL",
		line_tag().c_str(), sub, M, N, K, info.c_str());
	fflush(stdout);
	(ok ? n_pass : n_fail)++;
}

// A size the forced variant cannot run: its launcher returned
// cudaErrorInvalidValue and wrote nothing (the caller checked).
static void skip(const char *sub, int64_t M, int64_t N, int64_t K) {
	printf("SKIP %s%s %" PRId64 "x%" PRId64 "x%" PRId64
		" (variant cannot run this size)\n", line_tag().c_str(), sub, M, N, K);
	fflush(stdout);
	n_skip++;
}
// Whether a launcher's return r is a forced variant's refusal of the size.
static bool refused_by_force(cudaError_t r) {
	return !forced.empty() && r == cudaErrorInvalidValue;
}

static uint64_t mix(uint64_t z) {	// splitmix64 finaliser
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

} // namespace pm_report

#endif

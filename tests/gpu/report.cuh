// Shared by the GPU checkers (check_gemm.cu, check_fused.cu): PASS/FAIL
// lines, the final "N passed, M failed", aborting on infrastructure errors,
// and the splitmix64 finaliser behind their random inputs.
// Define PM_REPORT_TAG (a string expression: the checker's default tag)
// before including.
#ifndef PM_GPU_REPORT_CUH
#define PM_GPU_REPORT_CUH

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace pm_report {

static int n_pass = 0, n_fail = 0;
static std::string tag = PM_REPORT_TAG;

[[noreturn]] static void finish() {
	printf("%d passed, %d failed\n", n_pass, n_fail);
	fflush(stdout);
	exit(n_fail ? 1 : 0);
}
// An infrastructure error (or a sticky kernel fault): count it, stop.
[[noreturn]] static void die(const char *what, const char *why) {
	printf("FAIL %s - aborted: %s: %s\n", tag.c_str(), what, why);
	n_fail++;
	finish();
}

static void result(bool ok, const char *sub, int64_t M, int64_t N, int64_t K,
	const std::string &info) {
	printf("%s %s%s %" PRId64 "x%" PRId64 "x%" PRId64 " %s\n", ok ? "PASS" : "FAIL",
		tag.c_str(), sub, M, N, K, info.c_str());
	fflush(stdout);
	(ok ? n_pass : n_fail)++;
}

static uint64_t mix(uint64_t z) {	// splitmix64 finaliser
	z += 0x9E3779B97F4A7C15ull;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

} // namespace pm_report

#endif

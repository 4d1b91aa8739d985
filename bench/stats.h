/* The pure logic of the benchmark harness: size sets, the comparison gate,
 * medians, the CSV format and the summary statistics.
 *
 * Plain C11 with no CUDA: compiled with cc into the GPU bench
 * (bench/bench.cu), the report program (bench/report.c) and the CPU test
 * tests/test_bench.c, which includes stats.c directly. */
#ifndef POLYMMA_BENCH_STATS_H
#define POLYMMA_BENCH_STATS_H

#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- size sets ---------------------------------------------------------- */

struct bench_size {
	int64_t m, n, k;
	const char *set;	/* "paper", "square", "llm" or "custom" (static) */
};

#define BENCH_PAPER_N 100	/* sizes of the paper set by default */
#define BENCH_PAPER_QUICK_N 10	/* --quick: the first 10 of the same sequence */
#define BENCH_PAPER_SEED 2020u	/* the paper's year; any fixed value would do */
#define BENCH_PAPER_STEP 128	/* every paper size is a multiple of this ... */
#define BENCH_PAPER_MAX 4096	/* ... in [BENCH_PAPER_STEP, BENCH_PAPER_MAX] */

/* splitmix64: the generator behind the paper set (same sequence everywhere). */
uint64_t bench_rng_next(uint64_t *state);

/* Appends the sizes of SET ("paper", "square", "llm", or "all" for the three
 * in that order) to OUT[*N..CAP). quick selects the --quick subset; PAPER_N
 * is the length of the paper set (ignored with quick); SEED its seed.
 * Returns 0, or -1 for an unknown set or too small a CAP. */
int bench_sizes(const char *set, int quick, int paper_n, uint64_t seed,
	struct bench_size *out, int *n, int cap);

/* "MxNxK" -> size (set "custom"); returns 0, or -1 if malformed. */
int bench_parse_size(const char *text, struct bench_size *out);

/* ---- numbers ------------------------------------------------------------ */

float bench_half_to_float(uint16_t h);
uint16_t bench_float_to_half(float f);	/* round to nearest even */
/* bfloat16 (the top half of a float) and fp8 e4m3 (1 sign, 4 exponent bits
 * of bias 7, 3 mantissa bits; no Inf, S.1111.111 is NaN): bit patterns. */
float bench_bf16_to_float(uint16_t h);
uint16_t bench_float_to_bf16(float f);	/* round to nearest even */
float bench_e4m3_to_float(uint8_t x);

/* Median of V[0..N) (sorts V in place); NAN when N == 0. */
double bench_median(double *v, int n);

/* ---- the comparison gate ------------------------------------------------ */

/* Default tolerances: fp16 outputs of an fp32-accumulated product, compared
 * with an independently rounded result (a library, or a chain of kernels that
 * rounds its intermediates to fp16). */
#define BENCH_TOL_REL_L2 2e-3	/* ||out - ref||_2 / ||ref||_2 */
#define BENCH_TOL_MAX 1e-2	/* max |out - ref| / max |ref| */
/* bf16 outputs (--dtype bf16, and f8's bf16 output): 3 mantissa bits fewer
 * than fp16, so one rounding costs 8x as much (a relative RMS of ~1.6e-3,
 * at most 2^-8 of the largest element per rounding; the unfused baselines
 * round up to three times). i32 outputs (--dtype i8) must match exactly:
 * tolerances 0. */
#define BENCH_TOL_REL_L2_BF16 1e-2
#define BENCH_TOL_MAX_BF16 3e-2

struct bench_cmp {
	double rel_l2;		/* ||out - ref||_2 / ||ref||_2 over finite pairs */
	double max_err;		/* max |out - ref| / max |ref| over finite pairs */
	int64_t nonfinite;	/* elements where out or ref is NaN or Inf */
	int ok;			/* the verdict of the gate */
};

/* Compares OUT with REF (N floats). Passes iff no element of either is
 * non-finite, N > 0, rel_l2 <= TOL_REL and max_err <= TOL_MAX. An all-zero
 * REF passes only when OUT is all zero as well. */
struct bench_cmp bench_compare(const float *out, const float *ref, int64_t n,
	double tol_rel, double tol_max);
/* The same on fp16 arrays (bit patterns). */
struct bench_cmp bench_compare_f16(const uint16_t *out, const uint16_t *ref,
	int64_t n, double tol_rel, double tol_max);
/* ... on bf16 arrays (bit patterns) */
struct bench_cmp bench_compare_bf16(const uint16_t *out, const uint16_t *ref,
	int64_t n, double tol_rel, double tol_max);
/* ... on int32 arrays, in double (exact): tolerances 0 demand equality */
struct bench_cmp bench_compare_i32(const int32_t *out, const int32_t *ref,
	int64_t n, double tol_rel, double tol_max);
/* ... on doubles (an exact integer output against fp64 samples) */
struct bench_cmp bench_compare_f64(const double *out, const double *ref,
	int64_t n, double tol_rel, double tol_max);

/* ---- CSV ---------------------------------------------------------------- */

/* One row per (set, idiom, size, variant). variant is "polymma", "cublas"
 * (the paper's baseline: cublasGemmEx plus separate pointwise kernels) or
 * "cublaslt" (today's: cuBLASLt with a fused epilogue where one applies);
 * GEMM+bias+ReLU also has "cublas_1pw" (cublasGemmEx plus one hand-fused
 * bias+ReLU kernel).
 * status is "ok" (timed), "unsupported" (the generator or its launcher
 * cannot do this idiom or size yet), "fail" (wrong result: not timed) or
 * "error" (a build, launch or library error). Absent numbers are NAN and
 * empty in the file. speedup_cublas = cublas ms / this row's ms, likewise
 * speedup_cublaslt: on a polymma row, polymma's speedups. */
struct bench_row {
	char set[16];
	char idiom[32];
	int64_t m, n, k;
	char variant[16];
	char status[16];
	double ms, tflops, speedup_cublas, speedup_cublaslt;
	double rel_err, max_err;
	int nsets, reps;
	char config[128];
	char note[256];
};

#define BENCH_CSV_HEADER "set,idiom,M,N,K,variant,status,ms,tflops," \
	"speedup_cublas,speedup_cublaslt,rel_err,max_err,nsets,reps,config,note"

/* Copies SRC into DST (CAP bytes, truncating) with control characters
 * (newlines too) turned into spaces. The writer quotes fields that hold
 * commas or quotes (RFC 4180), and the reader understands that quoting. */
void bench_field(char *dst, size_t cap, const char *src);
void bench_csv_write_header(FILE *f);
void bench_csv_write_row(FILE *f, const struct bench_row *r);
/* Parses one data line (no header, no '#' line); returns 0 or -1. */
int bench_csv_parse_row(const char *line, struct bench_row *r);
/* Reads a whole CSV: skips the header, blank lines and '#' comment lines
 * (whose text, without "# ", is appended to *COMMENTS when non-NULL,
 * one per line). Returns the number of rows (*ROWS malloc'ed), -1 on a
 * malformed line (its number in *BAD_LINE when non-NULL). */
int bench_csv_read(FILE *f, struct bench_row **rows, char **comments,
	int *bad_line);

/* ---- summary ------------------------------------------------------------ */

/* polymma against one baseline over the rows of one idiom (and one set, or
 * all). A size counts as timed when its polymma row is "ok" and has a
 * finite positive speedup against that baseline. */
struct bench_summary {
	int sizes;		/* polymma rows */
	int timed;		/* ... with a speedup against this baseline */
	int unsupported;	/* polymma rows "unsupported" */
	int failed;		/* polymma rows "fail" or "error" */
	int no_baseline;	/* polymma "ok" but the baseline not timed */
	int at_least_1;		/* timed sizes with speedup >= 1.0 */
	double geomean, min, max;	/* NAN when timed == 0 */
};

/* SET NULL: every set. BASELINE: "cublas" or "cublaslt" (the polymma
 * row's speedup columns), or any other variant's name: then the speedup
 * is that variant's ms at the same set, idiom and size over polymma's
 * ("cublas_1pw"). */
struct bench_summary bench_summarize(const struct bench_row *rows, int n,
	const char *idiom, const char *set, const char *baseline);

/* The idioms in the benchmark's order. */
extern const char *const bench_idioms[4];
#define BENCH_N_IDIOMS 4

/* The element type of a run from its CSV's '#' lines (COMMENTS as
 * bench_csv_read gives them): the word after "dtype: " at a line's start
 * ("bf16", "i8", ...), or "f16" when there is none (the runs before
 * --dtype were all fp16). */
void bench_csv_dtype(const char *comments, char *dst, size_t cap);

/* Writes the markdown summary of ROWS: the whole table, then one per set.
 * COMMENTS (may be NULL) are the CSV's '#' lines, listed as the run's
 * provenance; the title names the element type (bench_csv_dtype). */
void bench_write_summary(FILE *f, const struct bench_row *rows, int n,
	const char *comments);

#ifdef __cplusplus
}
#endif
#endif

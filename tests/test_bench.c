/* The benchmark harness's own logic (bench/stats.c, included here): the
 * comparison gate, medians, fp16 conversion, the size sets, the CSV format
 * and the summary statistics on a known CSV. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/stats.c"
#include "bench/numbers.c"

/* ---- the comparison gate ------------------------------------------------ */

#define NG 4096

static void fill_ref(float *ref)
{
	uint64_t st = 42;
	int i;

	for (i = 0; i < NG; ++i)	/* values of a K = 1024 product: |x| ~ 10 */
		ref[i] = (float) ((double) (bench_rng_next(&st) >> 11) / 9007199254740992.0 *
			40.0 - 20.0);
}

static void test_gate_accepts_rounding(void **state)
{
	static float ref[NG], out[NG];
	struct bench_cmp c;
	int i;

	(void) state;
	fill_ref(ref);
	memcpy(out, ref, sizeof out);
	c = bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX);
	assert_true(c.ok);
	assert_true(c.rel_l2 == 0 && c.max_err == 0 && c.nonfinite == 0);
	/* fp16 rounding of both sides, as two libraries would: passes */
	for (i = 0; i < NG; ++i)
		out[i] = bench_half_to_float(bench_float_to_half(ref[i] * (1 + 3e-4f)));
	c = bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX);
	assert_true(c.ok);
	assert_true(c.rel_l2 > 0 && c.rel_l2 < 1e-3);
}

static void test_gate_rejects_wrong(void **state)
{
	static float ref[NG], out[NG];
	struct bench_cmp c;
	int i;

	(void) state;
	fill_ref(ref);
	/* one wrong element: the L2 norm hardly notices, the max error does */
	memcpy(out, ref, sizeof out);
	out[1234] += 5.0f;
	c = bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX);
	assert_false(c.ok);
	assert_true(c.max_err > BENCH_TOL_MAX);
	/* one unwritten (NaN) element */
	memcpy(out, ref, sizeof out);
	out[7] = NAN;
	c = bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX);
	assert_false(c.ok);
	assert_int_equal(c.nonfinite, 1);
	/* an Inf */
	out[7] = INFINITY;
	assert_false(bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	/* a small error everywhere (a wrong scale) */
	for (i = 0; i < NG; ++i)
		out[i] = ref[i] * 1.005f;
	c = bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX);
	assert_false(c.ok);
	assert_true(c.rel_l2 > BENCH_TOL_REL_L2);
	/* a transposed result */
	for (i = 0; i < NG; ++i)
		out[i] = ref[(i % 64) * 64 + i / 64];
	assert_false(bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	/* all zero (an output never written by a kernel that skipped the work) */
	memset(out, 0, sizeof out);
	assert_false(bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	/* a NaN in the reference fails too, and so does nothing to compare */
	memcpy(out, ref, sizeof out);
	ref[3] = NAN;
	assert_false(bench_compare(out, ref, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	assert_false(bench_compare(out, ref, 0, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
}

static void test_gate_zero_reference(void **state)
{
	float ref[8] = { 0 }, out[8] = { 0 };

	(void) state;
	assert_true(bench_compare(out, ref, 8, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	out[2] = 1e-3f;
	assert_false(bench_compare(out, ref, 8, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
}

static void test_gate_f16(void **state)
{
	static float ref[NG];
	static uint16_t r[NG], o[NG];
	int i;

	(void) state;
	fill_ref(ref);
	for (i = 0; i < NG; ++i)
		r[i] = o[i] = bench_float_to_half(ref[i]);
	assert_true(bench_compare_f16(o, r, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	for (i = 0; i < NG; i += 3)	/* one ulp off in a third of them: ok */
		o[i] ^= 1;
	assert_true(bench_compare_f16(o, r, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	o[100] = 0xFFFF;		/* the poison: never written */
	assert_false(bench_compare_f16(o, r, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	o[100] = r[100] ^ 0x8000;	/* a sign flip */
	assert_false(bench_compare_f16(o, r, NG, BENCH_TOL_REL_L2, BENCH_TOL_MAX).ok);
	o[100] = 0x7C00;		/* +Inf */
	assert_int_equal(bench_compare_f16(o, r, NG, BENCH_TOL_REL_L2,
		BENCH_TOL_MAX).nonfinite, 1);
}

/* ---- numbers ------------------------------------------------------------ */

static void test_half(void **state)
{
	(void) state;
	assert_int_equal(bench_float_to_half(1.0f), 0x3C00);
	assert_int_equal(bench_float_to_half(-2.0f), 0xC000);
	assert_int_equal(bench_float_to_half(65504.0f), 0x7BFF);
	assert_int_equal(bench_float_to_half(1e6f), 0x7C00);
	assert_int_equal(bench_float_to_half(5.9604644775390625e-8f), 0x0001);
	assert_int_equal(bench_float_to_half(0.0f), 0x0000);
	/* ties to even: 1 + 2^-11 -> 1, 1 + 3 * 2^-11 -> 1 + 2^-9 */
	assert_int_equal(bench_float_to_half(1.0f + 1.0f / 2048), 0x3C00);
	assert_int_equal(bench_float_to_half(1.0f + 3.0f / 2048), 0x3C02);
	assert_true(bench_half_to_float(0x3555) > 0.3332f &&
		bench_half_to_float(0x3555) < 0.3334f);
	assert_true(bench_half_to_float(0x0001) == 5.9604644775390625e-8f);
	assert_true(isnan(bench_half_to_float(0xFFFF)));
	assert_true(isinf(bench_half_to_float(0x7C00)));
	for (unsigned h = 0; h < 0x7C00; h += 7)	/* round trip of finite halves */
		assert_int_equal(bench_float_to_half(bench_half_to_float((uint16_t) h)), h);
}

static void test_median(void **state)
{
	double a[] = { 5, 1, 4, 2, 3 }, b[] = { 4, 1, 3, 2 }, c[] = { 7 };

	(void) state;
	assert_true(bench_median(a, 5) == 3.0);
	assert_true(bench_median(b, 4) == 2.5);
	assert_true(bench_median(c, 1) == 7.0);
	assert_true(isnan(bench_median(c, 0)));
}

/* ---- size sets ---------------------------------------------------------- */

static void test_sizes(void **state)
{
	struct bench_size full[200], again[200], quick[200], s;
	int n = 0, m = 0, q = 0, i;

	(void) state;
	assert_int_equal(bench_sizes("paper", 0, 100, BENCH_PAPER_SEED, full, &n, 200), 0);
	assert_int_equal(n, 100);
	for (i = 0; i < n; ++i) {
		assert_true(full[i].m % 128 == 0 && full[i].m >= 128 && full[i].m <= 4096);
		assert_true(full[i].n % 128 == 0 && full[i].n >= 128 && full[i].n <= 4096);
		assert_true(full[i].k % 128 == 0 && full[i].k >= 128 && full[i].k <= 4096);
		assert_string_equal(full[i].set, "paper");
	}
	/* a fixed seed: the same sizes every time; quick is a prefix */
	assert_int_equal(bench_sizes("paper", 0, 100, BENCH_PAPER_SEED, again, &m, 200), 0);
	assert_memory_equal(full, again, sizeof full[0] * 100);
	assert_int_equal(bench_sizes("paper", 1, 100, BENCH_PAPER_SEED, quick, &q, 200), 0);
	assert_int_equal(q, BENCH_PAPER_QUICK_N);
	assert_memory_equal(full, quick, sizeof full[0] * BENCH_PAPER_QUICK_N);
	/* the sizes are spread: not all equal, both ends of the range reachable */
	{
		int64_t lo = 4096, hi = 0;

		for (i = 0; i < n; ++i) {
			lo = full[i].m < lo ? full[i].m : lo;
			hi = full[i].m > hi ? full[i].m : hi;
		}
		assert_true(lo <= 512 && hi >= 3712);
	}
	/* another seed, other sizes */
	m = 0;
	assert_int_equal(bench_sizes("paper", 0, 100, 7, again, &m, 200), 0);
	assert_memory_not_equal(full, again, sizeof full[0] * 100);

	n = 0;
	assert_int_equal(bench_sizes("square", 0, 100, 1, full, &n, 200), 0);
	assert_int_equal(n, 6);
	assert_true(full[0].m == 1024 && full[n - 1].m == 8192 && full[n - 1].k == 8192);
	n = 0;
	assert_int_equal(bench_sizes("llm", 1, 100, 1, full, &n, 200), 0);
	assert_int_equal(n, 2);
	assert_true(full[0].m == 4096 && full[0].n == 11008 && full[0].k == 4096);
	assert_true(full[1].m == 16 && full[1].n == 4096 && full[1].k == 4096);
	n = 0;
	assert_int_equal(bench_sizes("all", 1, 100, BENCH_PAPER_SEED, full, &n, 200), 0);
	assert_int_equal(n, 10 + 3 + 2);
	assert_string_equal(full[10].set, "square");
	assert_string_equal(full[14].set, "llm");
	/* decode: M from 1 to 64, N and K large; odd: no size a multiple of
	 * the 64 tile in every dimension, N and K whole 16-byte rows */
	n = 0;
	assert_int_equal(bench_sizes("decode", 0, 100, 1, full, &n, 200), 0);
	assert_int_equal(n, 25);
	for (i = 0; i < n; ++i) {
		assert_true(full[i].m >= 1 && full[i].m <= 64);
		assert_true(full[i].n >= 4096 && full[i].k >= 4096);
		assert_string_equal(full[i].set, "decode");
	}
	assert_true(full[0].m == 1 && full[4].m == 64);
	n = 0;
	assert_int_equal(bench_sizes("odd", 0, 100, 1, full, &n, 200), 0);
	assert_int_equal(n, 10);
	for (i = 0; i < n; ++i) {
		assert_true(full[i].m % 64 || full[i].n % 64 || full[i].k % 64);
		assert_true(full[i].n % 8 == 0 && full[i].k % 8 == 0);
	}
	n = 0;
	assert_int_equal(bench_sizes("nope", 0, 100, 1, full, &n, 200), -1);
	n = 0;
	assert_int_equal(bench_sizes("paper", 0, 100, 1, full, &n, 50), -1);

	assert_int_equal(bench_parse_size("16x4096x11008", &s), 0);
	assert_true(s.m == 16 && s.n == 4096 && s.k == 11008);
	assert_int_equal(bench_parse_size("16x4096", &s), -1);
	assert_int_equal(bench_parse_size("16x4096x0", &s), -1);
	assert_int_equal(bench_parse_size("1x2x3x", &s), -1);
}

/* ---- CSV and summary ---------------------------------------------------- */

static FILE *text_file(const char *text)
{
	FILE *f = tmpfile();

	assert_non_null(f);
	fputs(text, f);
	rewind(f);
	return f;
}

static void test_csv_round_trip(void **state)
{
	struct bench_row r, back, *rows;
	char *comments;
	int n;
	FILE *f = tmpfile();

	(void) state;
	assert_non_null(f);
	memset(&r, 0, sizeof r);
	strcpy(r.set, "llm");
	strcpy(r.idiom, "gemm_bias_relu");
	r.m = 16;
	r.n = 4096;
	r.k = 11008;
	strcpy(r.variant, "polymma");
	strcpy(r.status, "fail");
	r.ms = r.tflops = r.speedup_cublas = r.speedup_cublaslt = NAN;
	r.rel_err = 0.0125;
	r.max_err = NAN;
	r.nsets = 4;
	strcpy(r.config, "sm_80 block=128x128x32");
	strcpy(r.note, "against cublas: rel_l2=1.2e-02, \"bad\"\nline");
	fputs("# device: Test GPU (sm_90)\n", f);
	bench_csv_write_header(f);
	bench_csv_write_row(f, &r);
	rewind(f);
	n = bench_csv_read(f, &rows, &comments, NULL);
	fclose(f);
	assert_int_equal(n, 1);
	back = rows[0];
	assert_string_equal(back.set, "llm");
	assert_string_equal(back.idiom, "gemm_bias_relu");
	assert_true(back.m == 16 && back.n == 4096 && back.k == 11008);
	assert_string_equal(back.status, "fail");
	assert_true(isnan(back.ms) && isnan(back.speedup_cublaslt) && isnan(back.max_err));
	assert_true(fabs(back.rel_err - 0.0125) < 1e-9);
	assert_int_equal(back.nsets, 4);
	assert_int_equal(back.reps, 0);
	assert_string_equal(back.config, "sm_80 block=128x128x32");
	assert_string_equal(back.note, "against cublas: rel_l2=1.2e-02, \"bad\" line");
	assert_string_equal(comments, "device: Test GPU (sm_90)\n");
	free(rows);
	free(comments);
}

/* bench_write_summary's markdown of ROWS, malloc'ed. */
static char *summary_md(const struct bench_row *rows, int n,
	const char *comments)
{
	FILE *f = tmpfile();
	size_t len;
	char *md;

	assert_non_null(f);
	bench_write_summary(f, rows, n, comments);
	len = (size_t) ftell(f);
	rewind(f);
	md = calloc(len + 1, 1);
	assert_non_null(md);
	assert_int_equal(fread(md, 1, len, f), len);
	fclose(f);
	return md;
}

/* A known CSV: gemm's polymma speedups vs cublas 0.5, 2, 1 and vs cublaslt
 * 0.25, 4, 0.5 over three timed sizes, plus one unsupported size, one wrong
 * result and one where the baselines were not timed; relu_gemm is
 * unsupported everywhere. */
static const char known_csv[] =
	"# device: Test GPU (sm_90, 132 SMs)\n"
	BENCH_CSV_HEADER "\n"
	"paper,gemm,128,128,128,polymma,ok,0.2,1,0.5,0.25,1e-4,1e-3,8,30,cfg,\n"
	"paper,gemm,128,128,128,cublas,ok,0.1,2,1,0.5,1e-4,1e-3,8,30,cublasGemmEx,\n"
	"paper,gemm,128,128,128,cublaslt,ok,0.05,4,2,1,1e-4,1e-3,8,30,lt,\n"
	"paper,gemm,256,128,128,polymma,ok,0.1,2,2,4,,,8,30,cfg,\n"
	"square,gemm,1024,1024,1024,polymma,ok,1,2,1.0,0.5,,,2,30,cfg,\n"
	"square,gemm,2048,2048,2048,polymma,unsupported,,,,,,,,,,launcher refused\n"
	"llm,gemm,16,4096,4096,polymma,fail,,,,,0.5,0.9,,,cfg,wrong\n"
	"llm,gemm,4096,4096,4096,polymma,ok,1,2,,,,,2,30,cfg,\n"
	"\n"
	"paper,relu_gemm,128,128,128,polymma,unsupported,,,,,,,,,,polymma gen: unsupported\n"
	"paper,relu_gemm,128,128,128,cublas,ok,0.1,2,1,0.5,,,8,30,x,\n";

static void test_summary_known_csv(void **state)
{
	struct bench_row *rows;
	struct bench_summary s;
	char *comments, *md;
	int n;
	FILE *f = text_file(known_csv);

	(void) state;
	n = bench_csv_read(f, &rows, &comments, NULL);
	fclose(f);
	assert_int_equal(n, 10);

	s = bench_summarize(rows, n, "gemm", NULL, "cublas");
	assert_int_equal(s.sizes, 6);
	assert_int_equal(s.timed, 3);
	assert_int_equal(s.unsupported, 1);
	assert_int_equal(s.failed, 1);
	assert_int_equal(s.no_baseline, 1);
	assert_int_equal(s.at_least_1, 2);	/* 2.0 and exactly 1.0 */
	assert_true(fabs(s.geomean - 1.0) < 1e-12);
	assert_true(s.min == 0.5 && s.max == 2.0);

	s = bench_summarize(rows, n, "gemm", NULL, "cublaslt");
	assert_int_equal(s.timed, 3);
	assert_int_equal(s.at_least_1, 1);
	assert_true(fabs(s.geomean - cbrt(0.5)) < 1e-12);
	assert_true(s.min == 0.25 && s.max == 4.0);

	s = bench_summarize(rows, n, "gemm", "paper", "cublas");
	assert_int_equal(s.sizes, 2);
	assert_int_equal(s.timed, 2);
	assert_true(fabs(s.geomean - 1.0) < 1e-12);
	s = bench_summarize(rows, n, "gemm", "square", "cublaslt");
	assert_int_equal(s.timed, 1);
	assert_int_equal(s.unsupported, 1);
	assert_true(s.geomean == 0.5 && s.min == 0.5 && s.max == 0.5);

	s = bench_summarize(rows, n, "relu_gemm", NULL, "cublas");
	assert_int_equal(s.sizes, 1);
	assert_int_equal(s.timed, 0);
	assert_int_equal(s.unsupported, 1);
	assert_true(isnan(s.geomean) && isnan(s.min) && isnan(s.max));
	s = bench_summarize(rows, n, "add_gemm", NULL, "cublas");
	assert_int_equal(s.sizes, 0);

	/* the markdown carries the same numbers */
	md = summary_md(rows, n, comments);
	assert_non_null(strstr(md, "- device: Test GPU (sm_90, 132 SMs)\n"));
	assert_non_null(strstr(md, "| gemm | cublas | 6 | 3 | 1.000× | 0.500× | 2.000× "
		"| 2 of 3 | 1 | 2 |\n"));
	assert_non_null(strstr(md, "| gemm | cublaslt | 6 | 3 | 0.794× | 0.250× | 4.000× "
		"| 1 of 3 | 1 | 2 |\n"));
	assert_non_null(strstr(md, "| relu_gemm | cublas | 1 | 0 | — | — | — | — | 1 | 0 |\n"));
	assert_non_null(strstr(md, "## Set square\n"));
	assert_non_null(strstr(md, "| gemm | polymma | 4 | "));
	assert_non_null(strstr(md, "| relu_gemm | polymma | unsupported | 1 | 128x128x128 "
		"| polymma gen: unsupported |\n"));
	free(md);
	free(rows);
	free(comments);
}

/* A third baseline by name: GEMM+bias+ReLU's cublas_1pw rows. polymma 0.1
 * and 0.4 ms against cublas_1pw 0.2 (speedup 2) and 0.2 (0.5); at the third
 * size cublas_1pw failed (no baseline); gemm has no cublas_1pw rows, so its
 * table has no such line. */
static const char pw_csv[] =
	BENCH_CSV_HEADER "\n"
	"paper,gemm,128,128,128,polymma,ok,0.2,1,0.5,0.25,,,8,30,cfg,\n"
	"paper,gemm_bias_relu,128,128,128,polymma,ok,0.1,1,3,1,,,8,30,cfg,\n"
	"paper,gemm_bias_relu,128,128,128,cublas,ok,0.3,1,1,,,,8,30,x,\n"
	"paper,gemm_bias_relu,128,128,128,cublas_1pw,ok,0.2,1,1.5,,,,8,30,x,\n"
	"paper,gemm_bias_relu,256,128,128,polymma,ok,0.4,1,1,1,,,8,30,cfg,\n"
	"paper,gemm_bias_relu,256,128,128,cublas_1pw,ok,0.2,1,1,,,,8,30,x,\n"
	"paper,gemm_bias_relu,128,256,128,polymma,ok,0.4,1,1,1,,,8,30,cfg,\n"
	"paper,gemm_bias_relu,128,256,128,cublas_1pw,fail,,,,,,,,,x,wrong\n";

static void test_summary_named_baseline(void **state)
{
	struct bench_row *rows;
	struct bench_summary s;
	char *md;
	int n;
	FILE *f = text_file(pw_csv);

	(void) state;
	n = bench_csv_read(f, &rows, NULL, NULL);
	fclose(f);
	assert_int_equal(n, 8);
	s = bench_summarize(rows, n, "gemm_bias_relu", NULL, "cublas_1pw");
	assert_int_equal(s.sizes, 3);
	assert_int_equal(s.timed, 2);
	assert_int_equal(s.no_baseline, 1);
	assert_int_equal(s.at_least_1, 1);
	assert_true(fabs(s.geomean - 1.0) < 1e-12);
	assert_true(s.min == 0.5 && s.max == 2.0);
	s = bench_summarize(rows, n, "gemm", NULL, "cublas_1pw");
	assert_int_equal(s.timed, 0);
	assert_int_equal(s.no_baseline, 1);

	md = summary_md(rows, n, NULL);
	assert_non_null(strstr(md, "| gemm_bias_relu | cublas_1pw | 3 | 2 | 1.000× "
		"| 0.500× | 2.000× | 1 of 2 | 0 | 1 |\n"));
	assert_null(strstr(md, "| gemm | cublas_1pw |"));
	assert_non_null(strstr(md, "| gemm_bias_relu | cublas_1pw | 2 | "));
	free(md);
	free(rows);
}

static void test_csv_malformed(void **state)
{
	struct bench_row *rows;
	int n, bad = 0;
	FILE *f = text_file(BENCH_CSV_HEADER "\n"
		"paper,gemm,128,128,128,polymma,ok,0.2,1,0.5,0.25,,,8,30,cfg,\n"
		"paper,gemm,128,oops,128,polymma,ok,0.2,1,0.5,0.25,,,8,30,cfg,\n");

	(void) state;
	n = bench_csv_read(f, &rows, NULL, &bad);
	fclose(f);
	assert_int_equal(n, -1);
	assert_int_equal(bad, 3);
	assert_null(rows);
	f = text_file("paper,gemm,128,128,128,polymma,ok\n");	/* too few fields */
	assert_int_equal(bench_csv_read(f, &rows, NULL, &bad), -1);
	fclose(f);
	f = text_file("paper,gemm,128,128,128,polymma,ok,,,,,,,,,,a,b\n");	/* too many */
	assert_int_equal(bench_csv_read(f, &rows, NULL, &bad), -1);
	fclose(f);
	f = text_file("paper,gemm,128,128,128,polymma,ok,,,,,,,,,,\"open\n");	/* bad quote */
	assert_int_equal(bench_csv_read(f, &rows, NULL, &bad), -1);
	fclose(f);
	f = text_file("paper,gemm,128,128,128,polymma,ok,,,,,,,,,\"a,\"\"b\"\"\",\"x|y\"\n");
	assert_int_equal(bench_csv_read(f, &rows, NULL, &bad), 1);
	assert_string_equal(rows[0].config, "a,\"b\"");
	assert_string_equal(rows[0].note, "x|y");
	free(rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gate_accepts_rounding),
		cmocka_unit_test(test_gate_rejects_wrong),
		cmocka_unit_test(test_gate_zero_reference),
		cmocka_unit_test(test_gate_f16),
		cmocka_unit_test(test_half),
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test(test_csv_round_trip),
		cmocka_unit_test(test_summary_known_csv),
		cmocka_unit_test(test_summary_named_baseline),
		cmocka_unit_test(test_csv_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

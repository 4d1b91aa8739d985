/* The pure logic of the benchmark harness (see stats.h): size sets, CSV,
 * summary; the numbers are in numbers.c. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- size sets ---------------------------------------------------------- */

uint64_t bench_rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static int push(struct bench_size *out, int *n, int cap, int64_t m, int64_t nn,
	int64_t k, const char *set)
{
	if (*n >= cap)
		return -1;
	out[*n].m = m;
	out[*n].n = nn;
	out[*n].k = k;
	out[*n].set = set;
	++*n;
	return 0;
}

static const int64_t square_full[] = { 1024, 2048, 3072, 4096, 6144, 8192 };
static const int64_t square_quick[] = { 1024, 2048, 4096 };
/* LLM shapes (M tokens x N outputs x K inputs, LLaMA-7B-like layers): decode
 * (M = 16) and prefill (M = 4096) through the MLP and the fused QKV. */
static const int64_t llm_full[][3] = {
	{ 16, 4096, 4096 }, { 16, 11008, 4096 }, { 16, 4096, 11008 },
	{ 4096, 11008, 4096 }, { 4096, 4096, 11008 }, { 4096, 12288, 4096 },
};
static const int64_t llm_quick[][3] = {
	{ 4096, 11008, 4096 }, { 16, 4096, 4096 },
};

/* Decode (issue 28): M = 1 ... 64 tokens through LLaMA-like layers, N and K
 * from 4096, 11008, 14336: memory-bound, the weights (K x N) streamed once. */
static const int64_t decode_m[] = { 1, 8, 16, 32, 64 };
static const int64_t decode_nk[][2] = {
	{ 4096, 4096 }, { 11008, 4096 }, { 4096, 11008 }, { 14336, 4096 },
	{ 4096, 14336 },
};
static const int64_t decode_quick[][3] = { { 1, 4096, 4096 }, { 16, 11008, 4096 } };
/* Odd (issue 28): sizes that are not tile multiples, M, N and K each; N and
 * K stay multiples of 8 (16-byte rows of the row-major operands). */
static const int64_t odd_full[][3] = {
	{ 4095, 4096, 4096 }, { 4097, 4096, 4096 }, { 1000, 1000, 1000 },
	{ 777, 4104, 1000 }, { 4096, 4096, 1000 }, { 2047, 2056, 2056 },
	{ 8191, 8192, 4104 }, { 129, 4096, 4104 }, { 3000, 5000, 1000 },
	{ 127, 1000, 8000 },
};
static const int64_t odd_quick[][3] = { { 4095, 4096, 4096 }, { 1000, 1000, 1000 } };

#define COUNT(a) ((int) (sizeof(a) / sizeof((a)[0])))

static int push_list(struct bench_size *out, int *n, int cap,
	const int64_t (*v)[3], int count, const char *set)
{
	for (int i = 0; i < count; ++i)
		if (push(out, n, cap, v[i][0], v[i][1], v[i][2], set))
			return -1;
	return 0;
}

int bench_sizes(const char *set, int quick, int paper_n, uint64_t seed,
	struct bench_size *out, int *n, int cap)
{
	int i;

	if (!strcmp(set, "all")) {
		if (bench_sizes("paper", quick, paper_n, seed, out, n, cap) ||
		    bench_sizes("square", quick, paper_n, seed, out, n, cap) ||
		    bench_sizes("llm", quick, paper_n, seed, out, n, cap))
			return -1;
		return 0;
	}
	if (!strcmp(set, "paper")) {
		const int64_t steps = BENCH_PAPER_MAX / BENCH_PAPER_STEP;
		uint64_t st = seed;
		int count = quick ? BENCH_PAPER_QUICK_N : paper_n;

		for (i = 0; i < count; ++i) {
			int64_t m = BENCH_PAPER_STEP * (1 + (int64_t) (bench_rng_next(&st) % steps));
			int64_t nn = BENCH_PAPER_STEP * (1 + (int64_t) (bench_rng_next(&st) % steps));
			int64_t k = BENCH_PAPER_STEP * (1 + (int64_t) (bench_rng_next(&st) % steps));

			if (push(out, n, cap, m, nn, k, "paper"))
				return -1;
		}
		return 0;
	}
	if (!strcmp(set, "square")) {
		const int64_t *v = quick ? square_quick : square_full;
		int count = quick ? COUNT(square_quick) : COUNT(square_full);

		for (i = 0; i < count; ++i)
			if (push(out, n, cap, v[i], v[i], v[i], "square"))
				return -1;
		return 0;
	}
	if (!strcmp(set, "llm")) {
		const int64_t (*v)[3] = quick ? llm_quick : llm_full;
		int count = quick ? COUNT(llm_quick) : COUNT(llm_full);

		return push_list(out, n, cap, v, count, "llm");
	}
	if (!strcmp(set, "odd"))
		return quick ? push_list(out, n, cap, odd_quick, COUNT(odd_quick), "odd")
			     : push_list(out, n, cap, odd_full, COUNT(odd_full), "odd");
	if (!strcmp(set, "decode")) {
		if (quick)
			return push_list(out, n, cap, decode_quick, COUNT(decode_quick),
					 "decode");
		for (i = 0; i < COUNT(decode_nk); ++i)
			for (int j = 0; j < COUNT(decode_m); ++j)
				if (push(out, n, cap, decode_m[j], decode_nk[i][0],
					 decode_nk[i][1], "decode"))
					return -1;
		return 0;
	}
	return -1;
}

int bench_parse_size(const char *text, struct bench_size *out)
{
	long long m, n, k;
	char tail;

	if (sscanf(text, "%lldx%lldx%lld%c", &m, &n, &k, &tail) != 3 ||
	    m <= 0 || n <= 0 || k <= 0)
		return -1;
	out->m = m;
	out->n = n;
	out->k = k;
	out->set = "custom";
	return 0;
}

/* ---- CSV ---------------------------------------------------------------- */

void bench_field(char *dst, size_t cap, const char *src)
{
	size_t i = 0;

	if (!cap)
		return;
	for (; src && *src && i + 1 < cap; ++src) {
		char c = *src;

		if ((unsigned char) c < 0x20 || c == 0x7f)
			c = ' ';
		dst[i++] = c;
	}
	dst[i] = '\0';
}

/* One text field, quoted (RFC 4180) when it holds a comma or a quote. */
static void put_str(FILE *f, const char *s, int last)
{
	if (strpbrk(s, ",\"")) {
		fputc('"', f);
		for (; *s; ++s) {
			if (*s == '"')
				fputc('"', f);
			fputc(*s, f);
		}
		fputc('"', f);
	} else {
		fputs(s, f);
	}
	fputc(last ? '\n' : ',', f);
}

void bench_csv_write_header(FILE *f)
{
	fputs(BENCH_CSV_HEADER "\n", f);
}

static void put_num(FILE *f, const char *fmt, double v)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	fputc(',', f);
}

void bench_csv_write_row(FILE *f, const struct bench_row *r)
{
	char set[sizeof r->set], idiom[sizeof r->idiom], variant[sizeof r->variant];
	char status[sizeof r->status], config[sizeof r->config], note[sizeof r->note];

	bench_field(set, sizeof set, r->set);
	bench_field(idiom, sizeof idiom, r->idiom);
	bench_field(variant, sizeof variant, r->variant);
	bench_field(status, sizeof status, r->status);
	bench_field(config, sizeof config, r->config);
	bench_field(note, sizeof note, r->note);
	put_str(f, set, 0);
	put_str(f, idiom, 0);
	fprintf(f, "%lld,%lld,%lld,", (long long) r->m, (long long) r->n,
		(long long) r->k);
	put_str(f, variant, 0);
	put_str(f, status, 0);
	put_num(f, "%.5f", r->ms);
	put_num(f, "%.2f", r->tflops);
	put_num(f, "%.4f", r->speedup_cublas);
	put_num(f, "%.4f", r->speedup_cublaslt);
	put_num(f, "%.3e", r->rel_err);
	put_num(f, "%.3e", r->max_err);
	if (r->nsets > 0)
		fprintf(f, "%d", r->nsets);
	fputc(',', f);
	if (r->reps > 0)
		fprintf(f, "%d", r->reps);
	fputc(',', f);
	put_str(f, config, 0);
	put_str(f, note, 1);
}

/* Splits LINE into exactly NF fields (RFC 4180 quoting: "a, ""b""" is
 * a, "b"); returns the number of fields, or -1 on a bad quote. The fields
 * point into BUF (as large as LINE). */
#define NF 17
static int split(const char *line, char *buf, char *fields[NF])
{
	int n = 0;
	const char *p = line;
	char *o = buf;

	for (;;) {
		if (n == NF)
			return NF + 1;	/* too many */
		fields[n++] = o;
		if (*p == '"') {
			for (++p;; ++p) {
				if (!*p)
					return -1;
				if (*p == '"') {
					if (p[1] != '"')
						break;
					++p;
				}
				*o++ = *p;
			}
			++p;
			if (*p && *p != ',')
				return -1;
		} else {
			while (*p && *p != ',')
				*o++ = *p++;
		}
		*o++ = '\0';
		if (!*p)
			return n;
		++p;	/* the comma */
	}
}

static int get_num(const char *s, double *v)
{
	char *end;

	if (!*s) {
		*v = NAN;
		return 0;
	}
	*v = strtod(s, &end);
	return *end ? -1 : 0;
}

static int get_int(const char *s, long long *v, int empty_ok)
{
	char *end;

	if (!*s) {
		*v = 0;
		return empty_ok ? 0 : -1;
	}
	*v = strtoll(s, &end, 10);
	return *end ? -1 : 0;
}

static int get_str(char *dst, size_t cap, const char *s)
{
	if (strlen(s) >= cap)
		return -1;
	strcpy(dst, s);
	return 0;
}

int bench_csv_parse_row(const char *line, struct bench_row *r)
{
	char text[2048], buf[2048], *f[NF];
	size_t len = strlen(line);
	long long m, n, k, nsets, reps;

	if (len >= sizeof text)
		return -1;
	memcpy(text, line, len + 1);
	while (len && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = '\0';
	if (split(text, buf, f) != NF)
		return -1;
	memset(r, 0, sizeof *r);
	if (get_str(r->set, sizeof r->set, f[0]) ||
	    get_str(r->idiom, sizeof r->idiom, f[1]) ||
	    get_int(f[2], &m, 0) || get_int(f[3], &n, 0) || get_int(f[4], &k, 0) ||
	    get_str(r->variant, sizeof r->variant, f[5]) ||
	    get_str(r->status, sizeof r->status, f[6]) ||
	    get_num(f[7], &r->ms) || get_num(f[8], &r->tflops) ||
	    get_num(f[9], &r->speedup_cublas) || get_num(f[10], &r->speedup_cublaslt) ||
	    get_num(f[11], &r->rel_err) || get_num(f[12], &r->max_err) ||
	    get_int(f[13], &nsets, 1) || get_int(f[14], &reps, 1) ||
	    get_str(r->config, sizeof r->config, f[15]) ||
	    get_str(r->note, sizeof r->note, f[16]))
		return -1;
	if (!*r->idiom || !*r->variant || !*r->status)
		return -1;
	r->m = m;
	r->n = n;
	r->k = k;
	r->nsets = (int) nsets;
	r->reps = (int) reps;
	return 0;
}

static void append_str(char **s, size_t *len, const char *t)
{
	size_t n = strlen(t);
	char *p = (char *) realloc(*s, *len + n + 2);

	if (!p)
		return;
	memcpy(p + *len, t, n);
	*len += n;
	p[(*len)++] = '\n';
	p[*len] = '\0';
	*s = p;
}

int bench_csv_read(FILE *f, struct bench_row **rows, char **comments,
	int *bad_line)
{
	char line[2048];
	int n = 0, cap = 0, lineno = 0;
	size_t clen = 0;
	struct bench_row *v = NULL;

	if (comments)
		*comments = NULL;
	while (fgets(line, sizeof line, f)) {
		const char *p = line;

		++lineno;
		while (*p == ' ' || *p == '\t')
			++p;
		if (*p == '\n' || *p == '\r' || !*p)
			continue;
		if (*p == '#') {
			if (comments) {
				size_t l;

				for (++p; *p == ' '; ++p)
					;
				l = strlen(p);
				while (l && (p[l - 1] == '\n' || p[l - 1] == '\r'))
					--l;
				line[0] = '\0';
				memmove(line, p, l);
				line[l] = '\0';
				append_str(comments, &clen, line);
			}
			continue;
		}
		if (!strncmp(p, "set,idiom,", 10))
			continue;
		if (n == cap) {
			struct bench_row *w;

			cap = cap ? 2 * cap : 64;
			w = (struct bench_row *) realloc(v, (size_t) cap * sizeof *v);
			if (!w)
				goto bad;
			v = w;
		}
		if (bench_csv_parse_row(p, &v[n]))
			goto bad;
		++n;
	}
	*rows = v;
	return n;
bad:
	free(v);
	if (comments) {
		free(*comments);
		*comments = NULL;
	}
	if (bad_line)
		*bad_line = lineno;
	*rows = NULL;
	return -1;
}

/* ---- summary ------------------------------------------------------------ */

const char *const bench_idioms[4] = {
	"gemm", "relu_gemm", "gemm_bias_relu", "add_gemm",
};

/* The time of variant V at R's set, idiom and size, when it was timed;
 * NAN otherwise. */
static double variant_ms(const struct bench_row *rows, int n,
	const struct bench_row *r, const char *v)
{
	int i;

	for (i = 0; i < n; ++i) {
		const struct bench_row *q = &rows[i];

		if (!strcmp(q->variant, v) && !strcmp(q->idiom, r->idiom) &&
		    !strcmp(q->set, r->set) && q->m == r->m && q->n == r->n &&
		    q->k == r->k)
			return strcmp(q->status, "ok") ? NAN : q->ms;
	}
	return NAN;
}

struct bench_summary bench_summarize(const struct bench_row *rows, int n,
	const char *idiom, const char *set, const char *baseline)
{
	struct bench_summary s;
	double logsum = 0;
	int i, lt = !strcmp(baseline, "cublaslt");
	int col = lt || !strcmp(baseline, "cublas");

	memset(&s, 0, sizeof s);
	s.geomean = s.min = s.max = NAN;
	for (i = 0; i < n; ++i) {
		const struct bench_row *r = &rows[i];
		double x;

		if (strcmp(r->variant, "polymma") || strcmp(r->idiom, idiom) ||
		    (set && strcmp(r->set, set)))
			continue;
		s.sizes++;
		if (!strcmp(r->status, "unsupported")) {
			s.unsupported++;
			continue;
		}
		if (strcmp(r->status, "ok")) {
			s.failed++;
			continue;
		}
		x = !col ? variant_ms(rows, n, r, baseline) / r->ms :
			lt ? r->speedup_cublaslt : r->speedup_cublas;
		if (!isfinite(x) || x <= 0) {
			s.no_baseline++;
			continue;
		}
		if (!s.timed || x < s.min)
			s.min = x;
		if (!s.timed || x > s.max)
			s.max = x;
		s.timed++;
		s.at_least_1 += x >= 1.0;
		logsum += log(x);
	}
	if (s.timed)
		s.geomean = exp(logsum / s.timed);
	return s;
}

static void put_x(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.3f× |", v);
	else
		fputs(" — |", f);
}

/* Whether any row of IDIOM (in SET, or any) is of VARIANT. */
static int has_variant(const struct bench_row *rows, int n, const char *idiom,
	const char *set, const char *variant)
{
	int i;

	for (i = 0; i < n; ++i)
		if (!strcmp(rows[i].variant, variant) &&
		    !strcmp(rows[i].idiom, idiom) &&
		    (!set || !strcmp(rows[i].set, set)))
			return 1;
	return 0;
}

/* Whether IDIOM (in SET, or any) has rows of VARIANT and all of them are
 * "unsupported": a baseline that does not exist for this element type
 * (cublasGemmEx has no fp8) or idiom (i8 and f8 have GEMM only). */
static int only_unsupported(const struct bench_row *rows, int n,
	const char *idiom, const char *set, const char *variant)
{
	int i, any = 0;

	for (i = 0; i < n; ++i) {
		if (strcmp(rows[i].variant, variant) ||
		    strcmp(rows[i].idiom, idiom) ||
		    (set && strcmp(rows[i].set, set)))
			continue;
		if (strcmp(rows[i].status, "unsupported"))
			return 0;
		any = 1;
	}
	return any;
}

static void summary_table(FILE *f, const struct bench_row *rows, int n,
	const char *set)
{
	static const char *const base[3] = { "cublas", "cublaslt", "cublas_1pw" };
	int i, b;

	fputs("| idiom | baseline | sizes | timed | geomean | min | max | ≥ 1.0× "
		"| unsupported | failed |\n", f);
	fputs("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|\n", f);
	for (i = 0; i < BENCH_N_IDIOMS; ++i)
		for (b = 0; b < 3; ++b) {
			struct bench_summary s = bench_summarize(rows, n,
				bench_idioms[i], set, base[b]);

			if (!s.sizes || (b == 2 && !has_variant(rows, n,
			    bench_idioms[i], set, base[b])) ||
			    only_unsupported(rows, n, bench_idioms[i], set, base[b]))
				continue;
			fprintf(f, "| %s | %s | %d | %d |", bench_idioms[i], base[b],
				s.sizes, s.timed);
			put_x(f, s.geomean);
			put_x(f, s.min);
			put_x(f, s.max);
			if (s.timed)
				fprintf(f, " %d of %d |", s.at_least_1, s.timed);
			else
				fputs(" — |", f);
			fprintf(f, " %d | %d |\n", s.unsupported, s.failed + s.no_baseline);
		}
}

/* Text in a markdown table cell: '|' escaped. */
static void put_md(FILE *f, const char *s)
{
	for (; *s; ++s) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

static int same_group(const struct bench_row *a, const struct bench_row *b)
{
	return strcmp(a->status, "ok") && !strcmp(a->idiom, b->idiom) &&
		!strcmp(a->variant, b->variant) && !strcmp(a->status, b->status) &&
		!strcmp(a->note, b->note);
}

void bench_csv_dtype(const char *comments, char *dst, size_t cap)
{
	const char *p = comments;
	size_t len;

	snprintf(dst, cap, "f16");
	while (p && *p) {
		if (!strncmp(p, "dtype: ", 7)) {
			p += 7;
			len = strspn(p, "abcdefghijklmnopqrstuvwxyz0123456789");
			if (len && len < cap) {
				memcpy(dst, p, len);
				dst[len] = '\0';
			}
			return;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
}

void bench_write_summary(FILE *f, const struct bench_row *rows, int n,
	const char *comments)
{
	static const char *const sets[] = { "paper", "square", "llm", "custom" };
	static const char *const variants[] = { "polymma", "cublas", "cublaslt",
		"cublas_1pw" };
	int i, j, v, shown;
	char dtype[16];

	bench_csv_dtype(comments, dtype, sizeof dtype);

	fprintf(f, "# polymma benchmark summary (%s)\n\n", dtype);
	if (comments && *comments) {
		const char *p = comments;

		fputs("Run:\n\n", f);
		while (*p) {
			const char *e = strchr(p, '\n');
			int len = e ? (int) (e - p) : (int) strlen(p);

			fprintf(f, "- %.*s\n", len, p);
			p += len + (e ? 1 : 0);
		}
		fputc('\n', f);
	}
	fputs("Speedup = baseline time / polymma time for the same idiom and size "
		"(each time the median of the timed runs, CUDA events); above 1.0× "
		"polymma is faster. ", f);
	if (!strcmp(dtype, "i8") || !strcmp(dtype, "f8"))
		fprintf(f, "Baselines (%s: the GEMM idiom only, A M×K and B N×K, both "
			"K-major): `cublaslt` is cublasLtMatmul in the TN layout, and the "
			"gate's reference; `cublas` is %s.%s ", dtype,
			!strcmp(dtype, "i8") ? "cublasGemmEx, TN" :
			"absent (cublasGemmEx takes no fp8)",
			!strcmp(dtype, "i8") ? " The outputs (int32) must match exactly; "
			"TFLOP/s are TOP/s." : "");
	else
		fputs("Baselines: `cublas` is the paper's (cublasGemmEx, "
			"tensor ops and fp32 compute, plus one pointwise kernel per "
			"operation: a relu kernel on A; a bias kernel then a relu kernel on "
			"C; an add kernel); `cublaslt` is today's (cuBLASLt with the fused "
			"ReLU+bias epilogue for GEMM+bias+ReLU; the best unfused cuBLASLt "
			"sequence for the prologue and Add idioms); `cublas_1pw`, for "
			"GEMM+bias+ReLU only, is the paper's with its two pointwise kernels "
			"fused by hand into one (stricter). ", f);
	fputs("*timed*: sizes where polymma and the "
		"baseline both passed the comparison gate and were timed; "
		"*unsupported*: sizes or idioms the generator cannot do yet; "
		"*failed*: a wrong result or an error (polymma's, or the "
		"baseline's).\n\n", f);
	fputs("## All sizes\n\n", f);
	summary_table(f, rows, n, NULL);
	for (i = 0; i < (int) (sizeof sets / sizeof sets[0]); ++i) {
		int count = 0;

		for (j = 0; j < n; ++j)
			count += !strcmp(rows[j].set, sets[i]) &&
				!strcmp(rows[j].variant, "polymma");
		if (!count)
			continue;
		fprintf(f, "\n## Set %s\n\n", sets[i]);
		summary_table(f, rows, n, sets[i]);
	}

	fputs("\n## Throughput\n\nGeometric mean and best TFLOP/s over the timed "
		"sizes of each variant (useful FLOPs: 2·M·N·K per product).\n\n", f);
	fputs("| idiom | variant | timed | geomean TFLOP/s | best TFLOP/s |\n", f);
	fputs("|---|---|--:|--:|--:|\n", f);
	for (i = 0; i < BENCH_N_IDIOMS; ++i)
		for (v = 0; v < 4; ++v) {
			int cnt = 0, any = 0;
			double ls = 0, best = 0;

			for (j = 0; j < n; ++j) {
				const struct bench_row *r = &rows[j];

				if (strcmp(r->idiom, bench_idioms[i]) ||
				    strcmp(r->variant, variants[v]))
					continue;
				any = 1;
				if (strcmp(r->status, "ok") || !(r->tflops > 0))
					continue;
				ls += log(r->tflops);
				if (r->tflops > best)
					best = r->tflops;
				cnt++;
			}
			if (!any || (v && only_unsupported(rows, n,
			    bench_idioms[i], NULL, variants[v])))
				continue;
			if (cnt)
				fprintf(f, "| %s | %s | %d | %.1f | %.1f |\n",
					bench_idioms[i], variants[v], cnt,
					exp(ls / cnt), best);
			else
				fprintf(f, "| %s | %s | 0 | — | — |\n",
					bench_idioms[i], variants[v]);
		}

	/* Rows not timed, grouped by (idiom, variant, status, note). */
	shown = 0;
	for (j = 0; j < n; ++j) {
		const struct bench_row *r = &rows[j];
		int k, count = 0, listed = 0, seen = 0;

		if (!strcmp(r->status, "ok"))
			continue;
		for (k = 0; k < j && !seen; ++k)
			seen = same_group(&rows[k], r);
		if (seen)
			continue;
		if (!shown++)
			fputs("\n## Rows not timed\n\n| idiom | variant | status | rows "
				"| sizes | note |\n|---|---|---|--:|---|---|\n", f);
		for (k = j; k < n; ++k)
			count += same_group(&rows[k], r);
		fprintf(f, "| %s | %s | %s | %d | ", r->idiom, r->variant, r->status,
			count);
		for (k = j; k < n && listed < 3; ++k)
			if (same_group(&rows[k], r))
				fprintf(f, "%s%lldx%lldx%lld", listed++ ? ", " : "",
					(long long) rows[k].m, (long long) rows[k].n,
					(long long) rows[k].k);
		fprintf(f, "%s | ", count > 3 ? ", …" : "");
		put_md(f, r->note);
		fputs(" |\n", f);
	}
}

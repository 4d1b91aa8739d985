/* report: the benchmark CSV -> markdown summary, and the data files that
 * bench/report.sh plots with gnuplot.
 *
 *   report CSV SUMMARY.md [DATADIR]
 *
 * DATADIR/<idiom>.dat: one line per polymma row timed against at least one
 * baseline, sorted by FLOPs: "gflop speedup_cublas speedup_cublaslt M N K
 * set" ('NaN' where a speedup is absent). DATADIR/<idiom>.info: "sizes N",
 * "timed N", "unsupported N", "failed N", "geomean_cublas X",
 * "geomean_cublaslt X", "ylo X", "yhi X" (the speedups' range, 1.0 included)
 * and "device TEXT". */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

struct point {
	double gflop, a, b;
	const struct bench_row *r;
};

static int by_gflop(const void *x, const void *y)
{
	const struct point *p = x, *q = y;

	return (p->gflop > q->gflop) - (p->gflop < q->gflop);
}

static int write_data(const char *dir, const struct bench_row *rows, int n,
	const char *device)
{
	int i, j;

	for (i = 0; i < BENCH_N_IDIOMS; ++i) {
		const char *id = bench_idioms[i];
		char path[4096];
		struct point *p = calloc((size_t) n + 1, sizeof *p);
		struct bench_summary s = bench_summarize(rows, n, id, NULL, "cublas");
		struct bench_summary t = bench_summarize(rows, n, id, NULL, "cublaslt");
		int np = 0;
		double ylo = 1, yhi = 1;
		FILE *f;

		if (!p)
			return -1;
		for (j = 0; j < n; ++j) {
			const struct bench_row *r = &rows[j];
			double mul = strcmp(id, "add_gemm") ? 2.0 : 4.0;

			if (strcmp(r->idiom, id) || strcmp(r->variant, "polymma") ||
			    strcmp(r->status, "ok"))
				continue;
			if (!(r->speedup_cublas > 0) && !(r->speedup_cublaslt > 0))
				continue;
			p[np].gflop = mul * (double) r->m * (double) r->n * (double) r->k / 1e9;
			p[np].a = r->speedup_cublas;
			p[np].b = r->speedup_cublaslt;
			p[np].r = r;
			if (p[np].a > 0) {
				ylo = fmin(ylo, p[np].a);
				yhi = fmax(yhi, p[np].a);
			}
			if (p[np].b > 0) {
				ylo = fmin(ylo, p[np].b);
				yhi = fmax(yhi, p[np].b);
			}
			np++;
		}
		qsort(p, (size_t) np, sizeof *p, by_gflop);
		snprintf(path, sizeof path, "%s/%s.dat", dir, id);
		if (!(f = fopen(path, "w"))) {
			free(p);
			return -1;
		}
		fputs("# gflop speedup_cublas speedup_cublaslt M N K set\n", f);
		for (j = 0; j < np; ++j) {
			char a[32] = "NaN", b[32] = "NaN";

			if (isfinite(p[j].a))
				snprintf(a, sizeof a, "%.4f", p[j].a);
			if (isfinite(p[j].b))
				snprintf(b, sizeof b, "%.4f", p[j].b);
			fprintf(f, "%.6g %s %s %lld %lld %lld %s\n", p[j].gflop, a, b,
				(long long) p[j].r->m, (long long) p[j].r->n,
				(long long) p[j].r->k, p[j].r->set);
		}
		fclose(f);
		free(p);
		snprintf(path, sizeof path, "%s/%s.info", dir, id);
		if (!(f = fopen(path, "w")))
			return -1;
		fprintf(f, "sizes %d\ntimed %d\nunsupported %d\nfailed %d\n"
			"geomean_cublas %.3f\ngeomean_cublaslt %.3f\nylo %.4g\n"
			"yhi %.4g\ndevice %s\n", s.sizes, np, s.unsupported,
			s.failed, s.geomean, t.geomean, ylo, yhi, device);
		fclose(f);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct bench_row *rows;
	char *comments = NULL, device[256] = "GPU";
	int n, bad = 0;
	FILE *f;

	if (argc < 3 || argc > 4) {
		fputs("usage: report CSV SUMMARY.md [DATADIR]\n", stderr);
		return 2;
	}
	if (!(f = fopen(argv[1], "r"))) {
		fprintf(stderr, "report: cannot read %s\n", argv[1]);
		return 1;
	}
	n = bench_csv_read(f, &rows, &comments, &bad);
	fclose(f);
	if (n < 0) {
		fprintf(stderr, "report: %s:%d: malformed line\n", argv[1], bad);
		return 1;
	}
	if (comments) {	/* "device: NAME (sm_..." -> NAME */
		const char *d = strstr(comments, "device: ");

		if (d) {
			size_t l = strcspn(d + 8, "(\n");

			if (l >= sizeof device)
				l = sizeof device - 1;
			memcpy(device, d + 8, l);
			while (l && device[l - 1] == ' ')
				--l;
			device[l] = '\0';
		}
	}
	if (!(f = fopen(argv[2], "w"))) {
		fprintf(stderr, "report: cannot write %s\n", argv[2]);
		return 1;
	}
	bench_write_summary(f, rows, n, comments);
	fclose(f);
	if (argc == 4 && write_data(argv[3], rows, n, device)) {
		fprintf(stderr, "report: cannot write the data files in %s\n", argv[3]);
		return 1;
	}
	free(rows);
	free(comments);
	return 0;
}

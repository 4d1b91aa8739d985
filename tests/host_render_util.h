/* Shared pieces of the host-rendering tests (test_host_render.c,
 * test_host_render_k.c, test_kmajor.c): compile a rendering with its driver and run it,
 * and the driver's call of a kernel split in chunks of k. */
#ifndef PM_TEST_HOST_RENDER_UTIL_H
#define PM_TEST_HOST_RENDER_UTIL_H

#include <stdio.h>
#include <stdlib.h>

#include "poly/strbuf.h"

/* SwiGLU with X shared (one k loop, X's tile copied once for both
 * contractions), and with W shared, the second A in another layout. */
#define PM_HR_SWIGLU_X \
	"def sw(f16(M, K) X, f16(K, N) W, f16(K, N) V) -> (f16(M, N) O) {\n" \
	"  G(i, j) +=! X(i, k) * W(k, j)\n" \
	"  U(i, j) +=! X(i, k) * V(k, j)\n" \
	"  O(i, j) = silu(G(i, j)) * U(i, j)\n}\n"
#define PM_HR_SWIGLU_W \
	"def sw(f16(M, K) A, f16(K, N) W, f16(K, M) B) -> (f16(M, N) O) {\n" \
	"  G(i, j) +=! A(i, k) * W(k, j)\n" \
	"  U(i, j) +=! B(k, i) * W(k, j)\n" \
	"  O(i, j) = silu(G(i, j)) * U(i, j)\n}\n"

/* Write head, the generated source and tail into a fresh directory,
 * compile with cc (with AddressSanitizer when asan: the inputs and
 * outputs are malloc'ed at their exact sizes, so any access past a size
 * fails the run) and run it with each of args[0..n) (up to the first
 * failure); on failure keep the directory and say so (unless quiet).
 * Returns the exit status. */
static inline int pm_hr_build_and_run_n(const char *head, const char *source,
	const char *tail, const char *const *args, int n, int quiet,
	int asan, const char *what)
{
	char dir[] = "/tmp/pm_hostXXXXXX", cmd[1024], path[600];
	FILE *f;
	int rc;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/k.c", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fputs(head, f);
	fputs(source, f);
	fputs(tail, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "cc -O1 -std=c11 -w%s -o %s/k %s/k.c -lm",
		asan ? " -fsanitize=address -fno-omit-frame-pointer" : "", dir,
		dir);
	rc = system(cmd);
	for (int i = 0; !rc && i < n; ++i) {
		snprintf(cmd, sizeof(cmd), "%s%s/k %s >/dev/null%s", asan ?
			"ASAN_OPTIONS=detect_leaks=0 " : "", dir, args[i],
			quiet ? " 2>/dev/null" : "");
		rc = system(cmd);
		if (rc && !quiet)
			fprintf(stderr, "FAILED: %s, sizes %s (kept %s)\n", what,
				args[i], dir);
	}
	if (!rc || quiet) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd)) {
		}
	}
	return rc;
}

/* pm_hr_build_and_run_n with one run. */
static inline int pm_hr_build_and_run(const char *head, const char *source,
	const char *tail, const char *args, int quiet, int asan,
	const char *what)
{
	return pm_hr_build_and_run_n(head, source, tail, &args, 1, quiet,
		asan, what);
}

/* "#define CALL ..." for kernel call `call` (ending in "M, N, K" or the
 * sizes), split in `split` chunks (0: no split) of the reductions ext0
 * (and ext1), as blocks of the GPU would run them: chunks of whole k
 * tiles of the padded extent (the last tile of a ragged k partial), the
 * workspace the launcher would give (counters must be back to zero at
 * the end). */
static inline void pm_hr_split_call(struct pm_strbuf *b, long split,
	const char *name, const char *args, const char *ext0,
	const char *ext1, int bm, int bn, int bk, int nacc)
{
	if (!split) {
		pm_strbuf_printf(b, "#define CALL %s(%s)\n", name, args);
		return;
	}
	pm_strbuf_printf(b, "#define CALL do { long S = %ld, tiles = ((M + %d) / "
		"%d) * ((N + %d) / %d), pb = %ld;\\\n"
		"\tlong kc0 = (((%s) + %d) / %d + S - 1) / S * %d, kc1 = (((%s) + "
		"%d) / %d + S - 1) / S * %d;\\\n"
		"\tfloat *pm_w = calloc(tiles * S * pb, sizeof(float));\\\n"
		"\tunsigned *pm_c = calloc(tiles, sizeof(unsigned));\\\n"
		"\t(void) kc1;\\\n"
		"\tfor (long z = 0; z < S; ++z)\\\n"
		"\t\t%s(%s, pm_w, pm_c, kc0%s, z, S);\\\n"
		"\tfor (long t = 0; t < tiles; ++t)\\\n"
		"\t\tif (pm_c[t]) { fprintf(stderr, \"counter %%ld left at %%u\\n\", "
		"t, pm_c[t]); exit(1); }\\\n"
		"\tfree(pm_w);\\\n\tfree(pm_c);\\\n} while (0)\n",
		split, bm - 1, bm, bn - 1, bn, (long) nacc * bm * bn,
		ext0, bk - 1, bk, bk, ext1 ? ext1 : ext0, bk - 1, bk, bk, name,
		args, ext1 ? ", kc1" : "");
}

#endif

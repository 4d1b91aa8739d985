/* Shared by the host-rendering tests (test_host_render.c,
 * test_kmajor.c): build and run a rendering with its driver, and the
 * launcher's split-K emulated on the host. */
#ifndef PM_TEST_HOST_RENDER_UTIL_H
#define PM_TEST_HOST_RENDER_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "poly/strbuf.h"

/* Write head, the generated source and tail into a fresh directory,
 * compile with cc (asan: with AddressSanitizer) and run with args; on
 * failure keep the directory and say so (unless quiet). Returns the exit
 * status. */
static inline int pm_host_build_and_run(const char *head, const char *source,
	const char *tail, const char *args, int quiet, const char *what,
	int asan)
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
	snprintf(cmd, sizeof(cmd), "cc -O1 -std=c11 -w%s -o %s/k %s/k.c -lm && "
		"%s%s/k %s >/dev/null%s", asan ? " -fsanitize=address "
		"-fno-omit-frame-pointer" : "", dir, dir, asan ?
		"ASAN_OPTIONS=detect_leaks=0 " : "", dir, args,
		quiet ? " 2>/dev/null" : "");
	rc = system(cmd);
	if (rc && !quiet)
		fprintf(stderr, "FAILED: %s (kept %s)\n", what, dir);
	if (!rc || quiet) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd)) {
		}
	}
	return rc;
}

/* "#define CALL ..." for kernel call `call` (ending in "M, N, K" or the
 * sizes), split in S chunks (0: no split) of the reductions ext0 (and
 * ext1): called once per chunk z, as blocks of the GPU would run, with
 * the workspace the launcher would give (counters must be back to zero
 * at the end). */
static inline void pm_host_split_call(struct pm_strbuf *b, long S,
	const char *name, const char *args, const char *ext0, const char *ext1,
	int bm, int bn, int bk, int nacc)
{
	if (!S) {
		pm_strbuf_printf(b, "#define CALL %s(%s)\n", name, args);
		return;
	}
	pm_strbuf_printf(b, "#define CALL do { long S = %ld, tiles = ((M + %d) / "
		"%d) * ((N + %d) / %d), pb = %ld;\\\n"
		"\tlong kc0 = ((%s) / %d + S - 1) / S * %d, kc1 = ((%s) / %d + S - "
		"1) / S * %d;\\\n"
		"\tfloat *pm_w = calloc(tiles * S * pb, sizeof(float));\\\n"
		"\tunsigned *pm_c = calloc(tiles, sizeof(unsigned));\\\n"
		"\t(void) kc1;\\\n"
		"\tfor (long z = 0; z < S; ++z)\\\n"
		"\t\t%s(%s, pm_w, pm_c, kc0%s, z, S);\\\n"
		"\tfor (long t = 0; t < tiles; ++t)\\\n"
		"\t\tif (pm_c[t]) { fprintf(stderr, \"counter %%ld left at %%u\\n\", "
		"t, pm_c[t]); exit(1); }\\\n"
		"\tfree(pm_w);\\\n\tfree(pm_c);\\\n} while (0)\n",
		S, bm - 1, bm, bn - 1, bn, (long) nacc * bm * bn,
		ext0, bk, bk, ext1 ? ext1 : ext0, bk, bk, name, args,
		ext1 ? ", kc1" : "");
}

#endif

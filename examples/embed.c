/* Embedding polymma: generate an sm_80 kernel for a spec file and print
 * its C header and the first lines of its CUDA source.
 *
 *   cc embed.c $(pkg-config --cflags --libs polymma) -o embed
 *   ./embed examples/gemm_nn.tc
 */
#include <stdio.h>
#include <stdlib.h>

#include "polymma.h"

/* The whole file as a string (caller frees), or NULL. */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	long size;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (text = malloc(size + 1))) {
		if (fread(text, 1, size, f) != (size_t)size) {
			free(text);
			text = NULL;
		} else {
			text[size] = '\0';
		}
	}
	fclose(f);
	return text;
}

int main(int argc, char **argv)
{
	polymma_ctx *ctx;
	polymma_options *opts;
	polymma_result *res = NULL;
	const char *src, *err = NULL;
	char *text;
	int rc, lines;

	if (argc != 2) {
		fprintf(stderr, "usage: %s SPEC.tc\n", argv[0]);
		return 2;
	}
	text = read_text(argv[1]);
	if (!text) {
		perror(argv[1]);
		return 1;
	}
	ctx = polymma_ctx_alloc();
	opts = polymma_options_alloc();
	if (!ctx || !opts) {
		rc = POLYMMA_ERR_INTERNAL;
	} else if ((rc = polymma_options_set(opts, "target", "sm_80", &err))) {
		fprintf(stderr, "target: %s\n", err ? err : "refused");
	} else if ((rc = polymma_generate(ctx, text, argv[1], opts, &res))) {
		fputs(polymma_diagnostics(ctx), stderr);
	} else {
		printf("/* ---- header ---- */\n%s", polymma_result_header(res));
		printf("/* ---- source (first 20 lines) ---- */\n");
		src = polymma_result_source(res);
		for (lines = 0; *src && lines < 20; src++) {
			putchar(*src);
			lines += *src == '\n';
		}
	}
	if (res)
		polymma_result_free(res);
	if (opts)
		polymma_options_free(opts);
	if (ctx)
		polymma_ctx_free(ctx);
	free(text);
	return rc;
}

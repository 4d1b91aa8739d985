/* Helpers of the tests that read generated files (header-only; include
 * after cmocka.h, polymma.h and tests/util.h). */
#ifndef PM_TEST_EMIT_UTIL_H
#define PM_TEST_EMIT_UTIL_H

/* Does the kernel name ending at paren end in sfx? */
static inline int name_ends(const char *paren, const char *sfx)
{
	size_t n = strlen(sfx);

	return !strncmp(paren - n, sfx, n);
}

/* src without the exact twins' definitions (pm_kernel_<name>_x: the
 * kernels printed again without ragged guards, emit/print.h
 * pm_emit_twin) and the _unaligned row's kernels (every file has them:
 * tests/test_host_render_ua.c reads them; docs/decisions/0046), so that
 * the tests read each kernel once; the launchers' lines that run them
 * stay. In place; returns src. */
static inline char *strip_twins(char *src)
{
	char *p = src;

	while (src && (p = strstr(p, "\nextern \"C\" __global__"))) {
		char *name = strstr(p + 1, " pm_kernel_"), *end;
		char *paren = name ? strchr(name, '(') : NULL;

		if (!paren || (!name_ends(paren, "_x") &&
		    !name_ends(paren, "_unaligned"))) {
			p++;
			continue;
		}
		end = strstr(paren, "\n}\n");
		if (!end)
			break;
		end += 2;
		memmove(p, end, strlen(end) + 1);
	}
	return src;
}

/* layout "nn" .. "tt" (examples/gemm_<layout>.tc), or a spec text; the
 * source without its exact twins (strip_twins) */
static inline char *gen(const char *layout, const char *const *opts,
	char **header, char **meta)
{
	char path[64], *text, *src;
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;
	int rc;

	snprintf(path, sizeof(path), "examples/gemm_%s.tc", layout);
	text = strlen(layout) > 2 ? strdup(layout) : pm_test_read(path);
	assert_non_null(text);
	/* one kernel per file unless a test asks for the small variant or
	 * split-K (its own _split kernel) */
	assert_int_equal(polymma_options_set(o, "small-variant", "off", NULL),
		POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "split-k", "1", NULL),
		POLYMMA_OK);
	for (int i = 0; opts && opts[i]; i += 2)
		assert_int_equal(polymma_options_set(o, opts[i], opts[i + 1],
			NULL), POLYMMA_OK);
	rc = polymma_generate(ctx, text, path, o, &r);
	if (rc)
		fprintf(stderr, "%s", polymma_diagnostics(ctx));
	assert_int_equal(rc, POLYMMA_OK);
	src = strip_twins(strdup(polymma_result_source(r)));
	if (header)
		*header = strdup(polymma_result_header(r));
	if (meta)
		*meta = strdup(polymma_result_meta(r));
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
	return src;
}

static inline int count(const char *s, const char *what)
{
	int n = 0;

	for (s = strstr(s, what); s; s = strstr(s + 1, what))
		n++;
	return n;
}

/* A launch of kernel `name` whose configuration starts with cfg (e.g.
 * "288, 165952, stream"): "name<<<grid, cfg", or on sm_90a "name, grid,
 * cfg" inside a pm_launch_pdl (docs/decisions/0068-pdl.md); NULL where s
 * has none. */
static inline const char *find_launch(const char *s, const char *name,
	const char *cfg)
{
	char a[192], b[192];
	const char *p;

	snprintf(a, sizeof(a), "%s<<<grid, %s", name, cfg);
	snprintf(b, sizeof(b), "%s, grid, %s", name, cfg);
	p = strstr(s, a);
	return p ? p : strstr(s, b);
}

/* The text of kernel `name` (up to the next kernel or the host code). */
static inline char *kernel_text(const char *s, const char *name)
{
	const char *a = strstr(s, name), *e;
	char *k;

	assert_non_null(a);
	e = strstr(a, "\nextern \"C\"");
	if (!e)
		e = a + strlen(a);
	k = strndup(a, (size_t) (e - a));
	assert_non_null(k);
	return k;
}

/* Generate spec text (or layout) with opts; NULL and the diagnostics in
 * *diag when it fails; the source without its exact twins (strip_twins). */
static inline char *try_gen(const char *spec, const char *const *opts, char **diag)
{
	char path[64], *text, *src = NULL;
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_result *r = NULL;

	snprintf(path, sizeof(path), "examples/%s.tc", spec);
	text = strchr(spec, '(') ? strdup(spec) : pm_test_read(path);
	assert_non_null(text);
	for (int i = 0; opts && opts[i]; i += 2)
		assert_int_equal(polymma_options_set(o, opts[i], opts[i + 1],
			NULL), POLYMMA_OK);
	if (polymma_generate(ctx, text, path, o, &r) == POLYMMA_OK)
		src = strip_twins(strdup(polymma_result_source(r)));
	*diag = strdup(polymma_diagnostics(ctx));
	polymma_result_free(r);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
	return src;
}

/* The launcher's case of row i (pm_launch_NAME's "case i: {" up to the
 * next case or the end of the switch), or NULL; the caller frees it. */
static inline char *launch_case(const char *s, int i)
{
	char tag[32];
	const char *a = strstr(s, "cudaError_t pm_launch_"), *e, *e2;

	snprintf(tag, sizeof(tag), "\n\tcase %d: {", i);
	a = a ? strstr(a, tag) : NULL;
	if (!a)
		return NULL;
	e = strstr(a + 1, "\n\tcase ");
	e2 = strstr(a + 1, "\n\t}\n");
	if (!e || (e2 && e2 < e))
		e = e2;
	return strndup(a, e ? (size_t) (e - a) : strlen(a));
}

#endif

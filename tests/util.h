/* Shared helpers of the CPU tests (header-only). */
#ifndef PM_TEST_UTIL_H
#define PM_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/frontend.h"

static const char *const pm_test_layouts[4] = { "nn", "nt", "tn", "tt" };

/* The shipped spec examples/gemm_<layout>.tc as text (caller frees). */
static inline char *pm_test_read(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *s;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = malloc(n + 1);
	if (s && fread(s, 1, n, f) != (size_t) n) {
		free(s);
		s = NULL;
	}
	if (s)
		s[n] = '\0';
	fclose(f);
	return s;
}

static inline struct pm_spec *pm_test_spec(const char *layout)
{
	char path[64];
	char *text;
	struct pm_diags d;
	struct pm_spec *spec;

	snprintf(path, sizeof(path), "examples/gemm_%s.tc", layout);
	text = pm_test_read(path);
	if (!text)
		return NULL;
	pm_diags_init(&d, path, text);
	spec = pm_spec_parse(text, path, &d);
	if (!spec)
		fprintf(stderr, "%s", pm_diags_text(&d));
	pm_diags_clear(&d);
	free(text);
	return spec;
}

#endif

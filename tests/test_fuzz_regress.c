/* The fuzz target's findings, replayed (make check): every input under
 * tests/fuzz/regress/ (first byte: the mode, rest: the spec; see
 * tests/fuzz/fuzz_generate.c) must run without a crash, a sanitizer report
 * (make asan) or an internal error. A new finding of `make fuzz` is added
 * there, minimized, with a name saying what it was. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_generate.c"

/* The bytes of path (*n of them), or NULL. */
static uint8_t *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (b = malloc(len + 1)) &&
	    fread(b, 1, len, f) != (size_t) len) {
		free(b);
		b = NULL;
	}
	if (b)
		*n = (size_t) len;
	fclose(f);
	return b;
}

static void test_regress(void **state)
{
	const char *dir = "tests/fuzz/regress";
	DIR *d = opendir(dir);
	struct dirent *e;
	int count = 0;

	(void) state;
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[512];
		size_t n = 0;
		uint8_t *b;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		b = slurp(path, &n);
		assert_non_null(b);
		if (pm_fuzz_one(b, n) == POLYMMA_ERR_INTERNAL) {
			fprintf(stderr, "%s: internal error\n", path);
			fail();
		}
		free(b);
		count++;
	}
	closedir(d);
	assert_true(count > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regress),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Tests that run nvcc (test_nvcc, test_plan): where it is, and polymma's
 * binary. */
#ifndef PM_TEST_NVCC_UTIL_H
#define PM_TEST_NVCC_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* $POLYMMA, else build/polymma. */
static inline const char *pm_test_polymma_bin(void)
{
	const char *p = getenv("POLYMMA");

	return p && *p ? p : "build/polymma";
}

/* nvcc in PATH or /usr/local/cuda/bin, into buf; 0 when found (buf
 * empty otherwise). */
static inline int pm_test_find_nvcc(char *buf, size_t n)
{
	const char *path = getenv("PATH");
	char *copy = strdup(path ? path : ""), *dir, *save = NULL;
	int found = 0;

	for (dir = copy ? strtok_r(copy, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		snprintf(buf, n, "%s/nvcc", *dir ? dir : ".");
		found = access(buf, X_OK) == 0;
	}
	free(copy);
	if (!found) {
		snprintf(buf, n, "/usr/local/cuda/bin/nvcc");
		found = access(buf, X_OK) == 0;
	}
	if (!found)
		buf[0] = '\0';
	return found ? 0 : -1;
}

#endif

/* Temporary folders for the tests of the JIT's cache (test_jit.c,
 * test_jit_cache.c): created under /tmp, removed whole, counted. */
#ifndef PM_TEST_TMPDIR_UTIL_H
#define PM_TEST_TMPDIR_UTIL_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline char *pm_test_tmpdir(void)
{
	char t[] = "/tmp/pm_jit_XXXXXX";
	char *d = mkdtemp(t);

	assert_non_null(d);
	return strdup(d);
}

static inline void pm_test_rmdir_all(const char *dir)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Entries of dir whose names start with prefix ("": every entry not
 * starting with '.'). */
static inline int pm_test_count_files(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += *prefix ? !strncmp(e->d_name, prefix, strlen(prefix)) :
			e->d_name[0] != '.';
	closedir(d);
	return n;
}

#endif

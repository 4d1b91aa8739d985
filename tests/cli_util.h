/* Helpers of the command-line tests (tests/test_cli*.c): polymma as a
 * subprocess (RUN, run_in: status, standard output and error), temporary
 * directories and files. Header-only; the including file defines
 * _XOPEN_SOURCE 700 and includes cmocka first. */
#ifndef PM_TEST_CLI_UTIL_H
#define PM_TEST_CLI_UTIL_H

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "polymma.h"

/* A polymma run that takes longer is killed (status 128 + 9). */
#ifndef RUN_TIMEOUT_S
#define RUN_TIMEOUT_S 120
#endif

static inline const char *polymma_bin(void)
{
	const char *p = getenv("POLYMMA");

	return p && *p ? p : "build/polymma";
}

struct run {
	int status;	/* exit code, or 128 + signal */
	char *out;	/* standard output */
	char *err;	/* standard error */
};

static inline void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

static inline void append(char **buf, size_t *len, const char *data, size_t n)
{
	*buf = realloc(*buf, *len + n + 1);
	assert_non_null(*buf);
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* Run polymma with the NULL-terminated arguments args (after argv[0]),
 * standard input from stdin_path (NULL: /dev/null). */
static inline struct run run_in(const char *stdin_path, const char *const *args)
{
	struct run r = { -1, NULL, NULL };
	const char *argv[64];
	int po[2], pe[2], n, fd;
	size_t lo = 0, le = 0;
	pid_t pid;

	argv[0] = polymma_bin();
	for (n = 0; args[n]; n++)
		argv[n + 1] = args[n];
	argv[n + 1] = NULL;
	append(&r.out, &lo, "", 0);
	append(&r.err, &le, "", 0);
	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
		if (fd < 0)
			_exit(126);
		dup2(fd, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(fd);
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	{
		struct pollfd p[2] = { { po[0], POLLIN, 0 }, { pe[0], POLLIN, 0 } };
		int open_fds = 2, i, ready;
		char buf[4096];
		ssize_t got;
		time_t deadline = time(NULL) + RUN_TIMEOUT_S;

		while (open_fds > 0) {
			ready = poll(p, 2, 1000);
			if (ready == 0 && time(NULL) > deadline) {
				print_message("polymma still runs after %d s: "
					"killed\n", RUN_TIMEOUT_S);
				kill(pid, SIGKILL);
				for (i = 0; i < 2; i++)
					if (p[i].fd >= 0)
						close(p[i].fd);
				break;
			}
			if (ready <= 0)
				continue;
			for (i = 0; i < 2; i++) {
				if (p[i].fd < 0 || !p[i].revents)
					continue;
				got = read(p[i].fd, buf, sizeof(buf));
				if (got > 0) {
					if (i == 0)
						append(&r.out, &lo, buf, got);
					else
						append(&r.err, &le, buf, got);
				} else {
					close(p[i].fd);
					p[i].fd = -1;
					open_fds--;
				}
			}
		}
	}
	{
		int st;

		assert_int_equal(waitpid(pid, &st, 0), pid);
		r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	return r;
}

#define RUN(...) run_in(NULL, (const char *const[]){ __VA_ARGS__, NULL })

/* Print what the command said when a check fails. */
static inline void show(const struct run *r)
{
	print_message("exit %d\n-- stdout:\n%.2000s\n-- stderr:\n%.4000s\n",
		r->status, r->out, r->err);
}

#define EXPECT_STATUS(r, s) \
	do { \
		if ((r).status != (s)) \
			show(&(r)); \
		assert_int_equal((r).status, (s)); \
	} while (0)

/* ---- temporary directories and files ---- */

static inline char *tmpdir_new(void)
{
	char *d = strdup("/tmp/polymma-test-cli.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static inline void rm_rf(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	char sub[4096];

	if (dir) {
		while ((e = readdir(dir))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (snprintf(sub, sizeof(sub), "%s/%s", path,
			    e->d_name) < (int) sizeof(sub))
				rm_rf(sub);
		}
		closedir(dir);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static inline int teardown_dir(void **state)
{
	rm_rf(*state);
	free(*state);
	return 0;
}

static inline int setup_dir(void **state)
{
	*state = tmpdir_new();
	return 0;
}

/* Entries of dir (hidden ones included), "." and ".." excluded. */
static inline int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static inline char *path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	assert_non_null(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static inline char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, got;
	char chunk[4096];

	if (!f)
		return NULL;
	append(&buf, &len, "", 0);
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		append(&buf, &len, chunk, got);
	fclose(f);
	return buf;
}

static inline void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/* A spec with an error at a known place: line 3, an undeclared tensor. */
static const char bad_spec[] =
	"# undeclared tensor\n"
	"def bad(f16(M, K) A, f16(K, N) B) -> (f16(M, N) C) {\n"
	"    C(i, j) +=! A(i, k) * Bias(k, j)\n"
	"}\n";

/* "NAME:LINE:COL: error:" somewhere in text. */
static inline int has_located_error(const char *text, const char *name)
{
	const char *p = text;
	size_t n = strlen(name);

	while ((p = strstr(p, name))) {
		const char *q = p + n;

		p++;
		if (*q++ != ':' || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q++ != ':' || !isdigit((unsigned char)*q))
			continue;
		while (isdigit((unsigned char)*q))
			q++;
		if (!strncmp(q, ": error:", 8))
			return 1;
	}
	return 0;
}

/* The binary must exist (the group setup of each test_cli*.c). */
static inline int pm_test_cli_group_setup(void **state)
{
	(void)state;
	if (access(polymma_bin(), X_OK) != 0) {
		fprintf(stderr, "%s not found (run from the repository root "
			"after make)\n", polymma_bin());
		return -1;
	}
	return 0;
}

#endif

/* cli/io — see io.h. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/io.h"

#define MAX_OUTPUTS 8

char *pm_cli_read_file(const char *path)
{
	/* PM_LIMIT_SPEC_BYTES (frontend/limits.h): read one byte more to
	 * tell a file at the limit from a larger one (or /dev/zero) */
	const size_t max = (size_t) 1 << 20;
	int is_stdin = !strcmp(path, "-");
	FILE *f = is_stdin ? stdin : fopen(path, "rb");
	size_t len = 0, cap = 4096, got;
	char *buf, *more;

	if (!f) {
		fprintf(stderr, "polymma: error: cannot open spec file '%s': "
			"%s\n", path, strerror(errno));
		return NULL;
	}
	buf = malloc(cap);
	while (buf) {
		if (cap - len < 2) {
			more = realloc(buf, cap * 2);
			if (!more) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = more;
			cap *= 2;
		}
		got = fread(buf + len, 1, cap - len - 1, f);
		len += got;
		if (got == 0 || len > max)
			break;
	}
	if (buf && len > max) {
		fprintf(stderr, "polymma: error: spec file '%s' is too large "
			"(more than %zu bytes)\n", path, max);
		free(buf);
		buf = NULL;
	} else if (!buf || ferror(f)) {
		fprintf(stderr, "polymma: error: cannot read spec file '%s': "
			"%s\n", path, buf ? strerror(errno) : "out of memory");
		free(buf);
		buf = NULL;
	} else if (memchr(buf, '\0', len)) {
		fprintf(stderr, "polymma: error: spec file '%s' contains a NUL "
			"byte (not a text file?)\n", path);
		free(buf);
		buf = NULL;
	} else {
		buf[len] = '\0';
	}
	if (!is_stdin)
		fclose(f);
	return buf;
}

/* The temporary file of output i while it exists (else NULL): the signal
 * handler removes them. */
static char *volatile tmp_paths[MAX_OUTPUTS];
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
#define N_SIGNALS (int)(sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))
static struct sigaction old_actions[N_SIGNALS];

static void on_signal(int sig)
{
	int i;

	for (i = 0; i < MAX_OUTPUTS; i++)
		if (tmp_paths[i])
			unlink(tmp_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(int on)
{
	struct sigaction sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < N_SIGNALS; i++) {
		if (on)
			sigaction(cleanup_signals[i], &sa, &old_actions[i]);
		else
			sigaction(cleanup_signals[i], &old_actions[i], NULL);
	}
}

/* "dir/.polymma-base.XXXXXX" next to path, or NULL (message printed). */
static char *tmp_template(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;
	int dirlen = slash ? (int)(slash - path) + 1 : 0;
	size_t size = strlen(path) + sizeof(".polymma-.XXXXXX");
	char *t;
	struct stat st;

	if (!*base || (stat(path, &st) == 0 && S_ISDIR(st.st_mode))) {
		fprintf(stderr, "polymma: error: cannot write '%s': "
			"is a directory\n", path);
		return NULL;
	}
	t = malloc(size);
	if (!t)
		fprintf(stderr, "polymma: error: out of memory\n");
	else
		snprintf(t, size, "%.*s.polymma-%s.XXXXXX", dirlen, path, base);
	return t;
}

static int write_all(int fd, const char *s, size_t len)
{
	ssize_t w;

	while (len > 0) {
		w = write(fd, s, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Create and fill the temporary file of output i (tmp is its template);
 * 0 or -1 (message printed). */
static int write_tmp(const struct pm_cli_output *out, int i, char *tmp)
{
	mode_t mask = umask(0);
	int fd, e;

	umask(mask);
	fd = mkstemp(tmp);
	if (fd < 0)
		goto fail;
	tmp_paths[i] = tmp;
	if (write_all(fd, out->text, strlen(out->text)) < 0 ||
	    fchmod(fd, 0666 & ~mask) < 0) {
		e = errno;
		close(fd);
		errno = e;
		goto fail;
	}
	if (close(fd) < 0)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "polymma: error: cannot write '%s': %s\n", out->path,
		strerror(errno));
	return -1;
}

static int write_stdout(const char *text)
{
	if (fputs(text, stdout) == EOF || fflush(stdout) == EOF) {
		fprintf(stderr, "polymma: error: cannot write to standard "
			"output: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

int pm_cli_write_outputs(const struct pm_cli_output *out, int n)
{
	char *tmp[MAX_OUTPUTS] = { NULL };
	const char *to_stdout = NULL;
	int i, renamed = 0, rc = -1;

	if (n > MAX_OUTPUTS)
		return -1;
	catch_signals(1);
	for (i = 0; i < n; i++) {
		if (!strcmp(out[i].path, "-")) {
			to_stdout = out[i].text;
			continue;
		}
		tmp[i] = tmp_template(out[i].path);
		if (!tmp[i] || write_tmp(&out[i], i, tmp[i]) < 0)
			goto done;
	}
	if (to_stdout && write_stdout(to_stdout) < 0)
		goto done;
	for (i = 0; i < n; i++) {
		if (!tmp_paths[i])
			continue;
		if (rename(tmp[i], out[i].path) < 0) {
			fprintf(stderr, "polymma: error: cannot write '%s': "
				"%s\n", out[i].path, strerror(errno));
			goto done;
		}
		tmp_paths[i] = NULL;
		renamed = i + 1;
	}
	rc = 0;
done:
	/* On failure: drop the temporaries, and the targets renamed already
	 * (so that no partial set of outputs is left behind). */
	for (i = 0; i < n; i++) {
		if (tmp_paths[i]) {
			unlink(tmp_paths[i]);
			tmp_paths[i] = NULL;
		} else if (rc < 0 && i < renamed && tmp[i]) {
			unlink(out[i].path);
		}
	}
	catch_signals(0);
	for (i = 0; i < n; i++)
		free(tmp[i]);
	return rc;
}

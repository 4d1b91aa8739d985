/* cli/io — see io.h. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/io.h"

#define MAX_OUTPUTS 8
/* Symbolic links followed from one output path at most (Linux's limit). */
#define MAX_LINKS 40

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

/* ---- one output while it is written ---- */

enum out_kind {
	OUT_FILE,	/* regular or new: temporary, then rename */
	OUT_SPECIAL,	/* device, FIFO, ...: written in place */
	OUT_STDOUT	/* "-" */
};

struct out_state {
	enum out_kind kind;
	const char *path;	/* as given */
	const char *text;
	char *target;		/* OUT_FILE: the file replaced, links followed */
	char *tmp;		/* its temporary (a template until created) */
	char *backup;		/* a hard link to the previous target, or NULL */
	int existed;		/* the target existed */
	int renamed;
	mode_t mode;		/* permission bits of the new file */
	dev_t dev;		/* of the existing target */
	ino_t ino;
};

static int fail(const char *path, int err)
{
	fprintf(stderr, "polymma: error: cannot write '%s': %s\n", path,
		strerror(err));
	return -1;
}

/* ---- signals ---- */

/* The temporary file of output i while it exists (else NULL): the signal
 * handler removes them. */
static char *volatile tmp_paths[MAX_OUTPUTS];
static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define N_SIGNALS (int)(sizeof(cleanup_signals) / sizeof(cleanup_signals[0]))
static struct sigaction old_actions[N_SIGNALS], old_sigpipe;

static void on_signal(int sig)
{
	int i;

	for (i = 0; i < MAX_OUTPUTS; i++)
		if (tmp_paths[i])
			unlink(tmp_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Remove the temporaries on a signal, and make a closed pipe a write
 * error (on), or restore the previous actions (off). */
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
	sa.sa_handler = SIG_IGN;
	if (on)
		sigaction(SIGPIPE, &sa, &old_sigpipe);
	else
		sigaction(SIGPIPE, &old_sigpipe, NULL);
}

/* Hold the cleanup signals back (on; the previous mask in *old), or let
 * them in again (off). errno is kept. */
static void block_signals(int on, sigset_t *old)
{
	sigset_t set;
	int i, e = errno;

	if (on) {
		sigemptyset(&set);
		for (i = 0; i < N_SIGNALS; i++)
			sigaddset(&set, cleanup_signals[i]);
		sigprocmask(SIG_BLOCK, &set, old);
	} else {
		sigprocmask(SIG_SETMASK, old, NULL);
	}
	errno = e;
}

/* ---- paths ---- */

/* a + b (lengths na, nb) as a new string, or NULL (errno ENOMEM). */
static char *concat(const char *a, size_t na, const char *b, size_t nb)
{
	char *s = malloc(na + nb + 1);

	if (!s) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(s, a, na);
	memcpy(s + na, b, nb);
	s[na + nb] = '\0';
	return s;
}

/* The contents of the symbolic link at path (st: its lstat), malloc'ed;
 * NULL on failure (errno set). */
static char *read_link(const char *path, const struct stat *st)
{
	size_t size = st->st_size > 0 ? (size_t)st->st_size + 1 : 256;
	char *buf = NULL, *more;
	ssize_t got;

	for (;;) {
		more = realloc(buf, size);
		if (!more) {
			free(buf);
			errno = ENOMEM;
			return NULL;
		}
		buf = more;
		got = readlink(path, buf, size);
		if (got < 0) {
			free(buf);
			return NULL;
		}
		if ((size_t)got < size)
			break;
		size *= 2;	/* the link changed under us */
	}
	buf[got] = '\0';
	return buf;
}

/* The link contents rel as a path: relative to the directory of the link
 * at path. Takes rel; NULL on failure (errno set). */
static char *link_path(const char *path, char *rel)
{
	const char *slash = strrchr(path, '/');
	char *p;

	if (rel[0] == '/' || !slash)
		return rel;
	p = concat(path, (size_t)(slash - path) + 1, rel, strlen(rel));
	free(rel);
	return p;
}

/* path with its symbolic links followed, as long as they go (the last one
 * may dangle): the file an output replaces. malloc'ed; NULL on failure
 * (errno set). */
static char *follow_links(const char *path)
{
	char *p = concat(path, strlen(path), "", 0), *next;
	struct stat st;
	int hops, e;

	for (hops = 0; p; hops++) {
		if (lstat(p, &st) < 0 || !S_ISLNK(st.st_mode))
			return p;
		next = hops < MAX_LINKS ? read_link(p, &st) : NULL;
		if (hops >= MAX_LINKS)
			errno = ELOOP;
		if (next)
			next = link_path(p, next);
		e = errno;
		free(p);
		errno = e;
		p = next;
	}
	return NULL;
}

/* "dir/.polymma-base.XXXXXX" next to path, or NULL (errno ENOMEM). */
static char *tmp_template(const char *path)
{
	static const char pre[] = ".polymma-", post[] = ".XXXXXX";
	const char *slash = strrchr(path, '/');
	size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
	size_t base = strlen(path) - dir, np = sizeof(pre) - 1;
	char *t = malloc(dir + np + base + sizeof(post));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(t, path, dir);
	memcpy(t + dir, pre, np);
	memcpy(t + dir + np, path + dir, base);
	memcpy(t + dir + np + base, post, sizeof(post));
	return t;
}

/* ---- classifying ---- */

static mode_t current_umask(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return mask;
}

/* A regular (or new) file: where it goes and its temporary's name. */
static int classify_file(struct out_state *s, const struct stat *st)
{
	s->kind = OUT_FILE;
	s->existed = st != NULL;
	s->mode = st ? st->st_mode & 0777 : 0666 & ~current_umask();
	if (st) {
		s->dev = st->st_dev;
		s->ino = st->st_ino;
	}
	s->target = follow_links(s->path);
	if (!s->target)
		return fail(s->path, errno);
	s->tmp = tmp_template(s->target);
	return s->tmp ? 0 : fail(s->path, errno);
}

/* What s->path is, before anything is written; 0 or -1 (message printed). */
static int classify(struct out_state *s)
{
	size_t len = strlen(s->path);
	struct stat st;

	if (!strcmp(s->path, "-")) {
		s->kind = OUT_STDOUT;
		return 0;
	}
	if (len == 0)
		return fail(s->path, ENOENT);
	if (s->path[len - 1] == '/')
		return fail(s->path, EISDIR);
	if (stat(s->path, &st) < 0)
		return errno == ENOENT ? classify_file(s, NULL) :
			fail(s->path, errno);
	if (S_ISDIR(st.st_mode))
		return fail(s->path, EISDIR);
	if (S_ISREG(st.st_mode))
		return classify_file(s, &st);
	s->kind = OUT_SPECIAL;
	return 0;
}

/* Two outputs that are one file (through a link): refused. */
static int check_distinct(const struct out_state *s, int n)
{
	int i, j;

	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++) {
			if (s[i].kind != OUT_FILE || s[j].kind != OUT_FILE)
				continue;
			if (strcmp(s[i].target, s[j].target) &&
			    !(s[i].existed && s[j].existed &&
			      s[i].dev == s[j].dev && s[i].ino == s[j].ino))
				continue;
			fprintf(stderr, "polymma: error: '%s' and '%s' are "
				"the same file\n", s[j].path, s[i].path);
			return -1;
		}
	return 0;
}

/* ---- writing ---- */

static int write_all(int fd, const char *s, size_t len)
{
	ssize_t w;

	while (len > 0) {
		w = write(fd, s, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w == 0)
			errno = EIO;
		if (w <= 0)
			return -1;
		s += w;
		len -= (size_t)w;
	}
	return 0;
}

/* mkstemp, with the name known to the signal handler as soon as the file
 * exists. */
static int create_tmp(struct out_state *s, int i)
{
	sigset_t old;
	int fd;

	block_signals(1, &old);
	fd = mkstemp(s->tmp);
	if (fd >= 0)
		tmp_paths[i] = s->tmp;
	block_signals(0, &old);
	return fd;
}

/* Create and fill the temporary file of output i; 0 or -1 (message
 * printed). fsync so that a crash after the rename cannot leave an empty
 * target (EINVAL: a file system without it). */
static int write_tmp(struct out_state *s, int i)
{
	int fd = create_tmp(s, i), e;

	if (fd < 0)
		return fail(s->path, errno);
	if (write_all(fd, s->text, strlen(s->text)) < 0 ||
	    fchmod(fd, s->mode) < 0 ||
	    (fsync(fd) < 0 && errno != EINVAL)) {
		e = errno;
		close(fd);
		return fail(s->path, e);
	}
	if (close(fd) < 0)
		return fail(s->path, errno);
	return 0;
}

/* Standard output or a special file, in place; 0 or -1 (message
 * printed). */
static int write_special(const struct out_state *s)
{
	struct stat st;
	int fd, e = 0;

	if (s->kind == OUT_STDOUT) {
		if (fflush(stdout) == EOF || write_all(STDOUT_FILENO, s->text,
				strlen(s->text)) < 0) {
			fprintf(stderr, "polymma: error: cannot write to "
				"standard output: %s\n", strerror(errno));
			return -1;
		}
		return 0;
	}
	fd = open(s->path, O_WRONLY | O_NOCTTY);
	if (fd < 0)
		return fail(s->path, errno);
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		e = -1;		/* replaced by a file since it was checked */
	else if (write_all(fd, s->text, strlen(s->text)) < 0)
		e = errno;
	if (close(fd) < 0 && !e)
		e = errno;
	if (e < 0)
		fprintf(stderr, "polymma: error: cannot write '%s': it was "
			"replaced by a file while polymma ran\n", s->path);
	return e > 0 ? fail(s->path, e) : -(e != 0);
}

/* ---- committing ---- */

/* A hard link to the existing target, to put it back if a later rename
 * fails; none (NULL) where links are refused. */
static void take_backup(struct out_state *s)
{
	s->backup = concat(s->tmp, strlen(s->tmp), "~", 1);
	if (s->backup && link(s->target, s->backup) < 0) {
		free(s->backup);
		s->backup = NULL;
	}
}

/* Put back the targets of s[0 .. upto - 1] renamed already. */
static void roll_back(struct out_state *s, int upto)
{
	int j;

	for (j = 0; j < upto; j++) {
		if (!s[j].renamed)
			continue;
		if (s[j].backup && rename(s[j].backup, s[j].target) == 0) {
			free(s[j].backup);
			s[j].backup = NULL;
			continue;
		}
		if (!s[j].existed && unlink(s[j].target) == 0)
			continue;
		fprintf(stderr, "polymma: error: '%s' was replaced and could "
			"not be put back\n", s[j].path);
	}
}

/* Rename every temporary over its target, or none; signals blocked. */
static int commit(struct out_state *s, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (s[i].kind == OUT_FILE && s[i].existed)
			take_backup(&s[i]);
	for (i = 0; i < n; i++) {
		if (s[i].kind != OUT_FILE)
			continue;
		if (rename(s[i].tmp, s[i].target) < 0) {
			fail(s[i].path, errno);
			roll_back(s, i);
			return -1;
		}
		tmp_paths[i] = NULL;
		s[i].renamed = 1;
	}
	return 0;
}

/* Remove what is left of the temporaries and backups; free. */
static void drop(struct out_state *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (tmp_paths[i]) {
			tmp_paths[i] = NULL;
			unlink(s[i].tmp);
		}
		if (s[i].backup)
			unlink(s[i].backup);
		free(s[i].target);
		free(s[i].tmp);
		free(s[i].backup);
	}
}

/* Classify every output, then write the temporaries. */
static int prepare(struct out_state *s, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (classify(&s[i]) < 0)
			return -1;
	if (check_distinct(s, n) < 0)
		return -1;
	for (i = 0; i < n; i++)
		if (s[i].kind == OUT_FILE && write_tmp(&s[i], i) < 0)
			return -1;
	return 0;
}

int pm_cli_write_outputs(const struct pm_cli_output *out, int n)
{
	struct out_state s[MAX_OUTPUTS];
	sigset_t old;
	int i, rc;

	if (n < 0 || n > MAX_OUTPUTS) {
		fprintf(stderr, "polymma: internal error: %d outputs\n", n);
		return -1;
	}
	memset(s, 0, sizeof(s));
	for (i = 0; i < n; i++) {
		s[i].path = out[i].path;
		s[i].text = out[i].text;
	}
	catch_signals(1);
	rc = prepare(s, n);
	for (i = 0; rc == 0 && i < n; i++)
		if (s[i].kind != OUT_FILE)
			rc = write_special(&s[i]);
	block_signals(1, &old);
	if (rc == 0)
		rc = commit(s, n);
	drop(s, n);
	block_signals(0, &old);
	catch_signals(0);
	return rc;
}

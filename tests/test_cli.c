/* The command line as a subprocess: options, exit codes, diagnostics and
 * all-or-nothing outputs (shared/SPEC.md §2). Run from the repository root;
 * the binary is $POLYMMA or build/polymma. */
#define _XOPEN_SOURCE 700

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "polymma.h"

/* A polymma run that takes longer is killed (status 128 + 9). */
#ifndef RUN_TIMEOUT_S
#define RUN_TIMEOUT_S 120
#endif

static const char *polymma_bin(void)
{
	const char *p = getenv("POLYMMA");

	return p && *p ? p : "build/polymma";
}

struct run {
	int status;	/* exit code, or 128 + signal */
	char *out;	/* standard output */
	char *err;	/* standard error */
};

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

static void append(char **buf, size_t *len, const char *data, size_t n)
{
	*buf = realloc(*buf, *len + n + 1);
	assert_non_null(*buf);
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
}

/* Run polymma with the NULL-terminated arguments args (after argv[0]),
 * standard input from stdin_path (NULL: /dev/null). */
static struct run run_in(const char *stdin_path, const char *const *args)
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
static void show(const struct run *r)
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

static char *tmpdir_new(void)
{
	char *d = strdup("/tmp/polymma-test-cli.XXXXXX");

	assert_non_null(d);
	assert_non_null(mkdtemp(d));
	return d;
}

static void rm_rf(const char *path)
{
	DIR *dir = opendir(path);
	struct dirent *e;
	char sub[4096];

	if (dir) {
		while ((e = readdir(dir))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
			rm_rf(sub);
		}
		closedir(dir);
		rmdir(path);
	} else {
		unlink(path);
	}
}

static int teardown_dir(void **state)
{
	rm_rf(*state);
	free(*state);
	return 0;
}

static int setup_dir(void **state)
{
	*state = tmpdir_new();
	return 0;
}

/* Entries of dir (hidden ones included), "." and ".." excluded. */
static int count_entries(const char *dir)
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

static char *path_in(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *p = malloc(n);

	assert_non_null(p);
	snprintf(p, n, "%s/%s", dir, name);
	return p;
}

static char *read_text(const char *path)
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

static void write_text(const char *path, const char *text)
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
static int has_located_error(const char *text, const char *name)
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

/* ---- the tests ---- */

static void test_help(void **state)
{
	struct run r = RUN("--help");
	const char *words[] = { "gen", "check", "-o", "--target", "sm_70",
		"sm_80", "sm_90a", "-D", "--block", "--warp", "--mma",
		"--split-k", "--stages", "--smem", "--header", "--meta",
		"--dump-schedule", "--version" };
	size_t i;

	(void)state;
	EXPECT_STATUS(r, 0);
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!strstr(r.out, words[i]))
			print_message("--help does not mention %s\n", words[i]);
		assert_non_null(strstr(r.out, words[i]));
	}
	run_free(&r);
	r = RUN("gen", "--help");
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "--target"));
	run_free(&r);
}

static void test_version(void **state)
{
	struct run r = RUN("--version");

	(void)state;
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "polymma " POLYMMA_VERSION));
	run_free(&r);
}

static void test_bad_command_lines(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "x.cu");
	struct run r;

	r = RUN("--bogus");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("frobnicate", "examples/gemm_nn.tc");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--bogus");
	EXPECT_STATUS(r, 2);
	assert_non_null(strstr(r.err, "--bogus"));
	assert_non_null(strstr(r.err, "--help"));
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--target");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc");	/* no -o */
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "examples/gemm_nt.tc", "-o", out);
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("check", "examples/gemm_nn.tc", "-o", out);
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--header", out);
	EXPECT_STATUS(r, 2);
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);
	free(out);
}

static void test_no_args(void **state)
{
	struct run r = RUN("gen");

	(void)state;
	EXPECT_STATUS(r, 2);
	assert_non_null(strstr(r.err, "--help"));
	run_free(&r);
	r = run_in(NULL, (const char *const[]){ NULL });
	EXPECT_STATUS(r, 2);
	run_free(&r);
}

static void test_bad_option_values(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "x.cu");
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--target", "sm_99");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--block", "12");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--smem=fancy");
	EXPECT_STATUS(r, 2);
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);
	free(out);
}

static void test_missing_spec_file(void **state)
{
	const char *dir = *state;
	char *spec = path_in(dir, "nope.tc"), *out = path_in(dir, "x.cu");
	struct run r;

	r = RUN("gen", spec, "-o", out);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, "nope.tc"));
	run_free(&r);
	r = RUN("check", spec);
	EXPECT_STATUS(r, 1);
	run_free(&r);
	r = RUN("check", dir);	/* a directory is not a spec */
	EXPECT_STATUS(r, 1);
	run_free(&r);
	r = RUN("gen", "-o", out);	/* no SPEC argument */
	EXPECT_STATUS(r, 2);
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);
	free(spec);
	free(out);
}

static void test_spec_error(void **state)
{
	const char *dir = *state;
	char *spec = path_in(dir, "bad.tc"), *out = path_in(dir, "out.cu");
	char *hdr = path_in(dir, "out.h"), *meta = path_in(dir, "out.json");
	struct run r;

	write_text(spec, bad_spec);
	r = RUN("check", spec);
	EXPECT_STATUS(r, 1);
	if (!has_located_error(r.err, "bad.tc"))
		show(&r);
	assert_true(has_located_error(r.err, "bad.tc"));
	assert_non_null(strstr(r.err, "bad.tc:3:"));
	assert_non_null(strstr(r.err, "^"));
	run_free(&r);

	/* A failed gen leaves nothing behind. */
	r = RUN("gen", spec, "-o", out, "--header", hdr, "--meta", meta);
	EXPECT_STATUS(r, 1);
	assert_true(has_located_error(r.err, "bad.tc"));
	run_free(&r);
	assert_int_equal(count_entries(dir), 1);

	/* ... and does not clobber an existing output. */
	write_text(out, "keep me\n");
	r = RUN("gen", spec, "-o", out);
	EXPECT_STATUS(r, 1);
	run_free(&r);
	{
		char *text = read_text(out);

		assert_non_null(text);
		assert_string_equal(text, "keep me\n");
		free(text);
	}
	assert_int_equal(count_entries(dir), 2);
	free(spec);
	free(out);
	free(hdr);
	free(meta);
}

/* The header cannot be written: the source must not be left either. */
static void test_failed_header_leaves_nothing(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "out.cu");
	char *hdr = path_in(dir, "missing/out.h");
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--header", hdr);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, "out.h"));
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);

	/* An output path that is a directory. */
	r = RUN("gen", "examples/gemm_nn.tc", "-o", dir);
	EXPECT_STATUS(r, 1);
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);
	free(out);
	free(hdr);
}

static void test_gen(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "gemm_nn.cu"), *text;
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", out);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	text = read_text(out);
	assert_non_null(text);
	assert_non_null(strstr(text, "__global__"));
	assert_non_null(strstr(text, "extern \"C\""));
	assert_non_null(strstr(text, "gemm_nn"));
	free(text);
	/* No temporary file is left next to it. */
	assert_int_equal(count_entries(dir), 1);
	free(out);
}

static void test_gen_header_meta(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "k.cu"), *hdr = path_in(dir, "k.h");
	char *meta = path_in(dir, "k.json"), *text;
	struct run r;

	r = RUN("gen", "examples/gemm_nt.tc", "--header", hdr, "-o", out,
		"--meta=", meta);
	EXPECT_STATUS(r, 2);	/* --meta= with an empty name */
	run_free(&r);
	r = RUN("gen", "examples/gemm_nt.tc", "--header", hdr, "-o", out,
		"--meta", meta);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	text = read_text(hdr);
	assert_non_null(text);
	assert_non_null(strstr(text, "gemm_nt"));
	free(text);
	text = read_text(meta);
	assert_non_null(text);
	assert_non_null(strchr(text, '{'));
	free(text);
	text = read_text(out);
	assert_non_null(text);
	assert_non_null(strstr(text, "__global__"));
	free(text);
	assert_int_equal(count_entries(dir), 3);
	free(out);
	free(hdr);
	free(meta);
}

static void test_gen_stdout(void **state)
{
	struct run r = RUN("gen", "examples/gemm_nn.tc", "-o", "-");

	(void)state;
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "__global__"));
	assert_non_null(strstr(r.out, "extern \"C\""));
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o-");
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "__global__"));
	run_free(&r);
}

/* Every spelling of the options, and a schedule dump on stderr. */
static void test_gen_option_forms(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "a.cu");
	struct run r;

	r = RUN("gen", "--target=sm_80", "-DM=256", "-D", "N=384",
		"examples/gemm_tn.tc", "-o", out, "--dump-schedule");
	EXPECT_STATUS(r, 0);
	assert_true(strlen(r.err) > 0);	/* the schedule trees */
	run_free(&r);
	r = RUN("gen", "examples/gemm_tt.tc", "-o", out, "--target", "sm_70",
		"--mma", "16x16x8", "-D", "K=512");
	EXPECT_STATUS(r, 0);
	run_free(&r);
	assert_int_equal(count_entries(dir), 1);
	free(out);
}

/* Beyond what is supported: refused, nothing written. */
static void test_unsupported_refused(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "a.cu");
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--split-k", "65");
	EXPECT_STATUS(r, 1);
	assert_true(strlen(r.err) > 0);
	run_free(&r);
	/* a fixed size must be a multiple of its tile (a runtime one need
	 * not: ragged tiles), said at the contraction */
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "-D", "M=1000");
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, "examples/gemm_nn.tc:4:5: error: "
		"unsupported: the extent M (rows of the output) is 1000, not a "
		"multiple of the block tile 128"));
	assert_non_null(strstr(r.err, "left a runtime size it need not be"));
	run_free(&r);
	assert_int_equal(count_entries(dir), 0);

	/* The fused epilogue: generated, or refused with a message. */
	r = RUN("gen", "examples/gemm_bias_relu.tc", "-o", out);
	if (r.status == 1) {
		assert_non_null(strstr(r.err, "error"));
		assert_int_equal(count_entries(dir), 0);
	} else {
		char *text;

		EXPECT_STATUS(r, 0);
		text = read_text(out);
		assert_non_null(text);
		assert_non_null(strstr(text, "__global__"));
		free(text);
	}
	run_free(&r);
	free(out);
}

static void test_check(void **state)
{
	const char *specs[] = { "examples/gemm_nn.tc", "examples/gemm_nt.tc",
		"examples/gemm_tn.tc", "examples/gemm_tt.tc",
		"examples/gemm_bias_relu.tc" };
	struct run r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		r = RUN("check", specs[i]);
		EXPECT_STATUS(r, 0);
		if (!strstr(r.out, "S_") && !strchr(r.out, '{'))
			show(&r);
		assert_true(strstr(r.out, "S_") || strchr(r.out, '{'));
		/* the spec's program, not a split-K kernel's */
		assert_null(strstr(r.out, "pm_k0_"));
		run_free(&r);
	}
	/* The spec from standard input. */
	r = run_in("examples/gemm_nn.tc", (const char *const[]){ "check", "-",
		NULL });
	EXPECT_STATUS(r, 0);
	assert_true(strstr(r.out, "S_") || strchr(r.out, '{'));
	run_free(&r);
}

/* ---- output files (cli/io.c; docs/LANGUAGE.md "Outputs") ---- */

/* Entries of dir named like a temporary or a backup (.polymma-*). */
static int count_temporaries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, ".polymma-", 9))
			n++;
	closedir(d);
	return n;
}

static void expect_text(const char *path, const char *want)
{
	char *text = read_text(path);

	if (!text || strcmp(text, want))
		print_message("%s holds '%.40s', not '%s'\n", path,
			text ? text : "(nothing)", want);
	assert_non_null(text);
	assert_string_equal(text, want);
	free(text);
}

/* The generated CUDA of gemm_nn (standard output of gen -o -). */
static char *gemm_nn_source(void)
{
	struct run r = RUN("gen", "examples/gemm_nn.tc", "-o", "-");
	char *text;

	EXPECT_STATUS(r, 0);
	text = r.out;
	r.out = NULL;
	run_free(&r);
	return text;
}

/* A character device like `real` ("/dev/null", "/dev/full") to write to:
 * a copy made with mknod in dir when the system lets us open it (so that
 * a regression cannot replace the real node), else the real one. */
static char *char_device(const char *dir, const char *real)
{
	char *copy = path_in(dir, strrchr(real, '/') + 1);
	struct stat st;
	int fd;

	assert_int_equal(stat(real, &st), 0);
	if (mknod(copy, S_IFCHR | 0666, st.st_rdev) == 0) {
		fd = open(copy, O_WRONLY);
		if (fd >= 0) {
			close(fd);
			return copy;
		}
		unlink(copy);
	}
	free(copy);
	return strdup(real);
}

static void expect_char_device(const char *path, const char *real)
{
	struct stat st, want;

	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(stat(real, &want), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_true(st.st_rdev == want.st_rdev);
}

/* -o /dev/null: written in place, the node stays (it used to be replaced
 * by a regular file when run as root). */
static void test_out_dev_null(void **state)
{
	const char *dir = *state;
	char *null = char_device(dir, "/dev/null");
	int before = count_entries(dir);
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", null);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", "-", "--header", null,
		"--meta", null);
	EXPECT_STATUS(r, 2);	/* one path, two outputs */
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", "-", "--header", null);
	EXPECT_STATUS(r, 0);
	assert_non_null(strstr(r.out, "__global__"));
	run_free(&r);
	expect_char_device(null, "/dev/null");
	assert_int_equal(count_entries(dir), before);
	free(null);
}

/* -o /dev/full: ENOSPC is an error (exit 1, the device named), and the
 * regular outputs of the same run, written to temporaries already, are
 * not renamed: the existing files stay byte-identical. */
static void test_out_dev_full(void **state)
{
	const char *dir = *state;
	char *full = char_device(dir, "/dev/full");
	char *out = path_in(dir, "k.cu"), *hdr = path_in(dir, "k.h");
	int before;
	struct run r;

	r = RUN("gen", "examples/gemm_nn.tc", "-o", full);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, full));
	assert_non_null(strstr(r.err, strerror(ENOSPC)));
	run_free(&r);
	write_text(out, "old source\n");
	write_text(hdr, "old header\n");
	before = count_entries(dir);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--header", hdr,
		"--meta", full);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, strerror(ENOSPC)));
	run_free(&r);
	expect_text(out, "old source\n");
	expect_text(hdr, "old header\n");
	expect_char_device(full, "/dev/full");
	assert_int_equal(count_entries(dir), before);
	assert_int_equal(count_temporaries(dir), 0);
	free(full);
	free(out);
	free(hdr);
}

/* A child that copies the FIFO fifo into the file copy, and the writing
 * end *hold that the test keeps open until the run is over (so that the
 * child's open does not wait for polymma, and its read ends even when
 * polymma never opens the FIFO). O_RDWR on a FIFO: Linux. */
static pid_t fifo_reader(const char *fifo, const char *copy, int *hold)
{
	char buf[4096];
	ssize_t got;
	pid_t pid;
	int in, out;

	*hold = open(fifo, O_RDWR);
	assert_true(*hold >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid > 0)
		return pid;
	close(*hold);
	in = open(fifo, O_RDONLY);
	out = open(copy, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (in < 0 || out < 0)
		_exit(1);
	while ((got = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)got) != got)
			_exit(1);
	_exit(got < 0 || close(out) < 0);
}

/* Let the reader see the end of the FIFO, and wait for it. */
static int fifo_reader_wait(int hold, pid_t pid)
{
	int st;

	close(hold);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* -o FIFO: written in place (the reader gets the file), the FIFO stays. */
static void test_out_fifo(void **state)
{
	const char *dir = *state;
	char *fifo = path_in(dir, "pipe.cu"), *copy = path_in(dir, "copy");
	char *want = gemm_nn_source();
	struct stat st;
	struct run r;
	pid_t pid;
	int hold;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	pid = fifo_reader(fifo, copy, &hold);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", fifo);
	assert_int_equal(fifo_reader_wait(hold, pid), 0);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	expect_text(copy, want);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_int_equal(count_entries(dir), 2);
	free(want);
	free(fifo);
	free(copy);
}

/* A read-only directory: as root, permission bits do not stop the write,
 * so the test says so and is skipped (test_out_bad_paths covers failures
 * root also meets). */
static void test_out_readonly_dir(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "k.cu");
	struct run r;

	if (geteuid() == 0) {
		print_message("test_out_readonly_dir: skipped: running as "
			"root, a read-only directory does not stop root\n");
		free(out);
		skip();
	}
	write_text(out, "keep me\n");
	assert_int_equal(chmod(dir, 0555), 0);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out);
	chmod(dir, 0755);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, out));
	assert_non_null(strstr(r.err, strerror(EACCES)));
	run_free(&r);
	expect_text(out, "keep me\n");
	assert_int_equal(count_entries(dir), 1);
	free(out);
}

/* Paths that fail for root too: a parent that is a regular file, an
 * output that is a directory or ends in '/', a missing directory. The
 * outputs given with them, existing ones included, are not touched. */
static void test_out_bad_paths(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "k.cu"), *file = path_in(dir, "file");
	char *under = path_in(dir, "file/k.h"), *sub = path_in(dir, "sub");
	char *slash = path_in(dir, "new/"), *missing = path_in(dir, "no/k.h");
	const char *bad[] = { under, sub, slash, missing };
	const char *why[] = { strerror(ENOTDIR), strerror(EISDIR),
		strerror(EISDIR), strerror(ENOENT) };
	struct run r;
	size_t i;

	write_text(out, "keep me\n");
	write_text(file, "a file\n");
	assert_int_equal(mkdir(sub, 0755), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--header",
			bad[i]);
		EXPECT_STATUS(r, 1);
		if (!strstr(r.err, bad[i]) || !strstr(r.err, why[i]))
			show(&r);
		assert_non_null(strstr(r.err, bad[i]));
		assert_non_null(strstr(r.err, why[i]));
		run_free(&r);
		expect_text(out, "keep me\n");
		expect_text(file, "a file\n");
		assert_int_equal(count_entries(dir), 3);
		assert_int_equal(count_entries(sub), 0);
	}
	free(out);
	free(file);
	free(under);
	free(sub);
	free(slash);
	free(missing);
}

/* A spec error with all three outputs existing: all three unchanged. */
static void test_out_spec_error_keeps_all(void **state)
{
	const char *dir = *state;
	char *spec = path_in(dir, "bad.tc"), *out = path_in(dir, "k.cu");
	char *hdr = path_in(dir, "k.h"), *meta = path_in(dir, "k.json");
	struct run r;

	write_text(spec, bad_spec);
	write_text(out, "1\n");
	write_text(hdr, "2\n");
	write_text(meta, "3\n");
	r = RUN("gen", spec, "-o", out, "--header", hdr, "--meta", meta);
	EXPECT_STATUS(r, 1);
	run_free(&r);
	expect_text(out, "1\n");
	expect_text(hdr, "2\n");
	expect_text(meta, "3\n");
	assert_int_equal(count_entries(dir), 4);
	free(spec);
	free(out);
	free(hdr);
	free(meta);
}

/* Set or clear the immutable attribute of path; 0, or -1 where the file
 * system or the user cannot. */
static int set_immutable(const char *path, int on)
{
#ifdef FS_IOC_SETFLAGS
	int fd = open(path, O_RDONLY), flags, rc = -1;

	if (fd < 0)
		return -1;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0) {
		flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
		rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
	}
	close(fd);
	return rc;
#else
	(void)path;
	(void)on;
	return -1;
#endif
}

/* A rename that fails after an earlier one succeeded (the header is
 * immutable: even root cannot replace it): the source renamed already is
 * put back, the same inode with the same bytes (its hard link still
 * shares it), and a source that did not exist is removed again. */
static void test_out_rename_rolled_back(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "k.cu"), *hdr = path_in(dir, "k.h");
	char *hard = path_in(dir, "k.cu.link"), *fresh = path_in(dir, "n.cu");
	struct stat a, b;
	struct run r;

	write_text(out, "old source\n");
	write_text(hdr, "old header\n");
	assert_int_equal(link(out, hard), 0);
	if (set_immutable(hdr, 1) < 0) {
		print_message("test_out_rename_rolled_back: skipped: cannot "
			"make a file immutable here (needs root and ext4, "
			"xfs, btrfs or tmpfs)\n");
		skip();
	}
	assert_int_equal(stat(out, &a), 0);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--header", hdr);
	set_immutable(hdr, 0);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, hdr));
	assert_null(strstr(r.err, "could not be put back"));
	run_free(&r);
	expect_text(out, "old source\n");
	expect_text(hard, "old source\n");
	expect_text(hdr, "old header\n");
	assert_int_equal(stat(out, &b), 0);
	assert_true(a.st_ino == b.st_ino);
	assert_int_equal(count_entries(dir), 3);

	set_immutable(hdr, 1);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", fresh, "--header", hdr);
	set_immutable(hdr, 0);
	EXPECT_STATUS(r, 1);
	run_free(&r);
	assert_int_equal(access(fresh, F_OK), -1);
	assert_int_equal(count_entries(dir), 3);
	free(out);
	free(hdr);
	free(hard);
	free(fresh);
}

/* Symbolic links: -o LINK replaces the file the link points to (the link
 * stays a link); a dangling link gets its target created; a link and its
 * target given as two outputs are refused; a loop is an error. */
static void test_out_symlinks(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "k.cu"), *link_ = path_in(dir, "l.cu");
	char *dangling = path_in(dir, "d.cu"), *made = path_in(dir, "made.cu");
	char *loop = path_in(dir, "loop"), *want = gemm_nn_source();
	struct stat st;
	struct run r;

	write_text(out, "old\n");
	assert_int_equal(symlink("k.cu", link_), 0);
	assert_int_equal(symlink("made.cu", dangling), 0);
	assert_int_equal(symlink("loop", loop), 0);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out, "--header", link_);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, "the same file"));
	run_free(&r);
	expect_text(out, "old\n");
	r = RUN("gen", "examples/gemm_nn.tc", "-o", loop);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, strerror(ELOOP)));
	run_free(&r);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", link_);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	assert_int_equal(lstat(link_, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	expect_text(out, want);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", dangling);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	assert_int_equal(lstat(dangling, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	expect_text(made, want);
	assert_int_equal(count_entries(dir), 5);
	assert_int_equal(count_temporaries(dir), 0);
	free(out);
	free(link_);
	free(dangling);
	free(made);
	free(loop);
	free(want);
}

/* A replaced file keeps its permission bits. */
static void test_out_keeps_mode(void **state)
{
	const char *dir = *state;
	char *out = path_in(dir, "k.cu");
	struct stat st;
	struct run r;

	write_text(out, "old\n");
	assert_int_equal(chmod(out, 0640), 0);
	r = RUN("gen", "examples/gemm_nn.tc", "-o", out);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(count_entries(dir), 1);
	free(out);
}

static int group_setup(void **state)
{
	(void)state;
	if (access(polymma_bin(), X_OK) != 0) {
		fprintf(stderr, "test_cli: %s not found (run from the "
			"repository root after make)\n", polymma_bin());
		return -1;
	}
	return 0;
}

#define OUT_TEST(t) cmocka_unit_test_setup_teardown(t, setup_dir, teardown_dir)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_no_args),
		cmocka_unit_test_setup_teardown(test_bad_command_lines,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_bad_option_values,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_missing_spec_file,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_spec_error,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(
			test_failed_header_leaves_nothing, setup_dir,
			teardown_dir),
		cmocka_unit_test_setup_teardown(test_gen, setup_dir,
			teardown_dir),
		cmocka_unit_test_setup_teardown(test_gen_header_meta,
			setup_dir, teardown_dir),
		cmocka_unit_test(test_gen_stdout),
		cmocka_unit_test_setup_teardown(test_gen_option_forms,
			setup_dir, teardown_dir),
		cmocka_unit_test_setup_teardown(test_unsupported_refused,
			setup_dir, teardown_dir),
		cmocka_unit_test(test_check),
		OUT_TEST(test_out_dev_null),
		OUT_TEST(test_out_dev_full),
		OUT_TEST(test_out_fifo),
		OUT_TEST(test_out_readonly_dir),
		OUT_TEST(test_out_bad_paths),
		OUT_TEST(test_out_spec_error_keeps_all),
		OUT_TEST(test_out_rename_rolled_back),
		OUT_TEST(test_out_symlinks),
		OUT_TEST(test_out_keeps_mode),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}

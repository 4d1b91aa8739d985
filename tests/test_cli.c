/* The command line as a subprocess: options, exit codes, diagnostics and
 * all-or-nothing outputs (shared/SPEC.md §2). Run from the repository root;
 * the binary is $POLYMMA or build/polymma. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
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
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}

/* The command line's outputs (cli/io.c; docs/LANGUAGE.md "Outputs"):
 * all-or-nothing over devices, FIFOs, read-only and bad paths, a failed
 * rename rolled back, symlinks and modes. Run from the repository root;
 * the binary is $POLYMMA or build/polymma. */
#define _XOPEN_SOURCE 700

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sys/ioctl.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "tests/cli_util.h"

/* The spec every output test generates, with two kernels (not split, no
 * small tiles): the file's contents are not what these tests check, and
 * the four kernels of the defaults take twice as long. */
#define GEMM_NN "examples/gemm_nn.tc", "--split-k", "1", \
	"--small-variant", "off"

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

/* The generated CUDA of GEMM_NN (standard output of gen -o -). */
static char *gemm_nn_source(void)
{
	struct run r = RUN("gen", GEMM_NN, "-o", "-");
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

	r = RUN("gen", GEMM_NN, "-o", null);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	r = RUN("gen", GEMM_NN, "-o", "-", "--header", null,
		"--meta", null);
	EXPECT_STATUS(r, 2);	/* one path, two outputs */
	run_free(&r);
	r = RUN("gen", GEMM_NN, "-o", "-", "--header", null);
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

	r = RUN("gen", GEMM_NN, "-o", full);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, full));
	assert_non_null(strstr(r.err, strerror(ENOSPC)));
	run_free(&r);
	write_text(out, "old source\n");
	write_text(hdr, "old header\n");
	before = count_entries(dir);
	r = RUN("gen", GEMM_NN, "-o", out, "--header", hdr,
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
	r = RUN("gen", GEMM_NN, "-o", fifo);
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
	r = RUN("gen", GEMM_NN, "-o", out);
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
		r = RUN("gen", GEMM_NN, "-o", out, "--header",
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
	r = RUN("gen", GEMM_NN, "-o", out, "--header", hdr);
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
	r = RUN("gen", GEMM_NN, "-o", fresh, "--header", hdr);
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
	r = RUN("gen", GEMM_NN, "-o", out, "--header", link_);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, "the same file"));
	run_free(&r);
	expect_text(out, "old\n");
	r = RUN("gen", GEMM_NN, "-o", loop);
	EXPECT_STATUS(r, 1);
	assert_non_null(strstr(r.err, strerror(ELOOP)));
	run_free(&r);
	r = RUN("gen", GEMM_NN, "-o", link_);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	assert_int_equal(lstat(link_, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	expect_text(out, want);
	r = RUN("gen", GEMM_NN, "-o", dangling);
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
	r = RUN("gen", GEMM_NN, "-o", out);
	EXPECT_STATUS(r, 0);
	run_free(&r);
	assert_int_equal(stat(out, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
	assert_int_equal(count_entries(dir), 1);
	free(out);
}

#define OUT_TEST(t) cmocka_unit_test_setup_teardown(t, setup_dir, teardown_dir)

int main(void)
{
	const struct CMUnitTest tests[] = {
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

	return cmocka_run_group_tests(tests, pm_test_cli_group_setup, NULL);
}

/* Generated kernels compile with nvcc without warnings, with no stack frame
 * and no spills.
 *
 * For each layout (nn nt tn tt) x target configuration (sm_80 with its
 * default MMA; sm_70 with 16x16x8 and 32x32x8 macro-MMAs; sm_90a) x sizes
 * (runtime, or -D M=256 -D N=384 -D K=512): polymma gen, then
 *   nvcc -c|-cubin -arch=sm_80|sm_75 (-gencode=arch=compute_90a,code=sm_90a)
 *        -Xptxas -v -o /dev/null
 * (sm_70 code is compiled for sm_75: CUDA 13 has no sm_70), and the ptxas
 * report must say "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill
 * loads" for every function, with no warning and no "Potential Performance
 * Loss" (ptxas serializing wgmma). The sm_80 nn kernel is also compiled for
 * sm_90; the sm_90a nn and fused kernels also with --mma-inflight on;
 * 128x96 and 128x80 persistent blocks (wgmma n = 96 / 80, B in 32- / 16-
 * column swizzled blocks) in a few layouts and idioms.
 * bf16 operands (tests/specs/, docs/decisions/0026): every layout
 * with bf16 output, an f32 output, a fused bias + ReLU epilogue, a ReLU
 * prologue and one computed in fp32, two contractions, on sm_80 and
 * sm_90a; on sm_90a also an f16 output, --mma-inflight on and 128x96
 * blocks.
 * Combinations that spilled (tests/specs/add_gemm_res_pro.tc on sm_90a,
 * with --mma-inflight on and on sm_80; tests/specs/pro_b_gemm.tc with
 * fixed sizes on sm_80 and sm_90a; docs/decisions/0028).
 * 8-bit float operands on sm_90a (docs/decisions/0029; K-major): e4m3
 * into f16 and f32, e5m2 into bf16, scaled by two scalars into f16, two
 * contractions, --mma-inflight on,
 * --persistent on with --cluster 2, 128-byte rows (--block 128x128x128)
 * and cp.async copies (--tma off); i8 into i32 (unsplit: base and small
 * rows), with MMAs in flight, persistent in clusters and cp.async,
 * dequantized into f16 by an epilogue, and two i8 contractions into f32.
 * i8 on sm_80 (mma.sync m16n8k32, docs/decisions/0032): into i32 with
 * runtime and fixed sizes and with padded rows (--smem pad), dequantized
 * into f16, two contractions into f32.
 * Epilogues reading per-row and per-column vectors and a residual
 * (tests/specs/gemm_f8e4m3_scale*.tc, gemm_f16_scale*.tc, ...;
 * docs/decisions/0034): every row of their sm_90a files, with fp8 and f16
 * operands, with MMAs in flight and clusters, on sm_80 and sm_70.
 * K fixed to 1000 (-D K=1000: a ragged k, docs/decisions/0030) on every
 * target, with prologues and a shared operand; the runtime cases' kernels
 * take a ragged K.
 * 8-bit operands declared MN-major (docs/decisions/0033): the copy
 * kernel (runtime/device/kcopy.cuh) and kernels reading the K-major
 * copies, f8 and i8, in the nn, tn and tt layouts, one persistent kernel
 * in clusters, cp.async copies, fixed sizes, two contractions.
 * All compiles run in the group setup, a few at a time; each case is then
 * one test. First every file is generated (once per command); a case
 * whose file and arch are byte for byte another's is checked on that
 * one's compile; the first case of each spec and target is compiled with
 * -c (host code too), the others with -cubin (the device code: the same
 * front end, warnings of host code included, and ptxas), the largest
 * files first.
 * Skipped when nvcc is not found (PATH, /usr/local/cuda/bin).
 * POLYMMA_KEEP_TMP=1 keeps the generated files and logs;
 * POLYMMA_NVCC_FILTER=TEXT compiles only the cases whose name contains
 * TEXT (the others are skipped).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/nvcc_util.h"

#define JOB_TIMEOUT_S 240	/* for one gen, for one nvcc */

#include "tests/nvcc_cases.h"

static const char *polymma_bin(void)
{
	return pm_test_polymma_bin();
}

/* nvcc in PATH or /usr/local/cuda/bin; 0 when found. */
static int find_nvcc(void)
{
	return pm_test_find_nvcc(nvcc, sizeof(nvcc));
}

/* Standard output and error to path. */
static void redirect(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		_exit(126);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
}

/* In a child: exec polymma gen. */
static void gen_job(const struct ncase *k)
{
	const char *gen[32];
	int n = 0;

	gen[n++] = polymma_bin();
	gen[n++] = "gen";
	gen[n++] = k->spec;
	gen[n++] = "-o";
	gen[n++] = k->cu;
	gen[n++] = "--target";
	gen[n++] = k->cfg->target;
	if (k->cfg->mma) {
		gen[n++] = "--mma";
		gen[n++] = k->cfg->mma;
	}
	if (k->cfg->opt) {
		gen[n++] = k->cfg->opt;
		gen[n++] = k->cfg->value;
		gen[n++] = "--stages";
		gen[n++] = "4";
	}
	for (int i = 0; k->cfg->extra && k->cfg->extra[i]; ++i)
		gen[n++] = k->cfg->extra[i];
	if (k->fixed == 2) {
		gen[n++] = "-D";
		gen[n++] = "K=1000";
	} else if (k->fixed) {
		gen[n++] = "-D";
		gen[n++] = "M=256";
		gen[n++] = "-D";
		gen[n++] = "N=384";
		gen[n++] = "-D";
		gen[n++] = "K=512";
	}
	gen[n] = NULL;
	redirect(k->gen_log);
	execv(gen[0], (char *const *)gen);
	_exit(127);
}

/* In a child: exec nvcc -c (k->full) or -cubin. */
static void nvcc_job(const struct ncase *k)
{
	const char *cc[16];
	char arch[64];
	int n = 0;

	if (k->arch[0] == '-')
		snprintf(arch, sizeof(arch), "%s", k->arch);
	else
		snprintf(arch, sizeof(arch), "-arch=%s", k->arch);
	cc[n++] = nvcc;
	cc[n++] = k->full ? "-c" : "-cubin";
	cc[n++] = arch;
	cc[n++] = "-Xptxas";
	cc[n++] = "-v";
	cc[n++] = "-o";
	cc[n++] = "/dev/null";
	cc[n++] = k->cu;
	cc[n] = NULL;
	redirect(k->nvcc_log);
	execv(cc[0], (char *const *)cc);
	_exit(127);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The process groups of the running jobs: killed with us on a signal. */
static volatile pid_t pids[N_CASES];

static void on_signal(int sig)
{
	int i;

	for (i = 0; i < N_CASES; i++)
		if (pids[i] > 0)
			kill(-pids[i], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Is case k compiled (POLYMMA_NVCC_FILTER)? */
static int selected(const struct ncase *k)
{
	const char *f = getenv("POLYMMA_NVCC_FILTER");

	return !f || !*f || strstr(k->name, f);
}

/* Run job on the cases order[0..n), at most `parallel` at a time, each
 * in its own process group, killed after JOB_TIMEOUT_S; the exit
 * statuses into *status_of(case), the seconds added to its seconds. */
static void run_pool(const int *order, int n, int parallel,
	void (*job)(const struct ncase *), int *(*status_of)(struct ncase *))
{
	double start[N_CASES];
	int next = 0, running = 0, i, st;
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	pid_t pid;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	while (next < n || running > 0) {
		if (next < n && running < parallel) {
			struct ncase *k = &cases[order[next]];

			start[order[next]] = now();
			pid = fork();
			if (pid == 0) {
				setpgid(0, 0);
				job(k);
			}
			if (pid > 0)
				setpgid(pid, pid);	/* no race with kill */
			pids[order[next]] = pid;
			if (pid < 0)
				*status_of(k) = 126;
			else
				running++;
			next++;
			continue;
		}
		pid = waitpid(-1, &st, WNOHANG);
		if (pid < 0)
			break;
		if (pid == 0) {
			for (i = 0; i < N_CASES; i++)
				if (pids[i] > 0 &&
				    now() - start[i] > JOB_TIMEOUT_S) {
					kill(-pids[i], SIGKILL);
					kill(pids[i], SIGKILL);
					cases[i].timed_out = 1;
				}
			nanosleep(&tick, NULL);
			continue;
		}
		for (i = 0; i < N_CASES; i++)
			if (pids[i] == pid) {
				*status_of(&cases[i]) = WIFEXITED(st) ?
					WEXITSTATUS(st) : 128 + WTERMSIG(st);
				cases[i].seconds += now() - start[i];
				pids[i] = 0;
				running--;
			}
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static int *gen_status(struct ncase *k)
{
	return &k->gen_status;
}

static int *nvcc_status(struct ncase *k)
{
	return &k->status;
}

/* FNV-1a of n bytes, from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; ++i)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* The contents of path (NUL-terminated; *n its bytes), NULL if
 * unreadable. */
static char *read_file(const char *path, long *n)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;

	*n = -1;
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (*n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0)
		buf = malloc(*n + 1);
	if (buf && fread(buf, 1, *n, f) != (size_t) *n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[*n] = '\0';
	fclose(f);
	return buf;
}

/* Do the generated files of cases a and b hold the same bytes? */
static int same_file(const struct ncase *a, const struct ncase *b)
{
	long na, nb;
	char *x = read_file(a->cu, &na), *y = read_file(b->cu, &nb);
	int same = x && y && na == nb && !memcmp(x, y, na);

	free(x);
	free(y);
	return same;
}

/* After gen: each generated file's size and hash; same_as for a case
 * whose file and arch an earlier case has; full for the first case of
 * each spec and target that is compiled. */
static void plan_compiles(void)
{
	for (int i = 0; i < N_CASES; i++) {
		struct ncase *k = &cases[i];
		char *text;

		if (k->gen_status != 0)
			continue;
		text = read_file(k->cu, &k->size);
		k->hash = fnv(fnv(1469598103934665603ULL, k->arch,
			strlen(k->arch) + 1), text ? text : "", text ? k->size : 0);
		free(text);
		for (int j = 0; j < i && k->same_as < 0; j++)
			if (cases[j].gen_status == 0 && cases[j].same_as < 0 &&
			    cases[j].hash == k->hash &&
			    cases[j].size == k->size &&
			    !strcmp(cases[j].arch, k->arch) &&
			    same_file(&cases[j], k))
				k->same_as = j;
		if (k->same_as >= 0)
			continue;
		k->full = 1;
		for (int j = 0; j < i && k->full; j++)
			if (cases[j].gen_status == 0 && cases[j].same_as < 0 &&
			    !strcmp(cases[j].spec, k->spec) &&
			    !strcmp(cases[j].cfg->target, k->cfg->target))
				k->full = 0;
	}
}

/* The compiles' order: the largest files first (the longest compiles,
 * so that the last ones end together). */
static int by_size(const void *a, const void *b)
{
	const struct ncase *x = &cases[*(const int *) a];
	const struct ncase *y = &cases[*(const int *) b];

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return *(const int *) a - *(const int *) b;
}

/* The first selected case whose polymma gen command is case i's (the
 * same spec, configuration and sizes), if not i: -1. */
static int same_gen(int i)
{
	for (int j = 0; j < i; j++)
		if (selected(&cases[j]) && cases[j].cfg == cases[i].cfg &&
		    cases[j].fixed == cases[i].fixed &&
		    !strcmp(cases[j].spec, cases[i].spec))
			return j;
	return -1;
}

static int group_setup(void **state)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int parallel = ncpu < 2 ? 2 : ncpu > 8 ? 8 : (int)ncpu;
	int order[N_CASES], n = 0, nfull = 0, nsame = 0;
	double t0 = now(), t1;

	(void)state;
	if (!nvcc[0])
		return 0;
	if (access(polymma_bin(), X_OK) != 0) {
		fprintf(stderr, "test_nvcc: %s not found (run from the "
			"repository root after make)\n", polymma_bin());
		return -1;
	}
	for (int i = 0; i < N_CASES; i++)
		if (selected(&cases[i]) && same_gen(i) < 0)
			order[n++] = i;
	printf("test_nvcc: %d files to generate with %s, %d jobs at a "
		"time, in %s\n", n, polymma_bin(), parallel, tmpdir);
	fflush(stdout);
	run_pool(order, n, parallel, gen_job, gen_status);
	t1 = now();
	/* a case generated with another's command takes its file */
	for (int i = 0, j; i < N_CASES; i++)
		if (selected(&cases[i]) && (j = same_gen(i)) >= 0) {
			cases[i].gen_status = cases[j].gen_status;
			snprintf(cases[i].cu, sizeof(cases[i].cu), "%s",
				cases[j].cu);
			snprintf(cases[i].gen_log, sizeof(cases[i].gen_log), "%s",
				cases[j].gen_log);
		}
	plan_compiles();
	n = 0;
	for (int i = 0; i < N_CASES; i++) {
		if (cases[i].gen_status != 0 || cases[i].timed_out)
			continue;
		if (cases[i].same_as >= 0) {
			nsame++;
			continue;
		}
		nfull += cases[i].full;
		order[n++] = i;
	}
	qsort(order, n, sizeof(order[0]), by_size);
	printf("test_nvcc: generated in %.0f s; %d compiles (%d with -c, %d "
		"-cubin), %d cases the same file and arch as another\n",
		t1 - t0, n, nfull, n - nfull, nsame);
	fflush(stdout);
	run_pool(order, n, parallel, nvcc_job, nvcc_status);
	printf("test_nvcc: all compiles done in %.0f s\n", now() - t1);
	fflush(stdout);
	return 0;
}

static int group_teardown(void **state)
{
	DIR *d;
	struct dirent *e;
	char path[1024];
	const char *keep = getenv("POLYMMA_KEEP_TMP");

	(void)state;
	if (!nvcc[0])
		return 0;
	if (keep && *keep && strcmp(keep, "0")) {
		printf("test_nvcc: files kept in %s\n", tmpdir);
		return 0;
	}
	d = opendir(tmpdir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(tmpdir);
	return 0;
}

/* The contents of path, "" if unreadable (the caller frees). */
static char *read_text(const char *path)
{
	long n;
	char *text = read_file(path, &n);

	return text ? text : strdup("");
}

/* Checks the ptxas report: every function has no stack frame and no
 * spills. Returns the number of functions, -1 on a violation (printed). */
static int check_ptxas(const struct ncase *k, const char *log)
{
	const char *line = log, *end, *p;
	char fn[256] = "?";
	int nfun = 0, bad = 0, stack, stores, loads;

	for (; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		p = strstr(line, "Function properties for ");
		if (p && p < end) {
			p += strlen("Function properties for ");
			snprintf(fn, sizeof(fn), "%.*s", (int)(end - p), p);
			continue;
		}
		p = strstr(line, "bytes stack frame");
		if (!p || p > end)
			continue;
		nfun++;
		if (sscanf(line, " %d bytes stack frame, %d bytes spill stores, "
			"%d bytes spill loads", &stack, &stores, &loads) != 3 ||
		    stack || stores || loads) {
			print_message("%s: function %s: %.*s\n", k->name, fn,
				(int)(end - line), line);
			bad = 1;
		}
	}
	return bad ? -1 : nfun;
}

/* The "Used N registers, ..." lines, as a one-line summary. */
static void print_usage_lines(const struct ncase *k, const char *log)
{
	const char *p = log, *end;

	while ((p = strstr(p, "Used "))) {
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		print_message("  %s (%s, %.0f s): %.*s\n", k->name, k->arch,
			k->seconds, (int)(end - p), p);
		p = end;
	}
}

static void test_case(void **state)
{
	const struct ncase *k = *state;
	char *log;
	int nfun;

	if (!nvcc[0]) {
		print_message("nvcc not found in PATH or /usr/local/cuda/bin: "
			"skipped\n");
		skip();
	}
	if (!selected(k)) {
		print_message("%s: not in POLYMMA_NVCC_FILTER: skipped\n",
			k->name);
		skip();
	}
	if (k->timed_out)
		fail_msg("%s: gen or nvcc still ran after %d s: killed", k->name,
			JOB_TIMEOUT_S);
	if (k->gen_status != 0) {
		log = read_text(k->gen_log);
		print_message("polymma gen %s (--target %s%s%s%s) failed:\n%s\n",
			k->spec, k->cfg->target, k->cfg->mma ? " --mma " : "",
			k->cfg->mma ? k->cfg->mma : "",
			k->fixed ? " -D M=256 -D N=384 -D K=512" : "", log);
		free(log);
		fail_msg("%s: gen failed", k->name);
	}
	if (k->same_as >= 0) {
		print_message("%s: the same file and arch as %s: its compile\n",
			k->name, cases[k->same_as].name);
		k = &cases[k->same_as];
		if (k->timed_out)
			fail_msg("%s: nvcc still ran after %d s: killed",
				k->name, JOB_TIMEOUT_S);
	}
	log = read_text(k->nvcc_log);
	if (k->status != 0) {
		print_message("nvcc %s -arch=%s %s failed (status %d):\n"
			"%.8000s\n", k->full ? "-c" : "-cubin", k->arch, k->cu,
			k->status, log);
		free(log);
		fail_msg("%s: nvcc failed", k->name);
	}
	/* generated CUDA compiles cleanly: no front-end warning either, and
	 * ptxas keeps the wgmma asynchronous */
	if (strstr(log, "warning") || strstr(log, "Performance Loss")) {
		print_message("%s: nvcc warns:\n%.4000s\n", k->name, log);
		free(log);
		fail_msg("%s: nvcc warnings", k->name);
	}
	nfun = check_ptxas(k, log);
	if (nfun == 0)
		print_message("%s: no ptxas report in:\n%.4000s\n", k->name, log);
	print_usage_lines(k, log);
	free(log);
	if (nfun < 0)
		fail_msg("%s: stack frame or spills (kept with "
			"POLYMMA_KEEP_TMP=1)", k->name);
	if (nfun == 0)
		fail_msg("%s: no ptxas -v report", k->name);
}

int main(void)
{
	struct CMUnitTest tests[N_CASES];
	int i;

	if (find_nvcc() < 0) {
		printf("test_nvcc: nvcc not found in PATH or "
			"/usr/local/cuda/bin: every case is skipped\n");
	} else if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		return 1;
	}
	init_cases();
	for (i = 0; i < N_CASES; i++) {
		memset(&tests[i], 0, sizeof(tests[i]));
		tests[i].name = cases[i].name;
		tests[i].test_func = test_case;
		tests[i].initial_state = &cases[i];
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

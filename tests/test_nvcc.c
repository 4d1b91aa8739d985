/* Generated kernels compile with nvcc without warnings, with no stack frame
 * and no spills.
 *
 * For each layout (nn nt tn tt) x target configuration (sm_80 with its
 * default MMA; sm_70 with 16x16x8 and 32x32x8 macro-MMAs; sm_90a) x sizes
 * (runtime, or -D M=256 -D N=384 -D K=512): polymma gen, then
 *   nvcc -c -arch=sm_80|sm_75 (-gencode=arch=compute_90a,code=sm_90a)
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
 * one test. Skipped when nvcc is not found (PATH, /usr/local/cuda/bin).
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

#define GEN_FAILED 200		/* exit status of a job whose gen failed */
#define JOB_TIMEOUT_S 240	/* for one gen + nvcc */

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

/* In a child: polymma gen, then exec nvcc. */
static void job(const struct ncase *k)
{
	const char *gen[32], *cc[16];
	char arch[64];
	int n = 0, st;
	pid_t pid;

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
	pid = fork();
	if (pid < 0)
		_exit(GEN_FAILED);
	if (pid == 0) {
		redirect(k->gen_log);
		execv(gen[0], (char *const *)gen);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		_exit(GEN_FAILED);

	if (k->arch[0] == '-')
		snprintf(arch, sizeof(arch), "%s", k->arch);
	else
		snprintf(arch, sizeof(arch), "-arch=%s", k->arch);
	n = 0;
	cc[n++] = nvcc;
	cc[n++] = "-c";
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

/* Run every case, at most `parallel` at a time; a job (gen and nvcc, its
 * own process group) that runs longer than JOB_TIMEOUT_S is killed. */
static void run_all(int parallel)
{
	double start[N_CASES];
	int next = 0, running = 0, i, st;
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	pid_t pid;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	while (next < N_CASES || running > 0) {
		if (next < N_CASES && !selected(&cases[next])) {
			next++;
			continue;
		}
		if (next < N_CASES && running < parallel) {
			start[next] = now();
			pid = fork();
			if (pid == 0) {
				setpgid(0, 0);
				job(&cases[next]);
			}
			if (pid > 0)
				setpgid(pid, pid);	/* no race with kill */
			pids[next] = pid;
			if (pid < 0)
				cases[next].status = 126;
			else
				running++;
			next++;
			continue;
		}
		pid = waitpid(-1, &st, WNOHANG);
		if (pid < 0)
			break;
		if (pid == 0) {
			for (i = 0; i < next; i++)
				if (pids[i] > 0 &&
				    now() - start[i] > JOB_TIMEOUT_S) {
					kill(-pids[i], SIGKILL);
					kill(pids[i], SIGKILL);
					cases[i].timed_out = 1;
				}
			nanosleep(&tick, NULL);
			continue;
		}
		for (i = 0; i < next; i++)
			if (pids[i] == pid) {
				cases[i].status = WIFEXITED(st) ?
					WEXITSTATUS(st) : 128 + WTERMSIG(st);
				cases[i].seconds = now() - start[i];
				pids[i] = 0;
				running--;
			}
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static int group_setup(void **state)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int parallel = ncpu < 2 ? 2 : ncpu > 8 ? 8 : (int)ncpu;
	double t0 = now();

	(void)state;
	if (!nvcc[0])
		return 0;
	if (access(polymma_bin(), X_OK) != 0) {
		fprintf(stderr, "test_nvcc: %s not found (run from the "
			"repository root after make)\n", polymma_bin());
		return -1;
	}
	printf("test_nvcc: %d compiles with %s, %d at a time, in %s\n",
		N_CASES, nvcc, parallel, tmpdir);
	fflush(stdout);
	run_all(parallel);
	printf("test_nvcc: all compiles done in %.0f s\n", now() - t0);
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

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, n > 0 ? n + 1 : 1);
	if (buf && n > 0 && fread(buf, 1, n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
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
		fail_msg("%s: gen + nvcc still ran after %d s: killed", k->name,
			JOB_TIMEOUT_S);
	if (k->status == GEN_FAILED) {
		log = read_text(k->gen_log);
		print_message("polymma gen %s (--target %s%s%s%s) failed:\n%s\n",
			k->spec, k->cfg->target, k->cfg->mma ? " --mma " : "",
			k->cfg->mma ? k->cfg->mma : "",
			k->fixed ? " -D M=256 -D N=384 -D K=512" : "", log);
		free(log);
		fail_msg("%s: gen failed", k->name);
	}
	log = read_text(k->nvcc_log);
	if (k->status != 0) {
		print_message("nvcc -arch=%s %s failed (status %d):\n%.8000s\n",
			k->arch, k->cu, k->status, log);
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

/* polymma — the command line (shared/SPEC.md §2).
 *
 *   polymma gen SPEC -o OUT.cu [options]
 *   polymma check SPEC [options]
 *   polymma --help | --version
 *
 * Exit codes are the library's status codes: 0 success, 1 invalid spec,
 * unsupported request or a file that cannot be read or written, 2 bad
 * command line, 3 internal error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/version.h>

#include "polymma.h"
#include "cli/io.h"

static const char usage_text[] =
"Usage: polymma gen SPEC -o OUT.cu [options]  generate one self-contained CUDA file\n"
"       polymma check SPEC [options]          parse and validate; print the DAG,\n"
"                                             domains, accesses and dependences\n"
"       polymma --help | --version\n"
"\n"
"SPEC is a .tc file ('-' reads standard input).\n"
"\n"
"Options (all optional except -o for gen; good defaults are chosen):\n"
"  -o FILE                   write the CUDA source to FILE ('-': standard output)\n"
"  --header FILE             also write the C header of the launcher\n"
"  --meta FILE               also write the configuration as JSON\n"
"  --target sm_70|sm_80|sm_90a\n"
"                            instruction set (default sm_80)\n"
"  -D NAME=VALUE             fix a size symbol (repeatable); the others stay\n"
"                            runtime arguments of the launcher\n"
"  --block MxNxK             block tile\n"
"  --warp MxNxK              warp tile (sm_90a: warpgroup tile, M = 64)\n"
"  --mma MxNxK               macro-MMA shape (sm_70: 16x16x8 or 32x32x8;\n"
"                            sm_90a: 64xNxK, N 64/128/256, K 16/32/64)\n"
"  --split-k auto|N          split the reduction over blockIdx.z: auto (the\n"
"                            default) when the grid is smaller than the\n"
"                            GPU, N always, 1 never\n"
"  --stages N                shared-memory pipeline stages\n"
"  --frag-pipeline on|off    load warp fragments one k-step ahead, across\n"
"                            k tiles (default: on where the target and the\n"
"                            tiles allow it)\n"
"  --staged-store on|off     write the output tile through shared memory,\n"
"                            then to global memory in 16-byte units\n"
"                            (default: on where the tile allows it)\n"
"  --reg-stage on|off        without cp.async (sm_70): load the next k tile\n"
"                            into registers before the MMAs, store it to\n"
"                            shared memory after them (default: on with 2\n"
"                            stages)\n"
"  --mma-inflight on|off     sm_90a: keep one k tile of wgmma running across\n"
"                            the barrier, copies --stages - 2 tiles ahead\n"
"                            (default off: wait right after issuing them)\n"
"  --pro-overlap on|off      prologues: transform tile k+1 while tile k's\n"
"                            asynchronous MMAs run (default: on sm_90a\n"
"                            where the pipeline allows it)\n"
"  --pro-regs on|off         a prologue on A applied to the MMA's register\n"
"                            operand instead of in shared memory (default:\n"
"                            on for sm_90a)\n"
"  --tma on|off              sm_90a: copy the k tiles with the Tensor Memory\n"
"                            Accelerator, one thread per block issuing them,\n"
"                            mbarriers ordering the stages (default: on\n"
"                            where the pipeline allows it)\n"
"  --persistent auto|on|off  sm_90a with TMA: a persistent kernel whose\n"
"                            producer warp issues the copies while the\n"
"                            other warps compute, each block looping over\n"
"                            output tiles (auto, the default: variants\n"
"                            the launcher runs on grids of more than one\n"
"                            wave, of 3/5 (1/2 at longer k) to 1 tile\n"
"                            per SM and, splitting k, on smaller ones;\n"
"                            on: the only kernel, no split-K)\n"
"  --cluster auto|1|2        sm_90a thread-block clusters (auto, the default:\n"
"                            split-K on small grids runs a tile's chunks as\n"
"                            one cluster, reducing them through distributed\n"
"                            shared memory, where the GPU holds every\n"
"                            cluster at once and that makes more chunks\n"
"                            than the workspace would; 2: also the persistent\n"
"                            kernels in pairs of blocks on vertically\n"
"                            adjacent tiles that share B's k tiles by TMA\n"
"                            multicast; 1: no clusters)\n"
"  --small-variant auto|off  with the default block tile, also generate a\n"
"                            64x64-tile kernel that the launcher runs when\n"
"                            the grid has fewer blocks than the GPU has SMs\n"
"                            (default auto)\n"
"  --smem swizzle|pad|plain  shared-memory layout\n"
"  --dump-schedule[=PASS]    print the isl schedule tree after every pass\n"
"                            (or after PASS only) to standard error\n"
"A value follows its option as the next argument or after '=' (--target=sm_80,\n"
"-DM=256, -oOUT.cu). check takes the same options except -o, --header, --meta.\n"
"\n"
"Exit status:\n"
"  0  success\n"
"  1  invalid spec or unsupported request (diagnostics on standard error), or\n"
"     a spec file or output file that cannot be read or written\n"
"  2  bad command line: unknown command or option, missing or bad value,\n"
"     no SPEC given\n"
"  3  internal error\n"
"On failure no output file is created or changed.\n";

enum cmd { CMD_GEN, CMD_CHECK };

/* What an option does: set a library option, or name an output file. */
enum opt_kind { OPT_LIB, OPT_OUT_SOURCE, OPT_OUT_HEADER, OPT_OUT_META };

struct opt {
	const char *name;	/* as written on the command line */
	const char *key;	/* polymma_options_set key */
	enum opt_kind kind;
	int value_optional;	/* only --dump-schedule: "=PASS" or nothing */
};

static const struct opt opts[] = {
	{ "-o", NULL, OPT_OUT_SOURCE, 0 },
	{ "-D", "define", OPT_LIB, 0 },
	{ "--header", NULL, OPT_OUT_HEADER, 0 },
	{ "--meta", NULL, OPT_OUT_META, 0 },
	{ "--target", "target", OPT_LIB, 0 },
	{ "--block", "block", OPT_LIB, 0 },
	{ "--warp", "warp", OPT_LIB, 0 },
	{ "--mma", "mma", OPT_LIB, 0 },
	{ "--split-k", "split-k", OPT_LIB, 0 },
	{ "--stages", "stages", OPT_LIB, 0 },
	{ "--smem", "smem", OPT_LIB, 0 },
	{ "--frag-pipeline", "frag-pipeline", OPT_LIB, 0 },
	{ "--staged-store", "staged-store", OPT_LIB, 0 },
	{ "--small-variant", "small-variant", OPT_LIB, 0 },
	{ "--reg-stage", "reg-stage", OPT_LIB, 0 },
	{ "--mma-inflight", "mma-inflight", OPT_LIB, 0 },
	{ "--pro-overlap", "pro-overlap", OPT_LIB, 0 },
	{ "--pro-regs", "pro-regs", OPT_LIB, 0 },
	{ "--tma", "tma", OPT_LIB, 0 },
	{ "--persistent", "persistent", OPT_LIB, 0 },
	{ "--cluster", "cluster", OPT_LIB, 0 },
	{ "--dump-schedule", "dump-schedule", OPT_LIB, 1 },
};

struct args {
	enum cmd cmd;
	const char *spec;
	const char *out[3];	/* source, header, meta (indexed by kind - 1) */
};

/* Exit code of --help given after a command. */
#define HELP_SHOWN (-1)

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("polymma: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\nTry 'polymma --help' for more information.\n", stderr);
	return POLYMMA_ERR_USAGE;
}

/* The option argv[*i] names, and its value: attached ("-DM=1",
 * "--target=sm_80") or the next argument (then *i moves past it). NULL for
 * an unknown option; *missing when the value is missing. */
static const struct opt *match(char **argv, int argc, int *i,
	const char **value, int *missing)
{
	const char *arg = argv[*i];
	size_t n, k;

	*missing = 0;
	for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++) {
		n = strlen(opts[k].name);
		if (strncmp(arg, opts[k].name, n))
			continue;
		if (arg[1] != '-' && arg[n]) {		/* -DM=1, -oOUT */
			*value = arg + n;
		} else if (arg[n] == '=') {		/* --target=sm_80 */
			*value = arg + n + 1;
		} else if (arg[n]) {			/* --targetX */
			continue;
		} else if (opts[k].value_optional) {
			*value = "";
		} else if (*i + 1 < argc) {
			*value = argv[++*i];
		} else {
			*missing = 1;
		}
		return &opts[k];
	}
	return NULL;
}

/* A library status as an exit code. */
static int status(int rc)
{
	return rc >= 0 && rc <= 3 ? rc : POLYMMA_ERR_INTERNAL;
}

/* Parse argv[2..] into a and o; POLYMMA_OK, HELP_SHOWN or an exit code. */
static int parse(int argc, char **argv, struct args *a, polymma_options *o)
{
	int i, j, rc, missing, only_files = 0;
	const struct opt *opt;
	const char *value, *err;

	for (i = 2; i < argc; i++) {
		const char *arg = argv[i];

		if (!only_files && (!strcmp(arg, "--help") ||
				    !strcmp(arg, "-h"))) {
			fputs(usage_text, stdout);
			return HELP_SHOWN;
		}
		if (!only_files && !strcmp(arg, "--")) {
			only_files = 1;
			continue;
		}
		if (only_files || arg[0] != '-' || !strcmp(arg, "-")) {
			if (a->spec)
				return usage_error("more than one SPEC: '%s' "
					"and '%s'", a->spec, arg);
			a->spec = arg;
			continue;
		}
		opt = match(argv, argc, &i, &value, &missing);
		if (!opt)
			return usage_error("unknown option '%s'", arg);
		if (missing)
			return usage_error("option '%s' needs a value",
				opt->name);
		if (opt->kind != OPT_LIB) {
			if (a->cmd != CMD_GEN)
				return usage_error("option '%s' is only for "
					"'gen'", opt->name);
			if (!*value)
				return usage_error("option '%s' needs a file "
					"name", opt->name);
			a->out[opt->kind - 1] = value;
			continue;
		}
		err = NULL;
		rc = polymma_options_set(o, opt->key, value, &err);
		if (rc != POLYMMA_OK) {
			fprintf(stderr, "polymma: error: %s %s: %s\n",
				opt->name, value, err ? err : "invalid value");
			if (rc == POLYMMA_ERR_USAGE)
				fputs("Try 'polymma --help' for more "
					"information.\n", stderr);
			return status(rc);
		}
	}
	if (!a->spec)
		return usage_error("no SPEC file given");
	if (a->cmd == CMD_GEN && !a->out[0])
		return usage_error("gen needs -o OUT.cu ('-o -' for standard "
			"output)");
	for (i = 0; i < 3; i++)
		for (j = 0; j < i; j++)
			if (a->out[i] && a->out[j] && !strcmp(a->out[i], a->out[j]))
				return usage_error("'%s' is given as two "
					"outputs", a->out[i]);
	return POLYMMA_OK;
}

/* Diagnostics of the last call; a fallback message for a failure without
 * any. */
static void print_diagnostics(polymma_ctx *ctx, int rc)
{
	const char *d = polymma_diagnostics(ctx);

	if (d && *d)
		fputs(d, stderr);
	else if (rc != POLYMMA_OK)
		fprintf(stderr, "polymma: error: failed (status %d) without "
			"a diagnostic\n", rc);
}

static int gen(polymma_ctx *ctx, const struct args *a, const char *text,
	const polymma_options *o)
{
	polymma_result *r = NULL;
	const char *text_of[3];
	struct pm_cli_output out[3];
	int rc, i, n = 0;

	rc = polymma_generate(ctx, text, a->spec, o, &r);
	print_diagnostics(ctx, rc);
	if (rc != POLYMMA_OK || !r) {
		if (r)
			polymma_result_free(r);
		return rc != POLYMMA_OK ? status(rc) : POLYMMA_ERR_INTERNAL;
	}
	text_of[0] = polymma_result_source(r);
	text_of[1] = polymma_result_header(r);
	text_of[2] = polymma_result_meta(r);
	for (i = 0; i < 3; i++) {
		if (!a->out[i])
			continue;
		if (!text_of[i]) {
			fprintf(stderr, "polymma: internal error: the library "
				"returned no text for '%s'\n", a->out[i]);
			polymma_result_free(r);
			return POLYMMA_ERR_INTERNAL;
		}
		out[n].path = a->out[i];
		out[n].text = text_of[i];
		n++;
	}
	rc = pm_cli_write_outputs(out, n) < 0 ? POLYMMA_ERR_SPEC : POLYMMA_OK;
	polymma_result_free(r);
	return rc;
}

static int check(polymma_ctx *ctx, const struct args *a, const char *text,
	const polymma_options *o)
{
	char *report = NULL;
	int rc;

	rc = polymma_check(ctx, text, a->spec, o, &report);
	print_diagnostics(ctx, rc);
	if (rc == POLYMMA_OK && report)
		fputs(report, stdout);
	free(report);
	if (rc == POLYMMA_OK && fflush(stdout) == EOF) {
		perror("polymma: error: standard output");
		rc = POLYMMA_ERR_SPEC;
	}
	return status(rc);
}

int main(int argc, char **argv)
{
	struct args a = { CMD_GEN, NULL, { NULL, NULL, NULL } };
	polymma_options *o;
	polymma_ctx *ctx;
	char *text;
	int rc;

	if (argc < 2)
		return usage_error("no command (gen or check)");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		const char *isl = isl_version();	/* ends with '\n' */

		printf("polymma %s (%.*s)\n", POLYMMA_VERSION,
			(int)strcspn(isl, "\n"), isl);
		return 0;
	}
	if (!strcmp(argv[1], "check"))
		a.cmd = CMD_CHECK;
	else if (strcmp(argv[1], "gen"))
		return usage_error("unknown command '%s' (expected gen or "
			"check)", argv[1]);

	o = polymma_options_alloc();
	if (!o) {
		fputs("polymma: internal error: out of memory\n", stderr);
		return POLYMMA_ERR_INTERNAL;
	}
	rc = parse(argc, argv, &a, o);
	if (rc != POLYMMA_OK) {
		polymma_options_free(o);
		return rc == HELP_SHOWN ? 0 : rc;
	}
	text = pm_cli_read_file(a.spec);
	if (!text) {
		polymma_options_free(o);
		return POLYMMA_ERR_SPEC;
	}
	ctx = polymma_ctx_alloc();
	if (!ctx) {
		fputs("polymma: internal error: out of memory\n", stderr);
		rc = POLYMMA_ERR_INTERNAL;
	} else if (a.cmd == CMD_GEN) {
		rc = gen(ctx, &a, text, o);
	} else {
		rc = check(ctx, &a, text, o);
	}
	if (ctx)
		polymma_ctx_free(ctx);
	free(text);
	polymma_options_free(o);
	return rc;
}

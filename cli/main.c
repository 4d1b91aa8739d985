/* polymma — the command line (docs/LANGUAGE.md).
 *
 *   polymma gen SPEC -o OUT.cu [options]
 *   polymma check SPEC [options]
 *   polymma cache clear
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
#include "api/build_id.h"
#include "api/options.h"
#include "cli/io.h"

static const char usage_head[] =
"Usage: polymma gen SPEC -o OUT.cu [options]  generate one self-contained CUDA file\n"
"       polymma check SPEC [options]          parse and validate; print the DAG,\n"
"                                             domains, accesses and dependences\n"
"       polymma cache clear                   empty the JIT's disk cache\n"
"                                             ($POLYMMA_CACHE_DIR, ~/.cache/polymma)\n"
"       polymma --help | --version\n"
"\n"
"SPEC is a .tc file ('-' reads standard input).\n"
"\n"
"Options (all optional except -o for gen; good defaults are chosen):\n";

static const char usage_tail[] =
"A value follows its option as the next argument or after '=' (--target=sm_80,\n"
"-DM=256, -oOUT.cu). check takes the same options except -o, --header, --meta.\n"
"Details: docs/OPTIONS.md.\n"
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

/* --help: the options' lines come from the table (api/options.c). */
static void usage(void)
{
	fputs(usage_head, stdout);
	pm_options_help(stdout);
	fputs(usage_tail, stdout);
}

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
static const struct pm_opt *match(char **argv, int argc, int *i,
	const char **value, int *missing)
{
	const char *arg = argv[*i];
	const struct pm_opt *opts;
	size_t n, k, nopts;

	*missing = 0;
	opts = pm_options_table(&nopts);
	for (k = 0; k < nopts; k++) {
		if (!opts[k].flag || (opts[k].flags & PM_OPT_INTERNAL))
			continue;
		n = strlen(opts[k].flag);
		if (strncmp(arg, opts[k].flag, n))
			continue;
		if (arg[1] != '-' && arg[n]) {		/* -DM=1, -oOUT */
			*value = arg + n;
		} else if (arg[n] == '=') {		/* --target=sm_80 */
			*value = arg + n + 1;
		} else if (arg[n]) {			/* --targetX */
			continue;
		} else if (opts[k].flags & PM_OPT_VALUE_OPTIONAL) {
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
	const struct pm_opt *opt;
	const char *value, *err;

	for (i = 2; i < argc; i++) {
		const char *arg = argv[i];

		if (!only_files && (!strcmp(arg, "--help") ||
				    !strcmp(arg, "-h"))) {
			usage();
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
				opt->flag);
		if (opt->kind == PM_OPT_FILE) {
			if (a->cmd != CMD_GEN)
				return usage_error("option '%s' is only for "
					"'gen'", opt->flag);
			if (!*value)
				return usage_error("option '%s' needs a file "
					"name", opt->flag);
			a->out[opt->out] = value;
			continue;
		}
		err = NULL;
		rc = polymma_options_set(o, opt->key, value, &err);
		if (rc != POLYMMA_OK) {
			fprintf(stderr, "polymma: error: %s %s: %s\n",
				opt->flag, value, err ? err : "invalid value");
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

/* polymma cache clear: the JIT's disk cache emptied (api/jit.c). */
static int cache(int argc, char **argv)
{
	int n;

	if (argc != 3 || strcmp(argv[2], "clear"))
		return usage_error("expected 'polymma cache clear'");
	n = polymma_jit_cache_clear();
	if (n < 0) {
		fputs("polymma: error: the JIT cache directory cannot be "
			"named or read ($POLYMMA_CACHE_DIR, $HOME)\n", stderr);
		return POLYMMA_ERR_SPEC;
	}
	printf("polymma: %d cache entr%s removed\n", n, n == 1 ? "y" : "ies");
	return 0;
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
		usage();
		return 0;
	}
	if (!strcmp(argv[1], "--options-markdown")) {	/* make docs */
		pm_options_markdown(stdout);
		return fflush(stdout) == EOF ? POLYMMA_ERR_SPEC : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		const char *isl = isl_version();	/* ends with '\n' */

		printf("polymma %s (build %s, %.*s)\n", POLYMMA_VERSION,
			pm_build_id, (int)strcspn(isl, "\n"), isl);
		return 0;
	}
	if (!strcmp(argv[1], "cache"))
		return cache(argc, argv);
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

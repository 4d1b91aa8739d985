/* The options table (api/options.c): docs/OPTIONS.md is what it generates,
 * every option is settable through the library and the command line, bad
 * values are refused and leave the options unchanged, internal keys stay
 * internal. Run from the repository root; the binary is $POLYMMA or
 * build/polymma. */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "api/options.h"
#include "target/target.h"
#include "poly/config.h"
#include "polymma.h"
#include "util.h"

static const char *polymma_bin(void)
{
	const char *p = getenv("POLYMMA");

	return p && *p ? p : "build/polymma";
}

/* Exit status of polymma with args (NULL-terminated), its output to
 * /dev/null; with out, stdout goes to the file out instead. */
static int run_cli(const char *const *args, const char *out)
{
	const char *argv[16];
	int n = 0, status;
	pid_t pid;

	argv[n++] = polymma_bin();
	while (*args && n < 15)
		argv[n++] = *args++;
	argv[n] = NULL;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) :
			null;

		dup2(fd, 1);
		dup2(null, 2);
		execv(argv[0], (char *const *) argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* A valid value of opt (not for files). */
static const char *good_value(const struct pm_opt *opt)
{
	if (opt->choices)
		return opt->choices[0].name;
	switch (opt->kind) {
	case PM_OPT_INT:
		return "2";
	case PM_OPT_SHAPE:
		return opt->nfields == 2 ? "64x32" : "64x64x16";
	case PM_OPT_DEFINE:
		return "M=256";
	default:
		return "promote";
	}
}

/* Options of the public table, with a library key. */
static int public_key(const struct pm_opt *opt)
{
	return opt->key && !(opt->flags & PM_OPT_INTERNAL);
}

static char *markdown(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	pm_options_markdown(f);
	fclose(f);
	return buf;
}

/* docs/OPTIONS.md is what `make docs` generates from the table. */
static void test_docs_up_to_date(void **state)
{
	char *doc = pm_test_read("docs/OPTIONS.md");
	char *gen = markdown();

	(void) state;
	assert_non_null(doc);
	if (strcmp(doc, gen))
		print_message("docs/OPTIONS.md is not what the options table "
			"generates: run `make docs`\n");
	assert_string_equal(doc, gen);
	free(doc);
	free(gen);
}

/* The hidden command prints the same text. */
static void test_cli_markdown(void **state)
{
	const char *args[] = { "--options-markdown", NULL };
	char path[] = "/tmp/pm_test_options_XXXXXX";
	int fd = mkstemp(path);
	char *text, *gen = markdown();

	(void) state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_cli(args, path), 0);
	text = pm_test_read(path);
	assert_non_null(text);
	assert_string_equal(text, gen);
	unlink(path);
	free(text);
	free(gen);
}

/* The table's invariants: a flag or a key, help, an error message for
 * checked values, one that names every shown choice. */
static void test_table_consistent(void **state)
{
	size_t n;
	const struct pm_opt *t = pm_options_table(&n);

	(void) state;
	for (size_t i = 0; i < n; ++i) {
		const struct pm_opt *o = &t[i];

		assert_true(o->key || o->flag);
		assert_non_null(o->help);
		assert_non_null(o->metavar);
		assert_true(o->nfields <= 3);
		if (o->kind == PM_OPT_FILE)
			assert_true(o->out >= 0 && o->out < 3 && !o->key);
		if (o->kind == PM_OPT_SHAPE)
			assert_true(o->min_dims >= o->nfields &&
				o->max_dims <= 3 && o->min_dims <= o->max_dims);
		if (o->kind == PM_OPT_ENUM || o->kind == PM_OPT_INT ||
		    o->kind == PM_OPT_SHAPE || o->kind == PM_OPT_DEFINE)
			assert_non_null(o->err);
		for (const struct pm_opt_choice *c = o->choices;
		     c && c->name && o->kind == PM_OPT_ENUM; ++c)
			if (!c->hidden && !strstr(o->err, c->name))
				fail_msg("%s: the message '%s' misses '%s'",
					o->key, o->err, c->name);
		assert_ptr_equal(pm_options_find(o->key ? o->key : "-", 1),
			o->key ? o : NULL);
	}
}

/* Every target choice is a target; the first one found by default. */
static void test_target_choices(void **state)
{
	const struct pm_opt *opt = pm_options_find("target", 0);

	(void) state;
	assert_non_null(opt);
	for (const struct pm_opt_choice *c = opt->choices; c->name; ++c)
		assert_non_null(pm_target_find(c->name));
	assert_non_null(strstr(opt->def, pm_target_default()->name));
}

/* The int fields an option stores, after setting it. */
static void check_stored(const struct pm_opt *opt, const struct pm_config *c,
	const char *value)
{
	const struct pm_opt_choice *ch = opt->choices;
	int v[3] = { 0, 0, 0 };

	if (!opt->nfields || opt->set)
		return;
	while (ch && ch->name && strcmp(ch->name, value))
		ch++;
	if (ch && ch->name)
		v[0] = ch->value;
	else
		assert_int_equal(sscanf(value, "%dx%dx%d", &v[0], &v[1],
			&v[2]) >= opt->min_dims, 1);
	for (int i = 0; i < opt->nfields; ++i)
		assert_int_equal(*(const int *) ((const char *) c +
			opt->field[i]), v[i]);
}

/* Every public option and every shown choice through the library. */
static void test_every_option_api(void **state)
{
	size_t n;
	const struct pm_opt *t = pm_options_table(&n);

	(void) state;
	for (size_t i = 0; i < n; ++i) {
		const struct pm_opt_choice *c = t[i].choices;
		const char *err = NULL;
		polymma_options *o;

		if (!public_key(&t[i]))
			continue;
		o = polymma_options_alloc();
		assert_int_equal(polymma_options_set(o, t[i].key,
			good_value(&t[i]), &err), POLYMMA_OK);
		check_stored(&t[i], pm_options_config(o), good_value(&t[i]));
		for (; c && c->name; ++c) {
			assert_int_equal(polymma_options_set(o, t[i].key,
				c->name, &err), POLYMMA_OK);
			check_stored(&t[i], pm_options_config(o), c->name);
		}
		polymma_options_free(o);
	}
}

/* Every option through the command line, as --opt VALUE and --opt=VALUE
 * (-D NAME=VALUE and -DNAME=VALUE); bad values exit 2. */
static void test_every_option_cli(void **state)
{
	size_t n;
	const struct pm_opt *t = pm_options_table(&n);
	char joined[256];

	(void) state;
	for (size_t i = 0; i < n; ++i) {
		const char *v = good_value(&t[i]);
		const char *sep = t[i].flag && t[i].flag[1] == '-' ? "=" : "";

		if (!t[i].flag || t[i].kind == PM_OPT_FILE ||
		    (t[i].flags & PM_OPT_INTERNAL))
			continue;
		snprintf(joined, sizeof(joined), "%s%s%s", t[i].flag, sep, v);
		{
			const char *sep_args[] = { "check",
				"examples/gemm_nn.tc", t[i].flag, v, NULL };
			const char *eq_args[] = { "check",
				"examples/gemm_nn.tc", joined, NULL };
			const char *bad_args[] = { "check",
				"examples/gemm_nn.tc", t[i].flag, "bogus", NULL };

			if (!(t[i].flags & PM_OPT_VALUE_OPTIONAL))
				assert_int_equal(run_cli(sep_args, NULL), 0);
			assert_int_equal(run_cli(eq_args, NULL), 0);
			if (t[i].kind != PM_OPT_STRING)
				assert_int_equal(run_cli(bad_args, NULL), 2);
		}
	}
}

/* The output files: gen only. */
static void test_file_options_cli(void **state)
{
	char dir[] = "/tmp/pm_test_options_XXXXXX";
	char cu[64], h[64], meta[64], header_eq[80];
	const char *gen_args[] = { "gen", "examples/gemm_nn.tc", "-o", cu,
		header_eq, "--meta", meta, NULL };
	const char *check_args[] = { "check", "examples/gemm_nn.tc",
		"--meta", meta, NULL };

	(void) state;
	assert_non_null(mkdtemp(dir));
	snprintf(cu, sizeof(cu), "%s/a.cu", dir);
	snprintf(h, sizeof(h), "%s/a.h", dir);
	snprintf(meta, sizeof(meta), "%s/a.json", dir);
	snprintf(header_eq, sizeof(header_eq), "--header=%s", h);
	assert_int_equal(run_cli(gen_args, NULL), 0);
	assert_int_equal(access(cu, F_OK) | access(h, F_OK) |
		access(meta, F_OK), 0);
	assert_int_equal(run_cli(check_args, NULL), 2);
	unlink(cu);
	unlink(h);
	unlink(meta);
	rmdir(dir);
}

/* Bad values: POLYMMA_ERR_USAGE and a message; the options unchanged. */
static void test_bad_values_unchanged(void **state)
{
	const char *bad[] = { "bogus", "", "0", "-1", "64x", "1x2x3x4",
		"65537", "=3", "M=x", "on " };
	size_t n;
	const struct pm_opt *t = pm_options_table(&n);
	polymma_options *o = polymma_options_alloc();
	struct pm_config before;

	(void) state;
	assert_int_equal(polymma_options_set(o, "define", "K=64", NULL), 0);
	for (size_t i = 0; i < n; ++i) {
		if (!public_key(&t[i]) || t[i].kind == PM_OPT_STRING)
			continue;
		for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); ++b) {
			const char *err = NULL;

			memcpy(&before, pm_options_config(o), sizeof(before));
			assert_int_equal(polymma_options_set(o, t[i].key,
				bad[b], &err), POLYMMA_ERR_USAGE);
			assert_non_null(err);
			assert_true(strlen(err) > 0);
			assert_memory_equal(&before, pm_options_config(o),
				sizeof(before));
		}
	}
	polymma_options_free(o);
}

/* A failed set keeps the last good value: no reset to a default. */
static void test_failed_target_kept(void **state)
{
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;

	(void) state;
	assert_int_equal(polymma_options_set(o, "target", "sm_90a", &err),
		POLYMMA_OK);
	assert_int_equal(polymma_options_set(o, "target", "sm_99", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "unknown target"));
	assert_ptr_equal(pm_options_config(o)->target,
		pm_target_find("sm_90a"));
	assert_int_equal(polymma_options_set(o, "target", "host", &err),
		POLYMMA_ERR_USAGE);
	assert_ptr_equal(pm_options_config(o)->target,
		pm_target_find("sm_90a"));
	polymma_options_free(o);
}

/* The 17th define is refused; the 16 before it stay. */
static void test_too_many_defines(void **state)
{
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;
	char def[16];

	(void) state;
	for (int i = 0; i < PM_MAX_DEFINES; ++i) {
		snprintf(def, sizeof(def), "S%d=%d", i, i + 1);
		assert_int_equal(polymma_options_set(o, "define", def, &err),
			POLYMMA_OK);
	}
	assert_int_equal(polymma_options_set(o, "define", "S3=7", &err),
		POLYMMA_OK);	/* a name again: its new value */
	assert_int_equal(polymma_options_set(o, "define", "T=1", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(err, "too many"));
	assert_int_equal(pm_options_config(o)->ndefines, PM_MAX_DEFINES);
	assert_int_equal(pm_options_config(o)->defines[3].value, 7);
	polymma_options_free(o);
}

/* Internal keys: not through polymma_options_set or the command line. */
static void test_internal_keys(void **state)
{
	size_t n;
	const struct pm_opt *t = pm_options_table(&n);
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;
	const char *args[] = { "check", "examples/gemm_nn.tc", "--host-target",
		NULL };

	(void) state;
	for (size_t i = 0; i < n; ++i) {
		if (!(t[i].flags & PM_OPT_INTERNAL))
			continue;
		assert_null(t[i].flag);
		assert_int_equal(polymma_options_set(o, t[i].key, "", &err),
			POLYMMA_ERR_USAGE);
		assert_string_equal(err, "unknown option");
	}
	assert_int_equal(pm_options_set_internal(o, "host-target", "", &err),
		POLYMMA_OK);
	assert_ptr_equal(pm_options_config(o)->target, pm_target_host());
	assert_int_equal(run_cli(args, NULL), 2);
	polymma_options_free(o);
}

/* NULL arguments are errors, not crashes. */
static void test_null_arguments(void **state)
{
	polymma_options *o = polymma_options_alloc();
	const char *err = NULL;

	(void) state;
	assert_int_equal(polymma_options_set(NULL, "target", "sm_80", &err),
		POLYMMA_ERR_USAGE);
	assert_non_null(err);
	assert_int_equal(polymma_options_set(o, NULL, "sm_80", &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "target", NULL, &err),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(o, "dump-schedule", NULL, NULL),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_options_set(NULL, NULL, NULL, NULL),
		POLYMMA_ERR_USAGE);
	polymma_options_set_dump_stream(NULL, stderr);
	polymma_options_free(NULL);
	polymma_options_free(o);
}

/* --help: one line per shown option, and not the hidden command. */
static void test_help_from_table(void **state)
{
	const char *args[] = { "--help", NULL };
	char path[] = "/tmp/pm_test_options_XXXXXX";
	int fd = mkstemp(path);
	size_t n;
	const struct pm_opt *t = pm_options_table(&n);
	char usage[128], line[160];
	char *text;

	(void) state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(run_cli(args, path), 0);
	text = pm_test_read(path);
	assert_non_null(text);
	for (size_t i = 0; i < n; ++i) {
		if (!t[i].flag || (t[i].flags & PM_OPT_INTERNAL))
			continue;
		snprintf(line, sizeof(line), "\n  %s ",
			pm_options_usage(&t[i], usage, sizeof(usage)));
		if (!strstr(text, line))
			fail_msg("--help has no line '%s'", line + 1);
	}
	assert_null(strstr(text, "options-markdown"));
	assert_null(strstr(text, "host-target"));
	unlink(path);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docs_up_to_date),
		cmocka_unit_test(test_cli_markdown),
		cmocka_unit_test(test_table_consistent),
		cmocka_unit_test(test_target_choices),
		cmocka_unit_test(test_every_option_api),
		cmocka_unit_test(test_every_option_cli),
		cmocka_unit_test(test_file_options_cli),
		cmocka_unit_test(test_bad_values_unchanged),
		cmocka_unit_test(test_failed_target_kept),
		cmocka_unit_test(test_too_many_defines),
		cmocka_unit_test(test_internal_keys),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_help_from_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

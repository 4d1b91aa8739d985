/* The options table as text: --help lines and docs/OPTIONS.md. */
#include <stdio.h>
#include <string.h>

#include "api/options.h"

/* Shown in --help and the docs: not internal, on the command line. */
static int shown(const struct pm_opt *opt)
{
	return opt->flag && !(opt->flags & PM_OPT_INTERNAL);
}

char *pm_options_usage(const struct pm_opt *opt, char *buf, size_t n)
{
	const char *fmt = opt->flags & PM_OPT_VALUE_OPTIONAL ? "%s[=%s]" :
		"%s %s";

	if (!n)
		return buf;
	snprintf(buf, n, fmt, opt->flag ? opt->flag : opt->key,
		opt->metavar ? opt->metavar : "");
	return buf;
}

void pm_options_help(FILE *f)
{
	size_t n;
	const struct pm_opt *t = pm_options_table(&n);
	char usage[128];

	for (size_t i = 0; i < n; ++i) {
		if (!shown(&t[i]))
			continue;
		fprintf(f, "  %-27s %s", pm_options_usage(&t[i], usage,
			sizeof(usage)), t[i].help);
		if (t[i].def)
			fprintf(f, " (default: %s)", t[i].def);
		fputc('\n', f);
	}
}

/* s in a markdown table cell: '|' escaped. */
static void cell(FILE *f, const char *s)
{
	for (; *s; ++s) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/* "`--target`", "`-D` (`define`)", "`-o` (command line only)". */
static void option_name(FILE *f, const struct pm_opt *opt)
{
	const char *plain = opt->flag + strspn(opt->flag, "-");

	fprintf(f, "`%s`", opt->flag);
	if (!opt->key)
		fputs(" (command line only)", f);
	else if (strcmp(opt->key, plain))
		fprintf(f, " (`%s`)", opt->key);
}

static void table_row(FILE *f, const struct pm_opt *opt)
{
	fputs("| ", f);
	option_name(f, opt);
	fputs(" | `", f);
	if (opt->flags & PM_OPT_VALUE_OPTIONAL)
		fputs("[=", f);
	cell(f, opt->metavar);
	if (opt->flags & PM_OPT_VALUE_OPTIONAL)
		fputs("]", f);
	fputs("` | ", f);
	cell(f, opt->def ? opt->def : "—");
	fputs(" | ", f);
	cell(f, opt->help);
	fputs(" |\n", f);
}

/* s as lines of at most width columns (a longer word on its own). */
static void wrap(FILE *f, const char *s, size_t width)
{
	size_t col = 0;

	while (*s) {
		size_t len = strcspn(s, " ");

		if (col && col + 1 + len > width) {
			fputc('\n', f);
			col = 0;
		} else if (col) {
			fputc(' ', f);
			col++;
		}
		fwrite(s, 1, len, f);
		col += len;
		s += len;
		s += strspn(s, " ");
	}
	fputc('\n', f);
}

static const char intro[] =
"# polymma options\n"
"\n"
"<!-- Generated from the table in api/options.c by `make docs`\n"
"     (`polymma --options-markdown`); do not edit by hand. -->\n"
"\n"
"`polymma gen SPEC -o OUT.cu [options]` and `polymma check SPEC [options]`\n"
"take these options (`check` all but the output files). The library's\n"
"`polymma_options_set(o, key, value, &err)` takes the same ones by their\n"
"name without dashes (the key is given in parentheses where it differs),\n"
"except those for the command line only. A value follows its option as\n"
"the next argument or after `=`: `--target=sm_80`, `-DM=256`, `-D M=256`.\n"
"\n"
"| option | values | default | meaning |\n"
"|---|---|---|---|\n";

void pm_options_markdown(FILE *f)
{
	size_t n;
	const struct pm_opt *t = pm_options_table(&n);

	fputs(intro, f);
	for (size_t i = 0; i < n; ++i)
		if (shown(&t[i]))
			table_row(f, &t[i]);
	fputs("\n## Details\n", f);
	for (size_t i = 0; i < n; ++i) {
		if (!shown(&t[i]) || !t[i].doc)
			continue;
		fprintf(f, "\n### `%s`\n\n", t[i].flag);
		wrap(f, t[i].doc, 76);
	}
}

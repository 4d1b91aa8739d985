/* The options of polymma as one table (api/options.c): it drives
 * polymma_options_set, the command line's parser and --help (cli/main.c)
 * and docs/OPTIONS.md (pm_options_markdown, `make docs`).
 */
#ifndef PM_OPTIONS_H
#define PM_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

struct pm_config;
struct pm_opt;

/* One spelling of a value and the number stored for it. */
struct pm_opt_choice {
	const char *name;
	int value;
	int hidden;	/* an accepted alias not shown in --help or the docs */
};

enum pm_opt_kind {
	PM_OPT_ENUM,	/* one of choices: on|off, auto|on|off, swizzle|... */
	PM_OPT_INT,	/* one number in [min, max], or one of choices */
	PM_OPT_SHAPE,	/* MxNxK or MxN: min_dims to max_dims numbers in
			 * [min, max], the first nfields of them stored */
	PM_OPT_STRING,	/* any text, stored by set */
	PM_OPT_DEFINE,	/* NAME=VALUE, repeatable, stored by set */
	PM_OPT_FILE	/* command line only: the output file number out */
};

/* Flags of an option. */
#define PM_OPT_VALUE_OPTIONAL	1	/* --opt alone means the value "" */
#define PM_OPT_REPEATABLE	2	/* each use adds one */
#define PM_OPT_INTERNAL		4	/* tests only: not through the public
					 * polymma_options_set, the command
					 * line or the docs */

/* A setter for the odd options: store value into c, or return
 * POLYMMA_ERR_USAGE with a static message in *err. */
typedef int (*pm_opt_set_fn)(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err);

struct pm_opt {
	const char *key;	/* polymma_options_set key; NULL: CLI only */
	const char *flag;	/* on the command line: "--target", "-D";
				 * NULL: not on the command line */
	const char *metavar;	/* the value in --help and the docs */
	enum pm_opt_kind kind;
	unsigned flags;		/* PM_OPT_* flags */
	size_t field[3];	/* offsets of int fields of struct pm_config */
	int nfields;		/* how many of field[] are stored */
	int min, max;		/* INT and SHAPE: range of each number */
	int min_dims, max_dims;	/* SHAPE: how many numbers */
	int out;		/* FILE: 0 source, 1 header, 2 meta */
	const struct pm_opt_choice *choices;	/* { NULL }-terminated */
	pm_opt_set_fn set;	/* NULL: stored by kind */
	const char *err;	/* the message of a bad value */
	const char *def;	/* the default, described; NULL: none */
	const char *help;	/* one line */
	const char *doc;	/* docs/OPTIONS.md paragraph, or NULL */
};

/* The table, in --help order; n receives its length. */
const struct pm_opt *pm_options_table(size_t *n);

/* The entry of key (NULL when none); internal keys only when internal. */
const struct pm_opt *pm_options_find(const char *key, int internal);

/* Apply value to c as opt says: POLYMMA_OK, or POLYMMA_ERR_USAGE with a
 * static message in *err (err may be NULL) and c possibly half-changed
 * (the caller applies to a copy). */
int pm_options_apply(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err);

/* polymma_options_set with the internal (test-only) keys too. */
struct polymma_options;
int pm_options_set_internal(struct polymma_options *o, const char *key,
	const char *value, const char **err);

/* The configuration o holds (borrowed, read-only). */
const struct pm_config *pm_options_config(const struct polymma_options *o);
/* Every successful set on o, "key=value\n" in order ("" none); NULL
 * where they did not fit the log (the JIT then does not cache). */
const char *pm_options_log(const struct polymma_options *o);

/* "--target sm_70|sm_80|sm_90a", "--dump-schedule[=PASS]" into buf (of
 * size n, always terminated); returns buf. */
char *pm_options_usage(const struct pm_opt *opt, char *buf, size_t n);

/* The --help lines of the options, one per option. */
void pm_options_help(FILE *f);

/* docs/OPTIONS.md. */
void pm_options_markdown(FILE *f);

#endif

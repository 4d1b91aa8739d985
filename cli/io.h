/* cli/io — file input and all-or-nothing output for the command line.
 *
 * Both print their own "polymma: error: ..." message on failure.
 */
#ifndef PM_CLI_IO_H
#define PM_CLI_IO_H

/* The whole file (or standard input for "-") as a NUL-terminated string
 * (malloc'ed, caller frees); NULL when it cannot be read or holds a NUL
 * byte. */
char *pm_cli_read_file(const char *path);

/* One file to produce: path (or "-" for standard output) and its text. */
struct pm_cli_output {
	const char *path;
	const char *text;
};

/* Write all n outputs or none: each file goes to a temporary file in its
 * own directory, and the temporaries are renamed over the targets only
 * when every one of them was written. On failure (or SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE while writing) the temporaries are removed and existing
 * targets are left as they were. At most one path may be "-". Returns 0 or
 * -1. */
int pm_cli_write_outputs(const struct pm_cli_output *out, int n);

#endif

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

/* Write all n outputs (at most 8) or none; returns 0 or -1 (message
 * printed). The rules (docs/LANGUAGE.md, "Outputs"):
 *
 * - A regular file, or a path that does not exist yet, is written to a
 *   temporary file in its own directory and renamed over it at the end.
 *   A symbolic link is followed: the file it points to is replaced (the
 *   link stays a link; a dangling link gets its target created). An
 *   existing file keeps its permission bits.
 * - "-" (standard output) and an existing file that is neither regular nor
 *   a directory (a character device such as /dev/null, a FIFO, ...) are
 *   written in place, never replaced; a write error on them is an error.
 * - A directory (or a path ending in '/') is an error.
 *
 * Order: every path is checked, then every temporary is written, then the
 * special files and standard output in the order given, then the renames.
 * A failure before the renames leaves every regular target untouched. A
 * failed rename puts back the targets already renamed (from a hard link
 * to the previous file taken just before; a target that did not exist is
 * removed). Temporaries are removed on failure and on SIGINT, SIGTERM or
 * SIGHUP (the renames run with those blocked); SIGPIPE is ignored while
 * writing, so a closed pipe is a write error.
 *
 * What cannot be undone: bytes written to a special file or to standard
 * output (when a later special file or a rename fails), and a target on a
 * file system without hard links when a later rename fails (it keeps the
 * new text; a message says so). A SIGKILL leaves the temporaries. */
int pm_cli_write_outputs(const struct pm_cli_output *out, int n);

#endif

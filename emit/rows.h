/* The kernels of a variant set printed in parallel (emit/file.c).
 *
 * Each row of the set whose kernel has an isl context of its own (struct
 * pm_variant's ctx) is printed by one thread at a time into a buffer of
 * its own; the rows that borrow the main kernel (its context) by the
 * calling thread, one after the other; then the buffers are appended to b
 * in the table's order: the same text as one thread printing every row
 * in order. Threads: pm_variant_threads (variant.h). */
#ifndef PM_EMIT_ROWS_H
#define PM_EMIT_ROWS_H

#include "poly/strbuf.h"
#include "variant/variant.h"

/* Prints kernel k (row suffix suffix) into b; < 0 on error (d says why). */
typedef int (*pm_emit_row_fn)(struct pm_kernel *k, const char *suffix,
	struct pm_strbuf *b, struct pm_diags *d);

/* Every built row of vs through def, each with its row's emit_fixup set
 * on its kernel first; 0, or -1 with d's message. */
int pm_emit_rows(const struct pm_variant_set *vs, pm_emit_row_fn def,
	struct pm_strbuf *b, struct pm_diags *d);

#endif

/* Internal to emit/: the global side of the _unaligned row's copies and
 * stores (narrow.c; docs/decisions/0046-narrow-copies.md), on the kernel
 * frame only. ops.c prints the calls around it. */
#ifndef PM_EMIT_NARROW_H
#define PM_EMIT_NARROW_H

#include "emit/frame.h"

/* Does k copy and store narrower than 16 bytes (the _unaligned row)? */
int pm_emit_narrow(const struct pm_kernel *k);
/* The bytes of an element of tensor t (1 for the 8-bit types): what the
 * _unaligned row asks of its pointers. */
int pm_narrow_elem_bytes(const struct pm_kernel *k, int t);
/* "&X[row], (int64_t) (c), lim": a narrow unit of tensor t at indices e
 * (one per dimension): the start of its row (the indices before the last,
 * clamped where ragged or, kd, past k, as global units are), the last
 * index c unclamped and the elements of the row that exist: the last
 * dimension's extent, 0 where e[kd] is past k (kd >= 0, not the last
 * dimension; the copy then zero-fills the unit). */
void pm_print_narrow_src(struct pm_kernel *k, struct pm_strbuf *b, int t,
	int kd, isl_ast_expr *const *e);

#endif

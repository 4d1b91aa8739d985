/* Internal to emit/: the copy units (copies.c), printed for ops.c. A
 * COPY into the shared tile, a converting copy's raw tile
 * (docs/decisions/0047) or, in the _unaligned row, of the elements that
 * exist (docs/decisions/0046; the global side is narrow.c's, a TMA
 * buffer's copy tma.c's); the register-staged LDR and STR; the pieces of
 * the PRO op that depend on how its units were copied. On the kernel frame,
 * narrow.c and tma.c; none of them calls back. */
#ifndef PM_EMIT_COPIES_H
#define PM_EMIT_COPIES_H

#include "emit/frame.h"

/* The COPY op of annotation a (with trailing newline); with pred (when not
 * NULL) only where the C expression pred holds (a predicated cp.async
 * forms the source address but does not read it); past k (a buffer with
 * pm_kernel_k_guard_dim >= 0) the unit is zero-filled. */
void pm_print_copy(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host, const char *pred);
/* LDR (a 16-byte unit of the global tile into its staging register; zeros
 * past k) or STR (the register into the shared tile) of annotation a. */
void pm_print_rstage(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* "(e) < K": the copy or prologue unit of buffer buf (annotation a, slots
 * 0, 1) lies inside k, where its copies zero-fill past k
 * (pm_kernel_k_guard_dim); returns 1, or 0 with nothing printed where the
 * buffer has no k guard. */
int pm_print_k_pred(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_buffer *buf, const struct pm_annot *a);
/* After the PRO of annotation a in the _unaligned row: a unit across k (k
 * its buffer's contiguous dimension) holds zeros past k, which the
 * prologue made f(0): zeros again ("pm_zero_tail(...);\n"); nothing
 * elsewhere (docs/decisions/0046-narrow-copies.md). */
void pm_print_narrow_pro_tail(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);

#endif

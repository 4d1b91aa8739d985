/* Internal to emit/ (pointwise.c, prologue.c): a pointwise expression of
 * the spec language printed in fp32, its reads as the context w names
 * them: the epilogue's at pm_i / pm_j (pairs in their registers), a
 * prologue's at its own index variables. */
#ifndef PM_EMIT_PWEXPR_H
#define PM_EMIT_PWEXPR_H

#include "emit/frame.h"

struct epi_pairs;

/* What a pointwise expression's reads are (pm_pw_expr). */
struct pw {
	int chain;		/* this tensor is pm_v */
	/* the value of contraction c's accumulator (c < ncon - 1) at the
	 * element, or NULL */
	const char *other[PM_MAX_CON];
	const struct epi_pairs *pr;	/* reads loaded in pairs, or NULL */
	int cl;			/* the host's clamped pm_ic / pm_jc */
	/* a prologue's: the C names of index variables i, j, k at the
	 * element ([0] NULL: the epilogue's pm_i, pm_j) */
	const char *vars[3];
	/* the _unaligned row's column of a prologue's element, clamped
	 * per element (pro_coords) */
	char gcol[192];
	/* reads of other tensors as pm_c[q], q their place in ctx[]: a
	 * row's values loaded once (pm_print_conv_fn) */
	const struct pm_expr *const *ctx;
	int nctx;
};

/* e in fp32 (the chain tensor at (i, j) is pm_v; inputs loaded at pm_i /
 * pm_j, those in w->pr their pair registers, a prologue's at w->vars). */
void pm_pw_expr(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, const struct pw *w);

#endif

/* Internal to emit/: the pointwise parts of ops: the epilogue on the
 * accumulators (pointwise.c), the prologues on copied units or on the
 * MMA's register operand (prologue.c). */
#ifndef PM_EMIT_POINTWISE_H
#define PM_EMIT_POINTWISE_H

#include "emit/frame.h"

/* Epilogue reads loaded two elements at a time per statement (more are
 * loaded one at a time). */
#define PM_EPI_MAX_PAIRS 16

/* The EPI op (the epilogue on a macro tile's accumulators) of annotation
 * a. */
void pm_print_epi(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* The PRO op (a prologue on the units this thread copied) of annotation
 * a. */
void pm_print_pro(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
/* The functor of buffer i's prologue applied to the MMA's registers:
 * "const auto pm_pro<i> = [](uint32_t) -> uint32_t {..};" (a kernel
 * local, on .f16x2 registers) or, host, "static float pm_pro<i>(float)". */
/* A converting copy's PRO past k (docs/decisions/0047): zeros into the
 * unit of annotation a of the operand tile. */
void pm_print_pro_zero(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_annot *a, int host);
void pm_print_pro_fn(struct pm_kernel *k, struct pm_strbuf *b, int i,
	int host);
/* The prologue of buffer i, an operand widened in the MMA's registers
 * whose prologue reads vectors along its rows (docs/decisions/0062), as
 * two kernel locals: "pm_cvr<i> = [=](int r, float *c) {..}" loads row
 * r's values of the prologue's other reads into c[] (0 past the rows),
 * "pm_cv<i> = [](float v, const float *c) -> float {..}" the element's
 * value from them. */
void pm_print_conv_fn(struct pm_kernel *k, struct pm_strbuf *b, int i);
/* Does an epilogue statement load input tensor t two elements at a time
 * (f16 or f32, indexed by j in its last dimension; the launcher checks
 * that its address is a multiple of two elements)? */
int pm_epi_pairs_tensor(struct pm_kernel *k, int t);
/* Does the file of main kernel k hold swapped rows (variant/swap.h)? */
int pm_emit_has_swapped(const struct pm_kernel *k);
/* Expression e of the epilogue's language in fp32 (emit/epired.c: an
 * epilogue reduction's): the chain tensor at (i, j) is pm_v, inputs are
 * loaded at pm_i / pm_j (host, cl: at pm_ic / pm_jc, clamped to the sizes
 * by pm_print_epi_clamps, printed before). */
void pm_print_epi_value(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, int chain, int cl);
void pm_print_epi_clamps(struct pm_kernel *k, struct pm_strbuf *b);
/* Operand expression e (its operand, tensor `tensor`, is pm_v) in fp32,
 * its broadcast reads at the index variables' C names vars[] (the
 * launcher-applied prologues' kernels, emit/pre.h). */
void pm_print_pre_value(struct pm_kernel *k, struct pm_strbuf *b,
	const struct pm_expr *e, int tensor, const char *const vars[3]);

#endif

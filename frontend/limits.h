/* Limits of the spec language and of generation: one table, each value
 * checked before the work it bounds (docs/LANGUAGE.md, "Limits").
 *
 * Every limit is inclusive: a spec at the limit is accepted, one past it
 * is refused with a diagnostic (exit 1), never a crash or a clamp.
 */
#ifndef PM_FRONTEND_LIMITS_H
#define PM_FRONTEND_LIMITS_H

#include <stdbool.h>

#include "frontend/diag.h"

enum {
	/* bytes of spec text (pm_spec_parse; the command line stops reading
	 * a file there): a .tc file is a few hundred bytes */
	PM_LIMIT_SPEC_BYTES = 1 << 20,
	/* characters of one identifier (lexer): names are copied into
	 * fixed buffers of PM_LIMIT_IDENT + 1 bytes (-D names included) */
	PM_LIMIT_IDENT = 63,
	/* tensors: declared ones plus temporaries (parser, sema) */
	PM_LIMIT_TENSORS = 128,
	/* statements of the def (parser); the kernel's limits
	 * (pm_spec_check_kernel_limits) bound gen's and check's isl work
	 * far below it */
	PM_LIMIT_STMTS = 64,
	/* distinct size symbols (sema): each is a launcher argument */
	PM_LIMIT_SYMS = 32,
	/* nesting of parentheses, calls and unary minus (parser recursion) */
	PM_LIMIT_NESTING = 200,
	/* height of an expression tree (the recursive passes after the
	 * parser: a flat sum of 1000 terms is 1000 high) */
	PM_LIMIT_HEIGHT = 1000,
	/* pointwise statements after the contractions in one fused kernel
	 * (gen and check, before any isl work; tree.h keeps 8 ids) */
	PM_LIMIT_EPILOGUE = 8,
	/* contractions in one fused kernel (gen and check, before any isl
	 * work): their accumulators live in registers together, 128 a
	 * thread at most, and the smallest warp tiles (32x32 a warp, 64x32
	 * a warpgroup) hold 32 a contraction; the rows a spec's
	 * accumulators do not fit are left out
	 * (docs/decisions/0039-dequant-prologues-and-contractions.md) */
	PM_LIMIT_CONTRACTIONS = 4,
	/* the largest size a -D may fix: the launcher's own check on every
	 * size (2^31 - 256, so that a size rounded up to a tile fits int) */
	PM_LIMIT_SIZE_MAX = 0x7fffff00
};

/* isl operations one generation (or check) may spend
 * (isl_ctx_set_max_operations): about 100 times what the largest shipped
 * example needs (add_gemm on sm_80, gemm_epilogue_chain on sm_90a: 12.6
 * million, measured by bisection). */
#define PM_LIMIT_ISL_OPS 1300000000UL

/* Why name may not name a tensor or a size symbol (def: the def, the
 * launcher's global name): a C, C++ or CUDA keyword or built-in (gen
 * false: refused by the parser) or an identifier the generated code
 * declares next to the user's names (gen true: refused by gen); NULL when
 * it may. */
const char *pm_reserved_name(const char *name, bool def, bool gen);

/* Why name may not name a size symbol: a keyword of isl's parser, which
 * reads the symbols as the parameters of the spec's sets (exists, min,
 * mod, ..., in any case); NULL when it may. */
const char *pm_isl_keyword(const char *name);

struct pm_spec;
/* The limits of one kernel, which bound the isl work of `gen` and of
 * `check` alike: at most PM_LIMIT_CONTRACTIONS contractions and
 * PM_LIMIT_EPILOGUE
 * statements after them; checked on a parsed spec before any isl work
 * (docs/decisions/0027-check-kernel-limits.md); -1 after a
 * diagnostic (class unsupported). */
int pm_spec_check_kernel_limits(const struct pm_spec *spec,
	struct pm_diags *d);
/* The limits of `gen` that the front end can check on a parsed spec
 * (the names of generated code, then the kernel's limits above) before
 * the isl work; -1 after a diagnostic. */
int pm_spec_check_gen_limits(const struct pm_spec *spec,
	struct pm_diags *d);

#endif

/* The variant set of a generated file.
 *
 * A target's variant table (target/target.h, struct pm_variant_desc) lists
 * the kernels a file may hold; pm_variant_set_build runs every row through
 * the pass table (variant/build.c) with the row's configuration, derived
 * from the user's:
 *
 *   user options (const) --pm_config_finish--> main configuration
 *   row r:  cfg_r = derive(row r, cfg_{r.from} or the main one)
 *           kernel_r = passes(scop(spec, cfg_r))    or none (kept out)
 *
 * One index everywhere: the row's role (enum pm_variant_role) indexes the
 * set, the main kernel's var[] (what emit/ prints) and the launch plan's
 * table (runtime/plan.h).  A row that is not built is recorded with why
 * (its conditions do not hold, or its build failed: then the message),
 * never silently dropped: pm_variant_set_report prints them.
 */
#ifndef PM_VARIANT_H
#define PM_VARIANT_H

#include <stdio.h>

#include <isl/ctx.h>

#include "frontend/frontend.h"
#include "poly/config.h"
#include "target/target.h"

struct pm_kernel;

/* The accumulator registers a thread of a row's kernel at most: past
 * them, two accumulators (two contractions not summed into one) spilled
 * on every sm_90a row tried (docs/decisions/0028-accumulator-registers.md). */
#define PM_ACC_REGS_MAX 128

struct pm_variant {
	const struct pm_variant_desc *desc;
	/* the row's resolved configuration, owned (the kernel points to it) */
	struct pm_config cfg;
	/* the kernel, or NULL (not built: why says so) */
	struct pm_kernel *k;
	/* k is another row's kernel (the base row of a kernel that does
	 * not split k is the main kernel, printed without its fixup) */
	int borrowed;
	/* print the split-K fixup (the _split rows) */
	int emit_fixup;
	/* not built: why (a condition of the row, or its build's error) */
	char why_not[160];
	/* the isl context of k where the row built its own kernel (NULL:
	 * borrowed or not built): one per row, so that the rows' ASTs can
	 * be built in parallel (emit/file.c; isl contexts are used by one
	 * thread at a time) */
	isl_ctx *ctx;
};

struct pm_variant_set {
	const struct pm_target *target;
	/* the user's configuration, finished (the main kernel's) */
	struct pm_config main_cfg;
	/* the kernel of the user's configuration (owned) */
	struct pm_kernel *main;
	/* indexed by role; rows the target lacks have desc NULL */
	struct pm_variant v[PM_RT_NROLES];
	/* a row was dropped when its isl context spent its budget */
	int over_budget;
	/* the main kernel's operands with a prologue in shared memory (no
	 * TMA copies): the persistent rows read them as the launcher's
	 * copies (variant/pre.h), npre of them; pre_why: why they cannot,
	 * or NULL */
	int npre;
	int pre[8];
	const char *pre_why;
	/* ... except the swapped rows, which widen them in the MMA's
	 * registers (i8 weights without a prologue: docs/decisions/0062) */
	int swap_regs;
};

/* Build every row of user->target's variant table for spec into *vs: the
 * main kernel in isl context ctx (which must outlive the set), each other
 * row in a context of its own (freed with the set), with the same
 * operation budget (poly.h's pm_isl_bound).  The main kernel is built
 * with dumps and diagnostics into d; the other rows quietly.  Returns
 * POLYMMA_OK, or the error of the main kernel (d says why). */
int pm_variant_set_build(isl_ctx *ctx, const struct pm_spec *spec,
	const struct pm_config *user, struct pm_variant_set *vs,
	struct pm_diags *d);
/* The threads that build (and print, emit/rows.h) the rows of a set of
 * njobs rows: $POLYMMA_THREADS (1: the calling one alone), else the CPUs
 * online; at most PM_VARIANT_MAX_THREADS and njobs. */
#define PM_VARIANT_MAX_THREADS 16
int pm_variant_threads(int njobs);
/* Free the kernels of vs. */
void pm_variant_set_clear(struct pm_variant_set *vs);
/* Has a row's isl context spent its operation budget (its build or its
 * AST)? 1 with the diagnostic in d (poly.h's pm_isl_quota_diag), else 0;
 * a row dropped for it set vs->over_budget. */
int pm_variant_set_quota_diag(const struct pm_variant_set *vs,
	struct pm_diags *d);
/* The kernel of role r, or NULL. */
struct pm_kernel *pm_variant_set_kernel(const struct pm_variant_set *vs,
	enum pm_variant_role r);
/* One line per row of the target's table: suffix, block, warp, mma,
 * stages, flags and "built" or why not (the golden of tests/). */
void pm_variant_set_report(const struct pm_variant_set *vs, FILE *out);

/* The pass table (variant/build.c). */
/* Fill in the target's defaults (and the operand row's, row NULL: none)
 * and check the configuration: returns POLYMMA_OK or POLYMMA_ERR_SPEC
 * (message in d). */
int pm_config_finish(struct pm_config *cfg, const struct pm_operand_row *row,
	struct pm_diags *d);
/* Run the pipeline up to and including the pass named `last`
 * ("tile_block", "strip_k", "tile_warp", "contract", "promote"; NULL: all)
 * with configuration cfg (finished here; the kernel points to it) and
 * hand the kernel over (free it with pm_pipeline_kernel_free). */
struct pm_kernel *pm_pipeline_until(isl_ctx *ctx, const struct pm_spec *spec,
	struct pm_config *cfg, const char *last, struct pm_diags *d);
void pm_pipeline_kernel_free(struct pm_kernel *k);

#endif

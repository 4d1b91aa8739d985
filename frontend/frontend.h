/* frontend — spec text (.tc) to a checked DAG of tensors and statements.
 *
 * Contract:
 *   pm_spec_parse(text, filename, diags) -> spec | NULL
 *     - lexes and parses the whole language of docs/LANGUAGE.md
 *       (one `def`, parameters and outputs `TYPE(DIM, ...) NAME`, statements
 *       `+=!`, `max=!`, `min=!`, `+=`, `=` (a scalar target, no
 *       parentheses, with the reductions only), expressions + - * / unary -, parentheses, numbers,
 *       tensor reads with plain index variables, the functions relu, sigmoid,
 *       tanh, gelu, gelu_erf, silu, exp, abs, max(a,b), min(a,b), `#` comments,
 *       `group e by offs` ending a contraction's line);
 *     - checks: declared tensors, arity of every reference, one size per
 *       symbol, plain (affine: single variable) indices, known types, inputs
 *       never written, outputs written, temporaries written before read,
 *       every lhs index variable distinct, every rhs variable either on the
 *       lhs or a reduction index (reductions only in `+=!`/`+=`),
 *       consistent extents (an index variable used for dims of different
 *       sizes is an error), scalar outputs written only by reductions;
 *     - on error: appends gcc-style diagnostics
 *       "file:line:col: error: message\n<source line>\n<spaces>^\n"
 *       to diags and returns NULL (never aborts on user input).
 *
 * The DAG: tensors in declaration order (inputs, then outputs, then
 * temporaries in order of first write), statements in program order.
 * Index variables are numbered per statement: lhs variables first (in lhs
 * order), then reduction variables in order of first appearance on the rhs.
 */
#ifndef PM_FRONTEND_H
#define PM_FRONTEND_H

#include <stdbool.h>
#include <stdio.h>

#include "frontend/diag.h"
#include "frontend/limits.h"

#define PM_MAX_RANK 8
#define PM_MAX_VARS 16

/* f8e4m3, f8e5m2: the OCP 8-bit floats (e4m3 without infinities, max 448;
 * e5m2 IEEE-like, max 57344), docs/LANGUAGE.md §1 */
enum pm_type { PM_F16, PM_BF16, PM_F32, PM_I8, PM_I32, PM_F8E4M3,
	PM_F8E5M2 };
const char *pm_type_name(enum pm_type t);	/* "f16", ... */
/* The type named s ("f16", ...), or -1. */
int pm_type_from_name(const char *s);
/* The accumulation type of products of t: f32 for floats, i32 for ints. */
enum pm_type pm_type_accum(enum pm_type t);

enum pm_role { PM_INPUT, PM_OUTPUT, PM_TEMP };

/* A size symbol (M, N, K ...) in order of first appearance in the
 * declarations. */
struct pm_sym {
	char *name;
	struct pm_loc loc;
};

/* One dimension of a tensor declaration: a symbol or a literal. */
struct pm_dim {
	int sym;		/* index into spec->syms, or -1 for a literal */
	long value;		/* literal value when sym < 0 */
};

struct pm_tensor {
	char *name;
	enum pm_type type;	/* for temporaries: the accumulation type */
	enum pm_role role;
	int rank;
	struct pm_dim dims[PM_MAX_RANK];
	struct pm_loc loc;
	/* 0 as parsed. 1 in the spec the kernels see (variant/kcopy.c): an
	 * operand the user declared MN-major that the kernels read as a
	 * K-major copy the launcher writes (dims and reads are the copy's,
	 * the user's reversed; docs/decisions/0033-kmajor-copies.md) */
	int kcopy;
	/* 0 as parsed. 1 in the spec the kernels see of a batched spec
	 * (variant/batch.h): the tensor's spec->nbatch leading batch
	 * dimensions are dropped (dims and reads are one batch's slice); the
	 * kernels read the slice of their batch, blockIdx.z */
	int batch;
	/* 0 as parsed. 1 in the spec the kernels see of a grouped spec
	 * (variant/group.h): dimension 0 is the rows, the kernels read and
	 * write the rows of their group */
	int grows;
	/* 0 as parsed. 1 in the spec the kernels of a swapped row see
	 * (variant/swap.h): an output declared T(..., P, Q) and read T(...,
	 * p, q) is seen as T(..., Q, P) read T(..., q, p), its storage the
	 * user's: the kernel's dimension rank - 2 is the contiguous one
	 * (pm_tensor_contig) */
	int tposed;
	/* 0 as parsed. 1 in the spec the kernels of a row with launcher-
	 * applied prologues see (variant/pre.h): an operand whose prologue
	 * the launcher applies into a copy in the workspace (of the type the
	 * MMA multiplies, its type here); the kernels read the copy plainly
	 * (docs/decisions/0059-launcher-applied-prologues.md) */
	int pre;
};

/* The dimension of t that is contiguous in memory: rank - 1, or rank - 2
 * where t->tposed. */
static inline int pm_tensor_contig(const struct pm_tensor *t)
{
	return t->tposed && t->rank >= 2 ? t->rank - 2 : t->rank - 1;
}

enum pm_func {
	PM_FN_RELU, PM_FN_SIGMOID, PM_FN_TANH, PM_FN_GELU, PM_FN_GELU_ERF,
	PM_FN_SILU, PM_FN_EXP, PM_FN_ABS, PM_FN_MAX, PM_FN_MIN
};
const char *pm_func_name(enum pm_func f);
int pm_func_arity(enum pm_func f);
/* The function named s ("relu", ...), or -1. */
int pm_func_from_name(const char *s);

enum pm_expr_kind {
	PM_E_NUM,	/* num */
	PM_E_READ,	/* tensor(idx[0], ..., idx[rank-1]) */
	PM_E_NEG,	/* -args[0] */
	PM_E_BIN,	/* args[0] op args[1], op one of + - * / */
	PM_E_CALL	/* fn(args[0] [, args[1]]) */
};

struct pm_expr {
	enum pm_expr_kind kind;
	struct pm_loc loc;
	double num;
	char op;
	enum pm_func fn;
	int nargs;
	struct pm_expr *args[2];
	int tensor;			/* PM_E_READ: index into spec->tensors */
	int nidx;
	int idx[PM_MAX_RANK];		/* statement-local variable numbers */
};

enum pm_stmt_kind {
	PM_S_REDUCE,	/* T(...) +=! rhs : T = 0, then T += rhs over reductions */
	PM_S_ACCUM,	/* T(...) +=  rhs : T += rhs over reductions */
	PM_S_ASSIGN	/* T(...) =   rhs */
};

/* The combining operator of a PM_S_REDUCE statement: +=! sums (from 0),
 * max=! and min=! take the largest or smallest value (from -inf, +inf;
 * NaN is ignored as fmax/fmin do). docs/LANGUAGE.md, "Epilogue
 * reductions". */
enum pm_red_op { PM_RED_SUM, PM_RED_MAX, PM_RED_MIN };
/* "+=!", "max=!", "min=!" */
const char *pm_red_op_name(enum pm_red_op op);

struct pm_stmt {
	enum pm_stmt_kind kind;
	enum pm_red_op red;		/* PM_S_REDUCE: its operator */
	struct pm_loc loc;
	int lhs;			/* tensor index */
	int nlhs;			/* == rank of lhs tensor */
	int nvars;			/* lhs vars [0, nlhs), reductions after */
	char *vars[PM_MAX_VARS];	/* variable names */
	struct pm_expr *rhs;
	/* 1: a statement of a grouped chain (docs/LANGUAGE.md, "Grouped
	 * contractions"): its rows (lhs variable 0) are computed per group;
	 * the group index is variable nvars (vars[nvars] its name, never an
	 * lhs or reduction variable), bound to each row by spec->group_offs */
	int grouped;
};

struct pm_spec {
	char *filename;
	char *text;			/* a copy of the source */
	char *name;			/* the def's name */
	int nsyms;
	struct pm_sym *syms;
	int ntensors;
	struct pm_tensor *tensors;
	int nstmts;
	struct pm_stmt *stmts;
	/* 0 as parsed. In the spec the kernels see of a batched spec
	 * (variant/batch.h): the leading batch indices dropped from every
	 * statement, their extents (the output's leading dimensions) */
	int nbatch;
	struct pm_dim bdims[PM_MAX_RANK];
	/* the spec the kernels see (variant/epired.h): its epilogue
	 * reductions, stmts[nstmts .. nstmts + nepired), computed beside the
	 * kernel's statements (docs/decisions/0037-epilogue-reductions.md);
	 * 0 in a parsed spec; epired_kept: the output dimension it keeps
	 * (0 rows, 1 columns, 2 none: a scalar) */
	int nepired, epired_kept;
	/* 1: a grouped spec (`group e by offs`): statements from the first
	 * grouped contraction on are grouped, group_offs the offsets' tensor
	 * (an i32 input of rank 1). In the spec the kernels see
	 * (variant/group.h): nbatch 1, bdims[0] the groups' extent,
	 * group_rows the rows' size symbol (the group's rows in a kernel) */
	int grouped, group_offs, group_rows;
};

/* diags may be NULL (messages dropped); when its filename or text is NULL,
 * filename and text are used for the messages of this call. */
struct pm_spec *pm_spec_parse(const char *text, const char *filename,
	struct pm_diags *diags);
void pm_spec_free(struct pm_spec *spec);
/* A deep copy of spec, or NULL (out of memory). */
struct pm_spec *pm_spec_copy(const struct pm_spec *spec);
/* Free an expression tree (pm_spec_free does this for statements). */
void pm_expr_free(struct pm_expr *e);

/* Number of reduction variables of a statement. */
static inline int pm_stmt_nred(const struct pm_stmt *s)
{
	return s->nvars - s->nlhs;
}

/* Is statement s an epilogue reduction (docs/LANGUAGE.md, "Epilogue
 * reductions"): a reduction (+=!, max=!, min=!) whose right side reads
 * a result of an earlier statement (a contraction's reads only inputs)? */
bool pm_stmt_is_epi_reduction(const struct pm_spec *spec, int s);

/* Print the spec back in the .tc syntax (canonical form, for `check`). */
void pm_spec_print(FILE *out, const struct pm_spec *spec);
/* Print an expression in the .tc syntax, variables by name. */
void pm_expr_print(FILE *out, const struct pm_spec *spec,
	const struct pm_stmt *stmt, const struct pm_expr *e);

#endif

/* poly — the DAG as a polyhedral program (scop).
 *
 * Every spec statement becomes one or two isl statements, named S_<n> and
 * identified by the user pointer of their isl_id (a struct pm_stmt_info):
 *   T(i,j) +=! e(i,j,k)   ->  S_<n>_init[i,j] : T[i,j] = 0        (ROLE_INIT)
 *                             S_<n>[i,j,k]    : T[i,j] += e        (ROLE_UPDATE)
 *   T(i,j) +=  e(i,j,k)   ->  S_<n>[i,j,k]    : T[i,j] += e        (ROLE_UPDATE)
 *   T(i,j) =   e(i,j)     ->  S_<n>[i,j]      : T[i,j] = e         (ROLE_ASSIGN)
 * Domains are boxes over the tensor extents, parametric in the size
 * symbols (symbols fixed by -D are substituted as literals):
 *   [M, N, K] -> { S_0[i,j,k] : 0 <= i < M and 0 <= j < N and 0 <= k < K }
 * Accesses map statement instances to array elements, e.g. for
 * C(i,j) +=! A(k,i) * B(j,k):  S_0[i,j,k] -> A[k,i],  S_0[i,j,k] -> B[j,k],
 * S_0[i,j,k] -> C[i,j] (read and written). Arrays are identified by the
 * user pointer of their isl_id (a struct pm_array_info).
 *
 * Split-K (cfg->split_k != 1): each contraction r (a reduction statement
 * with one reduction variable k, r = 0, 1 in program order) computes the
 * partial sum of one chunk of k, run by blockIdx.z; two parameters name the
 * chunk, pm_k0_<r> (its first k) and pm_kn_<r> (its length), and the
 * statement's k runs over the chunk from 0:
 *   [M, N, K, pm_k0_0, pm_kn_0] -> { S_0[i,j,k] : 0 <= i < M and
 *       0 <= j < N and 0 <= k < pm_kn_0 }    S_0[i,j,k] -> A[i, k + pm_k0_0]
 * with pm_k0_r >= 0, pm_kn_r >= 1, pm_k0_r + pm_kn_r <= K in the context.
 * A reduction's extent fixed to a value that is not a multiple of the k
 * tile (-D K=1000, a literal) is padded to one in the domains (1024 for
 * tiles of 32: docs/decisions/0030-ragged-k.md); strides keep the value.
 * The kernel derives them from blockIdx.z and sums the chunks' partial
 * accumulators before the epilogue (emit/, the FIXUP op).
 *
 * Dependences (isl flow analysis on the initial schedule): flow (RAW) and
 * false (WAR, WAW); every later schedule must order them the same way.
 *
 * The initial schedule is the fused one the paper's trees start from:
 *   domain
 *     mark "out"  band [i, j] over all statements (the output dimensions)
 *       sequence (program order)
 *         filter S_0_init
 *         filter S_0      mark "red"  band [k]
 * Joined contractions (scop->join): filters S_0_init, S_1_init, then one
 * filter S_0 + S_1 with one "red" band [k] over both.
 * Epilogue reductions (pm_stmt_is_epi_reduction: S(i) +=! D(i, j), S(j)
 * +=! C(i, j), amax max=! abs(C(i, j))) are in the output band as well,
 * by the chain's (i, j): S_n[i, j] -> [i, j] (a column sum's S_n[j, i] ->
 * [i, j]), their init by its left-hand variables, 0 elsewhere
 * (S_n_init[i] -> [i, 0], S_n_init[] -> [0, 0]); no "red" band; the
 * members they reduce along are not coincident (docs/decisions/
 * 0037-epilogue-reductions.md: check models them, gen refuses them).
 */
#ifndef PM_POLY_H
#define PM_POLY_H

#include <stdio.h>

#include <isl/ctx.h>
#include <isl/id.h>
#include <isl/schedule.h>
#include <isl/set.h>
#include <isl/space.h>
#include <isl/local_space.h>
#include <isl/aff.h>
#include <isl/map.h>
#include <isl/val.h>
#include <isl/union_map.h>
#include <isl/union_set.h>

#include "frontend/frontend.h"
#include "poly/config.h"

enum pm_stmt_role { PM_ROLE_INIT, PM_ROLE_UPDATE, PM_ROLE_ASSIGN };

struct pm_stmt_info {
	enum pm_stmt_role role;
	int stmt;		/* index into spec->stmts */
	int ndims;		/* domain dimensions (vars of the statement) */
};

struct pm_array_info {
	int tensor;		/* index into spec->tensors */
};

struct pm_scop {
	isl_ctx *ctx;
	const struct pm_spec *spec;
	long *sym_value;	/* per symbol: -D value, or 0 (runtime) */
	int nparams;		/* runtime symbols */
	isl_set *context;	/* constraints on the runtime symbols */
	isl_union_set *domain;
	isl_union_map *reads;
	isl_union_map *writes;
	isl_union_map *dep_flow;
	isl_union_map *dep_false;
	isl_schedule *schedule;	/* initial */
	int nstmts;
	struct pm_stmt_info *stmts;
	isl_id **stmt_ids;
	int narrays;
	struct pm_array_info *arrays;
	isl_id **array_ids;	/* per tensor */
	isl_id *mark_out, *mark_red;
	/* split-K: contractions whose k is a chunk (see above) */
	int nsplit;
	/* their spec statements */
	int split_stmt[PM_LIMIT_CONTRACTIONS];
	/* the full extent of their k */
	char split_ext[PM_LIMIT_CONTRACTIONS][PM_LIMIT_IDENT + 1];
	/* the reductions' k extents, in program order */
	char red_ext[PM_LIMIT_CONTRACTIONS][PM_LIMIT_IDENT + 1];
	/* 1: the first two statements are contractions over one k extent
	 * that read one operand with the same access (X(i, k) in both):
	 * they share one filter and one k band of the initial schedule
	 * (after both inits), so that one copy of the shared operand per k
	 * tile feeds both (promote/); split, their chunks are one */
	int join;
	/* the k tile: a contraction's k extent fixed (-D or a literal) to a
	 * value that is not a multiple of it runs over the padded value in
	 * the domains (the copies zero-fill past the real one) */
	int kpad;
	/* the spec the kernels see where it is not the user's (K-major
	 * copies, variant/kcopy.c): owned, spec points to it */
	struct pm_spec *own_spec;
	/* the spec the views above were made of where it is not the user's
	 * (factors moved to the epilogue, variant/hoist.h): owned */
	struct pm_spec *own_base;
};

/* Build the scop. Unsupported constructs or bad -D values are reported to
 * diags (return NULL). */
__isl_give struct pm_scop *pm_scop_build(isl_ctx *ctx,
	const struct pm_spec *spec, const struct pm_config *cfg,
	struct pm_diags *diags);
void pm_scop_free(struct pm_scop *scop);

/* Compute dep_flow and dep_false from the accesses and the initial
 * schedule (called by pm_scop_build). */
isl_stat pm_scop_compute_deps(struct pm_scop *scop);
/* All dependences: flow and false. */
__isl_give isl_union_map *pm_scop_deps(const struct pm_scop *scop);
/* The isl_id of statement n's role (NULL when the statement has none). */
__isl_keep isl_id *pm_scop_stmt_id(const struct pm_scop *scop, int stmt,
	enum pm_stmt_role role);
/* Statement info from an isl_id (NULL when the id is not a statement). */
const struct pm_stmt_info *pm_stmt_info_of(const struct pm_scop *scop,
	__isl_keep isl_id *id);
/* The extent of tensor t's dimension d as text: a literal or the symbol. */
void pm_scop_dim_str(const struct pm_scop *scop, int t, int d, char *buf,
	int len);
/* Is symbol s fixed by -D (and its value in *v)? */
int pm_scop_sym_fixed(const struct pm_scop *scop, int s, long *v);

/* Bound the isl work of ctx (PM_LIMIT_ISL_OPS operations from now). */
void pm_isl_bound(isl_ctx *ctx);
/* After a failed isl step: when ctx ran out of its operation budget,
 * report "the spec is too large to schedule" (an error of the spec, exit
 * 1) once and return 1; else 0. */
int pm_isl_quota_diag(isl_ctx *ctx, struct pm_diags *d);
/* The diagnostic of a spent budget, into d (once). */
void pm_isl_quota_report(struct pm_diags *d);

/* `polymma check` output: DAG, domains, accesses, dependences, schedule. */
void pm_scop_print(FILE *out, const struct pm_scop *scop);

#endif

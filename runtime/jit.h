/* runtime/jit.h — what the JIT launcher needs to know of a generated
 * file, as data: the launch description (docs/decisions/0038-jit.md).
 *
 * Contract. A struct pm_rt_jit holds everything the printed host launcher
 * of a generated file (emit/launch.c) decides from the generator's state:
 * the entry's size and alignment checks, the plan's rows and spec
 * (runtime/plan.h), and for each kernel its name, block, dynamic shared
 * memory, exact twin, grid rule and argument list. The argument list of
 * every kernel has one fixed shape (emit/file.c, kernel_params):
 *
 *   tensors (inputs, then outputs; pointers), the launcher's sizes (int),
 *   [split: float *partials, unsigned *counters, int kc[0..nsplit),
 *           [unsigned tdp: persistent], [int cl: clusters]],
 *   [one CUtensorMap (by value, __grid_constant__) per TMA buffer]
 *
 * so a row is described by a few flags and its tensor maps, and
 * pm_rt_jit_args prints the list the way emit/launch.c does (tests compare
 * them on every row of every example). Filled by emit/jit.c from a
 * variant set; stored in the JIT cache by pm_rt_jit_pack/unpack (plain
 * integers and strings, little-endian, bounds-checked); followed by
 * runtime/jitlaunch.c with the CUDA driver API. No isl, no CUDA here.
 */
#ifndef PM_RT_JIT_H
#define PM_RT_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/plan.h"

#define PM_RT_MAX_PARTS 16	/* cubins of a kernel (api/jitparts.c) */

#define PM_RT_JIT_SYMS 16	/* size symbols of a spec */
#define PM_RT_JIT_TENSORS 16	/* launcher tensors */
#define PM_RT_JIT_TMA 8		/* tensor maps of a kernel */
#define PM_RT_JIT_NAME 64
#define PM_RT_JIT_BATCH 8	/* batch extents of a batched spec */
#define PM_RT_JIT_KC 4		/* K-major copies of a spec */

/* An extent: size symbol sym (spec order), or the literal value. */
struct pm_rt_dim {
	int sym;		/* -1: literal */
	int64_t value;
};

/* The tensor map of argument pm_tm<i> (emit/launch.c, tma_maps; the
 * encoding: runtime/device/sm90_store.cuh, pm_tma_map_2d). */
struct pm_rt_tma {
	int buf;		/* the kernel's buffer (argument pm_tm<buf>) */
	int tensor;		/* launcher tensor (inputs, then outputs) */
	struct pm_rt_dim rows, cols;	/* row-major, pitch = cols */
	/* a K-major copy's map (launch.c, tma_maps): its base the copy in
	 * the workspace, its pitch cols rounded up to 16 (kcopy.cuh,
	 * pm_kc_pitch) */
	int kc;
	int box_rows, box_cols;
	int swizzle;		/* bytes of a box row: 128, 64, 32, else none */
	int dtype;		/* CUtensorMapDataType */
	int esize;		/* bytes of an element */
	/* a batched tensor's map (launch.c, pm_tma_map_3d): the batch its
	 * third, outermost dimension, of the launch's batch count, slices
	 * of rows x cols elements apart, a box of one */
	int batched;
};

/* One kernel (a row of the plan's table, or the file's only kernel). */
struct pm_rt_jit_row {
	char suffix[32];	/* pm_kernel_NAME<suffix>, "_x" more for the twin */
	int bm, bn;		/* output tile */
	int threads;
	long smem;		/* dynamic shared memory */
	int twin;		/* has an exact twin */
	/* the cubin holding the kernel, its twin (api/jitparts.c) */
	int part[2];
	/* the twin runs where twin_mult[s] divides symbol s (0: any) */
	int twin_mult[PM_RT_JIT_SYMS];
	int nsplit;		/* split-K arguments for nsplit contractions */
	int tdp;		/* unsigned tdp argument (split persistent) */
	int cl;		/* int cl argument and clusters of cl blocks */
	int zsplit;		/* gridDim.z = s (split, not persistent) */
	int persistent;	/* single kernel: at most SMs x occupancy blocks */
	/* clusters of two blocks multicasting B (--cluster 2; the kernel's
	 * __cluster_dims__): a grid of 2 min(pairs of tile rows x tile
	 * columns, its blocks / 2, the clusters resident at once) blocks
	 * (launch.c, mc_grid; docs/decisions/0017) */
	int mc;
	int ntma;
	struct pm_rt_tma tma[PM_RT_JIT_TMA];
};

/* A generated file's launch. */
struct pm_rt_jit {
	char name[PM_RT_JIT_NAME];
	int nsyms;		/* size symbols, spec order */
	char sym_name[PM_RT_JIT_SYMS][PM_RT_JIT_NAME];
	int64_t fixed[PM_RT_JIT_SYMS];	/* -D value; 0: a launcher size */
	int nsizes;		/* the launcher's sizes (kernel int arguments) */
	int order[PM_RT_JIT_SYMS];	/* their symbols */
	int align[PM_RT_JIT_SYMS];	/* each a multiple of (1: any) */
	int ntensors;		/* inputs, then outputs */
	char tname[PM_RT_JIT_TENSORS][PM_RT_JIT_NAME];
	int talign[PM_RT_JIT_TENSORS];	/* bytes each pointer is aligned to */
	/* the _unaligned row (docs/decisions/0046-narrow-copies.md): what
	 * it asks of each size and pointer instead (has_ua 0: no such row,
	 * align and talign refuse); a problem that meets these but not
	 * align and talign runs it (struct pm_rt_problem, unaligned) */
	int has_ua;
	int ua_align[PM_RT_JIT_SYMS];
	int ua_talign[PM_RT_JIT_TENSORS];
	struct pm_rt_dim m, n;	/* the output's extents */
	/* batched (docs/decisions/0036, 0042): the batch count is the
	 * product of the nbatch extents bdims; a row not persistent runs
	 * it in gridDim.z (at most 65535), a persistent one in its units
	 * (batch, tile). grouped (0045, 0051): nbatch 1, bdims[0] the
	 * groups; the 1-D grid runs units (group, tile), (m / bm + groups)
	 * x n / bn of them at most (emit/group.h, pm_emit_group_units) */
	int nbatch;
	struct pm_rt_dim bdims[PM_RT_JIT_BATCH];
	int grouped;
	struct pm_rt_dim k[PM_RT_MAX_K];	/* the plan's k extents */
	/* the first contraction's A and B: row pitch (their last
	 * dimension's extent in the kernels' spec, a copy's padded:
	 * pitch_kc) and element bytes (problem.mis) */
	struct pm_rt_dim pitch[2];
	int pitch_bytes[2];
	int pitch_kc[2];	/* a K-major copy's: rounded up to 16 */
	/* K-major copies (docs/decisions/0033-kmajor-copies.md; emit/kcopy.c):
	 * launcher tensor kc[i].tensor, declared r x c bytes (r its k), is
	 * copied into c x pm_kc_pitch(r) bytes of the workspace, the copies
	 * one after the other, each pm_kc_bytes(r, c), by the module's
	 * pm_kc_kernel, before the kernel, which reads the copies
	 * (pm_rt_jit_kc_bytes) */
	int nkc;
	int kc_split;	/* 1: from pm_rt_copy_offset; 0: from 0 (no split) */
	struct pm_rt_jit_kc {
		int tensor;
		struct pm_rt_dim r, c;
	} kc[PM_RT_JIT_KC];
	/* launcher-applied prologues (docs/decisions/0059; emit/pre.c):
	 * the rows with PM_RT_PRE read launcher tensor pre[i].tensor as a
	 * copy of r x c elements of esize bytes, written by the module's
	 * pm_pre_NAME_<tensor> (arguments: the ninputs inputs, the copy,
	 * int64 r and c, the launcher's sizes as int64) into the workspace
	 * at pm_rt_choice.pre_off, the copies one after the other, each
	 * r x c x esize rounded up to 256; reuse: the output extent over
	 * which its elements are reused (problem.pre_reuse); batched: a copy
	 * of every batch's slice (the batch count's times the bytes and the
	 * threads); per_group: reuse over the groups (a grouped spec's rows:
	 * a group's on average) */
	int ninputs;
	int npre;
	struct pm_rt_jit_pre {
		int tensor, esize, batched, per_group;
		struct pm_rt_dim r, c, reuse;
	} pre[PM_RT_JIT_KC];
	int planned;		/* several kernels: pm_rt_plan picks */
	/* the kernels wait for the stream's previous grid (--pdl): launched
	 * with the programmatic stream serialization attribute
	 * (docs/decisions/0068-pdl.md; the copy and prologue kernels are
	 * not) */
	int pdl;
	/* an epilogue reduction (docs/decisions/0037, 0056): 0 none, else 1
	 * + what it keeps (0 rows, 1 columns, 2 a scalar); its workspace's
	 * partials are for tiles of red_bm x red_bn at least (the file's
	 * smallest), pm_rt_jit_red_bytes */
	int red, red_bm, red_bn;
	struct pm_rt_spec spec;
	int nrows;
	struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];	/* .suffix: kern[i] */
	struct pm_rt_jit_row kern[PM_RT_MAX_VARIANTS];
};

/* rows[i].suffix pointed at kern[i].suffix (after a copy or unpack). */
void pm_rt_jit_fix(struct pm_rt_jit *j);
/* j as bytes: *len of them into buf (NULL: only the length). */
void pm_rt_jit_pack(const struct pm_rt_jit *j, unsigned char *buf,
	size_t *len);
/* Bytes back into *j; -1 where they are short, long or out of range. */
int pm_rt_jit_unpack(const unsigned char *buf, size_t len,
	struct pm_rt_jit *j);
/* An epilogue reduction's workspace at the sizes: its counters' bytes
 * (*cnt; the partials follow) and all its bytes (emit/epired.c,
 * pm_red_cnt_NAME and pm_red_bytes_NAME); 0 without one. */
size_t pm_rt_jit_red_bytes(const struct pm_rt_jit *j, const int64_t *sizes,
	size_t *cnt);
/* The workspace bytes of the K-major copies at the sizes (each
 * pm_kc_bytes: c x pm_kc_pitch(r) rounded up to 256); 0 without any.
 * Copy i starts *off[i] bytes after the first (off may be NULL). */
size_t pm_rt_jit_kc_bytes(const struct pm_rt_jit *j, const int64_t *sizes,
	size_t *off);
/* The workspace bytes of the launcher-applied prologues' copies at the
 * sizes (problem.pre_bytes); copy i starts *off[i] bytes after the first
 * (off may be NULL). */
size_t pm_rt_jit_pre_bytes(const struct pm_rt_jit *j, const int64_t *sizes,
	size_t *off);
/* pm_kc_pitch: r rounded up to 16. */
int64_t pm_rt_kc_pitch(int64_t r);
/* The value of d at the sizes (spec order). */
int64_t pm_rt_dim_value(const struct pm_rt_dim *d, const int64_t *sizes);
/* The batch count at the sizes (1: not batched). */
int64_t pm_rt_jit_batch(const struct pm_rt_jit *j, const int64_t *sizes);
/* problem.mis at the sizes: the first contraction's A (bit 0) and B (bit
 * 1) whose rows are not whole 32-byte sectors (pitch, pitch_bytes;
 * docs/decisions/0053-misaligned-pitch.md). */
int pm_rt_jit_mis(const struct pm_rt_jit *j, const int64_t *sizes);
/* Row r's argument list as emit/launch.c prints it ("(const __half *)"
 * casts left out: "A, B, C, (int) M, ..., pm_tm0"); for tests. Returns
 * the length written (snprintf's). */
int pm_rt_jit_args(const struct pm_rt_jit *j, int r, char *buf, size_t n);

#endif

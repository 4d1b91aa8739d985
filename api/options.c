/* The options as one table: polymma_options_set, the command line and the
 * documentation all read it (api/options.h). */
#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "api/options.h"
#include "target/target.h"
#include "poly/config.h"
#include "frontend/limits.h"
#include "polymma.h"

struct polymma_options {
	struct pm_config cfg;
	/* every successful set, "key=value\n" in order: the JIT cache's
	 * key (api/jit.c); log_over: it did not fit */
	char log[4096];
	size_t loglen;
	int log_over;
};

#define F(x) offsetof(struct pm_config, x)

static const struct pm_opt_choice on_off[] = {
	{ "on", 1, 0 }, { "off", 0, 0 }, { NULL, 0, 0 },
};
static const struct pm_opt_choice auto_on_off[] = {
	{ "auto", -1, 0 }, { "on", 1, 0 }, { "off", 0, 0 }, { NULL, 0, 0 },
};
static const struct pm_opt_choice auto_off[] = {
	{ "auto", -1, 0 }, { "off", 0, 0 }, { NULL, 0, 0 },
};
static const struct pm_opt_choice cluster_choices[] = {
	{ "auto", -1, 0 }, { "1", 1, 0 }, { "2", 2, 0 }, { "off", 1, 1 },
	{ NULL, 0, 0 },
};
static const struct pm_opt_choice smem_choices[] = {
	{ "swizzle", 2, 0 }, { "pad", 1, 0 }, { "plain", 0, 0 },
	{ NULL, 0, 0 },
};
static const struct pm_opt_choice split_k_choices[] = {
	{ "auto", 0, 0 }, { NULL, 0, 0 },
};
/* the names of pm_target_find's targets (tests/test_options.c checks) */
static const struct pm_opt_choice target_choices[] = {
	{ "sm_70", 0, 0 }, { "sm_80", 0, 0 }, { "sm_90a", 0, 0 },
	{ NULL, 0, 0 },
};

static int set_target(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err);
static int set_host_target(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err);
static int set_define(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err);
static int set_dump(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err);

/* An on|off switch whose default is "where possible" (-1). */
#define SWITCH(name, fld, dflt, hlp, dc) { .key = name, .flag = "--" name, \
	.metavar = "on|off", .kind = PM_OPT_ENUM, .field = { F(fld) }, \
	.nfields = 1, .choices = on_off, \
	.err = "--" name " expects on or off", .def = dflt, .help = hlp, \
	.doc = dc }

/* An output file of the command line. */
#define OUTPUT(fl, n, hlp) { .flag = fl, .metavar = "FILE", \
	.kind = PM_OPT_FILE, .out = n, .help = hlp }

static const struct pm_opt table[] = {
	OUTPUT("-o", 0, "write the CUDA source to FILE ('-': standard output)"),
	OUTPUT("--header", 1, "also write the C header of the launcher"),
	OUTPUT("--meta", 2, "also write the configuration as JSON"),
	{ .key = "target", .flag = "--target", .metavar = "sm_70|sm_80|sm_90a",
	  .kind = PM_OPT_ENUM, .choices = target_choices, .set = set_target,
	  .err = "unknown target (sm_70, sm_80, sm_90a)", .def = "sm_80",
	  .help = "instruction set" },
	{ .key = "define", .flag = "-D", .metavar = "NAME=VALUE",
	  .kind = PM_OPT_DEFINE, .flags = PM_OPT_REPEATABLE,
	  .set = set_define, .err = "-D expects NAME=VALUE",
	  .help = "fix a size symbol (repeatable); the others stay runtime "
		"arguments",
	  .doc = "VALUE is an integer from 1 to 2^31 - 256 (the launcher's "
		"largest size); NAME has fewer than 64 "
		"characters; at most 16 names, a name given again takes the "
		"last value. The launcher takes the size symbols not fixed "
		"as arguments (`M, N, K` for a GEMM, in order of first "
		"appearance in the statement)." },
	{ .key = "block", .flag = "--block", .metavar = "MxNxK",
	  .kind = PM_OPT_SHAPE, .field = { F(bm), F(bn), F(bk) },
	  .nfields = 3, .min = 1, .max = 65536, .min_dims = 3,
	  .max_dims = 3, .err = "--block expects MxNxK",
	  .def = "128x128x32 (sm_90a: 128x128x64)", .help = "block tile",
	  .doc = "On sm_90a the shared tiles have rows of 16, 32, 64 or more "
		"elements in multiples of 16; wider than 64, N-major ones are "
		"stored as swizzled blocks of 64, 32 or 16 columns (128x96 and "
		"128x80 blocks work with `--warp 64x96 --mma 64x96x64` or "
		"`64x80`). Fixed sizes (`-D`) must be multiples of the block "
		"tile, but K (docs/decisions/0030-ragged-k.md)." },
	{ .key = "warp", .flag = "--warp", .metavar = "MxNxK",
	  .kind = PM_OPT_SHAPE, .field = { F(wm), F(wn) }, .nfields = 2,
	  .min = 1, .max = 65536, .min_dims = 2, .max_dims = 3,
	  .err = "--warp expects MxN or MxNxK",
	  .def = "64x64 (sm_90a: 64x128)",
	  .help = "warp tile (sm_90a: warpgroup tile, M = 64)",
	  .doc = "MxN is accepted too: the warp's k extent is the block's. "
		"On sm_90a the tile of one warpgroup, M = 64. The default is "
		"64x64 on sm_70 and sm_80, 64x32 when a fused epilogue is heavy "
		"enough (three or more input reads and non-trivial functions) "
		"to spill registers otherwise, and 64x128 on sm_90a." },
	{ .key = "mma", .flag = "--mma", .metavar = "MxNxK",
	  .kind = PM_OPT_SHAPE, .field = { F(mm), F(mn), F(mk) },
	  .nfields = 3, .min = 1, .max = 65536, .min_dims = 3,
	  .max_dims = 3, .err = "--mma expects MxNxK",
	  .def = "the target's", .help = "macro-MMA shape",
	  .doc = "sm_70: `16x16x8` or `32x32x8`; sm_80: `16x8x16` … "
		"`64x64x16`, `32x32x32`, `64x32x32`, `64x64x32`, default "
		"`32x32x16`; sm_90a: `64xNxK`, N 64, 128 or 256, K 16, 32 or "
		"64, default `64x128x64`. Without `--mma`, when the default "
		"does not fit the tiles asked for, the largest legal one that "
		"does." },
	{ .key = "split-k", .flag = "--split-k", .metavar = "auto|N",
	  .kind = PM_OPT_INT, .field = { F(split_k) }, .nfields = 1,
	  .min = 1, .max = 65536, .choices = split_k_choices,
	  .err = "expects a positive integer",
	  .def = "auto",
	  .help = "split the reduction over blockIdx.z (N chunks, 1: never)",
	  .doc = "`auto`: the launcher splits when the grid is smaller than "
		"the GPU; `N`: always N chunks, at most 64; `1`: never." },
	{ .key = "stages", .flag = "--stages", .metavar = "N",
	  .kind = PM_OPT_INT, .field = { F(stages) }, .nfields = 1,
	  .min = 1, .max = 65536,
	  .err = "expects a positive integer",
	  .def = "3 (sm_70: 2)", .help = "shared-memory pipeline stages, 1-16",
	  .doc = "Copies of k tile t+N-1 (TMA on sm_90a, `cp.async` on "
		"sm_80) overlap the MMAs of tile t. The persistent kernels of "
		"sm_90a default to 4." },
	SWITCH("frag-pipeline", frag_pipe, "on where possible",
		"load warp fragments one k-step ahead, across k tiles",
		"Each warp's `ldmatrix` fragments are loaded one 16-deep "
		"k-step ahead, across k tiles: the barrier and the next tile's "
		"copies come before the last k-step's MMAs. Possible on sm_80 "
		"with macro k 16, an even number of k-steps per block k and 2+ "
		"stages; `on` makes it an error when it is not possible."),
	SWITCH("staged-store", staged_store, "on where possible",
		"write the output tile through shared memory",
		"The output tile goes through shared memory (rows padded by 16 "
		"bytes), then to global memory in coalesced 16-byte units; "
		"possible where the block's threads cover the tile in 16-byte "
		"units."),
	SWITCH("tma-store", tma_store, "on where possible",
		"sm_90a persistent kernels: the output tile leaves by TMA",
		"The staged output tile of sm_90a's warp-specialized "
		"(persistent, unsplit) kernels is written to shared memory in "
		"128-byte swizzled column blocks and stored by TMA, "
		"asynchronously: the global write overlaps the next tile's "
		"main loop (`docs/decisions/0048-tma-stores.md`). Possible for "
		"16-bit outputs of kernels that are not batched; `off`: the "
		"threads copy the tile in 16-byte units."),
	SWITCH("reg-stage", reg_stage, "on with 2 stages",
		"sm_70: prefetch the next k tile through registers",
		"Without `cp.async` (sm_70): load tile k+1 into registers "
		"before the MMAs of tile k and store it to shared memory after "
		"them (the paper's prefetch); on by default with 2 stages and "
		"no prologue."),
	SWITCH("mma-inflight", mma_inflight, "off",
		"sm_90a: keep one k tile of wgmma running across the barrier",
		"The copies run N-2 tiles ahead (needs 3+ stages; copies by "
		"`cp.async`, not TMA). `off`: the warpgroup waits for its "
		"`wgmma` right after issuing them, which measured faster with "
		"two blocks per SM, also on the TMA loop "
		"(`docs/decisions/0020-mma-inflight-off-by-default.md`). "
		"With `--persistent on` (unsplit, TMA): each consumer "
		"warpgroup waits for all but the k tile it just issued and "
		"releases the stage before (the last tile drains and releases "
		"both); the `_persist_narrow` and `_persist_slim` variants "
		"run so."),
	SWITCH("pro-overlap", pro_overlap, "on for sm_90a where possible",
		"transform tile k+1 while tile k's asynchronous MMAs run",
		"Prologues (pointwise work on an operand in shared memory): "
		"each thread transforms its units of tile k+1 while tile k's "
		"asynchronous MMAs run, instead of between the wait and the "
		"barrier of tile k. Possible with 2+ stages and "
		"`--mma-inflight off`."),
	SWITCH("pro-regs", pro_regs, "on for sm_90a",
		"a prologue on A applied to the MMA's register operand",
		"sm_90a: `ldmatrix`, the prologue on the registers, `wgmma` "
		"with A from registers, instead of a pass in shared memory; "
		"off under `--mma-inflight on`."),
	SWITCH("tma", tma, "on for sm_90a where possible",
		"sm_90a: copy the k tiles with the Tensor Memory Accelerator",
		"One thread issues a tile's boxes, \"full\" and \"empty\" "
		"mbarriers order the stages, no block barrier in the k loop, "
		"one tensor map per operand built by the launcher. Possible "
		"with 2+ stages, no prologue in shared memory and "
		"`--mma-inflight off`; the small variant keeps `cp.async`, "
		"faster on its latency-bound grids; `on` makes it an error "
		"when it is not possible."),
	{ .key = "persistent", .flag = "--persistent",
	  .metavar = "auto|on|off", .kind = PM_OPT_ENUM,
	  .field = { F(persistent) }, .nfields = 1, .choices = auto_on_off,
	  .err = "--persistent expects auto, on or off", .def = "auto",
	  .help = "sm_90a with TMA: persistent warp-specialized kernels",
	  .doc =
		"A producer warp issues every tile's copies while 8 consumer "
		"warps compute, each block loops over output tiles (the ring "
		"of stages runs on across them, the C tile has its own shared "
		"memory). `auto` (default): four variants in files with the "
		"split-K launch plan, `_persist` (128x128, 4 stages), "
		"`_persist_wide` (128x256, 3 stages: one 64x256 `wgmma` per "
		"warpgroup) and `_persist_tall` (256x128, 3 stages: two "
		"warpgroups of 128x128, for M a multiple of 256 and N not), "
		"launched on grids of more than one wave whose waves they "
		"fill better (the wide and tall ones: to 85 % or more of "
		"their elements, M and N of any size except with an "
		"epilogue of several statements or a reduction; with a "
		"register prologue the variant of least modelled time, see "
		"below), `_persist` on grids of 3/5 to 1 tile per SM (from "
		"1/2 with 16 k tiles of work or more; with a prologue on A's "
		"registers the 128x128 one only there; the wide and tall ones "
		"then have a producer warpgroup that hands its registers to "
		"the consumers with `setmaxnreg`, 384 threads), "
		"`_persist_mid` (128x192, 4 stages: one 64x192 `wgmma` per "
		"warpgroup), launched last-rule on grids of more than one "
		"wave whose waves its grid fills to 75 % or more and at least "
		"as well as 128x128 blocks fill waves of SMs (it replaces the "
		"other choices there; M and N of any size, except with an "
		"epilogue of several statements: then, without guards, only "
		"where its tile divides M and N), `_persist_sq` (192x192, 3 "
		"stages: three consumer warps of one 64x192 `wgmma`, 416 "
		"threads; with a register prologue a producer warpgroup and "
		"three consumer ones, 512 threads, `setmaxnreg.inc 152`), "
		"launched after all other rules on grids of more than one "
		"wave where the best other variant's modelled time is at "
		"least 1.1 times its own (same guard rule as `_persist_mid`; "
		"where the plan chose one of the wide, tall, mid and sq ones "
		"for a GEMM with float accumulators, the one of them of fewest "
		"rounds x area / rate runs, the mid one at 1.13), "
		"`_persist_narrow` (64x192, 6 stages: one consumer warpgroup "
		"of one 64x192 `wgmma`, one k tile of them in flight, 160 "
		"threads; not with a prologue through the registers), "
		"launched unsplit where the plan runs `_persist` on one wave "
		"and the 64x192 grid is one wave too, `_persist_slim` "
		"(64x128, 8 stages, the narrow one's structure) where the "
		"plan chose the small or medium variant or two split chunks "
		"and the 64x128 grid is one wave of a third of the SMs or "
		"more, and `_persist_split` "
		"(128x128, split-K inside the persistent kernel, reduced "
		"through a workspace) on grids under 3/5 tile per SM and on "
		"the tail of grids of several waves, with its twin "
		"`_persist_split_cl` where a tile's chunks run as one cluster "
		"and reduce through distributed shared memory, and "
		"`_persist_skinny` (64x128 split units, 8 stages) for M of 64 "
		"or fewer where it splits (decode; "
		"`docs/decisions/0040-skinny-decode.md`), and in its place "
		"`_persist_swap`, `_persist_swap32` and `_persist_swap64` "
		"(the operands swapped: N on the MMA's 64-row side, units of "
		"128 or 64 of N by 16, 32 or 64 tokens; "
		"`docs/decisions/0057-swapped-skinny-row.md`); Add(GEMM, "
		"GEMM) runs both contractions' tiles through one ring; `on`: "
		"the kernel itself is persistent (no split-K, no variants; an "
		"error where it cannot be); `off`: none." },
	{ .key = "cluster", .flag = "--cluster", .metavar = "auto|1|2",
	  .kind = PM_OPT_ENUM, .field = { F(cluster) }, .nfields = 1,
	  .choices = cluster_choices,
	  .err = "--cluster expects auto, 1 or 2", .def = "auto",
	  .help = "sm_90a thread-block clusters",
	  .doc = "`auto`: split-K on grids under 3/5 tile per SM runs a "
		"tile's chunks as one cluster and reduces them through "
		"distributed shared memory (no workspace), where the GPU holds "
		"every cluster at once and that splits the tile in more chunks "
		"than the workspace would; not with a prologue through the "
		"MMA's registers. `2`: also the unsplit persistent kernels as "
		"pairs of blocks on vertically adjacent output tiles, each "
		"copying half of the B tile into both by TMA multicast (on the "
		"H100 measured 6 % slower, "
		"`docs/decisions/0017-multicast-off-by-default.md`; an error "
		"for sm_70 and sm_80, and with `--tma off`). `1` (or `off`): no "
		"clusters." },
	SWITCH("pdl", pdl, "on for sm_90a",
		"sm_90a: programmatic dependent launch",
		"Every kernel waits for the previous grid of its stream "
		"(`griddepcontrol.wait`) before it touches memory, and the "
		"launchers (the file's and the JIT's) launch it with the "
		"programmatic stream serialization attribute: in a stream of "
		"kernels launched so, one starts while the grid before it "
		"finishes (1.2-1.6 us a launch on the H200, "
		"`docs/decisions/0068-pdl.md`); after any other work it waits "
		"as a plain launch does. No kernel signals early: the next "
		"grid starts as this one's blocks exit. `off`: plain launches; "
		"`on` is an error for a target without it."),
	{ .key = "small-variant", .flag = "--small-variant",
	  .metavar = "auto|off", .kind = PM_OPT_ENUM,
	  .field = { F(small_variant) }, .nfields = 1, .choices = auto_off,
	  .err = "--small-variant expects auto or off", .def = "auto",
	  .help = "also a 64x64-tile kernel for grids smaller than the GPU",
	  .doc = "With the default block tile on sm_80 and sm_90a, the file "
		"also holds a 64x64-tile kernel that the launcher runs when the "
		"128x128 grid has fewer blocks than the GPU has SMs (the SM "
		"count of the device current at the first launch is cached); "
		"`--block` or `off`: one kernel. On sm_90a also a 64x128 kernel "
		"for grids of one partial wave." },
	{ .key = "smem", .flag = "--smem", .metavar = "swizzle|pad|plain",
	  .kind = PM_OPT_ENUM, .field = { F(smem) }, .nfields = 1,
	  .choices = smem_choices,
	  .err = "--smem expects swizzle, pad or plain",
	  .def = "swizzle (sm_70: pad)",
	  .help = "shared-memory layout of the operand tiles",
	  .doc = "`swizzle`: 16-byte chunks XOR-swizzled, bank-conflict free "
		"for the copies and `ldmatrix`, for tile rows of 64, 128, 256 "
		"or 512 bytes (32 to 256 16-bit elements, 64 to 512 i8 ones); "
		"`pad`: rows padded by 16 bytes; `plain`. "
		"sm_90a needs `swizzle`." },
	{ .key = "dump-schedule", .flag = "--dump-schedule",
	  .metavar = "PASS", .kind = PM_OPT_STRING,
	  .flags = PM_OPT_VALUE_OPTIONAL, .set = set_dump,
	  .help = "print the isl schedule tree after every pass (or PASS) "
		"to stderr" },
	{ .key = "host-target", .metavar = "", .kind = PM_OPT_STRING,
	  .flags = PM_OPT_INTERNAL, .set = set_host_target,
	  .help = "tests: the sequential host rendering" },
};

const struct pm_opt *pm_options_table(size_t *n)
{
	*n = sizeof(table) / sizeof(table[0]);
	return table;
}

const struct pm_opt *pm_options_find(const char *key, int internal)
{
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); ++i) {
		if (!table[i].key || strcmp(table[i].key, key))
			continue;
		if ((table[i].flags & PM_OPT_INTERNAL) && !internal)
			return NULL;
		return &table[i];
	}
	return NULL;
}

static int set_err(const char **err, const char *msg)
{
	if (err)
		*err = msg;
	return POLYMMA_ERR_USAGE;
}

static int *int_field(struct pm_config *c, size_t off)
{
	return (int *) ((char *) c + off);
}

/* The choice spelled s, or NULL. */
static const struct pm_opt_choice *find_choice(
	const struct pm_opt_choice *ch, const char *s)
{
	for (; ch && ch->name; ++ch)
		if (!strcmp(ch->name, s))
			return ch;
	return NULL;
}

/* "AxBxC": up to max numbers in [lo, hi] into v; their count, or -1. */
static int parse_dims(const char *s, int *v, int max, int lo, int hi)
{
	for (int n = 0; n < max; ) {
		char *end;
		long x = strtol(s, &end, 10);

		if (end == s || x < lo || x > hi)
			return -1;
		v[n++] = (int) x;
		s = end;
		if (!*s)
			return n;
		if (n == max || (*s != 'x' && *s != 'X'))
			return -1;
		s++;
	}
	return -1;
}

static int apply_numbers(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err)
{
	int v[3];
	int n = opt->kind == PM_OPT_INT ? 1 : opt->max_dims;
	int lo = opt->kind == PM_OPT_INT ? 1 : opt->min_dims;

	n = parse_dims(value, v, n, opt->min, opt->max);
	if (n < lo)
		return set_err(err, opt->err);
	for (int i = 0; i < opt->nfields; ++i)
		*int_field(c, opt->field[i]) = v[i];
	return POLYMMA_OK;
}

int pm_options_apply(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err)
{
	const struct pm_opt_choice *ch;

	if (opt->set)
		return opt->set(opt, c, value, err);
	ch = find_choice(opt->choices, value);
	if (ch) {
		*int_field(c, opt->field[0]) = ch->value;
		return POLYMMA_OK;
	}
	if (opt->kind == PM_OPT_INT || opt->kind == PM_OPT_SHAPE)
		return apply_numbers(opt, c, value, err);
	return set_err(err, opt->err ? opt->err : "invalid value");
}

static int set_target(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err)
{
	const struct pm_target *t = NULL;

	if (find_choice(opt->choices, value))
		t = pm_target_find(value);
	if (!t)
		return set_err(err, opt->err);
	c->target = t;
	return POLYMMA_OK;
}

static int set_host_target(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err)
{
	(void) opt;
	(void) value;
	(void) err;
	c->target = pm_target_host();
	return POLYMMA_OK;
}

_Static_assert(PM_LIMIT_SIZE_MAX == 2147483392, "set_define's message");
_Static_assert(sizeof(((struct pm_define *) 0)->name) == PM_LIMIT_IDENT + 1,
	"-D names and spec names have one length limit");

static int set_define(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err)
{
	const char *eq = strchr(value, '=');
	size_t len = eq ? (size_t) (eq - value) : 0;
	struct pm_define *d = NULL;
	char *end;
	long v;

	if (!eq || !len || len >= sizeof(d->name))
		return set_err(err, opt->err);
	errno = 0;
	v = strtol(eq + 1, &end, 10);
	/* out of range is an error, never a clamp (strtol's or int's) */
	if (end == eq + 1 || *end || errno == ERANGE || v < 1 ||
	    v > PM_LIMIT_SIZE_MAX)
		return set_err(err, "-D NAME=VALUE: VALUE must be an integer "
			"from 1 to 2147483392 (2^31 - 256)");
	for (int i = 0; i < c->ndefines && !d; ++i)
		if (!strncmp(c->defines[i].name, value, len) &&
		    !c->defines[i].name[len])
			d = &c->defines[i];
	if (!d && c->ndefines >= PM_MAX_DEFINES)
		return set_err(err, "too many -D options");
	if (!d) {
		d = &c->defines[c->ndefines++];
		memcpy(d->name, value, len);
		d->name[len] = '\0';
	}
	d->value = v;
	return POLYMMA_OK;
}

static int set_dump(const struct pm_opt *opt, struct pm_config *c,
	const char *value, const char **err)
{
	(void) opt;
	(void) err;
	c->dump_all = !*value;
	snprintf(c->dump_pass, sizeof(c->dump_pass), "%s", value);
	return POLYMMA_OK;
}

polymma_options *polymma_options_alloc(void)
{
	polymma_options *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->cfg.target = pm_target_default();
	o->cfg.split_k = 0;	/* auto */
	o->cfg.stages = 0;
	o->cfg.smem = -1;
	o->cfg.frag_pipe = -1;
	o->cfg.staged_store = -1;
	o->cfg.tma_store = -1;
	o->cfg.mma_inflight = -1;
	o->cfg.pro_overlap = -1;
	o->cfg.pro_regs = -1;
	o->cfg.tma = -1;
	o->cfg.persistent = -1;
	o->cfg.cluster = -1;
	o->cfg.pdl = -1;
	o->cfg.small_variant = -1;
	o->cfg.reg_stage = -1;
	return o;
}

void polymma_options_free(polymma_options *o)
{
	free(o);
}

void polymma_options_set_dump_stream(polymma_options *o, FILE *f)
{
	if (o)
		o->cfg.dump = f;
}

const struct pm_config *pm_options_config(const polymma_options *o)
{
	return &o->cfg;
}

const char *pm_options_log(const polymma_options *o)
{
	return o->log_over ? NULL : o->log;
}

/* Set key on a copy of o's configuration; o changes only on success. */
static int options_set(polymma_options *o, const char *key,
	const char *value, const char **err, int internal)
{
	const struct pm_opt *opt;
	struct pm_config next;
	int rc;

	if (!o)
		return set_err(err, "no options object (NULL)");
	if (!key)
		return set_err(err, "no option name (NULL)");
	if (!value)
		return set_err(err, "no option value (NULL)");
	opt = pm_options_find(key, internal);
	if (!opt)
		return set_err(err, "unknown option");
	next = o->cfg;
	rc = pm_options_apply(opt, &next, value, err);
	if (rc == POLYMMA_OK) {
		size_t n = strlen(key) + strlen(value) + 3;

		o->cfg = next;
		if (o->loglen + n <= sizeof(o->log)) {
			snprintf(o->log + o->loglen, n, "%s=%s\n", key, value);
			o->loglen += n - 1;
		} else {
			o->log_over = 1;
		}
	}
	return rc;
}

int polymma_options_set(polymma_options *o, const char *key,
	const char *value, const char **err)
{
	return options_set(o, key, value, err, 0);
}

int pm_options_set_internal(polymma_options *o, const char *key,
	const char *value, const char **err)
{
	return options_set(o, key, value, err, 1);
}

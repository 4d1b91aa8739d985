/* The cases of tests/test_nvcc.c: the configurations (target, macro,
 * options), the specs and layouts each compiles, and init_cases, which
 * fills cases[] (the file names under tmpdir). Included once, by
 * test_nvcc.c only. */
#ifndef PM_TEST_NVCC_CASES_H
#define PM_TEST_NVCC_CASES_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N_LAYOUTS 4
#define N_CONFIGS 12
#define N_LAYOUT_CONFIGS 4	/* the first ones, for every layout */
#define N_FUSED 4
#define N_FUSED_CONFIGS 4
#define N_NARROW 5		/* the 128x96 / 128x80 cases */
#define N_BF16_SPECS 9		/* bf16 operands: sm_80 and sm_90a each */
#define N_BF16 (N_BF16_SPECS * 2 + 3)
#define N_SPILLED 7	/* combinations that spilled (decisions/0028) */
#define N_F8 15			/* 8-bit operands, sm_90a */
#define N_I8_SM80 5		/* i8 operands, sm_80 */
#define N_SHARED 10		/* a shared operand: tests/specs/swiglu*.tc */
#define N_VEC 16		/* row and column vectors (decisions/0034) */
#define N_KFIX 8		/* -D K=1000: a fixed ragged k */
#define N_KCOPY 9		/* 8-bit operands MN-major: K-major copies */
#define N_BATCH 16		/* batched specs: tests/specs/bmm_*.tc */
#define N_RED 15		/* epilogue reductions (decisions/0037) */
#define N_DEQ 21	/* prologues reading vectors, three contractions */
#define N_MIXED 14	/* mixed operand types (decisions/0047) */
#define N_GROUP 12		/* grouped specs: tests/specs/moe_*.tc */
#define N_UA 12		/* the _unaligned row (decisions/0046) */
#define N_CASES (N_LAYOUTS * N_LAYOUT_CONFIGS * 2 + 2 + \
	N_FUSED_CONFIGS * N_FUSED + N_NARROW + N_BF16 + N_SPILLED + N_F8 + \
	N_I8_SM80 + N_SHARED + N_VEC + N_KFIX + N_KCOPY + N_BATCH + \
	N_RED + N_DEQ + N_MIXED + N_GROUP + N_UA)

static const char *const layouts[N_LAYOUTS] = { "nn", "nt", "tn", "tt" };

struct config {
	const char *name;
	const char *target;
	const char *mma;	/* NULL: the target's default */
	const char *arch;	/* nvcc -arch, or a whole -gencode flag */
	const char *opt;	/* NULL, or one more gen option and value (with
				 * --stages 4) */
	const char *value;
	const char *const *extra;	/* NULL, or more gen arguments */
};

static const char *const n96[] = { "--persistent", "on", "--split-k", "1",
	"--block", "128x96x64", "--warp", "64x96", "--mma", "64x96x64", NULL };
static const char *const n80[] = { "--persistent", "on", "--split-k", "1",
	"--block", "128x80x64", "--warp", "64x80", "--mma", "64x80x64", NULL };
static const char *const pcl2[] = { "--persistent", "on", "--cluster", "2",
	NULL };
static const char *const k128[] = { "--block", "128x128x128", NULL };
static const char *const notma[] = { "--tma", "off", NULL };
static const char *const pad[] = { "--smem", "pad", NULL };
/* persistent with one consumer warpgroup: two accumulators fit */
static const char *const p64[] = { "--persistent", "on", "--split-k", "1",
	"--block", "64x128x64", "--warp", "64x128", "--mma", "64x128x64", NULL };

#define SM90A "-gencode=arch=compute_90a,code=sm_90a"
static const struct config configs[N_CONFIGS] = {
	{ "sm80", "sm_80", NULL, "sm_80", NULL, NULL, NULL },
	{ "sm70_16x16x8", "sm_70", "16x16x8", "sm_75", NULL, NULL, NULL },
	{ "sm70_32x32x8", "sm_70", "32x32x8", "sm_75", NULL, NULL, NULL },
	{ "sm90a", "sm_90a", NULL, SM90A, NULL, NULL, NULL },
	{ "sm90a_inflight", "sm_90a", NULL, SM90A, "--mma-inflight", "on",
	  NULL },
	{ "sm90a_n96", "sm_90a", NULL, SM90A, NULL, NULL, n96 },
	{ "sm90a_n80", "sm_90a", NULL, SM90A, NULL, NULL, n80 },
	{ "sm90a_pcl2", "sm_90a", NULL, SM90A, NULL, NULL, pcl2 },
	{ "sm90a_k128", "sm_90a", NULL, SM90A, NULL, NULL, k128 },
	{ "sm90a_notma", "sm_90a", NULL, SM90A, NULL, NULL, notma },
	{ "sm90a_p64", "sm_90a", NULL, SM90A, NULL, NULL, p64 },
	{ "sm80_pad", "sm_80", NULL, "sm_80", NULL, NULL, pad },
};

struct ncase {
	char name[64];
	char spec[64];
	const struct config *cfg;
	const char *arch;
	int fixed;		/* 1: -D M=256 -D N=384 -D K=512, 2: -D K=1000 */
	char cu[512], gen_log[512], nvcc_log[512];
	int gen_status;		/* polymma gen's exit status; -1: not run */
	int status;		/* nvcc's exit status; -1: not run */
	int timed_out;		/* gen or nvcc killed after JOB_TIMEOUT_S */
	double seconds;		/* gen and nvcc */
	long size;		/* the generated file's bytes */
	uint64_t hash;		/* of the file and the arch */
	int same_as;		/* the case compiling the same file for the
				 * same arch in its place; -1: none */
	int full;		/* nvcc -c (host code too); else -cubin */
};

static struct ncase cases[N_CASES];
static char nvcc[512];
static char tmpdir[] = "/tmp/polymma-test-nvcc.XXXXXX";


static void init_cases(void)
{
	int l, c, f, n = 0;

	for (l = 0; l < N_LAYOUTS; l++)
		for (c = 0; c < N_LAYOUT_CONFIGS; c++)
			for (f = 0; f < 2; f++) {
				struct ncase *k = &cases[n++];

				snprintf(k->name, sizeof(k->name), "%s_%s_%s",
					layouts[l], configs[c].name,
					f ? "fixed" : "runtime");
				snprintf(k->spec, sizeof(k->spec),
					"examples/gemm_%s.tc", layouts[l]);
				k->cfg = &configs[c];
				k->arch = configs[c].arch;
				k->fixed = f;
			}
	/* The sm_80 kernel on sm_90 (what the H100 runs). */
	cases[n] = cases[0];
	snprintf(cases[n].name, sizeof(cases[n].name), "nn_sm80_runtime_on_sm90");
	cases[n].arch = "sm_90";
	n++;
	/* sm_90a with one k tile of wgmma in flight (4 stages) */
	cases[n] = cases[3 * 2];	/* nn_sm90a_runtime */
	snprintf(cases[n].name, sizeof(cases[n].name), "nn_sm90a_inflight");
	cases[n].cfg = &configs[4];
	n++;
	/* Fused prologues and epilogues: the default tiles must not spill. */
	{
		static const char *const fused[N_FUSED] = {
			"gemm_bias_relu", "gemm_epilogue_chain", "relu_gemm",
			"add_gemm"
		};

		static const int fcfg[N_FUSED_CONFIGS] = { 0, 2, 3, 4 };

		for (int i = 0; i < N_FUSED; i++)
			for (int j = 0; j < N_FUSED_CONFIGS; j++) {
				c = fcfg[j];
				struct ncase *k = &cases[n++];

				snprintf(k->name, sizeof(k->name), "%s_%s",
					fused[i], configs[c].name);
				snprintf(k->spec, sizeof(k->spec),
					"examples/%s.tc", fused[i]);
				k->cfg = &configs[c];
				k->arch = configs[c].arch;
				k->fixed = 0;
			}
	}
	/* 128x96 / 128x80 blocks: B N-major (nn, tn: the 32- / 16-column
	 * swizzled blocks) and K-major (tt), fused */
	{
		static const struct { const char *spec, *name; int c; }
		nr[N_NARROW] = {
			{ "gemm_nn", "nn_sm90a_n96", 5 },
			{ "gemm_tn", "tn_sm90a_n80", 6 },
			{ "gemm_tt", "tt_sm90a_n96", 5 },
			{ "gemm_bias_relu", "gemm_bias_relu_sm90a_n96", 5 },
			{ "relu_gemm", "relu_gemm_sm90a_n96", 5 },
		};

		for (int i = 0; i < N_NARROW; i++) {
			struct ncase *k = &cases[n++];

			snprintf(k->name, sizeof(k->name), "%s", nr[i].name);
			snprintf(k->spec, sizeof(k->spec), "examples/%s.tc",
				nr[i].spec);
			k->cfg = &configs[nr[i].c];
			k->arch = k->cfg->arch;
			k->fixed = 0;
		}
	}
	/* bf16 operands: tests/specs/<spec>.tc on sm_80 and sm_90a, then
	 * on sm_90a only: an f16 output, MMAs in flight, 128x96 blocks */
	{
		static const char *const bf[N_BF16_SPECS] = {
			"gemm_bf16_nn", "gemm_bf16_nt", "gemm_bf16_tn",
			"gemm_bf16_tt", "gemm_bf16_f32out",
			"gemm_bf16_bias_relu", "relu_gemm_bf16",
			"pro_gemm_bf16", "add_gemm_bf16",
		};
		static const struct { const char *spec; int c; }
		more[N_BF16 - 2 * N_BF16_SPECS] = {
			{ "gemm_bf16_f16out", 3 }, { "gemm_bf16_nn", 4 },
			{ "relu_gemm_bf16", 5 },
		};

		for (int i = 0; i < N_BF16; i++) {
			struct ncase *k = &cases[n++];
			const char *spec = i < 2 * N_BF16_SPECS ? bf[i / 2] :
				more[i - 2 * N_BF16_SPECS].spec;

			c = i < 2 * N_BF16_SPECS ? (i % 2 ? 3 : 0) :
				more[i - 2 * N_BF16_SPECS].c;
			snprintf(k->name, sizeof(k->name), "%s_%s", spec,
				configs[c].name);
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = 0;
		}
	}
	/* combinations that spilled (docs/decisions/0028): two accumulators
	 * with a residual and an fp32 prologue (sm_90a: every row past 128
	 * accumulator registers a thread), an fp32 prologue on B (sm_80,
	 * fixed sizes: the small kernel under a bare launch bound), fp32
	 * prologues on both operands (sm_80, sm_70: half the warp tile) */
	{
		static const struct { const char *spec; int c, fixed; }
		sp[N_SPILLED] = {
			{ "add_gemm_res_pro", 3, 0 }, { "add_gemm_res_pro", 4, 0 },
			{ "add_gemm_res_pro", 0, 0 }, { "pro_b_gemm", 0, 1 },
			{ "pro_b_gemm", 3, 1 }, { "pro_ab_gemm", 0, 0 },
			{ "pro_ab_gemm", 2, 0 },
		};

		for (int i = 0; i < N_SPILLED; i++) {
			struct ncase *k = &cases[n++];

			c = sp[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s%s", sp[i].spec,
				configs[c].name, sp[i].fixed ? "_fixed" : "");
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				sp[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = sp[i].fixed;
		}
	}
	/* 8-bit operands: tests/specs/<spec>.tc on sm_90a, in configs */
	{
		static const struct { const char *spec; int c; } f8[N_F8] = {
			{ "gemm_f8e4m3_nt", 3 }, { "gemm_f8e5m2_nt", 3 },
			{ "gemm_f8e4m3_f32out", 3 }, { "add_gemm_f8e4m3", 3 },
			{ "gemm_f8e4m3_nt", 4 }, { "gemm_f8e5m2_nt", 7 },
			{ "gemm_f8e4m3_nt", 8 }, { "gemm_f8e4m3_nt", 9 },
			{ "gemm_f8e5m2_scaled", 3 },
			{ "gemm_i8_nt", 3 }, { "gemm_i8_nt", 4 },
			{ "gemm_i8_nt", 7 }, { "gemm_i8_nt", 9 },
			{ "gemm_i8_dequant", 3 }, { "add_gemm_i8", 3 },
		};

		for (int i = 0; i < N_F8; i++) {
			struct ncase *k = &cases[n++];

			snprintf(k->name, sizeof(k->name), "%s_%s", f8[i].spec,
				configs[f8[i].c].name);
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				f8[i].spec);
			k->cfg = &configs[f8[i].c];
			k->arch = k->cfg->arch;
			k->fixed = 0;
		}
	}
	/* i8 on sm_80 (docs/decisions/0032): into i32 (runtime and fixed
	 * sizes, swizzled and padded rows), dequantized into f16, two
	 * contractions into f32 */
	{
		static const struct { const char *spec; int c, fixed; }
		i8[N_I8_SM80] = {
			{ "gemm_i8_nt", 0, 0 }, { "gemm_i8_nt", 0, 1 },
			{ "gemm_i8_nt", 11, 0 }, { "gemm_i8_dequant", 0, 0 },
			{ "add_gemm_i8", 0, 0 },
		};

		for (int i = 0; i < N_I8_SM80; i++) {
			struct ncase *k = &cases[n++];

			c = i8[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s%s", i8[i].spec,
				configs[c].name, i8[i].fixed ? "_fixed" : "");
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				i8[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = i8[i].fixed;
		}
	}
	/* a shared operand (one copy for both contractions): every target,
	 * MMAs in flight, persistent with one consumer warpgroup */
	{
		static const struct { const char *spec; int c; }
		sh[N_SHARED] = {
			{ "swiglu", 0 }, { "swiglu", 2 }, { "swiglu", 3 },
			{ "swiglu", 4 }, { "swiglu", 10 }, { "swiglu_bf16", 0 },
			{ "swiglu_bf16", 3 }, { "swiglu_shared_b", 0 },
			{ "swiglu_shared_b", 1 }, { "swiglu_shared_b", 3 },
		};

		for (int i = 0; i < N_SHARED; i++) {
			struct ncase *k = &cases[n++];

			c = sh[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s", sh[i].spec,
				configs[c].name);
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				sh[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = 0;
		}
	}
	/* epilogues reading per-row and per-column vectors (and a
	 * residual) beside the largest accumulator tiles: every row of the
	 * sm_90a file (the persistent 128x192, 192x192 and 128x256 among
	 * them), f16 and fp8 operands; MMAs in flight, clusters, sm_80 and
	 * sm_70 for the f16 ones (docs/decisions/0034) */
	{
		static const struct { const char *spec; int c; } ve[N_VEC] = {
			{ "gemm_f8e4m3_scale", 3 },
			{ "gemm_f8e5m2_scale_bias_relu", 3 },
			{ "gemm_f8e4m3_scale_res", 3 },
			{ "gemm_f8e4m3_scale_res", 4 },
			{ "gemm_f8e4m3_scale_res", 7 },
			{ "gemm_f16_scale", 3 },
			{ "gemm_f16_scale_bias_relu", 3 },
			{ "gemm_f16_scale_res", 3 },
			{ "gemm_f16_scale_res", 4 },
			{ "gemm_f16_scale_res", 7 },
			{ "gemm_f16_scale_res", 0 },
			{ "gemm_f16_scale_res", 2 },
			{ "gemm_f8e5m2_scale_bias_relu", 4 },
			{ "gemm_i8_dequant", 4 },
			{ "heavy_epi", 3 }, { "heavy_epi", 0 },
		};

		for (int i = 0; i < N_VEC; i++) {
			struct ncase *k = &cases[n++];

			c = ve[i].c;
			snprintf(k->name, sizeof(k->name), "vec_%s_%s", ve[i].spec,
				configs[c].name);
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				ve[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = 0;
		}
	}
	/* K fixed to 1000, not a multiple of the k tile (docs/decisions/
	 * 0030-ragged-k.md): the padded k loop, zeros past K, every target;
	 * the runtime cases above take a ragged K too */
	{
		static const struct { const char *spec; int c; }
		kf[N_KFIX] = {
			{ "examples/gemm_nn.tc", 0 },
			{ "examples/gemm_tn.tc", 0 },
			{ "examples/gemm_nn.tc", 11 },
			{ "examples/gemm_nn.tc", 3 },
			{ "examples/gemm_nt.tc", 9 },
			{ "examples/relu_gemm.tc", 3 },
			{ "tests/specs/pro_ab_gemm.tc", 0 },
			{ "tests/specs/swiglu.tc", 3 },
		};

		for (int i = 0; i < N_KFIX; i++) {
			struct ncase *k = &cases[n++];
			const char *b = strrchr(kf[i].spec, '/') + 1;

			c = kf[i].c;
			snprintf(k->name, sizeof(k->name), "%.*s_%s_k1000",
				(int) (strlen(b) - 3), b, configs[c].name);
			snprintf(k->spec, sizeof(k->spec), "%s", kf[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = 2;
		}
	}
	/* 8-bit operands declared MN-major (docs/decisions/0033): the copy
	 * kernel and the GEMM kernels reading the copies; a file of one
	 * persistent kernel, fixed sizes */
	{
		static const struct { const char *spec; int c, fixed; }
		kc[N_KCOPY] = {
			{ "gemm_f8e4m3_nn", 3, 0 }, { "gemm_f8e4m3_nn", 4, 0 },
			{ "gemm_f8e4m3_nn", 3, 1 }, { "gemm_f8e5m2_tn", 3, 0 },
			{ "gemm_f8e4m3_tt", 7, 0 }, { "gemm_f8e4m3_tt", 9, 0 },
			{ "gemm_i8_nn", 3, 0 }, { "gemm_i8_tt", 3, 0 },
			{ "add_gemm_f8e4m3_mn", 3, 0 },
		};

		for (int i = 0; i < N_KCOPY; i++) {
			struct ncase *k = &cases[n++];

			c = kc[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s%s", kc[i].spec,
				configs[c].name, kc[i].fixed ? "_fixed" : "");
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				kc[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = kc[i].fixed;
		}
	}
	/* batched specs (docs/decisions/0036): the batch in blockIdx.z, the
	 * slices' pointers, sm_90a's 3-D tensor maps; every target, TMA off,
	 * fixed sizes */
	{
		static const struct { const char *spec; int c, fixed; }
		bt[N_BATCH] = {
			{ "bmm_nn", 0, 0 }, { "bmm_nn", 1, 0 }, { "bmm_nn", 2, 0 },
			{ "bmm_nn", 3, 0 }, { "bmm_nn", 3, 1 },
			{ "bmm_bcast_b", 0, 0 }, { "bmm_bcast_b", 2, 0 },
			{ "bmm_bcast_b", 3, 0 },
			{ "bmm_bias", 0, 0 }, { "bmm_bias", 2, 0 },
			{ "bmm_bias", 3, 0 }, { "bmm_bias", 9, 0 },
			{ "bmm_dequant", 0, 0 }, { "bmm_dequant", 2, 0 },
			{ "bmm_dequant", 3, 0 }, { "bmm_scale", 3, 0 },
		};

		for (int i = 0; i < N_BATCH; i++) {
			struct ncase *k = &cases[n++];

			c = bt[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s%s", bt[i].spec,
				configs[c].name, bt[i].fixed ? "_fixed" : "");
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				bt[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = bt[i].fixed;
		}
	}
	/* grouped specs (docs/decisions/0045): the group in blockIdx.z, its
	 * rows from offs, the early return; every target, TMA off */
	{
		static const struct { const char *spec; int c; }
		gr[N_GROUP] = {
			{ "moe_up", 0 }, { "moe_up", 1 }, { "moe_up", 2 },
			{ "moe_up", 3 }, { "moe_up", 9 },
			{ "moe_scale", 0 }, { "moe_scale", 2 }, { "moe_scale", 3 },
			{ "moe_swiglu", 0 }, { "moe_swiglu", 3 },
			/* i8 weights: the launcher-applied copies' kernel and
			 * the persistent rows on them (docs/decisions/0059) */
			{ "moe_w8", 0 }, { "moe_w8", 3 },
		};

		for (int i = 0; i < N_GROUP; i++) {
			struct ncase *k = &cases[n++];

			c = gr[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s", gr[i].spec,
				configs[c].name);
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				gr[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
		}
	}
	/* epilogue reductions (docs/decisions/0037): every row of their
	 * files on the three targets, rows, columns, max, a scalar */
	{
		static const struct { const char *spec; int c; } rd[N_RED] = {
			{ "gemm_rowsum", 0 }, { "gemm_rowsum", 1 },
			{ "gemm_rowsum", 2 }, { "gemm_rowsum", 3 },
			{ "gemm_rowsum", 4 }, { "gemm_rowmax", 0 },
			{ "gemm_rowmax", 2 }, { "gemm_rowmax", 3 },
			{ "gemm_colsum", 0 }, { "gemm_colsum", 2 },
			{ "gemm_colsum", 3 }, { "gemm_rowsum_tt", 9 },
			{ "gemm_amax_out", 0 }, { "gemm_amax_out", 2 },
			{ "gemm_amax_out", 3 },
		};

		for (int i = 0; i < N_RED; i++) {
			struct ncase *k = &cases[n++];

			c = rd[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s", rd[i].spec,
				configs[c].name);
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				rd[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
		}
	}
	/* prologues reading vectors and scalars (dequantizing weights) and
	 * three contractions (docs/decisions/0039): every target and macro,
	 * MMAs in flight (not three accumulators: their wgmma serialize, as
	 * two separate ones do, tests/specs/add_gemm_2k.tc), persistent in
	 * clusters, cp.async on sm_90a, K fixed to 1000 */
	{
		static const struct { const char *spec; int c, fixed; }
		dq[N_DEQ] = {
			{ "gemm_dequant_b", 0, 0 }, { "gemm_dequant_b", 1, 0 },
			{ "gemm_dequant_b", 2, 0 }, { "gemm_dequant_b", 3, 0 },
			{ "gemm_dequant_b", 4, 0 }, { "gemm_dequant_b", 0, 2 },
			{ "gemm_dequant_b", 3, 2 },
			{ "gemm_scale_a_k", 0, 0 }, { "gemm_scale_a_k", 2, 0 },
			{ "gemm_scale_a_k", 3, 0 }, { "gemm_scale_a_k", 4, 0 },
			{ "gemm_dequant_zs", 0, 0 }, { "gemm_dequant_zs", 2, 0 },
			{ "gemm_dequant_zs", 3, 0 },
			{ "gemm3", 0, 0 }, { "gemm3", 1, 0 }, { "gemm3", 2, 0 },
			{ "gemm3", 3, 0 }, { "gemm3", 7, 0 }, { "gemm3", 9, 0 },
			{ "gemm3", 3, 2 },
		};

		for (int i = 0; i < N_DEQ; i++) {
			struct ncase *k = &cases[n++];

			c = dq[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s%s", dq[i].spec,
				configs[c].name, dq[i].fixed ? "_k1000" : "");
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				dq[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = dq[i].fixed;
		}
	}
	/* mixed operand types (docs/decisions/0047): i8 weights widened
	 * to f16 or bf16 in shared memory, every target and macro, MMAs in
	 * flight, padded rows, K fixed to 1000 */
	{
		static const struct { const char *spec; int c, fixed; }
		mx[N_MIXED] = {
			{ "gemm_w8", 0, 0 }, { "gemm_w8", 1, 0 },
			{ "gemm_w8", 2, 0 }, { "gemm_w8", 3, 0 },
			{ "gemm_w8", 4, 0 }, { "gemm_w8", 11, 0 },
			{ "gemm_w8", 0, 2 }, { "gemm_w8", 3, 2 },
			{ "gemm_w8_zp", 0, 0 }, { "gemm_w8_zp", 2, 0 },
			{ "gemm_w8_zp", 3, 0 }, { "gemm_w8_zp", 4, 0 },
			{ "gemm_w8_bf16", 0, 0 }, { "gemm_w8_bf16", 3, 0 },
		};

		for (int i = 0; i < N_MIXED; i++) {
			struct ncase *k = &cases[n++];

			c = mx[i].c;
			snprintf(k->name, sizeof(k->name), "%s_%s%s", mx[i].spec,
				configs[c].name, mx[i].fixed ? "_k1000" : "");
			snprintf(k->spec, sizeof(k->spec), "tests/specs/%s.tc",
				mx[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = mx[i].fixed;
		}
	}
	/* the _unaligned row (docs/decisions/0046-narrow-copies.md): every
	 * file has it; these cases name the files that exercise its narrow
	 * copies (every target and sm_70 macro, cp.async beside wgmma, MMAs
	 * in flight), stores (direct: sm_70; staged), pair loads of an
	 * epilogue (f32 vectors, a residual), 8-bit elements, a prologue,
	 * two accumulators, a batch, an epilogue reduction:
	 * POLYMMA_NVCC_FILTER=ua_ */
	{
		static const struct { const char *spec; int c; } ua[N_UA] = {
			{ "examples/gemm_nn", 0 }, { "examples/gemm_nt", 1 },
			{ "examples/gemm_tt", 2 }, { "examples/gemm_tn", 3 },
			{ "examples/gemm_nn", 4 },
			{ "tests/specs/gemm_f16_scale_res", 0 },
			{ "tests/specs/gemm_f16_scale_res", 3 },
			{ "tests/specs/gemm_i8_nt", 3 },
			{ "tests/specs/swiglu", 2 },
			{ "examples/relu_gemm", 3 },
			{ "tests/specs/bmm_bias", 0 },
			{ "tests/specs/gemm_rowsum", 3 },
		};

		for (int i = 0; i < N_UA; i++) {
			struct ncase *k = &cases[n++];
			const char *b = strrchr(ua[i].spec, '/') + 1;

			c = ua[i].c;
			snprintf(k->name, sizeof(k->name), "ua_%s_%s", b,
				configs[c].name);
			snprintf(k->spec, sizeof(k->spec), "%s.tc", ua[i].spec);
			k->cfg = &configs[c];
			k->arch = configs[c].arch;
			k->fixed = 0;
		}
	}
	for (n = 0; n < N_CASES; n++) {
		struct ncase *k = &cases[n];
		char name[sizeof(k->name)];

		memcpy(name, k->name, sizeof(name));
		snprintf(k->cu, sizeof(k->cu), "%s/%s.cu", tmpdir, name);
		snprintf(k->gen_log, sizeof(k->gen_log), "%s/%s.gen.log",
			tmpdir, name);
		snprintf(k->nvcc_log, sizeof(k->nvcc_log), "%s/%s.nvcc.log",
			tmpdir, name);
		k->gen_status = k->status = -1;
		k->same_as = -1;
	}
}

#endif

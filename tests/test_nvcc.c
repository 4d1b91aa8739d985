/* Generated kernels compile with nvcc without warnings, with no stack frame
 * and no spills.
 *
 * For each layout (nn nt tn tt) x target configuration (sm_80 with its
 * default MMA; sm_70 with 16x16x8 and 32x32x8 macro-MMAs; sm_90a) x sizes
 * (runtime, or -D M=256 -D N=384 -D K=512): polymma gen, then
 *   nvcc -c -arch=sm_80|sm_75 (-gencode=arch=compute_90a,code=sm_90a)
 *        -Xptxas -v -o /dev/null
 * (sm_70 code is compiled for sm_75: CUDA 13 has no sm_70), and the ptxas
 * report must say "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill
 * loads" for every function, with no warning and no "Potential Performance
 * Loss" (ptxas serializing wgmma). The sm_80 nn kernel is also compiled for
 * sm_90; the sm_90a nn and fused kernels also with --mma-inflight on;
 * 128x96 and 128x80 persistent blocks (wgmma n = 96 / 80, B in 32- / 16-
 * column swizzled blocks) in a few layouts and idioms.
 * bf16 operands (tests/specs/, docs/decisions/0026): every layout
 * with bf16 output, an f32 output, a fused bias + ReLU epilogue, a ReLU
 * prologue and one computed in fp32, two contractions, on sm_80 and
 * sm_90a; on sm_90a also an f16 output, --mma-inflight on and 128x96
 * blocks.
 * Combinations that spilled (tests/specs/add_gemm_res_pro.tc on sm_90a,
 * with --mma-inflight on and on sm_80; tests/specs/pro_b_gemm.tc with
 * fixed sizes on sm_80 and sm_90a; docs/decisions/0028).
 * 8-bit float operands on sm_90a (docs/decisions/0029; K-major): e4m3
 * into f16 and f32, e5m2 into bf16, scaled by two scalars into f16, two
 * contractions, --mma-inflight on,
 * --persistent on with --cluster 2, 128-byte rows (--block 128x128x128)
 * and cp.async copies (--tma off); i8 into i32 (unsplit: base and small
 * rows), with MMAs in flight, persistent in clusters and cp.async,
 * dequantized into f16 by an epilogue, and two i8 contractions into f32.
 * i8 on sm_80 (mma.sync m16n8k32, docs/decisions/0032): into i32 with
 * runtime and fixed sizes and with padded rows (--smem pad), dequantized
 * into f16, two contractions into f32.
 * Epilogues reading per-row and per-column vectors and a residual
 * (tests/specs/gemm_f8e4m3_scale*.tc, gemm_f16_scale*.tc, ...;
 * docs/decisions/0034): every row of their sm_90a files, with fp8 and f16
 * operands, with MMAs in flight and clusters, on sm_80 and sm_70.
 * K fixed to 1000 (-D K=1000: a ragged k, docs/decisions/0030) on every
 * target, with prologues and a shared operand; the runtime cases' kernels
 * take a ragged K.
 * 8-bit operands declared MN-major (docs/decisions/0033): the copy
 * kernel (runtime/device/kcopy.cuh) and kernels reading the K-major
 * copies, f8 and i8, in the nn, tn and tt layouts, one persistent kernel
 * in clusters, cp.async copies, fixed sizes, two contractions.
 * All compiles run in the group setup, a few at a time; each case is then
 * one test. Skipped when nvcc is not found (PATH, /usr/local/cuda/bin).
 * POLYMMA_KEEP_TMP=1 keeps the generated files and logs;
 * POLYMMA_NVCC_FILTER=TEXT compiles only the cases whose name contains
 * TEXT (the others are skipped).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tests/nvcc_util.h"

#define GEN_FAILED 200		/* exit status of a job whose gen failed */
#define JOB_TIMEOUT_S 240	/* for one gen + nvcc */
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
#define N_CASES (N_LAYOUTS * N_LAYOUT_CONFIGS * 2 + 2 + \
	N_FUSED_CONFIGS * N_FUSED + N_NARROW + N_BF16 + N_SPILLED + N_F8 + \
	N_I8_SM80 + N_SHARED + N_VEC + N_KFIX + N_KCOPY)

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
	int status;		/* job exit status; -1: not run */
	int timed_out;
	double seconds;
};

static struct ncase cases[N_CASES];
static char nvcc[512];
static char tmpdir[] = "/tmp/polymma-test-nvcc.XXXXXX";

static const char *polymma_bin(void)
{
	return pm_test_polymma_bin();
}

/* nvcc in PATH or /usr/local/cuda/bin; 0 when found. */
static int find_nvcc(void)
{
	return pm_test_find_nvcc(nvcc, sizeof(nvcc));
}

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
			{ "examples/gemm_tn.tc", 1 },
			{ "examples/gemm_nn.tc", 2 },
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
	for (n = 0; n < N_CASES; n++) {
		struct ncase *k = &cases[n];
		char name[sizeof(k->name)];

		memcpy(name, k->name, sizeof(name));
		snprintf(k->cu, sizeof(k->cu), "%s/%s.cu", tmpdir, name);
		snprintf(k->gen_log, sizeof(k->gen_log), "%s/%s.gen.log",
			tmpdir, name);
		snprintf(k->nvcc_log, sizeof(k->nvcc_log), "%s/%s.nvcc.log",
			tmpdir, name);
		k->status = -1;
	}
}

/* Standard output and error to path. */
static void redirect(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0)
		_exit(126);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
}

/* In a child: polymma gen, then exec nvcc. */
static void job(const struct ncase *k)
{
	const char *gen[32], *cc[16];
	char arch[64];
	int n = 0, st;
	pid_t pid;

	gen[n++] = polymma_bin();
	gen[n++] = "gen";
	gen[n++] = k->spec;
	gen[n++] = "-o";
	gen[n++] = k->cu;
	gen[n++] = "--target";
	gen[n++] = k->cfg->target;
	if (k->cfg->mma) {
		gen[n++] = "--mma";
		gen[n++] = k->cfg->mma;
	}
	if (k->cfg->opt) {
		gen[n++] = k->cfg->opt;
		gen[n++] = k->cfg->value;
		gen[n++] = "--stages";
		gen[n++] = "4";
	}
	for (int i = 0; k->cfg->extra && k->cfg->extra[i]; ++i)
		gen[n++] = k->cfg->extra[i];
	if (k->fixed == 2) {
		gen[n++] = "-D";
		gen[n++] = "K=1000";
	} else if (k->fixed) {
		gen[n++] = "-D";
		gen[n++] = "M=256";
		gen[n++] = "-D";
		gen[n++] = "N=384";
		gen[n++] = "-D";
		gen[n++] = "K=512";
	}
	gen[n] = NULL;
	pid = fork();
	if (pid < 0)
		_exit(GEN_FAILED);
	if (pid == 0) {
		redirect(k->gen_log);
		execv(gen[0], (char *const *)gen);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		_exit(GEN_FAILED);

	if (k->arch[0] == '-')
		snprintf(arch, sizeof(arch), "%s", k->arch);
	else
		snprintf(arch, sizeof(arch), "-arch=%s", k->arch);
	n = 0;
	cc[n++] = nvcc;
	cc[n++] = "-c";
	cc[n++] = arch;
	cc[n++] = "-Xptxas";
	cc[n++] = "-v";
	cc[n++] = "-o";
	cc[n++] = "/dev/null";
	cc[n++] = k->cu;
	cc[n] = NULL;
	redirect(k->nvcc_log);
	execv(cc[0], (char *const *)cc);
	_exit(127);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* The process groups of the running jobs: killed with us on a signal. */
static volatile pid_t pids[N_CASES];

static void on_signal(int sig)
{
	int i;

	for (i = 0; i < N_CASES; i++)
		if (pids[i] > 0)
			kill(-pids[i], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Is case k compiled (POLYMMA_NVCC_FILTER)? */
static int selected(const struct ncase *k)
{
	const char *f = getenv("POLYMMA_NVCC_FILTER");

	return !f || !*f || strstr(k->name, f);
}

/* Run every case, at most `parallel` at a time; a job (gen and nvcc, its
 * own process group) that runs longer than JOB_TIMEOUT_S is killed. */
static void run_all(int parallel)
{
	double start[N_CASES];
	int next = 0, running = 0, i, st;
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	pid_t pid;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	while (next < N_CASES || running > 0) {
		if (next < N_CASES && !selected(&cases[next])) {
			next++;
			continue;
		}
		if (next < N_CASES && running < parallel) {
			start[next] = now();
			pid = fork();
			if (pid == 0) {
				setpgid(0, 0);
				job(&cases[next]);
			}
			if (pid > 0)
				setpgid(pid, pid);	/* no race with kill */
			pids[next] = pid;
			if (pid < 0)
				cases[next].status = 126;
			else
				running++;
			next++;
			continue;
		}
		pid = waitpid(-1, &st, WNOHANG);
		if (pid < 0)
			break;
		if (pid == 0) {
			for (i = 0; i < next; i++)
				if (pids[i] > 0 &&
				    now() - start[i] > JOB_TIMEOUT_S) {
					kill(-pids[i], SIGKILL);
					kill(pids[i], SIGKILL);
					cases[i].timed_out = 1;
				}
			nanosleep(&tick, NULL);
			continue;
		}
		for (i = 0; i < next; i++)
			if (pids[i] == pid) {
				cases[i].status = WIFEXITED(st) ?
					WEXITSTATUS(st) : 128 + WTERMSIG(st);
				cases[i].seconds = now() - start[i];
				pids[i] = 0;
				running--;
			}
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

static int group_setup(void **state)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	int parallel = ncpu < 2 ? 2 : ncpu > 8 ? 8 : (int)ncpu;
	double t0 = now();

	(void)state;
	if (!nvcc[0])
		return 0;
	if (access(polymma_bin(), X_OK) != 0) {
		fprintf(stderr, "test_nvcc: %s not found (run from the "
			"repository root after make)\n", polymma_bin());
		return -1;
	}
	printf("test_nvcc: %d compiles with %s, %d at a time, in %s\n",
		N_CASES, nvcc, parallel, tmpdir);
	fflush(stdout);
	run_all(parallel);
	printf("test_nvcc: all compiles done in %.0f s\n", now() - t0);
	fflush(stdout);
	return 0;
}

static int group_teardown(void **state)
{
	DIR *d;
	struct dirent *e;
	char path[1024];
	const char *keep = getenv("POLYMMA_KEEP_TMP");

	(void)state;
	if (!nvcc[0])
		return 0;
	if (keep && *keep && strcmp(keep, "0")) {
		printf("test_nvcc: files kept in %s\n", tmpdir);
		return 0;
	}
	d = opendir(tmpdir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(tmpdir);
	return 0;
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return strdup("");
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = calloc(1, n > 0 ? n + 1 : 1);
	if (buf && n > 0 && fread(buf, 1, n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

/* Checks the ptxas report: every function has no stack frame and no
 * spills. Returns the number of functions, -1 on a violation (printed). */
static int check_ptxas(const struct ncase *k, const char *log)
{
	const char *line = log, *end, *p;
	char fn[256] = "?";
	int nfun = 0, bad = 0, stack, stores, loads;

	for (; *line; line = *end ? end + 1 : end) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		p = strstr(line, "Function properties for ");
		if (p && p < end) {
			p += strlen("Function properties for ");
			snprintf(fn, sizeof(fn), "%.*s", (int)(end - p), p);
			continue;
		}
		p = strstr(line, "bytes stack frame");
		if (!p || p > end)
			continue;
		nfun++;
		if (sscanf(line, " %d bytes stack frame, %d bytes spill stores, "
			"%d bytes spill loads", &stack, &stores, &loads) != 3 ||
		    stack || stores || loads) {
			print_message("%s: function %s: %.*s\n", k->name, fn,
				(int)(end - line), line);
			bad = 1;
		}
	}
	return bad ? -1 : nfun;
}

/* The "Used N registers, ..." lines, as a one-line summary. */
static void print_usage_lines(const struct ncase *k, const char *log)
{
	const char *p = log, *end;

	while ((p = strstr(p, "Used "))) {
		end = strchr(p, '\n');
		if (!end)
			end = p + strlen(p);
		print_message("  %s (%s, %.0f s): %.*s\n", k->name, k->arch,
			k->seconds, (int)(end - p), p);
		p = end;
	}
}

static void test_case(void **state)
{
	const struct ncase *k = *state;
	char *log;
	int nfun;

	if (!nvcc[0]) {
		print_message("nvcc not found in PATH or /usr/local/cuda/bin: "
			"skipped\n");
		skip();
	}
	if (!selected(k)) {
		print_message("%s: not in POLYMMA_NVCC_FILTER: skipped\n",
			k->name);
		skip();
	}
	if (k->timed_out)
		fail_msg("%s: gen + nvcc still ran after %d s: killed", k->name,
			JOB_TIMEOUT_S);
	if (k->status == GEN_FAILED) {
		log = read_text(k->gen_log);
		print_message("polymma gen %s (--target %s%s%s%s) failed:\n%s\n",
			k->spec, k->cfg->target, k->cfg->mma ? " --mma " : "",
			k->cfg->mma ? k->cfg->mma : "",
			k->fixed ? " -D M=256 -D N=384 -D K=512" : "", log);
		free(log);
		fail_msg("%s: gen failed", k->name);
	}
	log = read_text(k->nvcc_log);
	if (k->status != 0) {
		print_message("nvcc -arch=%s %s failed (status %d):\n%.8000s\n",
			k->arch, k->cu, k->status, log);
		free(log);
		fail_msg("%s: nvcc failed", k->name);
	}
	/* generated CUDA compiles cleanly: no front-end warning either, and
	 * ptxas keeps the wgmma asynchronous */
	if (strstr(log, "warning") || strstr(log, "Performance Loss")) {
		print_message("%s: nvcc warns:\n%.4000s\n", k->name, log);
		free(log);
		fail_msg("%s: nvcc warnings", k->name);
	}
	nfun = check_ptxas(k, log);
	if (nfun == 0)
		print_message("%s: no ptxas report in:\n%.4000s\n", k->name, log);
	print_usage_lines(k, log);
	free(log);
	if (nfun < 0)
		fail_msg("%s: stack frame or spills (kept with "
			"POLYMMA_KEEP_TMP=1)", k->name);
	if (nfun == 0)
		fail_msg("%s: no ptxas -v report", k->name);
}

int main(void)
{
	struct CMUnitTest tests[N_CASES];
	int i;

	if (find_nvcc() < 0) {
		printf("test_nvcc: nvcc not found in PATH or "
			"/usr/local/cuda/bin: every case is skipped\n");
	} else if (!mkdtemp(tmpdir)) {
		perror(tmpdir);
		return 1;
	}
	init_cases();
	for (i = 0; i < N_CASES; i++) {
		memset(&tests[i], 0, sizeof(tests[i]));
		tests[i].name = cases[i].name;
		tests[i].test_func = test_case;
		tests[i].initial_state = &cases[i];
	}
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

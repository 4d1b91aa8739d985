/* Prologues that read other tensors and kernels of three or four
 * contractions (docs/decisions/0039-dequant-prologues-and-contractions.md):
 * host renderings of tests/specs/gemm_dequant_b.tc, gemm_scale_a_k.tc,
 * gemm_dequant_zs.tc and gemm3.tc (and variations: every layout of the
 * dequantized operand, both operands scaled, four contractions), built
 * with AddressSanitizer (the inputs at their exact sizes: a broadcast
 * read past a size fails) and compared with the language's reference
 * (frontend/eval.c) element by element at odd sizes (M 7, 127, 129; K
 * 1000), in every host configuration (one stage, register staging,
 * cp.async stages with the fragment pipeline, TMA boxes), unsplit and
 * split-K in 3 chunks. The inputs are small integers and the broadcast vectors
 * powers of two: every sum is exact in f32 and the output's one rounding
 * is the reference's. A negative control: the prologue's broadcast read
 * at the wrong element fails. A factor constant along k (dequant[0]'s
 * s(j), r(i) and g of the others) is computed in the epilogue
 * (docs/decisions/0044-hoisted-scale-factors.md): these renderings check
 * that form too. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/pipeline.h"
#include "frontend/eval.h"
#include "polymma.h"
#include "poly/strbuf.h"
#include "target/target.h"
#include "tests/host_render_util.h"

static const struct pm_hr_cfg hcfgs[] = {
	{ 64, 64, 16, 32, 32, 8, 8, 4, 1, 0, 0, 0, 0, 0 },
	/* register staging (where no prologue is in shared memory) */
	{ 32, 64, 8, 16, 32, 16, 16, 8, 2, 1, 0, 0, 0, 0 },
	/* cp.async stages, the fragment pipeline */
	{ 64, 32, 32, 32, 16, 16, 8, 16, 3, 2, 1, 0, 0, 0 },
	/* TMA boxes (where no prologue is in shared memory) */
	{ 64, 64, 32, 32, 32, 16, 16, 8, 2, 2, 0, 1, 0, 0 },
};
#define NHCFGS ((int) (sizeof(hcfgs) / sizeof(hcfgs[0])))

/* Input element i of tensor t: small integers for matrices, powers of two
 * (1/4 .. 2) for vectors and scalars, so that every product and sum is
 * exact in f32. */
static double value(const struct pm_spec *s, int t, int64_t i,
	const void *arg)
{
	(void) arg;
	if (s->tensors[t].role != PM_INPUT)
		return 0;
	if (s->tensors[t].rank < 2)
		return (double) (1 << ((i * 3 + t) % 4)) / 4;
	return pm_hr_value(t, i);
}

/* The driver: the sizes, every input (malloc'ed at its size) and the
 * expected outputs read from the data file (8 longs, then floats: inputs
 * then outputs, spec order), CALL, every output element compared
 * exactly; one program for every size of a rendering. */
static void driver(struct pm_strbuf *b, const struct pm_spec *s)
{
	pm_strbuf_add(b, PM_HR_DRIVER_RD
		/* the host holds f16 outputs as floats: f16's one rounding
		 * (11 significant bits, to nearest even; normal values) */
		"static float r16(float x)\n{\n\tint e;\n\tif (x == 0 || "
		"!isfinite(x))\n\t\treturn x;\n\tfrexp(x, &e);\n\treturn "
		"(float) ldexp(nearbyint(ldexp(x, 11 - e)), e - 11);\n}\n"
		"int main(int argc, char **argv)\n{\n"
		"\tFILE *f = fopen(argv[1], \"rb\");\n\tlong bad = 0, sz[8];\n"
		"\tif (!f || fread(sz, sizeof(long), 8, f) != 8)\n\t\treturn 3;\n");
	for (int i = 0; i < s->nsyms; ++i)
		pm_strbuf_printf(b, "\tconst long %s = sz[%d];\n",
			s->syms[i].name, i);
	for (int t = 0; t < s->ntensors; ++t) {
		const char *x = s->tensors[t].name;

		if (s->tensors[t].role == PM_INPUT) {
			pm_strbuf_printf(b, "\tfloat *%s = rd(f, ", x);
			pm_hr_elems_text(s, t, b);
			pm_strbuf_add(b, ");\n");
		} else if (s->tensors[t].role == PM_OUTPUT) {
			pm_strbuf_printf(b, "\tfloat *%s = malloc(sizeof(float) * ",
				x);
			pm_hr_elems_text(s, t, b);
			pm_strbuf_printf(b, "), *%s_want = NULL;\n\tfor (long i = 0; "
				"i < ", x);
			pm_hr_elems_text(s, t, b);
			pm_strbuf_printf(b, "; ++i)\n\t\t%s[i] = NAN;\n", x);
		}
	}
	for (int t = 0; t < s->ntensors; ++t)
		if (s->tensors[t].role == PM_OUTPUT) {
			pm_strbuf_printf(b, "\t%s_want = rd(f, ",
				s->tensors[t].name);
			pm_hr_elems_text(s, t, b);
			pm_strbuf_add(b, ");\n");
		}
	pm_strbuf_add(b, "\tCALL;\n");
	for (int t = 0; t < s->ntensors; ++t) {
		const char *x = s->tensors[t].name;

		if (s->tensors[t].role != PM_OUTPUT)
			continue;
		if (s->tensors[t].type == PM_F16) {
			pm_strbuf_add(b, "\tfor (long i = 0; i < ");
			pm_hr_elems_text(s, t, b);
			pm_strbuf_printf(b, "; ++i)\n\t\t%s[i] = r16(%s[i]);\n", x,
				x);
		}
		pm_strbuf_add(b, "\tfor (long i = 0; i < ");
		pm_hr_elems_text(s, t, b);
		pm_strbuf_printf(b, "; ++i)\n"
			"\t\tif (!(%s[i] == %s_want[i]) && bad++ < 5)\n"
			"\t\t\tfprintf(stderr, \"%s[%%ld] = %%g, expected %%g\\n\", "
			"i, %s[i], %s_want[i]);\n", x, x, x, x, x);
	}
	pm_strbuf_add(b, "\tprintf(\"%ld wrong\\n\", bad);\n"
		"\treturn bad != 0;\n}\n");
}

/* The sizes (8 longs), the inputs and the reference's outputs (rounded
 * to their types, as floats) of s at sizes into path. */
static void data_file(const struct pm_spec *s, const int64_t *sizes,
	const char *path)
{
	long sz[8] = { 0 };
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_true(s->nsyms <= 8);
	for (int i = 0; i < s->nsyms; ++i)
		sz[i] = (long) sizes[i];
	assert_int_equal(fwrite(sz, sizeof(long), 8, f), 8);
	pm_hr_write_data(f, s, sizes, value, NULL);
	fclose(f);
}

/* "#define CALL ..." of kernel `name` with arguments args, split in S
 * chunks (0: unsplit) of each of the n reductions ext[] (the blocks of
 * the GPU: chunks of whole k tiles; the counters back to zero). */
static void split_call(struct pm_strbuf *b, long S, const char *name,
	const char *args, const char *const *ext, int n,
	const struct pm_hr_cfg *c, int nacc)
{
	if (!S) {
		pm_strbuf_printf(b, "#define CALL %s(%s)\n", name, args);
		return;
	}
	pm_strbuf_printf(b, "#define CALL do { long pm_S = %ld, pm_tiles = "
		"((M + %d) / %d) * ((N + %d) / %d);\\\n", S, c->bm - 1, c->bm,
		c->bn - 1, c->bn);
	for (int r = 0; r < n; ++r)
		pm_strbuf_printf(b, "\tlong pm_kc%d = (((%s) + %d) / %d + pm_S - "
			"1) / pm_S * %d;\\\n", r, ext[r], c->bk - 1, c->bk, c->bk);
	pm_strbuf_printf(b, "\tfloat *pm_w = calloc(pm_tiles * pm_S * %ld, "
		"sizeof(float));\\\n\tunsigned *pm_c = calloc(pm_tiles, "
		"sizeof(unsigned));\\\n\tfor (long pm_z = 0; pm_z < pm_S; "
		"++pm_z)\\\n\t\t%s(%s, pm_w, pm_c", (long) nacc * c->bm * c->bn,
		name, args);
	for (int r = 0; r < n; ++r)
		pm_strbuf_printf(b, ", pm_kc%d", r);
	pm_strbuf_add(b, ", pm_z, pm_S);\\\n\tfor (long pm_t = 0; pm_t < "
		"pm_tiles; ++pm_t)\\\n\t\tif (pm_c[pm_t]) { fprintf(stderr, "
		"\"counter %ld left at %u\\n\", pm_t, pm_c[pm_t]); exit(1); "
		"}\\\n\tfree(pm_w);\\\n\tfree(pm_c);\\\n"
		"} while (0)\n");
}

/* A host rendering of text with c (split in S chunks), its source edited
 * by edit (NULL: none; replaces the first "from" by "to"); NULL with the
 * diagnostics printed. */
static char *render(const char *text, const struct pm_hr_cfg *c, long S)
{
	struct pm_config cfg;
	char *src;

	pm_hr_config(&cfg, c);
	cfg.split_k = S ? 0 : 1;
	cfg.reg_stage = pm_hr_reg_stage(c);
	/* TMA on (the host target's TMA is not a default); where a
	 * contraction's prologue is applied in shared memory, --tma on is
	 * refused and the rendering is made without */
	cfg.pro_regs = -1;
	cfg.pro_overlap = -1;
	src = pm_hr_generate_text_q(text, &cfg, cfg.tma);
	if (!src && cfg.tma) {
		cfg.tma = 0;
		src = pm_hr_generate_text(text, &cfg);
	}
	return src;
}

/* Run text's host rendering with c, split S, at sizes mnklp (the values
 * of M, N, K, L and P) against the reference; the kernel's
 * arguments args, its reductions ext[0..n), nacc accumulator tiles;
 * from/to: an edit of the source (the negative control). */
static int run(const char *text, const struct pm_hr_cfg *c, long S,
	const int64_t *mnklp, const char *args, const char *const *ext, int n,
	int nacc, const char *from, const char *to)
{
	struct pm_spec *s = pm_hr_parse(text);
	struct pm_strbuf head, tail;
	char path[] = "/tmp/pm_deqXXXXXX", what[160];
	char *src = render(text, c, S), *p;
	int64_t sz[8];
	int rc;

	/* the spec's symbols in its order */
	assert_true(s->nsyms <= 5);
	for (int i = 0; i < s->nsyms; ++i)
		sz[i] = mnklp[strchr("MNKLP", s->syms[i].name[0]) - "MNKLP"];
	assert_non_null(src);
	if (from) {
		p = strstr(src, from);
		assert_non_null(p);
		assert_int_equal(strlen(from), strlen(to));
		memcpy(p, to, strlen(to));
	}
	pm_hr_tmpfile(path);
	data_file(s, sz, path);
	pm_strbuf_init(&head);
	pm_strbuf_init(&tail);
	split_call(&head, S, s->name, args, ext, n, c, nacc);
	driver(&tail, s);
	snprintf(what, sizeof(what), "%s split %ld, block %dx%dx%d, stages "
		"%d, tma %d, M %ld N %ld K %ld", s->name, S, c->bm, c->bn, c->bk,
		c->stages, c->tma, (long) mnklp[0], (long) mnklp[1],
		(long) mnklp[2]);
	rc = pm_hr_build_and_run(head.s, src, tail.s, path, from != NULL, 1,
		what);
	unlink(path);
	pm_strbuf_free(&head);
	pm_strbuf_free(&tail);
	free(src);
	pm_spec_free(s);
	return rc;
}

/* The dequantizing prologues of one contraction (symbols M, N, K in
 * this order in every spec below). */
static const char *const dequant[] = {
	/* tests/specs/gemm_dequant_b.tc */
	"def dq(f16(M, K) A, f16(K, N) B, f16(N) s) -> (f16(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * (B(k, j) * s(j))\n}\n",
	/* tests/specs/gemm_scale_a_k.tc */
	"def dq(f16(M, K) A, f32(K) sa, f16(K, N) B) -> (f16(M, N) C) {\n"
	"  C(i, j) +=! (A(i, k) * sa(k)) * B(k, j)\n}\n",
	/* tests/specs/gemm_dequant_zs.tc: B K-major */
	"def dq(f16(M, K) A, f16(N, K) Bq, f16(N) z, f32(N) s, f32 g) -> "
	"(f16(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * ((Bq(j, k) - z(j)) * s(j) * g)\n}\n",
	/* A MN-major scaled by rows, B by columns and k, f32 output */
	"def dq(f16(K, M) A, f16(M) r, f16(K, N) B, f16(N) s, f32(K) t) -> "
	"(f32(M, N) C) {\n"
	"  C(i, j) +=! (A(k, i) * r(i) - 1) * (B(k, j) * s(j) * t(k))\n}\n",
	/* a zero point along k under relu, an epilogue */
	"def dq(f16(M, K) A, f16(K, N) B, f16(K) z, f16(N) bias) -> "
	"(f16(M, N) C) {\n"
	"  T(i, j) +=! A(i, k) * relu(B(k, j) - z(k))\n"
	"  C(i, j) = T(i, j) * 0.5 + bias(j)\n}\n",
	/* a zero point along j: a prologue (nothing to move to the
	 * epilogue: docs/decisions/0044) */
	"def dq(f16(M, K) A, f16(K, N) B, f16(N) z) -> (f16(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * (B(k, j) - z(j))\n}\n",
};
#define NDEQUANT ((int) (sizeof(dequant) / sizeof(dequant[0])))

/* Every dequantizing spec in every configuration at odd M, ragged N and
 * K 1000 (and small), unsplit and split in 3 chunks. */
static void test_dequant(void **state)
{
	/* M, N, K */
	static const int64_t sizes[][3] = {
		{ 7, 8, 8 }, { 127, 72, 40 }, { 129, 136, 1000 },
	};
	static const char *const k[] = { "K" };

	(void) state;
	for (int x = 0; x < NDEQUANT; ++x)
		for (int c = 0; c < NHCFGS; ++c)
			for (int z = 0; z < 3; ++z)
				for (long S = 0; S <= 3; S += 3) {
					const char *args = x == 0 ?
						"A, B, s, C, M, N, K" : x == 1 ?
						"A, sa, B, C, M, N, K" : x == 2 ?
						"A, Bq, z, s, g, C, M, N, K" : x == 3 ?
						"A, r, B, s, t, C, M, N, K" : x == 4 ?
						"A, B, z, bias, C, M, N, K" :
						"A, B, z, C, M, N, K";

					/* A (K, M) of spec 3: M its contiguous
					 * dimension, whole 16-byte rows */
					int64_t sz[3] = { x == 3 ? (sizes[z][0] + 7)
						/ 8 * 8 : sizes[z][0], sizes[z][1],
						sizes[z][2] };

					if (run(dequant[x], &hcfgs[c], S, sz, args,
							k, 1, 1, NULL, NULL))
						fail_msg("dequant %d config %d sizes %d "
							"split %ld", x, c, z, S);
				}
}

/* Three contractions (tests/specs/gemm3.tc: K, L, P), and four with a
 * prologue reading a vector. */
static const char gemm3[] =
	"def gemm3(f16(M, K) A, f16(K, N) B, f16(M, L) E, f16(N, L) F,\n"
	"          f16(M, P) G, f16(P, N) H, f16(N) bias) -> (f16(M, N) O) {\n"
	"  C(i, j) +=! A(i, k) * B(k, j)\n"
	"  D(i, j) +=! E(i, l) * F(j, l)\n"
	"  X(i, j) +=! G(i, p) * H(p, j)\n"
	"  O(i, j) = C(i, j) + D(i, j) + X(i, j) * 0.5 + bias(j)\n}\n";
static const char gemm4[] =
	"def gemm4(f16(M, K) A, f16(K, N) B, f16(M, K) E, f16(K, N) F,\n"
	"          f16(M, K) G, f16(K, N) H, f16(M, K) U, f16(K, N) V,\n"
	"          f16(N) s) -> (f32(M, N) O) {\n"
	"  C(i, j) +=! A(i, k) * B(k, j)\n"
	"  D(i, j) +=! E(i, k) * (F(k, j) * s(j))\n"
	"  X(i, j) +=! G(i, k) * H(k, j)\n"
	"  Y(i, j) +=! U(i, k) * V(k, j)\n"
	"  O(i, j) = C(i, j) * Y(i, j) - D(i, j) + X(i, j)\n}\n";

static void test_contractions(void **state)
{
	/* M, N, K, L, P */
	static const int64_t sizes[][5] = {
		{ 7, 8, 8, 16, 8 }, { 127, 72, 40, 24, 32 },
		{ 129, 136, 1000, 1000, 1000 },
	};
	static const char *const ext3[3] = { "K", "L", "P" };
	static const char *const ext4[4] = { "K", "K", "K", "K" };

	(void) state;
	for (int c = 0; c < NHCFGS; ++c)
		for (int z = 0; z < 3; ++z)
			for (long S = 0; S <= 3; S += 3) {
				if (run(gemm3, &hcfgs[c], S, sizes[z],
						"A, B, E, F, G, H, bias, O, M, N, K, L, "
						"P", ext3, 3, 3, NULL, NULL))
					fail_msg("gemm3 config %d sizes %d split "
						"%ld", c, z, S);
				if (z < 2 && run(gemm4, &hcfgs[c], S, sizes[z],
						"A, B, E, F, G, H, U, V, s, O, M, N, K",
						ext4, 4, 4, NULL, NULL))
					fail_msg("gemm4 config %d sizes %d split "
						"%ld", c, z, S);
			}
}

/* The harness is live: the scale read one column over (s[j + 1] for
 * s[j]: past N at the last column, AddressSanitizer) and the third
 * contraction's accumulator read as the second's both fail. */
static void test_checker(void **state)
{
	static const int64_t sz[3] = { 9, 16, 24 };
	static const int64_t sz5[5] = { 9, 16, 24, 8, 16 };
	static const char *const k[] = { "K" };
	static const char *const ext3[3] = { "K", "L", "P" };

	(void) state;
	assert_int_not_equal(run(dequant[5], &hcfgs[0], 0, sz,
		"A, B, z, C, M, N, K", k, 1, 1, "(pm_g1 + pm_e)]",
		"(pm_g1 + 1   )]"), 0);
	assert_int_not_equal(run(gemm3, &hcfgs[0], 0, sz5,
		"A, B, E, F, G, H, bias, O, M, N, K, L, P", ext3, 3, 3,
		" + pm_acc1[", " + pm_acc2["), 0);
	/* the TMA configuration copies with TMA where no prologue is in
	 * shared memory (gemm3), and without where one is (dequant[5]) */
	for (int x = 0; x < 2; ++x) {
		char *src = render(x ? dequant[5] : gemm3, &hcfgs[NHCFGS - 1], 0);

		assert_true(hcfgs[NHCFGS - 1].tma);
		assert_non_null(src);
		assert_int_equal(!!strstr(src, "pm_host_tma(&"), !x);
		free(src);
	}
	/* unedited, the same runs pass */
	assert_int_equal(run(dequant[5], &hcfgs[0], 0, sz,
		"A, B, z, C, M, N, K", k, 1, 1, NULL, NULL), 0);
	assert_int_equal(run(gemm3, &hcfgs[0], 0, sz5,
		"A, B, E, F, G, H, bias, O, M, N, K, L, P", ext3, 3, 3, NULL,
		NULL), 0);
}

/* Mixed operand types (docs/decisions/0047-mixed-operand-types.md): an
 * i8 operand widened to its partner's type by a converting copy (the
 * stored elements into a raw tile, the PRO pass into the operand tile):
 * f16 and bf16 activations, i8 weights MN-major and K-major, a scale
 * moved to the epilogue, a zero point in the prologue (along j and along
 * k), the i8 operand on the A side. */
static const char *const mixed[] = {
	/* tests/specs/gemm_w8.tc */
	"def w8(f16(M, K) A, i8(K, N) Bq, f16(N) s) -> (f16(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * (Bq(k, j) * s(j))\n}\n",
	/* tests/specs/gemm_w8_zp.tc */
	"def w8(f16(M, K) A, i8(K, N) Bq, f16(N) z, f16(N) s) -> "
	"(f16(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * ((Bq(k, j) - z(j)) * s(j))\n}\n",
	/* tests/specs/gemm_w8_bf16.tc: K-major weights */
	"def w8(bf16(M, K) A, i8(N, K) Bq, f32(N) s) -> (f32(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * (Bq(j, k) * s(j))\n}\n",
	/* the i8 operand indexed by i, MN-major */
	"def w8(i8(K, M) Aq, f16(K, N) B) -> (f16(M, N) C) {\n"
	"  C(i, j) +=! Aq(k, i) * B(k, j)\n}\n",
	/* a zero point along k under relu */
	"def w8(f16(M, K) A, i8(K, N) Bq, f16(K) z) -> (f16(M, N) C) {\n"
	"  C(i, j) +=! A(i, k) * relu(Bq(k, j) - z(k))\n}\n",
};
static const char *const mixed_args[] = {
	"A, Bq, s, C, M, N, K", "A, Bq, z, s, C, M, N, K",
	"A, Bq, s, C, M, N, K", "Aq, B, C, M, N, K", "A, Bq, z, C, M, N, K",
};
#define NMIXED ((int) (sizeof(mixed) / sizeof(mixed[0])))

/* Every mixed spec in every configuration at odd M, ragged N and K 1000
 * (and small), unsplit and split in 3 chunks. */
static void test_mixed(void **state)
{
	static const int64_t sizes[][3] = {
		{ 7, 8, 8 }, { 127, 72, 40 }, { 129, 136, 1000 },
	};
	static const char *const k[] = { "K" };

	(void) state;
	for (int x = 0; x < NMIXED; ++x)
		for (int c = 0; c < NHCFGS; ++c)
			for (int z = 0; z < 3; ++z)
				for (long S = 0; S <= 3; S += 3) {
					/* Aq (K, M): M its contiguous dimension,
					 * whole 16-byte rows */
					int64_t sz[3] = { x == 3 ? (sizes[z][0] +
						15) / 16 * 16 : sizes[z][0],
						sizes[z][1], sizes[z][2] };

					if (run(mixed[x], &hcfgs[c], S, sz,
							mixed_args[x], k, 1, 1, NULL,
							NULL))
						fail_msg("mixed %d config %d sizes %d "
							"split %ld", x, c, z, S);
				}
}

/* The mixed harness is live: the widening reads every unit's first
 * element (its raw tile's indexing matters), and the raw tile is where
 * the copies land and the PRO pass reads (a rendering of each). */
static void test_mixed_checker(void **state)
{
	static const int64_t sz[3] = { 9, 16, 24 };
	static const char *const k[] = { "K" };

	(void) state;
	for (int x = 0; x < 2; ++x) {
		assert_int_not_equal(run(mixed[x], &hcfgs[0], 0, sz,
			mixed_args[x], k, 1, 1, "(float)(pm_s[pm_e])",
			"(float)(pm_s[0   ])"), 0);
		assert_int_equal(run(mixed[x], &hcfgs[0], 0, sz, mixed_args[x],
			k, 1, 1, NULL, NULL), 0);
	}
	for (int x = 0; x < NMIXED; ++x) {
		char *src = render(mixed[x], &hcfgs[2], 0);

		assert_non_null(src);
		assert_non_null(strstr(src, x == 3 ? "pm_host_copy_z(8, &Aq_raw[" :
			"pm_host_copy_z(8, &Bq_raw["));
		assert_non_null(strstr(src, "const float *pm_s = &"));
		free(src);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker),
		cmocka_unit_test(test_dequant),
		cmocka_unit_test(test_contractions),
		cmocka_unit_test(test_mixed_checker),
		cmocka_unit_test(test_mixed),
	};

	/* PM_TEST_FILTER=test_mixed*: some of the tests */
	if (getenv("PM_TEST_FILTER"))
		cmocka_set_test_filter(getenv("PM_TEST_FILTER"));

	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Shared pieces of the host-rendering tests (test_host_render*.c,
 * test_kmajor.c, test_batch.c, test_group.c): a host configuration and
 * its pm_config, parsing and generating with the diagnostics printed,
 * the data files of the reference's inputs and outputs, compiling a
 * rendering with its driver and running it, and the driver's call of a
 * kernel split in chunks of k. Included after cmocka.h. */
#ifndef PM_TEST_HOST_RENDER_UTIL_H
#define PM_TEST_HOST_RENDER_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/pipeline.h"
#include "frontend/eval.h"
#include "poly/strbuf.h"
#include "target/target.h"
#include "tests/util.h"

/* A host configuration: block, warp and macro tiles, stages, shared
 * layout (0 plain, 1 pad, 2 swizzle), the fragment pipeline (where
 * possible), TMA copies, A's prologue through the MMA (pro_regs),
 * prologues overlapped with the MMAs. */
struct pm_hr_cfg {
	int bm, bn, bk, wm, wn, mm, mn, mk;
	int stages, smem, frag, tma, pro_regs, pro_overlap;
};

/* *cfg: the host target with c, unsplit. */
static inline void pm_hr_config(struct pm_config *cfg,
	const struct pm_hr_cfg *c)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->target = pm_target_host();
	cfg->split_k = 1;
	cfg->stages = c->stages;
	cfg->smem = c->smem;
	cfg->frag_pipe = c->frag ? -1 : 0;
	cfg->tma = c->tma;
	cfg->pro_regs = c->pro_regs;
	cfg->pro_overlap = c->pro_overlap;
	cfg->bm = c->bm, cfg->bn = c->bn, cfg->bk = c->bk;
	cfg->wm = c->wm, cfg->wn = c->wn;
	cfg->mm = c->mm, cfg->mn = c->mn, cfg->mk = c->mk;
}

/* Register-staged copies (-1: where the spec allows them) for c's two
 * stages without the fragment pipeline, TMA or overlapped prologues. */
static inline int pm_hr_reg_stage(const struct pm_hr_cfg *c)
{
	return c->stages == 2 && !c->frag && !c->tma && !c->pro_overlap ?
		-1 : 0;
}

/* Spec text parsed (the diagnostics printed on failure, which fails the
 * test). */
static inline struct pm_spec *pm_hr_parse(const char *text)
{
	struct pm_diags d;
	struct pm_spec *s;

	pm_diags_init(&d, "t.tc", text);
	s = pm_spec_parse(text, "t.tc", &d);
	if (!s)
		fprintf(stderr, "%s", pm_diags_text(&d));
	pm_diags_clear(&d);
	assert_non_null(s);
	return s;
}

/* The spec of file path, parsed. */
static inline struct pm_spec *pm_hr_parse_file(const char *path)
{
	char *text = pm_test_read(path);
	struct pm_spec *s;

	assert_non_null(text);
	s = pm_hr_parse(text);
	free(text);
	return s;
}

/* The file generated for s with cfg (the caller frees it), or NULL with
 * the diagnostics printed unless quiet. */
static inline char *pm_hr_generate_q(const struct pm_spec *s,
	const struct pm_config *cfg, int quiet)
{
	struct pm_output out = { 0 };
	struct pm_diags d;
	char *src = NULL;

	pm_diags_init(&d, "t", NULL);
	if (pm_pipeline_generate(s, cfg, &out, &d) == 0)
		src = strdup(out.source);
	else if (!quiet)
		fprintf(stderr, "%s", pm_diags_text(&d));
	pm_diags_clear(&d);
	pm_output_clear(&out);
	return src;
}

static inline char *pm_hr_generate(const struct pm_spec *s,
	const struct pm_config *cfg)
{
	return pm_hr_generate_q(s, cfg, 0);
}

/* The files generated so far by pm_hr_generate_text, by spec text and
 * configuration (the same bytes: a configuration made by memset and
 * assignments, as pm_hr_config's), for the whole run: a test generates
 * each file once however many sizes, drivers or checks use it. */
struct pm_hr_gen {
	struct pm_hr_gen *next;
	char *text, *src;
	struct pm_config cfg;
};
static struct pm_hr_gen *pm_hr_gens;
static void pm_hr_cleanup(void);
static int pm_hr_cleanup_set;

/* pm_hr_cleanup at exit (once). */
static inline void pm_hr_at_exit(void)
{
	if (!pm_hr_cleanup_set)
		pm_hr_cleanup_set = atexit(pm_hr_cleanup) == 0;
}

/* Spec text generated with cfg (pm_hr_generate_q; once per text and
 * configuration, a failure too: its diagnostics printed once). */
static inline char *pm_hr_generate_text_q(const char *text,
	const struct pm_config *cfg, int quiet)
{
	struct pm_hr_gen *g;
	struct pm_spec *s;
	char *src;

	for (g = pm_hr_gens; g; g = g->next)
		if (!memcmp(&g->cfg, cfg, sizeof(*cfg)) && !strcmp(g->text, text))
			return g->src ? strdup(g->src) : NULL;
	s = pm_hr_parse(text);
	src = pm_hr_generate_q(s, cfg, quiet);
	pm_spec_free(s);
	g = calloc(1, sizeof(*g));
	if (g && (g->text = strdup(text)) && (!src || (g->src = strdup(src)))) {
		pm_hr_at_exit();
		g->cfg = *cfg;
		g->next = pm_hr_gens;
		pm_hr_gens = g;
	} else if (g) {
		free(g->text);
		free(g);
	}
	return src;
}

static inline char *pm_hr_generate_text(const char *text,
	const struct pm_config *cfg)
{
	return pm_hr_generate_text_q(text, cfg, 0);
}

/* Tensor t's elements at sizes (the spec's symbols in its order). */
static inline int64_t pm_hr_elems(const struct pm_spec *s, int t,
	const int64_t *sizes)
{
	int64_t n = 1;

	for (int d = 0; d < s->tensors[t].rank; ++d)
		n *= s->tensors[t].dims[d].sym >= 0 ?
			sizes[s->tensors[t].dims[d].sym] :
			s->tensors[t].dims[d].value;
	return n;
}

/* "(1L * Bt * M * K)": tensor t's elements as C text over the driver's
 * sizes. */
static inline void pm_hr_elems_text(const struct pm_spec *s, int t,
	struct pm_strbuf *b)
{
	pm_strbuf_add(b, "(1L");
	for (int d = 0; d < s->tensors[t].rank; ++d)
		if (s->tensors[t].dims[d].sym >= 0)
			pm_strbuf_printf(b, " * %s",
				s->syms[s->tensors[t].dims[d].sym].name);
		else
			pm_strbuf_printf(b, " * %ldL",
				(long) s->tensors[t].dims[d].value);
	pm_strbuf_add(b, ")");
}

/* Element i of input tensor t: small integers (|x| <= 8), exact in
 * every type and their sums exact in f32. */
static inline double pm_hr_value(int t, int64_t i)
{
	return (double) ((i * 7 + 3 * t + 1) % 17 - 8);
}

/* The start of a driver: its headers and rd(f, n), n floats read from
 * the data file. */
#define PM_HR_DRIVER_RD \
	"\n#include <math.h>\n#include <stdio.h>\n" \
	"#include <stdlib.h>\nstatic float *rd(FILE *f, long n)\n{\n" \
	"\tfloat *p = malloc(sizeof(float) * n);\n" \
	"\tif (fread(p, sizeof(float), n, f) != (size_t) n)\n" \
	"\t\texit(3);\n\treturn p;\n}\n"

/* The reference's data into f: every input and output tensor of s at
 * sizes starts at value(s, t, i, arg) for its element i; after
 * pm_spec_eval, the inputs then the outputs (spec order), as floats. */
static inline void pm_hr_write_data(FILE *f, const struct pm_spec *s,
	const int64_t *sizes, double (*value)(const struct pm_spec *s, int t,
	int64_t i, const void *arg), const void *arg)
{
	void *bufs[24] = { 0 };

	assert_true(s->ntensors <= 24);
	for (int t = 0; t < s->ntensors; ++t) {
		const struct pm_tensor *x = &s->tensors[t];
		int64_t n = pm_hr_elems(s, t, sizes);

		if (x->role == PM_TEMP)
			continue;
		bufs[t] = calloc((size_t) n, 8);
		assert_non_null(bufs[t]);
		for (int64_t i = 0; i < n; ++i)
			pm_eval_store(x->type, bufs[t], i, value(s, t, i, arg));
	}
	assert_int_equal(pm_spec_eval(s, sizes, bufs), PM_EVAL_OK);
	for (int r = 0; r < 2; ++r)
		for (int t = 0; t < s->ntensors; ++t) {
			const struct pm_tensor *x = &s->tensors[t];

			if (x->role != (r ? PM_OUTPUT : PM_INPUT))
				continue;
			for (int64_t i = 0; i < pm_hr_elems(s, t, sizes); ++i) {
				float v = (float) pm_eval_load(x->type, bufs[t], i);

				assert_int_equal(fwrite(&v, sizeof(v), 1, f), 1);
			}
		}
	for (int t = 0; t < s->ntensors; ++t)
		free(bufs[t]);
}

/* A fresh file name from template (ending in XXXXXX) into path. */
static inline void pm_hr_tmpfile(char *path)
{
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
}

/* A spec's driver: every input and the expected outputs read from the data
 * file (floats, inputs then outputs, spec order), the copies (kspec's
 * kcopy tensors; k NULL: none) made by pm_host_kcopy into buffers of their exact
 * size, CALL, every output element compared exactly. */
static inline void pm_hr_spec_driver(struct pm_strbuf *b, const struct pm_spec *s,
	const struct pm_spec *k, const int64_t *sizes)
{
	pm_strbuf_add(b, PM_HR_DRIVER_RD
		"int main(int argc, char **argv)\n{\n"
		"\tFILE *f = fopen(argv[1], \"rb\");\n\tlong bad = 0;\n");
	for (int i = 0; i < s->nsyms; ++i)
		pm_strbuf_printf(b, "\tconst long %s = %ld;\n", s->syms[i].name,
			(long) sizes[i]);
	for (int t = 0; t < s->ntensors; ++t) {
		const struct pm_tensor *x = &s->tensors[t];
		long n = (long) pm_hr_elems(s, t, sizes);

		if (x->role == PM_INPUT) {
			pm_strbuf_printf(b, "\tfloat *%s = rd(f, %ld);\n", x->name,
				n);
		} else if (x->role == PM_OUTPUT) {
			pm_strbuf_printf(b, "\tfloat *%s = malloc(sizeof(float) * "
				"%ld), *%s_want = NULL;\n\tfor (long i = 0; i < %ld; "
				"++i)\n\t\t%s[i] = NAN;\n", x->name, n, x->name, n,
				x->name);
		}
		if (k && k->tensors[t].kcopy) {
			/* the user's (R, C): the copy's dims reversed */
			long r = sizes[x->dims[0].sym], c = sizes[x->dims[1].sym];
			long p = (r + 15) / 16 * 16;

			pm_strbuf_printf(b, "\tfloat *%s_kc = malloc(sizeof(float) * "
				"%ld);\n\tpm_host_kcopy(%s, %s_kc, %ld, %ld);\n"
				"\t%s = %s_kc;\n", x->name, c * p, x->name, x->name, r,
				c, x->name, x->name);
		}
	}
	for (int t = 0; t < s->ntensors; ++t)
		if (s->tensors[t].role == PM_OUTPUT)
			pm_strbuf_printf(b, "\t%s_want = rd(f, %ld);\n",
				s->tensors[t].name, (long) pm_hr_elems(s, t, sizes));
	pm_strbuf_add(b, "\tCALL;\n");
	for (int t = 0; t < s->ntensors; ++t) {
		const char *x = s->tensors[t].name;

		if (s->tensors[t].role != PM_OUTPUT)
			continue;
		pm_strbuf_printf(b, "\tfor (long i = 0; i < %ld; ++i)\n"
			"\t\tif (!(%s[i] == %s_want[i]) && bad++ < 5)\n"
			"\t\t\tfprintf(stderr, \"%s[%%ld] = %%g, expected %%g\\n\", "
			"i, %s[i], %s_want[i]);\n", (long) pm_hr_elems(s, t, sizes), x, x,
			x, x, x);
	}
	pm_strbuf_add(b, "\tprintf(\"%ld wrong\\n\", bad);\n"
		"\treturn bad != 0;\n}\n");
}

/* Input element i of tensor t (pm_hr_value); outputs 0. */
static inline double pm_hr_spec_value(const struct pm_spec *s, int t, int64_t i,
	const void *arg)
{
	(void) arg;
	return s->tensors[t].role == PM_INPUT ? pm_hr_value(t, i) : 0;
}

/* The inputs and the reference's outputs of s at sizes into path. */
static inline void pm_hr_data_file(const struct pm_spec *s, const int64_t *sizes,
	const char *path)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	pm_hr_write_data(f, s, sizes, pm_hr_spec_value, NULL);
	fclose(f);
}

/* SwiGLU with X shared (one k loop, X's tile copied once for both
 * contractions), and with W shared, the second A in another layout. */
#define PM_HR_SWIGLU_X \
	"def sw(f16(M, K) X, f16(K, N) W, f16(K, N) V) -> (f16(M, N) O) {\n" \
	"  G(i, j) +=! X(i, k) * W(k, j)\n" \
	"  U(i, j) +=! X(i, k) * V(k, j)\n" \
	"  O(i, j) = silu(G(i, j)) * U(i, j)\n}\n"
#define PM_HR_SWIGLU_W \
	"def sw(f16(M, K) A, f16(K, N) W, f16(K, M) B) -> (f16(M, N) O) {\n" \
	"  G(i, j) +=! A(i, k) * W(k, j)\n" \
	"  U(i, j) +=! B(k, i) * W(k, j)\n" \
	"  O(i, j) = silu(G(i, j)) * U(i, j)\n}\n"

/* The programs built so far by pm_hr_build_and_run_n (FNV-1a of head,
 * source and tail, the sanitizer), for the whole run: the same program
 * is built once and run at each size asked. Their directories are
 * removed at exit, but for those of a failure reported (kept). */
struct pm_hr_prog {
	struct pm_hr_prog *next;
	uint64_t hash;
	size_t len;
	int asan, keep;
	char dir[32];
};
static struct pm_hr_prog *pm_hr_progs;

static void pm_hr_cleanup(void)
{
	char cmd[64];

	while (pm_hr_progs) {
		struct pm_hr_prog *p = pm_hr_progs;

		pm_hr_progs = p->next;
		snprintf(cmd, sizeof(cmd), "rm -rf %s", p->dir);
		if (!p->keep && system(cmd)) {
		}
		free(p);
	}
	while (pm_hr_gens) {
		struct pm_hr_gen *g = pm_hr_gens;

		pm_hr_gens = g->next;
		free(g->text);
		free(g->src);
		free(g);
	}
}

/* The program of head, source and tail built by cc (with
 * AddressSanitizer when asan), built now or before; NULL where it does
 * not build (its directory kept and said unless quiet). */
static inline struct pm_hr_prog *pm_hr_build(const char *head,
	const char *source, const char *tail, int quiet, int asan)
{
	const char *part[3] = { head, source, tail };
	uint64_t h = 1469598103934665603ULL;
	size_t len = 0;
	char cmd[1024], path[600];
	struct pm_hr_prog *p;
	FILE *f;

	for (int i = 0; i < 3; ++i)
		for (const char *c = part[i]; *c; ++c, ++len)
			h = (h ^ (unsigned char) *c) * 1099511628211ULL;
	for (p = pm_hr_progs; p; p = p->next)
		if (p->hash == h && p->len == len && p->asan == asan)
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	snprintf(p->dir, sizeof(p->dir), "/tmp/pm_hostXXXXXX");
	if (!mkdtemp(p->dir)) {
		free(p);
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/k.c", p->dir);
	f = fopen(path, "w");
	if (f) {
		for (int i = 0; i < 3; ++i)
			fputs(part[i], f);
		fclose(f);
	}
	snprintf(cmd, sizeof(cmd), "cc -O1 -std=c11 -w%s -o %s/k %s/k.c -lm",
		asan ? " -fsanitize=address -fno-omit-frame-pointer" : "",
		p->dir, p->dir);
	if (!f || system(cmd)) {
		if (!quiet)
			fprintf(stderr, "FAILED: cc (kept %s)\n", p->dir);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", p->dir);
		if (quiet && system(cmd)) {
		}
		free(p);
		return NULL;
	}
	pm_hr_at_exit();
	p->hash = h, p->len = len, p->asan = asan;
	p->next = pm_hr_progs;
	pm_hr_progs = p;
	return p;
}

/* Build head, the generated source and tail (pm_hr_build: with
 * AddressSanitizer when asan; the inputs and outputs are malloc'ed at
 * their exact sizes, so any access past a size fails the run) and run it
 * with each of args[0..n) (up to the first failure); on failure keep the
 * directory and say so (unless quiet). Returns the exit status. */
static inline int pm_hr_build_and_run_n(const char *head, const char *source,
	const char *tail, const char *const *args, int n, int quiet,
	int asan, const char *what)
{
	struct pm_hr_prog *p = pm_hr_build(head, source, tail, quiet, asan);
	char cmd[1024];
	int rc = p ? 0 : -1;

	if (!p && !quiet)
		fprintf(stderr, "FAILED: %s does not build\n", what);
	for (int i = 0; !rc && i < n; ++i) {
		snprintf(cmd, sizeof(cmd), "%s%s/k %s >/dev/null%s", asan ?
			"ASAN_OPTIONS=detect_leaks=0 " : "", p->dir, args[i],
			quiet ? " 2>/dev/null" : "");
		rc = system(cmd);
		if (rc && !quiet) {
			fprintf(stderr, "FAILED: %s, sizes %s (kept %s)\n", what,
				args[i], p->dir);
			p->keep = 1;
		}
	}
	return rc;
}

/* pm_hr_build_and_run_n with one run. */
static inline int pm_hr_build_and_run(const char *head, const char *source,
	const char *tail, const char *args, int quiet, int asan,
	const char *what)
{
	return pm_hr_build_and_run_n(head, source, tail, &args, 1, quiet,
		asan, what);
}

/* "#define CALL ..." for kernel call `call` (ending in "M, N, K" or the
 * sizes), split in `split` chunks (0: no split) of the reductions ext0
 * (and ext1), as blocks of the GPU would run them: chunks of whole k
 * tiles of the padded extent (the last tile of a ragged k partial), the
 * workspace the launcher would give (counters must be back to zero at
 * the end) for tiles of bm rows of `rows` and bn columns of `cols` (a
 * swapped kernel's: N and M). */
static inline void pm_hr_split_call_rc(struct pm_strbuf *b, long split,
	const char *name, const char *args, const char *rows,
	const char *cols, const char *ext0, const char *ext1, int bm, int bn,
	int bk, int nacc)
{
	if (!split) {
		pm_strbuf_printf(b, "#define CALL %s(%s)\n", name, args);
		return;
	}
	pm_strbuf_printf(b, "#define CALL do { long S = %ld, tiles = ((%s + %d) / "
		"%d) * ((%s + %d) / %d), pb = %ld;\\\n"
		"\tlong kc0 = (((%s) + %d) / %d + S - 1) / S * %d, kc1 = (((%s) + "
		"%d) / %d + S - 1) / S * %d;\\\n"
		"\tfloat *pm_w = calloc(tiles * S * pb, sizeof(float));\\\n"
		"\tunsigned *pm_c = calloc(tiles, sizeof(unsigned));\\\n"
		"\t(void) kc1;\\\n"
		"\tfor (long z = 0; z < S; ++z)\\\n"
		"\t\t%s(%s, pm_w, pm_c, kc0%s, z, S);\\\n"
		"\tfor (long t = 0; t < tiles; ++t)\\\n"
		"\t\tif (pm_c[t]) { fprintf(stderr, \"counter %%ld left at %%u\\n\", "
		"t, pm_c[t]); exit(1); }\\\n"
		"\tfree(pm_w);\\\n\tfree(pm_c);\\\n} while (0)\n",
		split, rows, bm - 1, bm, cols, bn - 1, bn, (long) nacc * bm * bn,
		ext0, bk - 1, bk, bk, ext1 ? ext1 : ext0, bk - 1, bk, bk, name,
		args, ext1 ? ", kc1" : "");
}

/* pm_hr_split_call_rc over tiles of M and N. */
static inline void pm_hr_split_call(struct pm_strbuf *b, long split,
	const char *name, const char *args, const char *ext0,
	const char *ext1, int bm, int bn, int bk, int nacc)
{
	pm_hr_split_call_rc(b, split, name, args, "M", "N", ext0, ext1, bm, bn,
		bk, nacc);
}

#endif

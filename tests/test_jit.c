/* The JIT (api/jit.c, runtime/jit.c, runtime/cache.c; decision 0038),
 * without a GPU.
 *
 *   - the launch description: every row's argument list equals the one
 *     the generated launcher passes (emit/launch.c), its bytes round-trip
 *     and short or altered bytes are refused;
 *   - NVRTC compiles the device-only form of every example and the row
 *     sum (the launcher under #ifndef __CUDACC_RTC__) for sm_80 and
 *     sm_90a (POLYMMA_JIT_ALL=0: three of them, for a quick run); skipped
 *     with a message where libnvrtc cannot be loaded;
 *   - (the cache itself: tests/test_jit_cache.c);
 *   - polymma_jit_compile: a miss, then a hit, a corrupt entry rebuilt.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/jit.h"
#include "api/options.h"
#include "api/pipeline.h"
#include "runtime/cache.h"
#include "runtime/device/kcopy.cuh"	/* the copy kernel's tile (jit_mock.h) */
#include "runtime/jitlaunch.h"
#include "runtime/jit.h"
#include "tests/tmpdir_util.h"
#include "tests/util.h"
#include "polymma.h"

/* The generated file and description of example ex on target. */
/* An option more for generate ("key", "value"; NULL: none). */
static const char *gen_opt[2];

static char *generate(const char *ex, const char *target,
	struct pm_rt_jit *j, int *rc)
{
	char path[256], *text, *src = NULL;
	polymma_options *o = polymma_options_alloc();
	struct pm_output out = { NULL, NULL, NULL };
	struct pm_diags d;
	struct pm_spec *spec;

	snprintf(path, sizeof(path), "examples/%s.tc", ex);
	text = pm_test_read(path);
	assert_non_null(text);
	assert_int_equal(polymma_options_set(o, "target", target, NULL), 0);
	if (gen_opt[0])
		assert_int_equal(polymma_options_set(o, gen_opt[0], gen_opt[1],
			NULL), 0);
	pm_diags_init(&d, path, text);
	spec = pm_spec_parse(text, path, &d);
	assert_non_null(spec);
	*rc = pm_pipeline_jit(spec, pm_options_config(o), &out, j, &d);
	if (*rc == 0)
		src = strdup(out.source);
	else
		fprintf(stderr, "%s", pm_diags_text(&d));
	pm_diags_clear(&d);
	pm_output_clear(&out);
	pm_spec_free(spec);
	polymma_options_free(o);
	free(text);
	return src;
}

/* "(const __half *) A" -> "A": the casts of the tensors dropped. */
static void drop_casts(char *s, const struct pm_rt_jit *j)
{
	for (int t = 0; t < j->ntensors; ++t) {
		char pat[80];
		char *p;

		snprintf(pat, sizeof(pat), "*) %s", j->tname[t]);
		while ((p = strstr(s, pat))) {
			char *open = p;
			size_t n = strlen(j->tname[t]);
			char next = p[3 + n];

			if (next != ',' && next != ')' && next)
				break;
			while (open > s && *open != '(')
				open--;
			memmove(open, p + 3, strlen(p + 3) + 1);
		}
	}
}

/* got (a copy of the n bytes at a, casts dropped) is want. */
static void check_args(const char *a, size_t n, const char *want,
	const struct pm_rt_jit *j, int r)
{
	char *got = strndup(a, n);

	drop_casts(got, j);
	if (strcmp(got, want))
		fprintf(stderr, "%s row %d:\n got  %s\n want %s\n", j->name, r,
			got, want);
	assert_string_equal(got, want);
	free(got);
}

/* Every launch of row r in src ("pm_kernel_NAME<suffix>[_x]<<<", and
 * "pm_launch_pdl([... ? pm_kernel_NAME<suffix>_x : ]pm_kernel_NAME<suffix>,
 * grid, T, S, stream, ...)" where its kernels wait for the previous grid,
 * --pdl) passes pm_rt_jit_args' list; the number seen. */
static int check_row(const char *src, const struct pm_rt_jit *j, int r)
{
	char want[2048], call[256];
	int seen = 0;
	const char *p = src;

	pm_rt_jit_args(j, r, want, sizeof(want));
	snprintf(call, sizeof(call), "pm_kernel_%s%s, grid, ", j->name,
		j->kern[r].suffix);
	while ((p = strstr(p, call))) {
		const char *l = p, *a, *e;

		while (l > src && l[-1] != '\n')
			l--;
		assert_non_null(strstr(l, "return pm_launch_pdl("));
		assert_true(strstr(l, "return pm_launch_pdl(") < p);
		a = strstr(p, ", stream, ") + strlen(", stream, ");
		e = strstr(a, ");\n");
		check_args(a, (size_t) (e - a), want, j, r);
		seen++;
		p = e;
	}
	for (int x = 0; x < 2; ++x) {
		p = src;
		snprintf(call, sizeof(call), "pm_kernel_%s%s%s<<<", j->name,
			j->kern[r].suffix, x ? "_x" : "");
		while ((p = strstr(p, call))) {
			const char *a = strstr(p, ">>>(") + 4;
			const char *e = strstr(a, ");\n");

			check_args(a, (size_t) (e - a), want, j, r);
			seen++;
			p = e;
		}
	}
	return seen;
}

/* "M" or "4096" */
static void dim_str(const struct pm_rt_jit *j, const struct pm_rt_dim *d,
	char *buf, size_t n)
{
	if (d->sym >= 0)
		snprintf(buf, n, "%s", j->sym_name[d->sym]);
	else
		snprintf(buf, n, "%lld", (long long) d->value);
}

/* "(int64_t) (Bt)": the batch count as emit/batch.c prints it. */
static void batch_str(const struct pm_rt_jit *j, char *buf, size_t n)
{
	size_t off = (size_t) snprintf(buf, n, "(int64_t) ");

	for (int b = 0; b < j->nbatch && off < n; ++b) {
		char e[32];

		dim_str(j, &j->bdims[b], e, sizeof(e));
		off += (size_t) snprintf(buf + off, n - off, "%s(%s)",
			b ? " * " : "", e);
	}
}

/* A batched tensor's map as launch.c prints it (pm_tma_map_3d[_ty]). */
static void check_map_3d(const char *src, const struct pm_rt_jit *j,
	int r, const struct pm_rt_tma *t, const char *rows, const char *cols,
	const char *const *types)
{
	char nb[128], call[512];

	batch_str(j, nb, sizeof(nb));
	snprintf(call, sizeof(call), "pm_tma_map_3d_ty(&pm_tm%d, %s, %s, %d, "
		"%s, %s, %s, %s, (int64_t) (%s) * (%s), %d, %d, %d)", t->buf,
		j->tname[t->tensor], types[t->dtype], t->esize, rows, cols, cols,
		nb, rows, cols, t->box_rows, t->box_cols, t->swizzle);
	if (strstr(src, call))
		return;
	snprintf(call, sizeof(call), "pm_tma_map_3d(&pm_tm%d, %s, %s, %s, %s, "
		"%s, (int64_t) (%s) * (%s), %d, %d, %d)", t->buf,
		j->tname[t->tensor], rows, cols, cols, nb, rows, cols,
		t->box_rows, t->box_cols, t->swizzle);
	if (!strstr(src, call))
		fail_msg("%s row %d: no %s", j->name, r, call);
}

/* Each tensor map as launch.c prints its pm_tma_map_2d call, and the
 * file's TMA data type. */
static void check_maps(const char *src, const struct pm_rt_jit *j)
{
	static const char *const types[] = {
		[0] = "CU_TENSOR_MAP_DATA_TYPE_UINT8",
		[6] = "CU_TENSOR_MAP_DATA_TYPE_FLOAT16",
		[9] = "CU_TENSOR_MAP_DATA_TYPE_BFLOAT16",
	};

	for (int r = 0; r < j->nrows; ++r)
		for (int m = 0; m < j->kern[r].ntma; ++m) {
			const struct pm_rt_tma *t = &j->kern[r].tma[m];
			char rows[32], cols[32], pitch[48], call[256], def[96];

			dim_str(j, &t->rows, rows, sizeof(rows));
			dim_str(j, &t->cols, cols, sizeof(cols));
			/* a K-major copy's: padded rows (launch.c) */
			snprintf(pitch, sizeof(pitch), t->kc ? "pm_kc_pitch(%s)" :
				"%s", cols);
			assert_true(t->dtype == 0 || t->dtype == 6 ||
				t->dtype == 9);
			if (t->batched) {
				check_map_3d(src, j, r, t, rows, cols, types);
				continue;
			}
			/* the output's map of TMA stores (decision 0048):
			 * its own type, the last map */
			snprintf(call, sizeof(call), "pm_tma_map_2d_ty(&pm_tm%d, "
				"%s, %s, %d, %s, %s, %s, %d, %d, %d)", t->buf,
				j->tname[t->tensor], types[t->dtype], t->esize,
				rows, cols, cols, t->box_rows, t->box_cols,
				t->swizzle);
			if (strstr(src, call)) {
				assert_int_equal(m, j->kern[r].ntma - 1);
				assert_int_equal(t->swizzle, 128);
				continue;
			}
			snprintf(call, sizeof(call), "pm_tma_map_2d(&pm_tm%d, %s, "
				"%s, %s, %s, %d, %d, %d)", t->buf,
				j->tname[t->tensor], rows, cols, pitch, t->box_rows,
				t->box_cols, t->swizzle);
			if (!strstr(src, call))
				fail_msg("%s row %d: no %s", j->name, r, call);
			snprintf(def, sizeof(def), "#define PM_AB_TMA %s\n",
				types[t->dtype]);
			assert_non_null(strstr(src, def));
			assert_int_equal(t->esize, t->dtype ? 2 : 1);
		}
}

/* Occurrences of pat in s. */
static int count(const char *s, const char *pat)
{
	int n = 0;

	for (; (s = strstr(s, pat)); s += strlen(pat))
		n++;
	return n;
}

/* K-major copies (emit/kcopy.c): each as pm_kc_run_NAME copies it, in
 * the workspace after the split's part where launch_fn says so, and
 * every map of a copied tensor padded; none in a file without. */
static void check_kc(const char *src, const struct pm_rt_jit *j)
{
	char c[160], r[32], n[32];

	assert_int_equal(j->nkc, count(src, "if ((e = pm_kcopy(*"));
	for (int i = 0; i < j->nkc; ++i) {
		const struct pm_rt_jit_kc *k = &j->kc[i];

		dim_str(j, &k->r, r, sizeof(r));
		dim_str(j, &k->c, n, sizeof(n));
		snprintf(c, sizeof(c), "if ((e = pm_kcopy(*%s, pm_at, %s, %s, "
			"stream))", j->tname[k->tensor], r, n);
		if (!strstr(src, c))
			fail_msg("%s: no %s", j->name, c);
	}
	/* the maps of copied tensors, and only those, padded */
	for (int w = 0; w < j->nrows; ++w)
		for (int m = 0; m < j->kern[w].ntma; ++m) {
			int copied = 0;

			for (int i = 0; i < j->nkc; ++i)
				copied |= j->kc[i].tensor ==
					j->kern[w].tma[m].tensor;
			assert_int_equal(j->kern[w].tma[m].kc, copied);
		}
	assert_int_equal(j->kc_split, !!strstr(src, "workspace + "
		"pm_rt_copy_offset(c), stream)) != cudaSuccess)"));
}

/* A batched or grouped file: the plan's batch count or groups (table.c)
 * and each row's grid (launch.c): batches in z where not persistent;
 * a grouped grid its units (group, tile), at most the plan's where
 * persistent. */
static void check_batch(const char *src, const struct pm_rt_jit *j)
{
	char nb[128], want[1024], e[32], m[32], nn[32];
	int z = 0;

	batch_str(j, nb, sizeof(nb));
	if (!j->nbatch) {
		assert_null(strstr(src, "p.batch ="));
		assert_null(strstr(src, "p.grouped ="));
		return;
	}
	if (!j->planned)
		return;
	if (!j->grouped) {
		snprintf(want, sizeof(want), "\tp.batch = %s;\n", nb);
		if (!strstr(src, want))
			fail_msg("%s: no %s", j->name, want);
		for (int r = 0; r < j->nrows; ++r)
			z += !j->kern[r].persistent;
		snprintf(want, sizeof(want), "dim3 grid((unsigned) (c->grid), 1, "
			"(unsigned) %s);", nb);
		assert_int_equal(count(src, want), z);
		assert_int_equal(count(src, "dim3 grid((unsigned) (c->grid), "
			"1);"), j->nrows - z);
		return;
	}
	dim_str(j, &j->bdims[0], e, sizeof(e));
	dim_str(j, &j->m, m, sizeof(m));
	dim_str(j, &j->n, nn, sizeof(nn));
	snprintf(want, sizeof(want), "\tp.grouped = (int) (%s);\n", e);
	if (!strstr(src, want))
		fail_msg("%s: no %s", j->name, want);
	for (int r = 0; r < j->nrows; ++r) {
		const struct pm_rt_jit_row *w = &j->kern[r];
		char u[256];

		snprintf(u, sizeof(u), "(((int64_t) (%s) + %d) / %d + (int64_t) "
			"(%s)) * (((int64_t) (%s) + %d) / %d)", m, w->bm - 1, w->bm,
			e, nn, w->bn - 1, w->bn);
		if (w->persistent)
			snprintf(want, sizeof(want), "dim3 grid((unsigned) (%s < "
				"(int64_t) c->grid ? %s : (int64_t) c->grid), 1);",
				u, u);
		else
			snprintf(want, sizeof(want), "dim3 grid((unsigned) (%s), "
				"1);", u);
		if (!strstr(src, want))
			fail_msg("%s row %d: no %s", j->name, r, want);
	}
}

static void check_desc(const char *src, const struct pm_rt_jit *j)
{
	unsigned char *b;
	size_t n, m;
	struct pm_rt_jit *back = malloc(sizeof(*back));

	assert_true(j->nrows >= 1);
	for (int r = 0; r < j->nrows; ++r)
		assert_true(check_row(src, j, r) >= 1);
	check_maps(src, j);
	/* the entry's checks as launch.c prints them */
	for (int i = 0; i < j->nsizes; ++i) {
		const char *n = j->sym_name[j->order[i]];
		char c[160];

		/* an _unaligned row: its multiple refuses, the others' set
		 * pm_ua (docs/decisions/0046-narrow-copies.md) */
		if (j->has_ua) {
			snprintf(c, sizeof(c), j->ua_align[i] > 1 ? "if (%s < 1 "
				"|| %s > 0x7fffff00 || %s %% %d)" : "if (%s < 1 || "
				"%s > 0x7fffff00)\n", n, n, n, j->ua_align[i]);
			if (!strstr(src, c))
				fail_msg("%s: no check %s", j->name, c);
			snprintf(c, sizeof(c), "if (%s %% %d)\n\t\tpm_ua = 1;",
				n, j->align[i]);
			if ((j->align[i] > j->ua_align[i]) != !!strstr(src, c))
				fail_msg("%s: check %s", j->name, c);
			continue;
		}
		if (j->align[i] > 1)
			snprintf(c, sizeof(c), "if (%s < 1 || %s > 0x7fffff00 || "
				"%s %% %d)", n, n, n, j->align[i]);
		else
			snprintf(c, sizeof(c), "if (%s < 1 || %s > 0x7fffff00)\n",
				n, n);
		if (!strstr(src, c))
			fail_msg("%s: no check %s", j->name, c);
	}
	for (int t = 0; t < j->ntensors; ++t) {
		char c[160];

		if (j->has_ua && j->talign[t] > 1) {
			snprintf(c, sizeof(c), "if ((uintptr_t) %s %% %d)\n\t\t"
				"pm_ua = 1;", j->tname[t], j->talign[t]);
			if (!strstr(src, c))
				fail_msg("%s: no check %s", j->name, c);
			snprintf(c, sizeof(c), "if ((uintptr_t) %s %% %d)\n\t\t"
				"return cudaErrorMisalignedAddress;", j->tname[t],
				j->ua_talign[t]);
			if ((j->ua_talign[t] > 1) != !!strstr(src, c))
				fail_msg("%s: check %s", j->name, c);
			continue;
		}
		snprintf(c, sizeof(c), "if ((uintptr_t) %s %% %d)", j->tname[t],
			j->talign[t]);
		if (j->talign[t] > 1 && !strstr(src, c))
			fail_msg("%s: no check %s", j->name, c);
		snprintf(c, sizeof(c), "if ((uintptr_t) %s %%", j->tname[t]);
		if (j->talign[t] == 1 && strstr(src, c))
			fail_msg("%s: an alignment check of %s", j->name,
				j->tname[t]);
	}
	/* the plan's operand pitches as table.c prints them (problem.mis,
	 * docs/decisions/0053-misaligned-pitch.md) */
	for (int o = 0; o < 2; ++o) {
		char c[160], v[40];

		if (j->pitch[o].sym >= 0)
			snprintf(v, sizeof(v), "%s", j->sym_name[j->pitch[o].sym]);
		else
			snprintf(v, sizeof(v), "%lld",
				(long long) j->pitch[o].value);
		/* a K-major copy's rounded up to 16 */
		snprintf(c, sizeof(c), "p.mis |= pm_rt_pitch_mis(%s(int64_t) "
			"(%s)%s, %d) << %d;", j->pitch_kc[o] ? "(" : "", v,
			j->pitch_kc[o] ? " + 15) / 16 * 16" : "",
			j->pitch_bytes[o], o);
		if (!strstr(src, c))
			fail_msg("%s: no %s", j->name, c);
	}
	check_batch(src, j);
	check_kc(src, j);
	pm_rt_jit_pack(j, NULL, &n);
	b = malloc(n);
	pm_rt_jit_pack(j, b, &m);
	assert_int_equal(n, m);
	assert_int_equal(pm_rt_jit_unpack(b, n, back), 0);
	pm_rt_jit_pack(back, NULL, &m);
	assert_int_equal(n, m);
	for (int r = 0; r < j->nrows; ++r) {
		char x[2048], y[2048];

		pm_rt_jit_args(j, r, x, sizeof(x));
		pm_rt_jit_args(back, r, y, sizeof(y));
		assert_string_equal(x, y);
		assert_string_equal(back->rows[r].suffix, j->kern[r].suffix);
		assert_int_equal(back->rows[r].smem, j->rows[r].smem);
	}
	assert_int_equal(pm_rt_jit_unpack(b, n - 1, back), -1);
	b[8 * 0 + 64] = 0x7f;	/* nsyms, past the name: out of range */
	b[64 + 7] = 0x7f;
	assert_int_equal(pm_rt_jit_unpack(b, n, back), -1);
	free(b);
	free(back);
}

/* ptxas's report (-v) of every kernel of j: no stack, no spills (the
 * rule tests/test_nvcc.c checks for nvcc holds for NVRTC's build too). */
static void no_spills(const char *log, const struct pm_rt_jit *j)
{
	int kernels = 0;

	assert_non_null(log);
	for (const char *p = log; (p = strstr(p, "bytes stack frame")); ++p) {
		const char *q = p - 1, *want = "bytes stack frame, 0 bytes "
			"spill stores, 0 bytes spill loads";

		/* "ptxas  .  0 bytes stack frame, 0 bytes spill stores, ..." */
		while (q > log && *q == ' ')
			q--;
		if (*q != '0' || (q > log && q[-1] >= '0' && q[-1] <= '9') ||
		    strncmp(p, want, strlen(want))) {
			fprintf(stderr, "%.120s\n", q - 8 > log ? q - 8 : log);
			fail_msg("a kernel of %s has a stack frame or spills",
				j->name);
		}
		kernels++;
	}
	/* one report per function: the kernels and their twins at least */
	assert_true(kernels >= j->nrows);
	printf("test_jit: %s: %d functions, no stack, no spills\n", j->name,
		kernels);
}

/* gemm_bias_relu's sm_90a description, for the launch tests */
static struct pm_rt_jit gbr90;

/* The examples' descriptions, and NVRTC on their device-only form. */
static void examples(void **state)
{
	static const char *const all[] = {
		"gemm_nn", "gemm_nt", "gemm_tn", "gemm_tt", "gemm_bias_relu",
		"gemm_epilogue_chain", "relu_gemm", "add_gemm",
		"../tests/specs/gemm_rowsum", "../tests/specs/bmm_nn",
		"../tests/specs/bmm_bias", "../tests/specs/bmm_bcast_b",
		"../tests/specs/moe_up", "../tests/specs/gemm_f8e4m3_nn",
		"../tests/specs/add_gemm_f8e4m3_mn",
	};
	static const char *const targets[] = { "sm_80", "sm_90a" };
	const char *why = NULL, *env = getenv("POLYMMA_JIT_ALL");
	const struct pm_nvrtc *nv = pm_nvrtc(&why);
	const char *verbose = "--ptxas-options=-v";
	int every = !(env && !strcmp(env, "0"));
	struct pm_rt_jit *j = malloc(sizeof(*j));

	(void) state;
	if (!nv)
		printf("test_jit: NVRTC not compiled against: %s\n", why);
	for (size_t e = 0; e < sizeof(all) / sizeof(*all); ++e)
		for (int t = 0; t < 2; ++t) {
			unsigned char *cubin = NULL;
			size_t n = 0;
			struct pm_diags d;
			char *src;
			int rc;

			if (!every && !(e == 0 && t == 0) && !(e >= 9 && t == 1 &&
			    e % 3 == 0) && !(e >= 13 && t == 1) && !(e == 4 &&
			    t == 1) && !(e == 8 && t == 1))
				continue;
			/* 8-bit floats: sm_90a only (sm_80 refuses them) */
			if (t == 0 && strstr(all[e], "_f8"))
				continue;
			src = generate(all[e], targets[t], j, &rc);
			assert_int_equal(rc, 0);
			check_desc(src, j);
			if (e == 4 && t == 1)
				gbr90 = *j;
			if (nv) {
				pm_diags_init(&d, "x", NULL);
				char *log = NULL;

				rc = pm_jit_nvrtc(nv, src, "x.cu", targets[t],
					&verbose, 1, &log, &cubin, &n, &d);
				if (rc)
					fprintf(stderr, "%s", pm_diags_text(&d));
				assert_int_equal(rc, 0);
				no_spills(log, j);
				free(log);
				assert_true(n > 1000);
				/* an ELF */
				assert_memory_equal(cubin, "\177ELF", 4);
				pm_diags_clear(&d);
				printf("test_jit: %s %s: %d kernels, cubin %zu "
					"bytes\n", all[e], targets[t], j->nrows, n);
			}
			free(cubin);
			free(src);
		}
	free(j);
}

/* A fresh directory under /tmp. */

/* A compile test's end: its objects freed, its directory removed. */
static void compile_end(polymma_options *o, polymma_ctx *ctx, char *text,
	char *dir)
{
	polymma_options_free(o);
	polymma_ctx_free(ctx);
	free(text);
	pm_test_rmdir_all(dir);
	free(dir);
}

/* polymma_jit_compile through the cache: miss, hit, corrupt -> rebuilt. */
static void compile_cached(void **state)
{
	char *dir = pm_test_tmpdir(), *text = pm_test_read("examples/gemm_nn.tc");
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_kernel *k = NULL;
	const char *why = NULL;

	(void) state;
	if (!pm_nvrtc(&why)) {
		printf("test_jit: skipped polymma_jit_compile: %s\n", why);
		assert_int_equal(polymma_jit_compile(ctx, text, o, "sm_80", &k),
			POLYMMA_ERR_CUDA);
		goto done;
	}
	setenv("POLYMMA_CACHE_DIR", dir, 1);
	assert_int_equal(polymma_jit_cache_clear(), 0);
	assert_int_equal(polymma_jit_compile(ctx, "def", o, "sm_80", &k),
		POLYMMA_ERR_SPEC);
	assert_null(k);
	assert_int_equal(polymma_jit_compile(ctx, text, o, "sm_x", &k),
		POLYMMA_ERR_USAGE);
	for (int round = 0; round < 3; ++round) {
		int rc = polymma_jit_compile(ctx, text, o, "sm_80", &k);

		if (rc)
			fprintf(stderr, "%s", polymma_diagnostics(ctx));
		assert_int_equal(rc, 0);
		assert_string_equal(polymma_kernel_arch(k), "sm_80");
		/* a miss, a hit, then rebuilt */
		assert_int_equal(polymma_kernel_cached(k), round == 1);
		polymma_kernel_free(k);
		k = NULL;
		if (round == 1) {
			char cmd[600];

			snprintf(cmd, sizeof(cmd), "for f in '%s'/*.pmjit; do "
				"printf 'XXXX' | dd of=\"$f\" bs=1 seek=200 "
				"conv=notrunc 2>/dev/null; done", dir);
			assert_int_equal(system(cmd), 0);
		}
	}
	assert_int_equal(pm_test_count_files(dir, ""), 1);
	assert_int_equal(polymma_jit_cache_clear(), 1);
	unsetenv("POLYMMA_CACHE_DIR");
done:
	compile_end(o, ctx, text, dir);
}

/* Does kernel function f lie in n bytes of cubin (its ".text.f")? */
static int cubin_holds(const unsigned char *b, size_t n, const char *f)
{
	char s[128];
	size_t l = (size_t) snprintf(s, sizeof(s), ".text.%s", f) + 1;

	for (size_t i = 0; i + l <= n; ++i)
		if (!memcmp(b + i, s, l))
			return 1;
	return 0;
}

/* Three NVRTC programs at once (POLYMMA_THREADS=3, api/jitparts.c):
 * three cubins, each kernel function in exactly one, built and loaded
 * back from the cache alike. */
static void compile_parts(void **state)
{
	char *dir = pm_test_tmpdir(), *text = pm_test_read("examples/gemm_nn.tc");
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	const char *why = NULL;

	(void) state;
	if (!pm_nvrtc(&why)) {
		printf("test_jit: skipped compile_parts: %s\n", why);
		goto done;
	}
	setenv("POLYMMA_CACHE_DIR", dir, 1);
	setenv("POLYMMA_THREADS", "3", 1);
	for (int round = 0; round < 2; ++round) {
		polymma_kernel *k = NULL;
		const struct pm_rt_kernel *rt;
		int rc = polymma_jit_compile(ctx, text, o, "sm_80", &k), nf = 0;

		if (rc)
			fprintf(stderr, "%s", polymma_diagnostics(ctx));
		assert_int_equal(rc, 0);
		assert_int_equal(polymma_kernel_cached(k), round == 1);
		rt = pm_jit_rt(k);
		assert_int_equal(rt->ncubins, 3);
		for (int r = 0; r < rt->j.nrows; ++r)
			for (int x = 0; x <= !!rt->j.kern[r].twin; ++x, ++nf) {
				char f[128];
				int in = 0;

				snprintf(f, sizeof(f), "pm_kernel_%s%s%s",
					rt->j.name, rt->j.kern[r].suffix,
					x ? "_x" : "");
				for (int i = 0; i < rt->ncubins; ++i)
					in += cubin_holds(rt->cubin[i],
						rt->ncubin[i], f);
				assert_int_equal(in, 1);
				/* the one the row names (the only lookup) */
				in = rt->j.kern[r].part[x];
				assert_true(cubin_holds(rt->cubin[in],
					rt->ncubin[in], f));
			}
		assert_true(nf >= 3);
		polymma_kernel_free(k);
	}
	unsetenv("POLYMMA_THREADS");
	unsetenv("POLYMMA_CACHE_DIR");
done:
	compile_end(o, ctx, text, dir);
}

#include "tests/jit_mock.h"
#include "tests/jit_mock_launches.h"
#include "tests/jit_mock_shapes.h"
#include "tests/jit_mock_capture.h"

/* NULL arguments: usage errors, no crash (include/polymma.h). */
static void nulls(void **state)
{
	polymma_ctx *ctx = polymma_ctx_alloc();
	polymma_options *o = polymma_options_alloc();
	polymma_kernel *k = (polymma_kernel *) 0x1;
	int64_t sz[3] = { 1, 1, 1 };

	(void) state;
	assert_int_equal(polymma_jit_compile(NULL, "def", o, "sm_80", &k),
		POLYMMA_ERR_USAGE);
	assert_null(k);
	assert_int_equal(polymma_jit_compile(ctx, NULL, o, "sm_80", &k),
		POLYMMA_ERR_USAGE);
	assert_non_null(strstr(polymma_diagnostics(ctx), "spec_text is NULL"));
	assert_int_equal(polymma_jit_compile(ctx, "def", NULL, "sm_80", &k),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_jit_compile(ctx, "def", o, "sm_80", NULL),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_kernel_launch(NULL, NULL, sz, NULL),
		POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_kernel_launch_ws(NULL, NULL, sz, NULL, 0,
		NULL), POLYMMA_ERR_USAGE);
	assert_int_equal(polymma_kernel_workspace_size(NULL, sz), 0);
	assert_null(polymma_kernel_error(NULL));
	assert_null(polymma_kernel_arch(NULL));
	assert_int_equal(polymma_kernel_cached(NULL), 0);
	polymma_kernel_free(NULL);
	polymma_options_free(o);
	polymma_ctx_free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(nulls),
		cmocka_unit_test(examples),
		cmocka_unit_test(compile_cached),
		cmocka_unit_test(compile_parts),
		cmocka_unit_test(launch_plan),
		cmocka_unit_test(launch_checks),
		cmocka_unit_test(launch_forced),
		cmocka_unit_test(launch_parts),
		cmocka_unit_test(launch_red),
		cmocka_unit_test(launch_batched),
		cmocka_unit_test(launch_kc),
		cmocka_unit_test(launch_mc),
		cmocka_unit_test(launch_pdl),
		cmocka_unit_test(launch_pre),
		cmocka_unit_test(launch_capture),
		cmocka_unit_test(launch_capture_pre),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

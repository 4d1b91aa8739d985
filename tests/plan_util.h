/* The launch plan on the host (header-only, for the CPU tests): the rows
 * and spec the library makes of an example (the table every generated file
 * embeds: emit/table.c) and runtime/plan.c's choice on a model of an H100
 * SXM (132 SMs; a kernel's blocks per SM from its dynamic shared memory,
 * 228 KiB per SM with 1 KiB reserved per block, and its threads, 2048 per
 * SM; one block of 384 threads, whose registers fill the SM; clusters:
 * half the SMs' worth), as tests/plan_probe.cu answers the CUDA calls of a
 * generated file's plan. It matched the plans an H100 gave at the 100
 * paper sizes (session 14, run128). */
#ifndef PM_TEST_PLAN_UTIL_H
#define PM_TEST_PLAN_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <isl/ctx.h>

#include "api/options.h"
#include "emit/table.h"
#include "polymma.h"
#include "runtime/plan.h"
#include "tests/util.h"
#include "variant/variant.h"

static inline int pm_test_h100_occ(int threads, long smem)
{
	const int by_smem = (int) (233472 / (smem + 1024));
	const int by_threads = 2048 / threads;
	int o = by_smem < by_threads ? by_smem : by_threads;

	if (threads == 384)
		o = o > 0 ? 1 : 0;
	/* the generated pm_device_NAME stores 0 as 1 */
	return o > 0 ? o : 1;
}

static inline int pm_test_h100_clusters(void *ctx, int s)
{
	(void) ctx;
	return 132 / s / 2;
}

static inline struct pm_rt_device pm_test_h100(const struct pm_rt_variant *v,
	int nv)
{
	struct pm_rt_device d;

	memset(&d, 0, sizeof(d));
	d.sms = 132;
	for (int i = 0; i < nv; ++i)
		d.occ[i] = pm_test_h100_occ(v[i].threads, v[i].smem);
	d.clusters = pm_test_h100_clusters;
	return d;
}

/* The rows and spec of examples/NAME.tc for target with options opts
 * (NULL-terminated key, value pairs; may be NULL); returns the number of
 * rows, -1 when the spec does not generate. */
static inline int pm_test_rows(const char *name, const char *target,
	const char *const *opts, struct pm_rt_variant *rows,
	struct pm_rt_spec *spec)
{
	char path[128], *text;
	struct pm_diags d;
	struct pm_spec *sp;
	polymma_options *o = polymma_options_alloc();
	struct pm_variant_set *vs = malloc(sizeof(*vs));
	isl_ctx *ctx = isl_ctx_alloc();
	int n = -1;

	snprintf(path, sizeof(path), "examples/%s.tc", name);
	text = pm_test_read(path);
	pm_diags_init(&d, path, text);
	sp = text ? pm_spec_parse(text, path, &d) : NULL;
	if (o && polymma_options_set(o, "target", target, NULL) != 0)
		sp = (pm_spec_free(sp), NULL);
	for (int i = 0; opts && opts[i] && sp; i += 2)
		if (polymma_options_set(o, opts[i], opts[i + 1], NULL) != 0)
			sp = (pm_spec_free(sp), NULL);
	if (sp && vs && ctx && pm_variant_set_build(ctx, sp,
	    pm_options_config(o), vs, &d) == 0) {
		n = pm_emit_rt_table(vs, rows, NULL, spec);
		pm_variant_set_clear(vs);
	}
	if (n < 0)
		fprintf(stderr, "%s: %s\n", path, pm_diags_text(&d));
	pm_diags_clear(&d);
	pm_spec_free(sp);
	free(text);
	free(vs);
	polymma_options_free(o);
	isl_ctx_free(ctx);
	return n;
}

/* The plan of problem p on the H100 model; force: a POLYMMA_VARIANT
 * value or NULL; *rc: PM_RT_OK or the plan's error. */
static inline struct pm_rt_choice pm_test_plan_p(const struct pm_rt_spec *f,
	const struct pm_rt_variant *v, int nv, const struct pm_rt_problem *p,
	const char *force, int *rc)
{
	struct pm_rt_device d = pm_test_h100(v, nv);
	struct pm_rt_force fo;
	struct pm_rt_choice c;

	memset(&c, 0, sizeof(c));
	*rc = pm_rt_parse_force(force, v, nv, &fo);
	if (*rc == PM_RT_OK)
		*rc = pm_rt_plan(f, v, nv, &d, p, &fo, &c);
	return c;
}

/* The plan of MxNxK (every k extent K), as pm_test_plan_p. */
static inline struct pm_rt_choice pm_test_plan(const struct pm_rt_spec *f,
	const struct pm_rt_variant *v, int nv, int64_t m, int64_t n, int64_t k,
	const char *force, int *rc)
{
	struct pm_rt_problem p;

	memset(&p, 0, sizeof(p));
	p.m = m, p.n = n;
	for (int r = 0; r < PM_RT_MAX_K; ++r)
		p.k[r] = k;
	/* the examples' operands: row-major f16 A(M, K) and B(K, N), as
	 * their launchers set it (emit/table.c mis_lines) */
	p.mis = pm_rt_pitch_mis(k, 2) | pm_rt_pitch_mis(n, 2) << 1;
	return pm_test_plan_p(f, v, nv, &p, force, rc);
}

/* Is s one of the space-separated words of list? */
static inline int pm_test_in_list(const char *list, const char *s)
{
	const size_t n = strlen(s);

	for (const char *p = list; p && *p; p += strcspn(p, " "),
	    p += strspn(p, " "))
		if (strcspn(p, " ") == n && !strncmp(p, s, n))
			return 1;
	return 0;
}

/* Removes the rows of the suffixes in drop (space-separated; NULL: none)
 * from rows[0..nv); the rows left. */
static inline int pm_test_drop_rows(struct pm_rt_variant *rows, int nv,
	const char *drop)
{
	for (int i = 0; drop && i < nv; ++i)
		if (pm_test_in_list(drop, rows[i].suffix)) {
			memmove(&rows[i], &rows[i + 1], (size_t) (nv - i - 1) *
				sizeof(rows[0]));
			--nv;
			--i;
		}
	return nv;
}

/* pm_test_plan_suffix without the rows of the suffixes in drop
 * (space-separated; NULL: none). */
static inline const char *pm_test_plan_suffix_without(const char *name,
	const char *target, const char *const *opts, int64_t m, int64_t n,
	int64_t k, const char *drop, struct pm_rt_choice *out)
{
	struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	struct pm_rt_choice c;
	int nv = pm_test_rows(name, target, opts, rows, &f), rc;

	if (out)
		memset(out, 0, sizeof(*out));
	nv = pm_test_drop_rows(rows, nv, drop);
	if (nv < 1)
		return "?";
	c = pm_test_plan(&f, rows, nv, m, n, k, NULL, &rc);
	if (out)
		*out = c;
	return rc == PM_RT_OK ? rows[c.v].suffix : "?";
}

/* The suffix of the row the plan launches for examples/NAME.tc at MxNxK
 * (static storage: the target table's), or "?" when it fails. */
static inline const char *pm_test_plan_suffix(const char *name,
	const char *target, const char *const *opts, int64_t m, int64_t n,
	int64_t k, struct pm_rt_choice *out)
{
	return pm_test_plan_suffix_without(name, target, opts, m, n, k, NULL,
		out);
}

/* The launch the plan picks for examples/NAME.tc at MxNxK on the H100
 * model, without the rows of the suffixes in drop (space-separated; NULL:
 * none; to see the rule they override), as POLYMMA_VARIANT would force it:
 * "<suffix>" ("_base" for the base row), ",s=N" where it splits k in N
 * chunks; "?" when it fails (static storage, valid up to the next call). */
static inline const char *pm_test_launch_without(const char *name,
	const char *target, const char *const *opts, int64_t m, int64_t n,
	int64_t k, const char *drop)
{
	static char buf[64];
	struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	struct pm_rt_choice c;
	int nv = pm_test_rows(name, target, opts, rows, &f), rc;
	const char *sfx;

	nv = pm_test_drop_rows(rows, nv, drop);
	if (nv < 1)
		return "?";
	c = pm_test_plan(&f, rows, nv, m, n, k, NULL, &rc);
	if (rc != PM_RT_OK)
		return "?";
	sfx = *rows[c.v].suffix ? rows[c.v].suffix : "_base";
	if (c.s > 1)
		snprintf(buf, sizeof(buf), "%s,s=%d", sfx, c.s);
	else
		snprintf(buf, sizeof(buf), "%s", sfx);
	return buf;
}

/* The same with every row. */
static inline const char *pm_test_launch(const char *name,
	const char *target, const char *const *opts, int64_t m, int64_t n,
	int64_t k)
{
	return pm_test_launch_without(name, target, opts, m, n, k, NULL);
}

/* The roles of examples/NAME.tc's rows, as bits 1u << role (0 when it
 * does not generate). */
static inline unsigned pm_test_roles(const char *name, const char *target,
	const char *const *opts)
{
	struct pm_rt_variant rows[PM_RT_MAX_VARIANTS];
	struct pm_rt_spec f;
	const int nv = pm_test_rows(name, target, opts, rows, &f);
	unsigned r = 0;

	for (int i = 0; i < nv; ++i)
		r |= 1u << rows[i].role;
	return r;
}

/* The bits of the persistent roles (PM_RT_PERSIST to PM_RT_PERSIST_SKINNY). */
#define PM_TEST_PERSIST_ROLES \
	(((1u << (PM_RT_PERSIST_SKINNY + 1)) - 1u) & ~((1u << PM_RT_PERSIST) - 1u))

/* The row of suffix sfx ("" the base) in rows, -1 where none. */
static inline int pm_test_row(const struct pm_rt_variant *rows, int nv,
	const char *sfx)
{
	for (int i = 0; i < nv; ++i)
		if (!strcmp(rows[i].suffix, sfx))
			return i;
	return -1;
}

/* The row of role r in rows, -1 where none. */
static inline int pm_test_role(const struct pm_rt_variant *rows, int nv,
	int r)
{
	for (int i = 0; i < nv; ++i)
		if (rows[i].role == r)
			return i;
	return -1;
}

#endif

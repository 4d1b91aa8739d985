/* The JIT's kernels compiled by several NVRTC programs at once (api/jit.h,
 * docs/decisions/0054-jit-parts.md). NVRTC's optimizer and ptxas run one
 * program's kernels mostly one after another; a program per few kernels,
 * each defining the kernels it builds (emit/file.c's guards), puts them
 * on every core. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/jit.h"
#include "polymma.h"

/* "PM_KERNEL_" "pm_kernel_" name suffix "_x" */
#define PM_JIT_DEF (PM_RT_JIT_NAME * 2 + 32)

/* A kernel's NVRTC time, relative: the _unaligned rows' unrolled narrow
 * copies cost about five other rows (add_gemm sm_90a: 2.2-2.4 s against
 * 0.3-0.6 s; docs/decisions/0054-jit-parts.md). */
static const struct {
	int role;
	int cost;
} role_costs[] = {
	{ PM_RT_UNALIGNED, 5 },
};

static int kernel_cost(const struct pm_rt_jit *j, int row)
{
	for (size_t i = 0; i < sizeof(role_costs) / sizeof(*role_costs); ++i)
		if (j->rows[row].role == role_costs[i].role)
			return role_costs[i].cost;
	return 1;
}

static int kernels_of(const struct pm_rt_jit *j)
{
	int n = 0;

	for (int i = 0; i < j->nrows; ++i)
		n += 1 + !!j->kern[i].twin;
	return n;
}

int pm_jit_parts(const struct pm_rt_jit *j)
{
	const char *e = getenv("POLYMMA_THREADS");
	long t = e && *e ? strtol(e, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
	int nk = kernels_of(j);

	if (!(e && *e) && t < PM_JIT_PARTS_MIN_CPUS)
		t = 1;
	if (t > PM_RT_MAX_PARTS)
		t = PM_RT_MAX_PARTS;
	if (t > nk)
		t = nk;
	return t < 1 ? 1 : (int) t;
}

struct part {
	const struct pm_nvrtc *nv;
	const char *src, *name, *arch;
	int cost, ndefs;
	char (*defs)[PM_JIT_DEF];
	const char **opts;
	unsigned char *cubin;
	size_t n;
	struct pm_diags d;
	int rc;
};

static void *compile(void *arg)
{
	struct part *p = arg;

	p->rc = pm_jit_nvrtc(p->nv, p->src, p->name, p->arch, p->opts,
		p->ndefs, NULL, &p->cubin, &p->n, &p->d);
	return NULL;
}

/* Kernel (row r, twin x) into the part of least cost so far (the
 * kernels come costliest first: longest processing time first), which
 * the row records for the runtime's lookup. */
static void assign(struct pm_rt_jit *j, int r, int x,
	struct part *p, int np)
{
	struct part *m = &p[0];

	for (int i = 1; i < np; ++i)
		if (p[i].cost < m->cost)
			m = &p[i];
	m->cost += kernel_cost(j, r);
	j->kern[r].part[x] = (int) (m - p);
	snprintf(m->defs[m->ndefs], PM_JIT_DEF, "-DPM_KERNEL_pm_kernel_%s%s%s",
		j->name, j->kern[r].suffix, x ? "_x" : "");
	m->opts[m->ndefs] = m->defs[m->ndefs];
	m->ndefs++;
}

/* p[0..np): the kernels balanced, each part's options -DPM_KERNELS and
 * its kernels' -DPM_KERNEL_<function>; -1 out of memory. */
static int partition(struct pm_rt_jit *j, struct part *p, int np)
{
	int nk = kernels_of(j), hi = 1;

	for (int i = 0; i < np; ++i) {
		p[i].defs = malloc((size_t) (nk + 1) * sizeof(*p[i].defs));
		p[i].opts = malloc((size_t) (nk + 1) * sizeof(*p[i].opts));
		if (!p[i].defs || !p[i].opts)
			return -1;
	}
	for (int r = 0; r < j->nrows; ++r)
		if (kernel_cost(j, r) > hi)
			hi = kernel_cost(j, r);
	for (int c = hi; c >= 1; --c)
		for (int r = 0; r < j->nrows; ++r)
			for (int x = 0; x <= !!j->kern[r].twin &&
			     kernel_cost(j, r) == c; ++x)
				assign(j, r, x, p, np);
	for (int i = 0; i < np; ++i)
		p[i].opts[p[i].ndefs++] = "-DPM_KERNELS";
	return 0;
}

/* Runs p[1..np) in threads of their own, p[0] in this one. */
static void run(struct part *p, int np)
{
	pthread_t tid[PM_RT_MAX_PARTS];
	int started[PM_RT_MAX_PARTS] = { 0 };

	for (int i = 1; i < np; ++i)
		started[i] = !pthread_create(&tid[i], NULL, compile, &p[i]);
	compile(&p[0]);
	for (int i = 1; i < np; ++i)
		if (started[i])
			pthread_join(tid[i], NULL);
		else
			compile(&p[i]);
}

int pm_jit_nvrtc_parts(const struct pm_nvrtc *nv, const char *src,
	const char *name, const char *arch, struct pm_rt_jit *j,
	int np, struct pm_jit_cubins *c, struct pm_diags *d)
{
	struct part p[PM_RT_MAX_PARTS];
	int rc = POLYMMA_OK;

	memset(c, 0, sizeof(*c));
	for (int r = 0; r < j->nrows; ++r)
		j->kern[r].part[0] = j->kern[r].part[1] = 0;
	if (np <= 1) {
		c->n = 1;
		return pm_jit_nvrtc(nv, src, name, arch, NULL, 0, NULL,
			&c->b[0], &c->len[0], d);
	}
	if (np > PM_RT_MAX_PARTS)
		np = PM_RT_MAX_PARTS;
	memset(p, 0, sizeof(p));
	for (int i = 0; i < np; ++i) {
		p[i].nv = nv, p[i].src = src, p[i].name = name;
		p[i].arch = arch;
		pm_diags_init(&p[i].d, "", NULL);
	}
	if (partition(j, p, np) < 0) {
		pm_diag_internal(d, "out of memory");
		rc = POLYMMA_ERR_INTERNAL;
	} else
		run(p, np);
	for (int i = 0; i < np; ++i) {
		if (rc == POLYMMA_OK && p[i].rc != POLYMMA_OK) {
			pm_diag_internal(d, "%s", pm_diags_text(&p[i].d));
			rc = p[i].rc;
		}
		c->b[i] = p[i].cubin;
		c->len[i] = p[i].n;
		pm_diags_clear(&p[i].d);
		free(p[i].defs);
		free(p[i].opts);
	}
	c->n = np;
	if (rc != POLYMMA_OK)
		pm_jit_cubins_free(c);
	return rc;
}

void pm_jit_cubins_free(struct pm_jit_cubins *c)
{
	for (int i = 0; i < c->n; ++i)
		free(c->b[i]);
	memset(c, 0, sizeof(*c));
}

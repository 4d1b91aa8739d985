/* The kernels of a variant set printed in parallel (rows.h). */
#include <pthread.h>

#include "emit/emit.h"
#include "emit/rows.h"

struct row_job {
	const struct pm_variant *v;
	struct pm_strbuf b;
	struct pm_diags d;
	int r;
};

struct row_pool {
	struct row_job *jobs;
	int n, next;
	int order[PM_RT_NROLES];	/* the jobs, costliest first */
	pm_emit_row_fn def;
	pthread_mutex_t lock;
};

static void run_job(struct row_job *j, pm_emit_row_fn def)
{
	j->v->k->emit_fixup = j->v->emit_fixup;
	j->r = def(j->v->k, j->v->desc->suffix, &j->b, &j->d);
}

/* Takes the pool's own-context jobs until none is left. */
static void *worker(void *arg)
{
	struct row_pool *p = arg;

	for (;;) {
		int i;

		pthread_mutex_lock(&p->lock);
		while (p->next < p->n && !p->jobs[p->order[p->next]].v->ctx)
			p->next++;
		i = p->next < p->n ? p->order[p->next++] : -1;
		pthread_mutex_unlock(&p->lock);
		if (i < 0)
			return NULL;
		run_job(&p->jobs[i], p->def);
	}
}

/* The jobs of the built rows, in the table's order. */
static int collect(const struct pm_variant_set *vs, struct row_job *jobs)
{
	const struct pm_target *tg = vs->target;
	int n = 0;

	for (int i = 0; i < tg->nvariants; ++i) {
		const struct pm_variant *v = &vs->v[tg->variants[i].role];

		if (!v->k)
			continue;
		jobs[n].v = v;
		pm_strbuf_init(&jobs[n].b);
		pm_diags_init(&jobs[n].d, "", NULL);
		jobs[n++].r = -1;
	}
	return n;
}

/* A job's expected cost, as a class: rows whose copies are not TMA
 * boxes (each thread's copies unrolled) cost the most AST, then split-K
 * rows (their chunk parameters); measured on add_gemm, gemm_nn. */
static int cost_class(const struct row_job *j)
{
	const struct pm_kernel *k = j->v->k;

	return (k->tma[0] ? 0 : 2) + (k->scop->nsplit ? 1 : 0);
}

/* p's jobs costliest first (table order within a class), so that the
 * last jobs to start are short ones and the threads finish together. */
static void order_jobs(struct row_pool *p)
{
	int n = 0;

	for (int c = 3; c >= 0; --c)
		for (int i = 0; i < p->n; ++i)
			if (cost_class(&p->jobs[i]) == c)
				p->order[n++] = i;
}

/* Start nt - 1 workers (fewer where one does not start); their count. */
static int start(struct row_pool *p, pthread_t *tid, int nt)
{
	int started = 0;

	for (int i = 0; i + 1 < nt; ++i)
		if (!pthread_create(&tid[started], NULL, worker, p))
			started++;
	return started;
}

int pm_emit_rows(const struct pm_variant_set *vs, pm_emit_row_fn def,
	struct pm_strbuf *b, struct pm_diags *d)
{
	struct row_job jobs[PM_RT_NROLES];
	pthread_t tid[PM_VARIANT_MAX_THREADS];
	struct row_pool p = { .jobs = jobs, .def = def,
		.lock = PTHREAD_MUTEX_INITIALIZER };
	int started, rc = 0;

	p.n = collect(vs, jobs);
	order_jobs(&p);
	started = start(&p, tid, pm_variant_threads(p.n));
	/* the main kernel's context: this thread only, in order */
	for (int i = 0; i < p.n; ++i)
		if (!jobs[i].v->ctx)
			run_job(&jobs[i], def);
	worker(&p);
	for (int i = 0; i < started; ++i)
		pthread_join(tid[i], NULL);
	for (int i = 0; i < p.n; ++i) {
		if (!rc && (jobs[i].r < 0 || jobs[i].b.failed)) {
			pm_diag_internal(d, "%s", *pm_diags_text(&jobs[i].d) ?
				pm_diags_text(&jobs[i].d) : "out of memory");
			rc = -1;
		}
		if (!rc)
			pm_strbuf_add(b, jobs[i].b.s ? jobs[i].b.s : "");
		pm_strbuf_free(&jobs[i].b);
		pm_diags_clear(&jobs[i].d);
	}
	pthread_mutex_destroy(&p.lock);
	return rc;
}

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
		while (p->next < p->n && !p->jobs[p->next].v->ctx)
			p->next++;
		i = p->next < p->n ? p->next++ : -1;
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
	struct row_pool p = { jobs, 0, 0, def, PTHREAD_MUTEX_INITIALIZER };
	int started, rc = 0;

	p.n = collect(vs, jobs);
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

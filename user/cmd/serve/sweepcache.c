/* sweepcache.c - the shared last sweep of the host (sweepcache.h). The
 * sweep hands each result over as it is finished and keeps only its row,
 * so its memory follows the number of processes, not their profiles. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmdclock.h"
#include "cmd/serve/sweepcache.h"

int cache__init(struct cache *c, uint64_t refresh_ms)
{
	c->cur = NULL;
	c->refresh_ns = refresh_ms * 1000000ull;
	return pthread_mutex_init(&c->mu, NULL) ? -1 : 0;
}

void cache__destroy(struct cache *c)
{
	snap__put(c->cur);
	pthread_mutex_destroy(&c->mu);
}

size_t snap__process_end(const struct snap *s, size_t i)
{
	size_t j = i + 1;

	while (j < s->n && s->v[j].pid == s->v[i].pid)
		j++;
	return j;
}

void snap__put(struct snap *s)
{
	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].exe);
		free(s->v[i].runtime_file);
		free(s->v[i].cgroup);
		free(s->v[i].reason);
	}
	free(s->v);
	free(s);
}

struct snap *cache__fresh(struct cache *c)
{
	struct snap *s;

	pthread_mutex_lock(&c->mu);
	s = c->cur;
	if (s && now_ns() - s->taken_ns < c->refresh_ns)
		atomic_fetch_add(&s->refs, 1);
	else
		s = NULL;
	pthread_mutex_unlock(&c->mu);
	return s;
}

struct sweeping {
	struct snap *s;
	struct stats *st;
	bool nomem;
};

#define COPY(dst, src) snprintf((dst), sizeof(dst), "%s", (src))

static void on_result(void *arg, struct gh_result *r)
{
	struct sweeping *w = arg;
	const struct gh_profile *p = r->profile;
	struct snap *s = w->s;
	struct snap_row *row;

	stats__profile(w->st, r);
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 64;
		struct snap_row *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			w->nomem = true;
			return;
		}
		s->v = v;
		s->cap = cap;
	}
	row = &s->v[s->n];
	*row = (struct snap_row){.pid = r->pid,
				 .runtime = p->runtime,
				 .nruntimes = p->nruntimes,
				 .status = p->status,
				 .data = r->err.code == GH_OK ||
					 r->err.code == GH_E_PARTIAL,
				 .nbuckets = p->nbuckets,
				 .period = p->period};
	COPY(row->comm, p->comm);
	COPY(row->container_id, p->container_id);
	COPY(row->container_runtime, p->container_runtime);
	COPY(row->pod_uid, p->pod_uid);
	COPY(row->go_version, p->go_version);
	COPY(row->build_id, p->build_id);
	memcpy(row->total, p->total, sizeof(row->total));
	row->exe = strdup(p->exe);
	row->runtime_file = strdup(p->runtime_file);
	row->cgroup = strdup(p->cgroup);
	row->reason = strdup(row->data ? p->status_reason : r->err.msg);
	/* The counters the collector read right after the profile's
	 * buckets, of the same runtime: /metrics shows both of one moment.
	 * A failure leaves them out; the profile's row stands. */
	row->rt.sz = sizeof(row->rt);
	if (gh_profile__runtime_stats(p, &row->rt, &(struct gh_err){0}) != 0)
		row->rt.has = 0;
	s->n++;
	if (!row->exe || !row->runtime_file || !row->cgroup || !row->reason)
		w->nomem = true;
}

/* Sweep the host into a new snapshot. */
static struct snap *sweep(struct gh_collector *col, const struct gh_select *sel,
			  uint64_t timeout_ms, struct stats *st,
			  struct gh_err *err)
{
	struct sweeping w = {.s = calloc(1, sizeof(struct snap)), .st = st};
	struct gh_select all = *sel;
	struct gh_request rq = {.sz = sizeof(struct gh_request),
				.select = &all,
				.timeout_ms = timeout_ms,
				.result = on_result,
				.result_arg = &w};
	struct gh_results *res = NULL;
	uint64_t t0 = now_ns();

	if (!w.s) {
		*err = (struct gh_err){GH_E_FAILED, "out of memory"};
		return NULL;
	}
	atomic_init(&w.s->refs, 1);
	all.pids = NULL;
	all.npids = 0;
	if (gh_collector__collect(col, &rq, &res, err) || w.nomem) {
		if (w.nomem)
			*err = (struct gh_err){GH_E_FAILED,
					       "out of memory for the sweep"};
		gh_results__free(res);
		stats__sweep(st, false);
		snap__put(w.s);
		return NULL;
	}
	stats__costs(st, res);
	stats__sweep(st, true);
	gh_results__free(res);
	w.s->taken_ns = now_ns();
	w.s->taken_unix = now_unix();
	w.s->duration_s = (w.s->taken_ns - t0) / 1e9;
	return w.s;
}

struct snap *cache__sweep(struct cache *c, struct gh_collector *col,
			  const struct gh_select *sel, uint64_t timeout_ms,
			  struct stats *st, struct gh_err *err)
{
	struct snap *s = cache__fresh(c), *old;

	/* Requests queued behind the sweep that refreshed the cache find
	 * it fresh: one sweep serves them all. */
	if (s)
		return s;
	s = sweep(col, sel, timeout_ms, st, err);
	if (!s)
		return NULL;
	atomic_fetch_add(&s->refs, 1);
	pthread_mutex_lock(&c->mu);
	old = c->cur;
	c->cur = s;
	pthread_mutex_unlock(&c->mu);
	snap__put(old);
	return s;
}

/* collect.c - gh_collector__collect: select the processes, open their Go
 * runtimes (binaries from the cache), give each a profile builder with the
 * sinks the request asks for, read them all (collector.c), finish each
 * profile or say why there is none. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/optsize.h"
#include "collect/collector.h"
#include "collect/kept.h"
#include "goroutine/rtread.h"
#include "profile/profile.h"
#include "profile/rtkept.h"
#include "write/render.h"

/* Threads that build profiles to the end at once, at most. */
#define MAX_BUILDERS 64

/* The jobs of one request, in result order. */
struct collect_jobs {
	struct collect_job **v;
	size_t n, cap;
};

static struct collect_job *add_job(struct collect_jobs *js, int pid,
				   struct target *t)
{
	struct collect_job *j;

	if (js->n == js->cap) {
		size_t cap = js->cap ? 2 * js->cap : 16;
		void *v = realloc(js->v, cap * sizeof(*js->v));

		if (!v)
			return NULL;
		js->v = v;
		js->cap = cap;
	}
	j = calloc(1, sizeof(*j));
	if (!j)
		return NULL;
	j->pid = pid;
	j->t = t;
	j->order = js->n;
	js->v[js->n++] = j;
	return j;
}

static int add_failed(struct collect_jobs *js, int pid,
		      const struct gh_err *err)
{
	struct collect_job *j = add_job(js, pid, NULL);

	if (!j)
		return -1;
	j->err = *err;
	j->failed = true;
	return 0;
}

/* The runtimes of pid the request wants, as jobs; a process without one
 * it may name gives a failed job (USAGE). */
static int add_runtimes(struct collect_jobs *js, const struct gh_select *sel,
			int pid, struct target **ts, size_t n)
{
	struct gh_err err;
	size_t i;

	if (target__pick(ts, n, sel->runtime, &i, &err)) {
		target__free_all(ts, n);
		return add_failed(js, pid, &err);
	}
	for (i = 0; i < n; i++) {
		if (!collector__admits(sel, ts[i])) {
			target__free(ts[i]);
		} else if (!add_job(js, pid, ts[i])) {
			while (i < n)
				target__free(ts[i++]);
			free(ts);
			return -1;
		}
	}
	free(ts);
	return 0;
}

/* Open every selected process. In an enumeration, processes that hold no
 * Go runtime (or are gone by now: a zombie is, its memory with it) are no
 * concern of the request. */
static int open_all(struct gh_collector *c, const struct gh_select *sel,
		    const int *pids, size_t n, bool enumerated,
		    struct collect_jobs *js, struct gh_results *res)
{
	struct target **ts;
	struct gh_err err;
	size_t nt;

	res->examined = n;
	for (size_t i = 0; i < n; i++) {
		if (atomic_load(&c->cancel))
			return 0;
		if (!target__open_all(pids[i], c->bins, &ts, &nt, &err)) {
			if (add_runtimes(js, sel, pids[i], ts, nt))
				return -1;
		} else if (!enumerated ||
			   (err.code != GH_E_NOTGO && err.code != GH_E_NOPROC &&
			    err.code != GH_E_GONE)) {
			if (add_failed(js, pids[i], &err))
				return -1;
		} else {
			res->not_go += err.code == GH_E_NOTGO;
		}
	}
	return 0;
}

/* ---- the caller's sink, as a profile sink ---- */

static int user_sample(void *st, const struct gh_profile *p,
		       const struct gh_sample *s)
{
	const struct gh_sink *u = st;

	return u->sample ? u->sample(u->ctx, p, s) : 0;
}

static void user_reset(void *st)
{
	const struct gh_sink *u = st;

	if (u->reset)
		u->reset(u->ctx);
}

static const struct psink_ops user_ops = {
	.sample = user_sample, .reset = user_reset, .free = free};

/* The sinks rq asks for, for j's profile. */
static int make_sinks(const struct gh_request *rq, const struct collect_job *j,
		      bool own_thread, struct gzmemo *gz, struct psink **out,
		      size_t *n, struct gh_err *err)
{
	struct psink *v = calloc(rq->nrender + 1, sizeof(*v));
	struct gh_profile who = {0};
	struct gh_sink *u;
	size_t i;

	*out = v;
	*n = 0;
	if (!v)
		return err_set(err, GH_E_FAILED, "out of memory");
	for (i = 0; i < rq->nrender; i++, (*n)++) {
		if (render_open(&rq->render[i], own_thread, &v[i], err))
			return -1;
		/* The first pprof renderer keeps the process's pieces. */
		if (gz && rq->render[i].format == GH_FORMAT_PPROF) {
			render_pprof_memo(&v[i], gz);
			gz = NULL;
		}
	}
	if (!rq->sink)
		return 0;
	profile__identify(&who, j->t);
	u = calloc(1, sizeof(*u));
	if (!u)
		return err_set(err, GH_E_FAILED, "out of memory");
	v[(*n)++] = (struct psink){&user_ops, u};
	if (rq->sink(rq->sink_arg, &who, u))
		return err_set(err, GH_E_FAILED,
			       "the request's sink refused process %d", j->pid);
	return 0;
}

/* The list rq's kind reads in j: the block and mutex profiles need their
 * release's row and symbols; j fails with why when it has none. */
static int job_kind(const struct gh_request *rq, struct collect_job *j)
{
	j->kind = rq->kind;
	if (j->kind == GH_KIND_HEAP || j->kind == GH_KIND_GOROUTINE)
		return 0;
	if (!target__contention(j->t, j->kind, &j->cl, &j->err))
		return 0;
	j->failed = true;
	return -1;
}

static int make_view(struct gh_collector *c, const struct gh_request *rq,
		     struct collect_job *j, bool own_thread)
{
	struct view_opts o = {.keep = rq->keep_samples,
			      .ids = c->ids,
			      .kind = j->kind,
			      .cl = j->cl};
	struct gzmemo *gz = NULL;

	if (c->o.keep_stacks) {
		o.memo = kept__memo(c->kept, j->t);
		if (j->kind == GH_KIND_HEAP)
			gz = kept__gzmemo(c->kept, j->t);
	}
	if (make_sinks(rq, j, own_thread, gz, &o.sinks, &o.nsinks, &j->err)) {
		psinks_free(o.sinks, o.nsinks);
		j->failed = true;
		return -1;
	}
	/* The view takes the sinks over, failing or not. */
	if (view__new(j->t, &o, &j->view, &j->err)) {
		j->failed = true;
		return -1;
	}
	return 0;
}

/* ---- results ---- */

/* Add text (when there is some) to the notes in buf, "; " between. */
static void append_note(char *buf, size_t size, const char *text)
{
	size_t n = strlen(buf);

	if (*text && n + 1 < size)
		snprintf(buf + n, size - n, "%s%s", n ? "; " : "", text);
}

/* A complete read whose counters come from several GC cycles is usable,
 * and says so. */
static void mark_cycles(struct gh_profile *p, unsigned cycles)
{
	p->gc_cycles = cycles ? cycles : 1;
	if (p->gc_cycles == 1 || p->status != GH_SNAP_COMPLETE)
		return;
	p->status = GH_SNAP_MIXED;
	snprintf(p->status_reason, sizeof(p->status_reason),
		 "the counters come from %u GC cycles: the process collects "
		 "faster than it can be read (each read saw a cycle end)",
		 p->gc_cycles);
}

/* j's profile, built to the end (or why it cannot be); a goroutine
 * profile is whole once read. */
static void build(struct collect_job *j)
{
	if (!j->t || j->failed || j->p)
		return;
	if (!j->view)
		j->p = profile__counted(j->t, j->s);
	else if (view__finish(j->view, j->s, &j->p, &j->err))
		j->failed = true;
}

/* Jobs built to the end by several threads at once. */
struct builders {
	struct collect_job **v;
	size_t n;
	atomic_size_t next;
};

static void *build_some(void *arg)
{
	struct builders *b = arg;
	size_t i;

	while ((i = atomic_fetch_add(&b->next, 1)) < b->n)
		build(b->v[i]);
	return NULL;
}

/* Build v[0..n) to the end on up to `workers` threads (this one among
 * them): a build's last steps - the rest of its locations, its renderers'
 * final compression - take about a millisecond even for a small profile,
 * and a sweep finishes hundreds. Any thread that cannot start leaves its
 * share to the others. */
static void build_all(const struct gh_collector *c, struct collect_job **v,
		      size_t n)
{
	struct builders b = {v, n, 0};
	pthread_t th[MAX_BUILDERS];
	size_t k = 0, want = c->o.workers < n ? c->o.workers : n;

	if (want > MAX_BUILDERS)
		want = MAX_BUILDERS;
	while (k + 1 < want && !pthread_create(&th[k], NULL, build_some, &b))
		k++;
	build_some(&b);
	while (k)
		pthread_join(th[--k], NULL);
}

static void finish(struct gh_collector *c, struct collect_job *j,
		   struct gh_result *r)
{
	r->pid = j->pid;
	if (!j->failed && !j->p) {
		err_set(&j->err, GH_E_FAILED, "out of memory");
		j->failed = true;
	}
	if (!j->failed) {
		snprintf(j->p->backend, sizeof(j->p->backend), "%s",
			 backends[j->backend]->name);
		snprintf(j->p->backend_notes, sizeof(j->p->backend_notes), "%s",
			 j->notes);
		append_note(j->p->backend_notes, sizeof(j->p->backend_notes),
			    j->s ? j->s->note : "");
		append_note(j->p->backend_notes, sizeof(j->p->backend_notes),
			    j->p->x ? j->p->x->notes : "");
		mark_cycles(j->p, j->gc_cycles);
		r->err.code =
			j->p->status == GH_SNAP_PARTIAL ? GH_E_PARTIAL : GH_OK;
		snprintf(r->err.msg, sizeof(r->err.msg), "%s",
			 j->p->status_reason);
	} else {
		gh_profile__free(j->p);
		j->p = profile__nodata(j->pid, j->t, &j->err);
		if (j->p && j->p->x)
			j->p->x->kind = j->kind;
		r->err = j->err;
	}
	if (j->p)
		profile__set_runtime(j->p, &j->rt, &j->rt_err);
	r->profile = j->p;
	j->p = NULL;
	view__free(j->view);
	snapshot__free(j->s);
	target__free(j->t);
	(void)c;
}

static void jobs_free(struct collect_jobs *js)
{
	for (size_t i = 0; i < js->n; i++) {
		view__free(js->v[i]->view);
		snapshot__free(js->v[i]->s);
		target__free(js->v[i]->t);
		gh_profile__free(js->v[i]->p);
		free(js->v[i]);
	}
	free(js->v);
}

/* The goroutine profile is read whole, its samples kept: no sink, no
 * bucket count, no perf, no legacy text (its debug=1 text is
 * gh_goroutines__write's). */
static int check_goroutine(const struct gh_collector *c,
			   const struct gh_request *rq, struct gh_err *err)
{
	if (c->o.backend == GH_BACKEND_PERF)
		return err_set(err, GH_E_USAGE,
			       "the goroutine profile is read by the iter or "
			       "the procmem backend, not perf");
	if (rq->sink || rq->count_only)
		return err_set(err, GH_E_USAGE,
			       "a goroutine profile request takes no sink "
			       "and no count_only: its samples are kept");
	for (size_t i = 0; i < rq->nrender; i++)
		if (rq->render[i].format == GH_FORMAT_LEGACY)
			return err_set(err, GH_E_USAGE,
				       "a goroutine profile request renders no "
				       "legacy text: use gh_goroutines__write "
				       "with debug 1");
	return 0;
}

static int check_request(const struct gh_collector *c,
			 const struct gh_request *rq, struct gh_err *err)
{
	if (rq->kind == GH_KIND_GOROUTINE && check_goroutine(c, rq, err))
		return -1;
	if (!gh_kind__name(rq->kind))
		return err_set(err, GH_E_USAGE,
			       "the request names an unknown profile kind %d",
			       (int)rq->kind);
	for (size_t i = 0; i < rq->nrender; i++)
		if (!gh_format__name(rq->render[i].format) ||
		    !gh_value__name(rq->render[i].index))
			return err_set(err, GH_E_USAGE,
				       "the request's render list names an "
				       "unknown format or sample index");
	return 0;
}

/* Jobs read and finished at once when results are handed over one by one
 * (gh_request.result): the profiles being built, so the collector's
 * memory follows this, not the number of processes. */
#define WINDOW 64

/* The runtime's own counters of every runtime opened (also one whose
 * profile is disabled or refused), a few reads each, right after the
 * buckets: a profile and its counters are of one moment. */
static void read_counters(const struct gh_request *rq, struct collect_jobs *js,
			  size_t from, size_t to)
{
	for (size_t i = from; i < to; i++) {
		struct collect_job *j = js->v[i];

		j->rt = (struct gh_runtime_stats){.sz = sizeof(j->rt)};
		j->rt_err = (struct gh_err){GH_E_NODATA, ""};
		if (j->t && !rq->count_only &&
		    target__read_runtime_stats(j->t, &j->rt, &j->rt_err) == 0)
			j->rt_err = (struct gh_err){GH_OK, ""};
	}
}

/* Read jobs [from, to) that could be opened, then finish them in order:
 * into res, or to rq->result. */
static int run_window(struct gh_collector *c, const struct gh_request *rq,
		      struct collect_jobs *js, size_t from, size_t to,
		      struct gh_results *res, struct read_ctl *ctl)
{
	struct collect_job **live = calloc(to - from, sizeof(*live));
	struct gh_result r;
	size_t i, n = 0;

	if (!live)
		return -1;
	for (i = from; i < to; i++)
		if (js->v[i]->t && !js->v[i]->failed &&
		    !job_kind(rq, js->v[i]) &&
		    (rq->count_only || rq->kind == GH_KIND_GOROUTINE ||
		     !make_view(c, rq, js->v[i], js->n == 1)))
			live[n++] = js->v[i];
	if (rq->kind == GH_KIND_GOROUTINE)
		collector__goroutines(c, live, n, ctl);
	else
		collector__read(c, live, n, ctl);
	read_counters(rq, js, from, to);
	build_all(c, live, n);
	free(live);
	for (i = from; i < to; i++) {
		finish(c, js->v[i], &r);
		js->v[i]->view = NULL;
		js->v[i]->s = NULL;
		js->v[i]->t = NULL;
		if (!r.profile)
			return -1;
		if (rq->result) {
			rq->result(rq->result_arg, &r);
			gh_profile__free(r.profile); /* unless taken */
		} else {
			res->v[res->n++] = r;
		}
	}
	return 0;
}

/* Every job, in windows when results are handed over as they come. */
static int run(struct gh_collector *c, const struct gh_request *rq,
	       struct collect_jobs *js, struct gh_results *res,
	       struct read_ctl *ctl)
{
	size_t window = rq->result ? WINDOW : js->n, i;

	if (!rq->result &&
	    !(res->v = calloc(js->n ? js->n : 1, sizeof(*res->v))))
		return -1;
	for (i = 0; i < js->n; i += window)
		if (run_window(c, rq, js, i,
			       i + window < js->n ? i + window : js->n, res,
			       ctl))
			return -1;
	return 0;
}

/* A request as the library reads it: the caller's, by its sz, and what it
 * points to (selection, bounds, render list) copied by theirs. */
struct req {
	struct gh_request rq; /* select, bounds, render: the copies below */
	struct gh_select select;
	struct gh_bounds bounds;
	struct gh_write_opts *render;
};

static int req__load(struct req *q, const struct gh_request *caller,
		     struct gh_err *err)
{
	const struct gh_write_opts *v;
	size_t stride;

	q->render = NULL;
	if (OPTS_LOAD(&q->rq, caller, "gh_request", err) ||
	    OPTS_LOAD(&q->select, q->rq.select, "gh_select", err) ||
	    OPTS_LOAD(&q->bounds, q->rq.bounds, "gh_bounds", err))
		return -1;
	q->rq.select = &q->select;
	q->rq.bounds = &q->bounds;
	v = q->rq.render;
	if (!q->rq.nrender)
		return 0;
	if (opts__check(v, sizeof(*v), "gh_write_opts", err))
		return -1;
	stride = v->sz;
	q->render = calloc(q->rq.nrender, sizeof(*q->render));
	if (!q->render)
		return err_set(err, GH_E_FAILED, "out of memory");
	for (size_t i = 0; i < q->rq.nrender; i++)
		if (OPTS_LOAD(&q->render[i],
			      (const void *)((const char *)v + i * stride),
			      "gh_write_opts", err))
			return -1;
	q->rq.render = q->render;
	return 0;
}

int gh_collector__collect(struct gh_collector *c,
			  const struct gh_request *caller,
			  struct gh_results **out, struct gh_err *err)
{
	uint64_t t0 = clock_mono_ns();
	struct read_ctl ctl = {.cancel = &c->cancel};
	const struct gh_request *rq;
	struct gh_results *res;
	struct collect_jobs js = {0};
	struct preopen pre;
	size_t parsed = bincache__parses(c->bins), npids;
	size_t hits = bincache__hits(c->bins);
	struct req q;
	bool enumerated, opened;
	int *pids, rc = -1;

	*out = NULL;
	atomic_store(&c->cancel, 0);
	c->loads = 0;
	c->read_ns = 0;
	rq = &q.rq;
	if (req__load(&q, caller, err) || check_request(c, rq, err) ||
	    collector__select(rq->select, &pids, &npids, &enumerated, err)) {
		free(q.render);
		return -1;
	}
	collector__bounds(c, rq->bounds);
	if (rq->timeout_ms)
		ctl.deadline_ns = t0 + rq->timeout_ms * 1000000u;
	collector__preopen(c, rq->kind, &pre);
	res = calloc(1, sizeof(*res));
	opened = res &&
		 !open_all(c, rq->select, pids, npids, enumerated, &js, res);
	if (res)
		res->open_ms = (clock_mono_ns() - t0) / 1e6;
	collector__preopen_join(&pre);
	if (!opened)
		goto done;
	if (rq->opened)
		rq->opened(rq->opened_arg, js.n);
	if (run(c, rq, &js, res, &ctl))
		goto done;
	if (c->o.keep_stacks)
		kept__trim(c->kept);
	res->bpf_loads = c->loads;
	res->iter_passes = ctl.passes;
	res->binaries_parsed = (unsigned)(bincache__parses(c->bins) - parsed);
	res->binaries_cached = (unsigned)(bincache__hits(c->bins) - hits);
	res->kept_bytes = c->o.keep_stacks ? kept__bytes(c->kept) : 0;
	res->read_ms = c->read_ns / 1e6;
	res->duration_ms = (clock_mono_ns() - t0) / 1e6;
	*out = res;
	res = NULL;
	rc = 0;
done:
	if (rc)
		err_set(err, GH_E_FAILED, "out of memory");
	gh_results__free(res);
	jobs_free(&js);
	free(pids);
	free(q.render);
	return rc;
}

void gh_results__free(struct gh_results *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		gh_profile__free(r->v[i].profile);
	free(r->v);
	free(r);
}

enum gh_status gh_results__status(const struct gh_results *r)
{
	enum gh_status st = GH_OK;

	for (size_t i = 0; i < r->n; i++) {
		enum gh_status c = r->v[i].err.code;

		/* The first failure decides; partial only if none failed. */
		if (c != GH_OK && (st == GH_OK || st == GH_E_PARTIAL))
			st = c;
	}
	return st;
}

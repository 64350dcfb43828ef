/* collector.c - a collector's life (its backends, opened when a request
 * first needs one and kept; its caches) and how a request's jobs are read:
 * with the chosen backend, or for AUTO the first that opens and can read
 * each job, re-read while a GC cycle ended during the read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/optsize.h"
#include "collect/collector.h"
#include "collect/kept.h"
#include "gobin/contention.h"
#include "profile/counts.h"
#include "read/gpass.h"
#include "read/procmem.h"

/* Cache bounds (gh_collector_opts, libgoheap(3)). */
#define DEFAULT_MAX_BINARIES   64
#define DEFAULT_MAX_KEPT_BYTES (256u << 20)
/* Default bounds (gh_bounds). A list longer than 16M buckets is cut
 * (partial): that is far beyond any real heap profile (a 1M-bucket
 * profile already holds ~300 MiB of buckets in the target), and bounds
 * the collector's memory. perf's walk runs in the target's own threads:
 * 500 ms of their CPU walks about 3M buckets. */
#define MAX_BUCKETS   (16u << 20)
#define MAX_TARGET_MS 500
/* Reads of a process while GC cycles keep ending during them: the last
 * one starts right after a cycle boundary (waiting at most
 * BOUNDARY_WAIT_MS for it, looking every BOUNDARY_POLL_US). */
#define READ_TRIES	 3
#define BOUNDARY_WAIT_MS 2000
#define BOUNDARY_POLL_US 200

const char *gh_lib__version(void)
{
	return GOHEAP_VERSION;
}

int gh_collector__new(const struct gh_collector_opts *o,
		      struct gh_collector **out, struct gh_err *err)
{
	struct gh_collector_opts lo;
	struct gh_collector *c;

	*out = NULL;
	if (OPTS_LOAD(&lo, o, "gh_collector_opts", err))
		return -1;
	if ((unsigned)lo.backend > GH_BACKEND_PROCMEM)
		return err_set(err, GH_E_USAGE, "unknown backend %d",
			       (int)lo.backend);
	c = calloc(1, sizeof(*c));
	if (!c)
		return err_set(err, GH_E_FAILED, "out of memory");
	c->o = lo;
	if (!c->o.max_binaries)
		c->o.max_binaries = DEFAULT_MAX_BINARIES;
	if (!c->o.max_kept_bytes)
		c->o.max_kept_bytes = DEFAULT_MAX_KEPT_BYTES;
	if (!c->o.workers) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		c->o.workers = n > 0 ? (unsigned)n : 1;
	}
	c->env = (struct backend_env){c->o.debug, c->o.debug_arg};
	atomic_init(&c->cancel, 0);
	c->bins = bincache__new(c->o.max_binaries);
	c->ids = buildids__new();
	c->kept = kept__new(c->o.max_kept_bytes);
	if (!c->bins || !c->ids || !c->kept) {
		gh_collector__free(c);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	*out = c;
	return 0;
}

void gh_collector__free(struct gh_collector *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < nbackends; i++)
		if (c->slots[i].state)
			backends[i]->free(c->slots[i].state);
	gpass__free(c->gpass.state);
	kept__free(c->kept);
	buildids__free(c->ids);
	bincache__free(c->bins);
	free(c);
}

void gh_collector__cancel(struct gh_collector *c)
{
	atomic_store(&c->cancel, 1);
}

/* s, opened with open when first asked for (a BPF object, counted in
 * c->loads, when bpf); NULL with why in *err (unless NULL) when it cannot
 * be. */
static void *slot_open(struct gh_collector *c, struct slot *s,
		       int (*open)(void **state, const struct backend_env *env,
				   struct gh_err *err),
		       bool bpf, struct gh_err *err)
{
	if (!s->tried) {
		s->tried = true;
		if (open(&s->state, &c->env, &s->err))
			s->state = NULL;
		else if (bpf)
			c->loads++;
	}
	if (!s->state && err)
		*err = s->err;
	return s->state;
}

size_t collector__first_backend(const struct gh_collector *c)
{
	return c->o.backend == GH_BACKEND_AUTO ? 0 : (size_t)c->o.backend - 1;
}

void *collector__backend(struct gh_collector *c, size_t i, struct gh_err *err)
{
	return slot_open(c, &c->slots[i], backends[i]->open,
			 backends[i] != &backend_procmem, err);
}

static int open_gpass(void **state, const struct backend_env *env,
		      struct gh_err *err)
{
	return gpass__open((struct gpass **)state, env, err);
}

struct gpass *collector__gpass(struct gh_collector *c, struct gh_err *err)
{
	return slot_open(c, &c->gpass, open_gpass, true, err);
}

/* ---- reading ---- */

static void add_note(struct collect_job *j, const char *name,
		     const struct gh_err *why)
{
	size_t n = strlen(j->notes);

	if (!j->first_code)
		j->first_code = why->code;
	snprintf(j->notes + n, sizeof(j->notes) - n, "%s%s: %s", n ? "; " : "",
		 name, why->msg);
}

static void fail(struct collect_job *j, const struct gh_err *err)
{
	j->err = *err;
	j->failed = true;
}

static void fail_nomem(struct collect_job *j)
{
	struct gh_err err;

	err_set(&err, GH_E_FAILED, "out of memory");
	fail(j, &err);
}

/* GC cycles that ended while j's list was walked: its counters are one
 * cycle's only when none did (Go reads them under its profile lock; we
 * read again instead). A flush within a cycle changes nothing published. */
static unsigned cycles_ended(const struct collect_job *j)
{
	const struct snapshot *s = j->s;
	const struct layout *L = j->t->go->layout;
	uint32_t bit = 1u << GH_VAR_CYCLE;

	/* The block and mutex records are not published by GC cycles. */
	if (j->kind != GH_KIND_HEAP || (s->var_err | s->var_err_end) & bit)
		return 0;
	return counts_cycle(L, s->vars_end[GH_VAR_CYCLE]) -
	       counts_cycle(L, s->vars[GH_VAR_CYCLE]);
}

/* Wait until j's process starts a new GC cycle (or BOUNDARY_WAIT_MS, or
 * the deadline): a read that starts then has a whole cycle to finish in. */
static void await_boundary(const struct collect_job *j,
			   const struct read_ctl *ctl)
{
	const struct timespec nap = {0, BOUNDARY_POLL_US * 1000};
	uint64_t until = clock_mono_ns() + BOUNDARY_WAIT_MS * 1000000ull;
	uint64_t addr = j->t->vars[GH_VAR_CYCLE], first, now;
	const struct layout *L = j->t->go->layout;

	if (j->kind != GH_KIND_HEAP)
		return;
	if (ctl->deadline_ns && ctl->deadline_ns < until)
		until = ctl->deadline_ns;
	if (procmem_peek(j->pid, addr, &first, sizeof(first)))
		return;
	do {
		nanosleep(&nap, NULL);
		if (procmem_peek(j->pid, addr, &now, sizeof(now)) ||
		    read_ctl__stop(ctl))
			return;
	} while (counts_cycle(L, now) == counts_cycle(L, first) &&
		 clock_mono_ns() < until);
}

/* Buckets read only to be counted (gh_request.count_only). */
static int count_bucket(void *ctx, const struct snapshot *s,
			const struct bucket *b, const uint64_t *stk)
{
	(void)ctx;
	(void)s;
	(void)b;
	(void)stk;
	return 0;
}

/* The block or mutex list instead of the heap's: its head, records and
 * the variables its profile needs (goheap_record.h's GH_VAR_BM_*); its
 * stacks are not kept across reads. */
static void contention_req(const struct collect_job *j, struct read_req *req)
{
	const struct target *t = j->t;
	int i = j->kind == GH_KIND_MUTEX;

	req->mbuckets = t->bm_head[i];
	req->typ = i ? GO_MUTEX_PROFILE : GO_BLOCK_PROFILE;
	req->rec_bytes = GO_BLOCK_RECORD_BYTES;
	req->known = NULL;
	memset(req->vars, 0, sizeof(req->vars));
	req->vars[GH_VAR_BM_RATE] = t->bm_rate[i];
	req->vars[GH_VAR_BM_TICKS] = t->ticks + j->cl->ticks_val;
	if (j->cl->ticks_start_ticks) {
		req->vars[GH_VAR_BM_START_TICKS] =
			t->ticks + j->cl->ticks_start_ticks;
		req->vars[GH_VAR_BM_START_TIME] =
			t->ticks + j->cl->ticks_start_time;
	}
}

/* A fresh snapshot for j, feeding its view on the pool. */
static int prepare(struct gh_collector *c, struct collect_job *j,
		   struct buildpool *pool, struct read_job *rj)
{
	const struct target *t = j->t;

	snapshot__free(j->s);
	j->s = snapshot__new();
	if (!j->s)
		return -1;
	if (j->view) {
		view__restart(j->view);
		snapshot__set_sink(j->s, view__add, view__restart, j->view);
		if (pool)
			snapshot__sink_on_pool(j->s, pool);
	} else {
		snapshot__set_sink(j->s, count_bucket, NULL, NULL);
	}
	*rj = (struct read_job){.s = j->s};
	rj->req = (struct read_req){
		.pid = t->pid,
		.mbuckets = t->mbuckets,
		.nstk_max = t->go->layout->nstk_max,
		.rec_bytes = t->go->layout->rec_bytes,
		.max_buckets = c->bounds.max_buckets,
		.max_bytes = c->bounds.max_read_bytes,
		.cpu_budget_ns = c->bounds.max_target_ms * 1000000,
		.known = c->o.keep_stacks ? kept__for(c->kept, t) : NULL,
	};
	if (c->bounds.max_stack_depth &&
	    c->bounds.max_stack_depth < rj->req.nstk_max) {
		rj->req.nstk_max = c->bounds.max_stack_depth;
		rj->req.nstk_bound = true;
	}
	memcpy(rj->req.vars, t->vars, sizeof(rj->req.vars));
	if (j->kind != GH_KIND_HEAP)
		contention_req(j, &rj->req);
	return 0;
}

enum outcome { READ_DONE, READ_AGAIN, READ_NEXT, READ_FAILED };

/* What to do with j after a read by backend b. A read the request's
 * cancel or deadline stopped moves on to no other backend: each would
 * stop at once, after its load. */
static enum outcome judge(struct gh_collector *c, struct collect_job *j,
			  size_t b, struct read_job *rj,
			  const struct read_ctl *ctl)
{
	struct gh_err err;

	if (snapshot__sync(j->s)) {
		err_set(&err, GH_E_FAILED,
			"out of memory building the "
			"profile");
		fail(j, &err);
		return READ_FAILED;
	}
	/* Gone since it was opened: that explains any failure (perf, its
	 * PID given to an idle process, would time out: 13), and voids any
	 * profile read. */
	if ((!rj->rc || rj->err.code != GH_E_GONE) &&
	    target__check_alive(j->t, &err)) {
		fail(j, &err);
		return READ_FAILED;
	}
	if (rj->rc) {
		if (c->o.backend == GH_BACKEND_AUTO &&
		    rj->err.code != GH_E_GONE && b + 1 < nbackends &&
		    !read_ctl__stop(ctl)) {
			add_note(j, backends[b]->name, &rj->err);
			return READ_NEXT;
		}
		fail(j, &rj->err);
		return READ_FAILED;
	}
	return cycles_ended(j) ? READ_AGAIN : READ_DONE;
}

/* One read of v[0..n) with backend b. Returns how many of them must be
 * read again (a GC cycle ended meanwhile), moved to the front of v; jobs
 * that move on to the next backend get j->backend = b + 1. */
static size_t read_round(struct gh_collector *c, size_t b, void *state,
			 struct collect_job **v, size_t n,
			 struct buildpool *pool, struct read_ctl *ctl)
{
	struct read_job *rj = calloc(n ? n : 1, sizeof(*rj));
	struct gh_err err;
	uint64_t t0;
	size_t i, k;

	for (i = k = 0; i < n; i++) {
		/* Gone since it was opened: nothing to read. */
		if (target__check_alive(v[i]->t, &err))
			fail(v[i], &err);
		else if (rj && prepare(c, v[i], pool, &rj[k]) == 0)
			v[k++] = v[i];
		else
			fail_nomem(v[i]);
	}
	t0 = clock_mono_ns();
	backends[b]->read(state, rj, k, ctl);
	c->read_ns += clock_mono_ns() - t0;
	for (i = 0, n = k, k = 0; i < n; i++) {
		v[i]->s->read_ms = (clock_mono_ns() - t0) / 1e6;
		switch (judge(c, v[i], b, &rj[i], ctl)) {
		case READ_AGAIN:
			v[k++] = v[i];
			break;
		case READ_NEXT:
			v[i]->backend = b + 1;
			break;
		default:
			break;
		}
	}
	free(rj);
	return k;
}

/* Read v[0..n) with backend b until each read falls within one GC cycle:
 * a second read at once (the cycle that just ended leaves a whole one),
 * the last right after a boundary, one process at a time. A process that
 * collects faster than that is left with the last read, its counters
 * from several cycles (gc_cycles, status mixed). */
static void read_with(struct gh_collector *c, size_t b, void *state,
		      struct collect_job **v, size_t n, struct buildpool *pool,
		      struct read_ctl *ctl)
{
	size_t i, k;

	for (i = 0; i < n; i++)
		v[i]->gc_cycles = 1;
	for (int try = 0; n && try < READ_TRIES - 1; try++)
		n = read_round(c, b, state, v, n, pool, ctl);
	for (i = k = 0; i < n; i++) {
		await_boundary(v[i], ctl);
		if (read_round(c, b, state, &v[i], 1, pool, ctl))
			v[k++] = v[i];
	}
	for (i = 0; i < k; i++)
		v[i]->gc_cycles = 1 + cycles_ended(v[i]);
}

/* The backends tried for j are used up: the last failed to open. */
static void no_backend(struct gh_collector *c, struct collect_job *j,
		       const struct gh_err *err)
{
	struct gh_err all;

	if (c->o.backend != GH_BACKEND_AUTO) {
		fail(j, err);
		return;
	}
	/* The first failure's class: what kept the preferred one away. */
	err_set(&all, j->first_code, "no backend could read: %s", j->notes);
	fail(j, &all);
}

void collector__bounds(struct gh_collector *c, const struct gh_bounds *b)
{
	c->bounds = *b;
	if (!c->bounds.max_buckets)
		c->bounds.max_buckets = MAX_BUCKETS;
	if (!c->bounds.max_target_ms)
		c->bounds.max_target_ms = MAX_TARGET_MS;
}

/* The request was cancelled or its deadline passed: v[0..n) fail with
 * why, and no backend is loaded for them. */
static bool stopped(struct collect_job **v, size_t n,
		    const struct read_ctl *ctl)
{
	const char *why = read_ctl__stop(ctl);
	struct gh_err err;

	for (size_t i = 0; why && i < n; i++) {
		read_ctl__err(why, v[i]->pid, &err);
		fail(v[i], &err);
	}
	return why != NULL;
}

void collector__read(struct gh_collector *c, struct collect_job **jobs,
		     size_t n, struct read_ctl *ctl)
{
	struct collect_job **v = calloc(n ? n : 1, sizeof(*v));
	struct buildpool *pool = NULL;
	struct gh_err err;
	unsigned workers = c->o.workers < n ? c->o.workers : (unsigned)n;
	uint64_t t0;
	size_t b, i, k;
	void *state;

	/* Without a pool, each profile is built on the reading thread. */
	if (n && buildpool__new(workers, &pool))
		pool = NULL;
	for (i = 0; i < n; i++)
		jobs[i]->backend = collector__first_backend(c);
	for (b = collector__first_backend(c); v && b < nbackends; b++) {
		for (i = k = 0; i < n; i++)
			if (!jobs[i]->failed && !jobs[i]->p &&
			    jobs[i]->backend == b)
				v[k++] = jobs[i];
		if (!k)
			continue;
		if (stopped(v, k, ctl))
			break;
		t0 = clock_mono_ns();
		state = collector__backend(c, b, &err);
		c->read_ns += clock_mono_ns() - t0;
		if (state) {
			read_with(c, b, state, v, k, pool, ctl);
			continue;
		}
		for (i = 0; i < k; i++) {
			add_note(v[i], backends[b]->name, &err);
			if (c->o.backend == GH_BACKEND_AUTO &&
			    b + 1 < nbackends)
				v[i]->backend = b + 1;
			else
				no_backend(c, v[i], &err);
		}
	}
	/* The pool goes before the snapshots do. */
	for (i = 0; i < n; i++)
		if (jobs[i]->s)
			snapshot__leave_pool(jobs[i]->s);
	buildpool__free(pool);
	free(v);
}

/* watchsnap.c - a step's snapshots: the processes due taken in one
 * request (samples kept: the pprof carries the context as comments),
 * each result added to its runtime's leak series, and written into the
 * watch's directory with its trigger's context and likely leaks, and,
 * when the goroutine trigger fired, the process's goroutine profile
 * beside it; an at-peak one only when its in-use bytes reach a new
 * maximum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/err.h"
#include "watch/memevent.h"
#include "watch/watchsnap.h"
#include "watch/watchstate.h"

/* The leak series of prof's runtime of p; NULL past TRIG_RUNTIMES. */
static struct leak_series **series(struct wproc *p,
				   const struct gh_profile *prof)
{
	size_t rt = prof->runtime;

	return rt >= 1 && rt <= TRIG_RUNTIMES ? &p->leaks[rt - 1] : NULL;
}

/* The context of a snapshot of d's process, runtime r's result. */
static void fill_event(const struct watch_due *d, const struct gh_profile *prof,
		       bool peak, struct gh_watch_event *ev)
{
	unsigned t = 0;

	memset(ev, 0, sizeof(*ev));
	ev->pid = prof->pid;
	snprintf(ev->comm, sizeof(ev->comm), "%s", prof->comm);
	ev->runtime = prof->runtime;
	/* the first that fired names it; at-peak and OOM are never among
	 * d's */
	while (!peak && t < GH_TRIGGER_GOROUTINES &&
	       (t == GH_TRIGGER_PEAK || t == GH_TRIGGER_OOM ||
		!(d->fired & (1u << t))))
		t++;
	ev->trigger = peak ? GH_TRIGGER_PEAK : (enum gh_trigger)t;
	ev->fired = peak ? 1u << GH_TRIGGER_PEAK : d->fired;
	if (peak)
		snprintf(ev->reason, sizeof(ev->reason),
			 "in-use bytes reached a new maximum, %lld",
			 (long long)prof->total[GH_INUSE_SPACE]);
	else
		snprintf(ev->reason, sizeof(ev->reason), "%s", d->why);
	ev->time_ns = d->when_ns;
	ev->rss = d->m.rss;
	ev->pss = d->m.pss;
	ev->cgroup_version = d->m.cgroup_version;
	snprintf(ev->cgroup_dir, sizeof(ev->cgroup_dir), "%s", d->m.cgroup_dir);
	ev->cgroup_usage = d->m.cgroup_usage;
	ev->cgroup_limit = d->m.cgroup_limit;
	memevent_pressure_felt(d->m.cgroup_version, d->m.cgroup_dir,
			       ev->pressure, sizeof(ev->pressure));
	ev->inuse_space = prof->total[GH_INUSE_SPACE];
	ev->status = prof->status;
}

/* The goroutine profile of d's process, when its goroutine trigger fired
 * (the executable's Go runtime: its first result only); NULL, said
 * through problem, when it cannot be read. A partial one is kept: its
 * reason is in its header. */
static struct gh_profile *goroutines_for(struct gh_watch *w,
					 const struct watch_due *d,
					 const struct gh_profile *prof,
					 bool peak)
{
	GH_OPTS(gh_goroutine_opts, go, .debug = 0);
	struct gh_profile *g = NULL;
	struct gh_err err;

	if (peak || !(d->fired & TRIG_GOROUTINES) || prof->runtime > 1)
		return NULL;
	if (gh_goroutines__read(prof->pid, &go, &g, &err) &&
	    err.code != GH_E_PARTIAL && w->o.problem)
		w->o.problem(w->o.arg, prof->pid, &err);
	return g;
}

static bool write_one(struct gh_watch *w, const struct watch_due *d,
		      const struct gh_profile *prof, bool peak)
{
	struct gh_watch_event ev;
	struct leak_series **ser;
	struct gh_profile *g;
	struct gh_err err;
	int rc;

	if (w->stop)
		return false;
	fill_event(d, prof, peak, &ev);
	if ((ser = series(d->p, prof)))
		ev.nleaks = leaks_rank(*ser, prof, ev.leaks, GH_WATCH_LEAKS);
	g = goroutines_for(w, d, prof, peak);
	rc = watchdir__add(w->dir, prof, g, &ev, &err);
	gh_profile__free(g);
	if (rc) {
		if (w->o.problem)
			w->o.problem(w->o.arg, ev.pid, &err);
		return false;
	}
	if (w->o.written)
		w->o.written(w->o.arg, &ev);
	return true;
}

/* What one result of the snapshots' request becomes. */
static void take(struct gh_watch *w, struct watch_due *d,
		 const struct gh_result *r)
{
	const struct gh_profile *prof = r->profile;
	int64_t inuse = prof->total[GH_INUSE_SPACE];
	struct leak_series **s;

	if (r->err.code != GH_OK && r->err.code != GH_E_PARTIAL) {
		if (w->o.problem && r->err.code != GH_E_GONE && !w->stop)
			w->o.problem(w->o.arg, r->pid, &r->err);
		return;
	}
	/* every snapshot joins the series, written or not (at-peak reads);
	 * out of memory, it starts over: a series missing a step names no
	 * leak */
	if ((s = series(d->p, prof)) && leaks_add(s, w->o.leak_window, prof)) {
		leaks_free(*s);
		*s = NULL;
	}
	if (d->fired && write_one(w, d, prof, false))
		d->wrote = true;
	if (d->peak && trig_peak(&d->p->ts, prof->runtime, inuse) &&
	    write_one(w, d, prof, true))
		trig_peak_wrote(&d->p->ts, prof->runtime, inuse);
}

int watch__snapshot(struct gh_watch *w, struct watch_due *due, size_t n,
		    struct gh_err *err)
{
	int *pids = calloc(n, sizeof(*pids));
	GH_OPTS(gh_select, sel, .runtime = w->select.runtime);
	GH_OPTS(gh_request, rq, .select = &sel, .bounds = &w->bounds,
		.keep_samples = true, .timeout_ms = w->o.timeout_ms);
	struct gh_results *res;
	uint64_t now;

	if (!pids)
		return err_set(err, GH_E_FAILED, "out of memory");
	for (size_t i = 0; i < n; i++)
		pids[i] = due[i].p->pid;
	sel.pids = pids;
	sel.npids = n;
	if (gh_collector__collect(w->c, &rq, &res, err)) {
		free(pids);
		return -1;
	}
	now = watch_now_ms();
	for (size_t i = 0, k = 0; i < res->n; i++) {
		while (k < n && due[k].p->pid != res->v[i].pid)
			k++;
		if (k == n)
			break;
		take(w, &due[k], &res->v[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (due[i].wrote)
			trig_wrote(&due[i].p->ts, &w->o, due[i].fired, now);
	gh_results__free(res);
	free(pids);
	return 0;
}

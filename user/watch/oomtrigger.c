/* oomtrigger.c - a watch's OOM trigger: a gh_oom_watch over the watched
 * processes (each registered as the scan picks it up, and removed when
 * the scan drops it while it lives; one that exited is dropped by the
 * OOM watch itself, after its victim, if any, is handed over), its
 * descriptor polled with the watch's event sources, and each victim's
 * profile written into the output directory as any trigger's snapshot,
 * with the kill's context. In the library's gh_watch, not in a front
 * end, so that every front end gets it. */
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "collect/collector.h"
#include "oom/oomcapture.h"
#include "proc/proc.h"
#include "watch/memevent.h"
#include "watch/oomtrigger.h"
#include "watch/watchstate.h"

/* How long a step drains the ring buffer once a kill was recorded: the
 * records of a walk under way wake no one (gh_oom_watch__poll). */
#define DRAIN_MS 100

/* The victim's snapshot context, from its kill. */
static void oom_event(struct gh_watch *w, const struct gh_oom *o,
		      const struct gh_profile *prof, struct gh_watch_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->pid = prof->pid;
	snprintf(ev->comm, sizeof(ev->comm), "%s", prof->comm);
	ev->runtime = prof->runtime;
	ev->trigger = GH_TRIGGER_OOM;
	ev->fired = 1u << GH_TRIGGER_OOM;
	ev->time_ns = o->time_ns;
	ev->cgroup_version = memstat_cgroup_dir(
		&w->roots, o->cgroup, ev->cgroup_dir, sizeof(ev->cgroup_dir));
	ev->cgroup_usage = o->memcg_usage_bytes;
	ev->cgroup_limit =
		o->memcg_limit_bytes ? o->memcg_limit_bytes : UINT64_MAX;
	if (o->memcg_limit_bytes)
		snprintf(ev->reason, sizeof(ev->reason),
			 "OOM-killed (thread %s) with its memory cgroup at "
			 "%.1fMiB of its limit %.1fMiB",
			 o->comm, (double)o->memcg_usage_bytes / (1 << 20),
			 (double)o->memcg_limit_bytes / (1 << 20));
	else
		snprintf(ev->reason, sizeof(ev->reason),
			 "OOM-killed (thread %s), the system out of memory",
			 o->comm);
	memevent_pressure_felt(ev->cgroup_version, ev->cgroup_dir, ev->pressure,
			       sizeof(ev->pressure));
	ev->inuse_space = prof->total[GH_INUSE_SPACE];
	ev->status = prof->status;
	ev->oom = *o;
}

/* gh_oom_watch's victim callback: write its profile. */
static void victim(void *arg, const struct gh_oom *o, struct gh_result *r)
{
	struct gh_watch *w = arg;
	struct gh_watch_event ev;
	struct gh_err err;

	if (r->err.code != GH_OK && r->err.code != GH_E_PARTIAL) {
		err_set(&err, r->err.code, "its OOM kill was not captured: %s",
			r->err.msg);
		if (w->o.problem)
			w->o.problem(w->o.arg, r->pid, &err);
		return;
	}
	if (w->stop)
		return;
	oom_event(w, o, r->profile, &ev);
	if (watchdir__add(w->dir, r->profile, NULL, &ev, &err)) {
		if (w->o.problem)
			w->o.problem(w->o.arg, ev.pid, &err);
		return;
	}
	if (w->o.written)
		w->o.written(w->o.arg, &ev);
}

int watch_oom_open(struct gh_watch *w, bool alone, struct gh_err *err)
{
	GH_OPTS(gh_oom_watch_opts, o, .victim = victim, .arg = w,
		.ring_bytes = w->o.oom_ring_bytes);
	struct gh_err e, said;

	/* The collector's caches: a binary the scan parsed is not parsed
	 * again. */
	if (w->o.no_oom ||
	    !oom_watch__new_sharing(&o, w->c->bins, w->c->ids, &w->oom, &e))
		return 0;
	if (alone)
		return err_set(err, e.code,
			       "OOM-kill capture, the only trigger, cannot "
			       "work: %s; or give another trigger",
			       e.msg);
	if (w->o.problem) {
		err_set(&said, e.code, "OOM kills will not be captured: %s",
			e.msg);
		w->o.problem(w->o.arg, 0, &said);
	}
	return 0;
}

void watch_oom_add(struct gh_watch *w, struct wproc *p)
{
	struct gh_err e, said;

	if (!w->oom || p->oom_tried)
		return;
	if (!gh_oom_watch__add(w->oom, p->pid, &e)) {
		p->oom_tried = true;
		return;
	}
	/* USAGE: an exited process that had this PID is still registered
	 * (dropped by the next poll); try again at the next scan. */
	if (e.code == GH_E_USAGE)
		return;
	p->oom_tried = true;
	if (e.code == GH_E_NOPROC || e.code == GH_E_GONE || !w->o.problem)
		return;
	err_set(&said, e.code, "its OOM kill cannot be captured: %s", e.msg);
	w->o.problem(w->o.arg, p->pid, &said);
}

void watch_oom_forget(struct gh_watch *w, const struct wproc *p)
{
	uint64_t start;

	/* Only while it lives: a process that died may be a victim whose
	 * profile the next poll hands over. */
	if (w->oom && p->oom_tried && !proc_start_time(p->pid, &start, NULL) &&
	    start == p->start)
		gh_oom_watch__remove(w->oom, p->pid, NULL);
}

int watch_oom_fd(const struct gh_watch *w)
{
	return w->oom ? gh_oom_watch__fd(w->oom) : -1;
}

int watch_oom_poll(struct gh_watch *w, bool recorded, struct gh_err *err)
{
	if (!w->oom)
		return 0;
	return gh_oom_watch__poll(w->oom, recorded ? DRAIN_MS : 0, err) < 0 ? -1
									    : 0;
}

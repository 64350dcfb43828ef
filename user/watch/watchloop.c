/* watchloop.c - gh_watch: its life, and its steps. Each step waits for a
 * kernel event (a v1 memory threshold, a PSI trigger) or the next
 * interval, reads the memory of the processes concerned (all of them at
 * an interval, for the triggers that poll), asks each one's trigger state
 * what fired, and has the due snapshots taken and written (watchsnap.c);
 * at-peak processes are read at every interval; OOM victims
 * (oomtrigger.c) are written as their kills' records come. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/optsize.h"
#include "watch/oomtrigger.h"
#include "watch/watchscan.h"
#include "watch/watchsnap.h"
#include "watch/watchstate.h"

#define DEFAULT_INTERVAL_MS 1000
#define DEFAULT_TIMEOUT_MS  10000
/* Longest wait while the OOM watch has processes: it must be polled that
 * often, to drain a victim's walk and to drop the exited (its records
 * wake the wait only at a kill). */
#define OOM_PACE_MS 100

/* Is a trigger other than the OOM one given? */
static bool others(const struct gh_watch_opts *o)
{
	return o->rss_above || o->cgroup_above > 0 || o->pressure ||
	       o->growth_bytes || o->at_peak || o->every_ms ||
	       o->goroutines_above;
}

static int check_opts(struct gh_watch *w, struct gh_err *err)
{
	const struct gh_watch_opts *o = &w->o;

	if (!others(o) && o->no_oom)
		return err_set(err, GH_E_USAGE,
			       "no trigger given: name at least one of the "
			       "RSS, cgroup, pressure, growth, at-peak, "
			       "goroutine or periodic triggers, or leave the "
			       "OOM one on");
	if (o->cgroup_above < 0 || o->cgroup_above > 100)
		return err_set(err, GH_E_USAGE,
			       "a cgroup share of %g%%: give a percentage "
			       "from 0 to 100",
			       o->cgroup_above);
	if (o->growth_bytes && !o->growth_window_ms)
		return err_set(err, GH_E_USAGE,
			       "a growth trigger needs its window: SIZE/"
			       "DURATION");
	if (o->leak_window > LEAKS_MAX_WINDOW)
		return err_set(err, GH_E_USAGE,
			       "a leak window of %zu snapshots: give 1 to %d",
			       o->leak_window, LEAKS_MAX_WINDOW);
	if (o->pressure && psi_spec__parse(o->pressure, &w->psi, err))
		return -1;
	return 0;
}

int gh_watch__new(struct gh_collector *c, const struct gh_watch_opts *o,
		  struct gh_watch **out, struct gh_err *err)
{
	struct gh_watch *w = calloc(1, sizeof(*w));

	*out = NULL;
	if (!w)
		return err_set(err, GH_E_FAILED, "out of memory");
	w->c = c;
	if (OPTS_LOAD(&w->o, o, "gh_watch_opts", err) ||
	    OPTS_LOAD(&w->select, w->o.select, "gh_select", err) ||
	    OPTS_LOAD(&w->bounds, w->o.bounds, "gh_bounds", err)) {
		free(w);
		return -1;
	}
	o = &w->o;
	w->o.select = &w->select;
	w->o.bounds = &w->bounds;
	if (!w->o.interval_ms)
		w->o.interval_ms = DEFAULT_INTERVAL_MS;
	if (!w->o.timeout_ms)
		w->o.timeout_ms = DEFAULT_TIMEOUT_MS;
	w->named = w->select.npids && !w->select.pids_filter;
	memstat_roots(&w->roots);
	if (!w->o.leak_window)
		w->o.leak_window = LEAKS_DEFAULT_WINDOW;
	if (check_opts(w, err) ||
	    watchdir__open(o->output_dir, o->keep_files, o->keep_bytes, &w->dir,
			   err) ||
	    (o->pressure && watch_open_psi(w, err)) ||
	    watch_oom_open(w, !others(o), err) || watch_scan(w, true, err)) {
		gh_watch__free(w);
		return -1;
	}
	w->next_tick_ms = watch_now_ms() + w->o.interval_ms;
	*out = w;
	return 0;
}

void gh_watch__free(struct gh_watch *w)
{
	if (!w)
		return;
	gh_oom_watch__free(w->oom);
	for (size_t i = 0; i < w->nsrc; i++)
		if (w->src[i].fd >= 0)
			close(w->src[i].fd);
	free(w->src);
	free(w->skip);
	for (size_t i = 0; i < w->np; i++)
		for (size_t r = 0; r < TRIG_RUNTIMES; r++)
			leaks_free(w->p[i].leaks[r]);
	free(w->p);
	watchdir__free(w->dir);
	free(w);
}

void gh_watch__rescan(struct gh_watch *w)
{
	w->rescan = 1;
}

void gh_watch__stop(struct gh_watch *w)
{
	w->stop = 1;
	gh_collector__cancel(w->c);
}

size_t gh_watch__targets(const struct gh_watch *w)
{
	return w->np;
}

/* When p's cooldown ends, if a condition is held back by it. */
static uint64_t cooldown_end(const struct gh_watch *w, const struct wproc *p)
{
	return p->ts.pending ? p->ts.last_write_ms + w->o.cooldown_ms
			     : UINT64_MAX;
}

/* Is a condition of p held back by a cooldown that has ended? */
static bool cooled(const struct gh_watch *w, const struct wproc *p,
		   uint64_t now)
{
	return now >= cooldown_end(w, p);
}

/* Until the next tick, or a cooldown's end (a process whose threshold
 * only an event would report is looked at again then); ms. */
static int wait_ms(const struct gh_watch *w)
{
	uint64_t now = watch_now_ms(), until = w->next_tick_ms;

	for (size_t i = 0; i < w->np; i++)
		if (cooldown_end(w, &w->p[i]) < until)
			until = cooldown_end(w, &w->p[i]);
	if (w->oom && gh_oom_watch__count(w->oom) && now + OOM_PACE_MS < until)
		until = now + OOM_PACE_MS;
	return now >= until ? 0 : (int)(until - now);
}

/* Wait for the sources, wake_fd, a kill's record, the next tick or a
 * cooldown's end; mark what fired. A threshold registered since the last
 * wait counts as fired, at once. Whether a kill was recorded. */
static bool wait_events(struct gh_watch *w, int wake_fd)
{
	struct pollfd fds[w->nsrc + 2];
	int timeout = wait_ms(w);
	size_t n = 0;

	for (size_t i = 0; i < w->nsrc; i++) {
		w->src[i].fired = w->src[i].fresh && !w->src[i].psi;
		w->src[i].fresh = false;
		if (w->src[i].fired)
			timeout = 0;
		fds[i] = (struct pollfd){.fd = w->src[i].fd,
					 .events = w->src[i].psi ? POLLPRI
								 : POLLIN};
	}
	n = w->nsrc;
	fds[n++] = (struct pollfd){.fd = wake_fd, .events = POLLIN};
	fds[n++] = (struct pollfd){.fd = watch_oom_fd(w), .events = POLLIN};
	if (poll(fds, n, timeout) <= 0)
		return false;
	for (size_t i = 0; i < w->nsrc; i++) {
		if (!(fds[i].revents & (POLLIN | POLLPRI)))
			continue;
		w->src[i].fired = true;
		if (!w->src[i].psi)
			memevent_ack(w->src[i].fd);
	}
	return fds[n - 1].revents & POLLIN;
}

/* Does p need its memory read at an interval (a trigger with no event
 * source for it)? */
static bool polled(const struct gh_watch *w, const struct wproc *p)
{
	const struct gh_watch_opts *o = &w->o;

	return o->rss_above || o->growth_bytes || o->every_ms || o->at_peak ||
	       o->goroutines_above ||
	       (o->cgroup_above > 0 && p->src_cgroup < 0);
}

/* p's runtime.NumGoroutine() into o, at an interval, when a goroutine
 * trigger is given: a few words of its executable's Go runtime. A process
 * whose count cannot be read (a stripped build, a library's Go runtime)
 * is said once; one gone is the scan's to drop. */
static void read_goroutines(struct gh_watch *w, struct wproc *p,
			    struct trig_obs *o)
{
	struct gh_runtime_stats rs = {.sz = sizeof(rs)};
	struct gh_err err;
	int rc;

	if (!w->o.goroutines_above)
		return;
	rc = gh_runtime_stats__read(p->pid, &rs, &err);

	if (rc == 0 && (rs.has & GH_RT_GOROUTINES)) {
		o->has_goroutines = true;
		o->goroutines = rs.goroutines;
		return;
	}
	if (rc == 0)
		err_set(&err, GH_E_UNSUPPORTED,
			"process %d: its Go release keeps no goroutine count; "
			"watch it with another trigger",
			p->pid);
	if (err.code == GH_E_NOPROC || err.code == GH_E_GONE ||
	    p->told_no_goroutines)
		return;
	p->told_no_goroutines = true;
	if (w->o.problem)
		w->o.problem(w->o.arg, p->pid, &err);
}

static bool src_fired(const struct gh_watch *w, int i)
{
	return i >= 0 && (size_t)i < w->nsrc && w->src[i].fired;
}

/* What fired for p now; 0 when nothing (or its memory is unreadable). */
static unsigned check(struct gh_watch *w, struct wproc *p, bool tick,
		      struct watch_due *d)
{
	bool psi = src_fired(w, p->src_psi);
	struct trig_obs o = {.now_ms = watch_now_ms(), .pressure = psi};

	if (!(tick && polled(w, p)) && !cooled(w, p, o.now_ms) &&
	    !src_fired(w, p->src_cgroup) && !psi)
		return 0;
	if (memstat_read(p->pid, &w->roots, &d->m, NULL))
		return 0;
	o.rss = d->m.rss;
	o.cgroup_usage = d->m.cgroup_usage;
	o.cgroup_limit = d->m.cgroup_limit;
	if (tick || cooled(w, p, o.now_ms))
		read_goroutines(w, p, &o);
	d->p = p;
	d->when_ns = clock_wall_ns();
	d->fired = trig_check(&p->ts, &w->o, &o, d->why, sizeof(d->why));
	d->peak = tick && w->o.at_peak;
	return d->fired || d->peak;
}

int gh_watch__step(struct gh_watch *w, int wake_fd, struct gh_err *err)
{
	struct watch_due *due;
	size_t n = 0;
	bool tick, recorded;
	int rc = 0;

	if (w->stop)
		return 1;
	recorded = wait_events(w, wake_fd);
	if (w->stop)
		return 1;
	if (watch_oom_poll(w, recorded, err))
		return -1;
	tick = watch_now_ms() >= w->next_tick_ms;
	if (tick)
		w->next_tick_ms = watch_now_ms() + w->o.interval_ms;
	/* after a rescan (SIGHUP), every process is looked at as at a tick */
	if (w->rescan)
		tick = true;
	if (tick && watch_scan(w, false, err))
		return -1;
	/* the last named process gone: a victim's records are all in by now
	 * (it exited after them), so one more poll writes it */
	if (w->named && !w->np)
		return watch_oom_poll(w, false, err) ? -1 : 1;
	if (!w->np)
		return 0;
	if (!(due = calloc(w->np, sizeof(*due))))
		return err_set(err, GH_E_FAILED, "out of memory");
	for (size_t i = 0; i < w->np; i++)
		n += check(w, &w->p[i], tick, &due[n]) != 0;
	if (n)
		rc = watch__snapshot(w, due, n, err);
	free(due);
	return rc ? -1 : w->stop ? 1 : 0;
}

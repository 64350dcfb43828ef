/* watchscan.c - which processes a watch watches: the named ones, or every
 * Go process that passes the filters, looked for at each interval (a
 * process found not to be Go is not opened again while it lives, unless
 * it was under a second old then, or SIGHUP asks to look again); and
 * the kernel's event sources for them: a v1 memory threshold per cgroup
 * (at the share of its limit --cgroup-above names, registered again when
 * the limit changes) and a PSI trigger per pressure file (the v2
 * cgroup's memory.pressure, else /proc/pressure/memory); each new
 * process registered with the OOM watch, each dropped one removed. */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/err.h"
#include "proc/proc.h"
#include "watch/oomtrigger.h"
#include "watch/watchscan.h"
#include "watch/watchstate.h"

#define SYSTEM_PSI "/proc/pressure/memory"

/* A verdict on a process younger than this is not kept: caught during
 * its exec (its new name set, its binary not mapped yet) or before its
 * runtime is set up, a Go program looks like none. */
#define YOUNG_MS 1000

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? 2 * *cap : 16;
	void *g;

	if (n < *cap)
		return v;
	g = realloc(v, c * size);
	if (g)
		*cap = c;
	return g;
}

/* The source for path, opened if new (or, for a threshold, registered
 * again at a new limit) in a free slot or a new one; -1 when it cannot
 * be (its slot is then free). */
static int source(struct gh_watch *w, const char *path, bool psi,
		  uint64_t limit, struct gh_err *err)
{
	struct wsrc *s;
	void *v;
	size_t i, n = w->nsrc;

	for (i = 0; i < n; i++)
		if (w->src[i].psi == psi && !strcmp(w->src[i].path, path))
			break;
	if (i < n && (psi || w->src[i].limit == limit))
		return (int)i;
	if (i == n)
		for (i = 0; i < n && w->src[i].path[0]; i++)
			;
	if (i == n) {
		if (!(v = grow(w->src, &w->capsrc, n, sizeof(*s))))
			return err_set(err, GH_E_FAILED, "out of memory");
		w->src = v;
		w->src[w->nsrc++].fd = -1;
	}
	s = &w->src[i];
	if (s->fd >= 0)
		close(s->fd);
	*s = (struct wsrc){.psi = psi, .fd = -1, .limit = limit, .fresh = true};
	snprintf(s->path, sizeof(s->path), "%s", path);
	if (psi ? memevent_pressure(path, &w->psi, &s->fd, err)
		: memevent_threshold(
			  path,
			  (uint64_t)((double)limit * w->o.cgroup_above / 100),
			  &s->fd, err)) {
		s->path[0] = '\0';
		return -1;
	}
	return (int)i;
}

/* Close the sources no watched process uses any more (its cgroup gone,
 * its processes moved or exited), the system's pressure file aside:
 * their slots are taken again by new ones. */
static void release_unused(struct gh_watch *w)
{
	for (size_t i = 0; i < w->nsrc; i++) {
		struct wsrc *s = &w->src[i];
		bool used = !s->path[0] || !strcmp(s->path, SYSTEM_PSI);

		for (size_t j = 0; j < w->np && !used; j++)
			used = w->p[j].src_cgroup == (int)i ||
			       w->p[j].src_psi == (int)i;
		if (used)
			continue;
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		s->path[0] = '\0';
	}
}

int watch_open_psi(struct gh_watch *w, struct gh_err *err)
{
	return source(w, SYSTEM_PSI, true, 0, err) < 0 ? -1 : 0;
}

/* A cgroup share cannot apply to p: say so, once per process. */
static void no_limit(struct gh_watch *w, struct wproc *p,
		     const struct gh_memstat *m)
{
	struct gh_err e;

	if (p->told_no_limit || !w->o.problem)
		return;
	p->told_no_limit = true;
	if (m->cgroup_version)
		err_set(&e, GH_E_USAGE,
			"its memory cgroup %s has no limit: a share of the "
			"limit cannot be crossed; set one, or use an RSS "
			"trigger",
			m->cgroup_dir);
	else
		err_set(&e, GH_E_USAGE,
			"it is in no memory cgroup (no v1 memory controller, "
			"none on v2): a share of a limit cannot be crossed; "
			"use an RSS trigger");
	w->o.problem(w->o.arg, p->pid, &e);
}

/* p's event sources, from its memory cgroup now (its cgroup files only:
 * smaps_rollup walks page tables). A threshold that cannot
 * be registered leaves p polled. */
static void attach(struct gh_watch *w, struct wproc *p)
{
	struct gh_memstat m;
	char file[GH_PATH_MAX + 32];

	p->src_cgroup = p->src_psi = -1;
	if (memstat_read_cgroup(p->pid, &w->roots, &m, NULL))
		return;
	if (w->o.cgroup_above > 0 && m.cgroup_limit == UINT64_MAX)
		no_limit(w, p, &m);
	if (w->o.cgroup_above > 0 && m.cgroup_version == 1 &&
	    m.cgroup_limit != UINT64_MAX)
		p->src_cgroup =
			source(w, m.cgroup_dir, false, m.cgroup_limit, NULL);
	if (!w->o.pressure)
		return;
	snprintf(file, sizeof(file), "%s/memory.pressure", m.cgroup_dir);
	if (m.cgroup_version == 2 && access(file, R_OK) == 0)
		p->src_psi = source(w, file, true, 0, NULL);
	if (p->src_psi < 0)
		p->src_psi = source(w, SYSTEM_PSI, true, 0, NULL);
}

/* p is no longer watched: its OOM watch and its leak series go. */
static void forget(struct gh_watch *w, struct wproc *p)
{
	watch_oom_forget(w, p);
	for (size_t r = 0; r < TRIG_RUNTIMES; r++) {
		leaks_free(p->leaks[r]);
		p->leaks[r] = NULL;
	}
}

static struct wproc *find(struct gh_watch *w, int pid, uint64_t start)
{
	for (size_t i = 0; i < w->np; i++)
		if (w->p[i].pid == pid && w->p[i].start == start)
			return &w->p[i];
	return NULL;
}

static bool skipped(const struct gh_watch *w, int pid, uint64_t start)
{
	for (size_t i = 0; i < w->nskip; i++)
		if (w->skip[i].pid == pid && w->skip[i].start == start)
			return true;
	return false;
}

/* Is pid Go (a runtime the selection admits)? 0 yes; else err says. */
static int is_go(struct gh_watch *w, int pid, struct gh_err *err)
{
	struct target **ts;
	size_t n, k = 0;

	if (target__open_all(pid, w->c->bins, &ts, &n, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		k += collector__admits(&w->select, ts[i]);
	target__free_all(ts, n);
	return k ? 0
		 : err_set(err, GH_E_NOTGO,
			   "process %d holds no Go runtime the selection's "
			   "runtime names",
			   pid);
}

/* Report a process that cannot be watched; at the first scan of named
 * processes, fail. */
static int unwatchable(struct gh_watch *w, int pid, bool first,
		       const struct gh_err *e, struct gh_err *err)
{
	if (first && w->named) {
		if (err)
			*err = *e;
		return -1;
	}
	if (e->code != GH_E_NOTGO && e->code != GH_E_NOPROC &&
	    e->code != GH_E_GONE && w->o.problem)
		w->o.problem(w->o.arg, pid, e);
	return 0;
}

static int add_proc(struct gh_watch *w, int pid, uint64_t start)
{
	struct wproc *p;
	void *v = grow(w->p, &w->capp, w->np, sizeof(*p));

	if (!v)
		return -1;
	w->p = v;
	p = &w->p[w->np++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->start = start;
	p->seen = true;
	trig_init(&p->ts);
	return 0;
}

/* Did the process start (clock ticks after boot) under YOUNG_MS ago? */
static bool young(uint64_t start)
{
	struct timespec now;
	long hz = sysconf(_SC_CLK_TCK);

	if (hz <= 0 || clock_gettime(CLOCK_BOOTTIME, &now))
		return false;
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000 <
	       start * 1000 / (uint64_t)hz + YOUNG_MS;
}

/* One selected pid: known, known not to be Go (kept in skip), or new. */
static int visit(struct gh_watch *w, int pid, bool first, struct wskip *skip,
		 size_t *nskip, struct gh_err *err)
{
	struct wproc *p;
	struct gh_err e;
	uint64_t start;

	if (proc_start_time(pid, &start, &e))
		return unwatchable(w, pid, first, &e, err);
	if ((p = find(w, pid, start))) {
		p->seen = true;
		return 0;
	}
	if (!skipped(w, pid, start) && !is_go(w, pid, &e))
		return add_proc(w, pid, start)
			       ? err_set(err, GH_E_FAILED, "out of memory")
			       : 0;
	if (!skipped(w, pid, start) && unwatchable(w, pid, first, &e, err))
		return -1;
	if (!young(start))
		skip[(*nskip)++] = (struct wskip){pid, start};
	return 0;
}

int watch_scan(struct gh_watch *w, bool first, struct gh_err *err)
{
	struct wskip *skip;
	size_t n, nskip = 0, k = 0;
	bool enumerated;
	int *pids, rc = 0;

	/* SIGHUP: every process judged again (a C host may have loaded a Go
	 * library since) */
	if (w->rescan)
		w->nskip = 0;
	w->rescan = 0;
	if (collector__select(&w->select, &pids, &n, &enumerated, err))
		return -1;
	if (!(skip = calloc(n + 1, sizeof(*skip)))) {
		free(pids);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	for (size_t i = 0; i < w->np; i++)
		w->p[i].seen = false;
	for (size_t i = 0; i < n && !rc; i++)
		rc = visit(w, pids[i], first, skip, &nskip, err);
	free(pids);
	free(w->skip);
	w->skip = skip;
	w->nskip = nskip;
	for (size_t i = 0; i < w->np; i++)
		if (w->p[i].seen)
			w->p[k++] = w->p[i];
		else
			forget(w, &w->p[i]);
	w->np = k;
	for (size_t i = 0; i < w->np && !rc; i++) {
		attach(w, &w->p[i]);
		watch_oom_add(w, &w->p[i]);
	}
	release_unused(w);
	return rc;
}

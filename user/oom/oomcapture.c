/* oomcapture.c - gh_oom_watch, OOM-kill capture: profiles of watched Go
 * processes taken by the kernel's OOM killer, walked in the victim's own
 * context at its fatal signal (oomreader.c). What finishing a profile
 * needs once the process is gone is taken while it lives: its Go runtime
 * opened (the binary parsed and held, with its symbols, /proc/PID/maps
 * and addresses) and its profile builder made (mappings with their build
 * IDs), so that a dead process's profile is scaled and symbolized as a
 * live one's. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/err.h"
#include "base/optsize.h"
#include "oom/oomcapture.h"
#include "oom/oomkill.h"
#include "oom/oomreader.h"
#include "profile/builder.h"
#include "profile/profile.h"
#include "target/target.h"

#define DEFAULT_MAX_PROCESSES 4096
#define DEFAULT_RING_BYTES    (32u << 20)
/* Binaries kept parsed (each watched process holds its own besides). */
#define MAX_BINARIES 64
/* A victim's walk, as a snapshot's defaults bound it. */
#define MAX_BUCKETS (16u << 20)

/* One watched process: what its profile is finished with. */
struct oomw {
	int pid;
	struct target *t;
	struct view *view;
	struct snapshot *s;
};

struct gh_oom_watch {
	struct gh_oom_watch_opts o;
	struct oom_reader *r;
	struct bincache *bins;
	struct buildids *ids;
	bool own_caches; /* bins and ids are freed with it */
	struct oomw *v;
	size_t n;
};

int gh_oom_watch__new(const struct gh_oom_watch_opts *o,
		      struct gh_oom_watch **out, struct gh_err *err)
{
	struct bincache *bins = bincache__new(MAX_BINARIES);
	struct buildids *ids = buildids__new();
	int rc = -1;

	*out = NULL;
	if (!bins || !ids)
		err_set(err, GH_E_FAILED, "out of memory");
	else
		rc = oom_watch__new_sharing(o, bins, ids, out, err);
	if (rc) {
		buildids__free(ids);
		bincache__free(bins);
		return rc;
	}
	(*out)->own_caches = true;
	return 0;
}

int oom_watch__new_sharing(const struct gh_oom_watch_opts *o,
			   struct bincache *bins, struct buildids *ids,
			   struct gh_oom_watch **out, struct gh_err *err)
{
	struct gh_oom_watch *w = calloc(1, sizeof(*w));
	struct backend_env env = {0};

	*out = NULL;
	if (!w)
		return err_set(err, GH_E_FAILED, "out of memory");
	if (OPTS_LOAD(&w->o, o, "gh_oom_watch_opts", err)) {
		free(w);
		return -1;
	}
	if (!w->o.max_processes)
		w->o.max_processes = DEFAULT_MAX_PROCESSES;
	if (!w->o.ring_bytes)
		w->o.ring_bytes = DEFAULT_RING_BYTES;
	if (w->o.ring_bytes < (64u << 10) || w->o.ring_bytes > (1u << 30) ||
	    (w->o.ring_bytes & (w->o.ring_bytes - 1))) {
		free(w);
		return err_set(err, GH_E_USAGE,
			       "ring_bytes must be a power of two from 64 KiB "
			       "to 1 GiB");
	}
	env.debug = w->o.debug;
	env.debug_arg = w->o.debug_arg;
	w->bins = bins;
	w->ids = ids;
	w->v = calloc(w->o.max_processes, sizeof(*w->v));
	if (!w->v) {
		gh_oom_watch__free(w);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	if (oom_reader__open(&w->r, w->o.max_processes, w->o.ring_bytes, &env,
			     err)) {
		gh_oom_watch__free(w);
		return -1;
	}
	*out = w;
	return 0;
}

static void oomw__free(struct oomw *e)
{
	view__free(e->view);
	snapshot__free(e->s);
	target__free(e->t);
}

/* Forget entry i (its BPF watch already ended). */
static void drop(struct gh_oom_watch *w, size_t i)
{
	oomw__free(&w->v[i]);
	w->v[i] = w->v[--w->n];
}

void gh_oom_watch__free(struct gh_oom_watch *w)
{
	if (!w)
		return;
	oom_reader__free(w->r);
	while (w->n)
		drop(w, w->n - 1);
	free(w->v);
	if (w->own_caches) {
		buildids__free(w->ids);
		bincache__free(w->bins);
	}
	free(w);
}

static struct oomw *find(struct gh_oom_watch *w, int pid, size_t *at)
{
	for (size_t i = 0; i < w->n; i++)
		if (w->v[i].pid == pid) {
			*at = i;
			return &w->v[i];
		}
	return NULL;
}

/* The first of pid's Go runtimes, the others closed. */
static int open_first(struct gh_oom_watch *w, int pid, struct target **out,
		      struct gh_err *err)
{
	struct target **ts;
	size_t n;

	if (target__open_all(pid, w->bins, &ts, &n, err))
		return -1;
	*out = ts[0];
	for (size_t i = 1; i < n; i++)
		target__free(ts[i]);
	free(ts);
	return 0;
}

/* What the walk of e's process reads: as a snapshot reads it, with no
 * CPU budget (the process is dying) and no kept stacks (one walk). */
static void request_of(const struct oomw *e, struct read_req *req)
{
	const struct target *t = e->t;

	*req = (struct read_req){
		.pid = t->pid,
		.mbuckets = t->mbuckets,
		.nstk_max = t->go->layout->nstk_max,
		.rec_bytes = t->go->layout->rec_bytes,
		.max_buckets = MAX_BUCKETS,
	};
	memcpy(req->vars, t->vars, sizeof(req->vars));
}

/* e's target opened, its builder and snapshot made, its walk set up. */
static int watch(struct gh_oom_watch *w, struct oomw *e, struct gh_err *err)
{
	struct view_opts vo = {.keep = true, .ids = w->ids};
	struct read_req req;

	if (open_first(w, e->pid, &e->t, err) ||
	    view__new(e->t, &vo, &e->view, err))
		return -1;
	/* No sink: while the victim's walk fills the ring buffer, the
	 * reader only copies its buckets, so that it drains as fast as it
	 * can; the profile is built once the walk is over (replay). */
	if (!(e->s = snapshot__new()))
		return err_set(err, GH_E_FAILED, "out of memory");
	request_of(e, &req);
	if (oom_reader__add(w->r, &req, e->t->start_ticks, e->s, &e->t->maps,
			    err))
		return -1;
	/* Its PID may have gone to another process since it was opened. */
	if (target__check_alive(e->t, err)) {
		oom_reader__remove(w->r, e->pid);
		return -1;
	}
	return 0;
}

int gh_oom_watch__add(struct gh_oom_watch *w, int pid, struct gh_err *err)
{
	struct oomw *e;
	size_t at;

	if (find(w, pid, &at))
		return err_set(err, GH_E_USAGE, "process %d is watched already",
			       pid);
	if (w->n == w->o.max_processes)
		return err_set(err, GH_E_USAGE,
			       "%zu processes are watched already, the most "
			       "max_processes allows",
			       w->n);
	e = &w->v[w->n];
	*e = (struct oomw){.pid = pid};
	if (watch(w, e, err)) {
		oomw__free(e);
		return -1;
	}
	w->n++;
	return 0;
}

int gh_oom_watch__remove(struct gh_oom_watch *w, int pid, struct gh_err *err)
{
	size_t at;

	if (!find(w, pid, &at))
		return err_set(err, GH_E_USAGE, "process %d is not watched",
			       pid);
	oom_reader__remove(w->r, pid);
	drop(w, at);
	return 0;
}

size_t gh_oom_watch__count(const struct gh_oom_watch *w)
{
	return w->n;
}

int gh_oom_watch__fd(const struct gh_oom_watch *w)
{
	return oom_reader__fd(w->r);
}

/* The profile's own account of what it was taken for. */
static void label(struct gh_profile *p, const struct gh_oom *o)
{
	snprintf(p->backend, sizeof(p->backend), "oom");
	snprintf(p->backend_notes, sizeof(p->backend_notes),
		 "walked in the victim's own thread as it took the OOM "
		 "killer's SIGKILL");
	oominfo_trigger(o, p->trigger, sizeof(p->trigger));
}

/* Build e's profile from the buckets its walk kept. */
static int replay(struct oomw *e, struct gh_err *err)
{
	const struct snapshot *s = e->s;

	for (size_t i = 0; i < s->nbuckets; i++)
		if (view__add(e->view, s, &s->buckets[i],
			      bucket__stack(s, &s->buckets[i])))
			return err_set(err, GH_E_FAILED,
				       "out of memory building the profile");
	return 0;
}

/* The victim's result: its profile built to the end, or why not. */
static void result_of(struct oomw *e, struct oom_victim *v, struct gh_result *r)
{
	struct gh_err err = v->err;
	int rc = v->rc;

	*r = (struct gh_result){.pid = e->pid};
	if (!rc)
		rc = replay(e, &err);
	if (!rc)
		rc = view__finish(e->view, e->s, &r->profile, &err);
	if (rc) {
		r->err = err;
		r->profile = profile__nodata(e->pid, e->t, &err);
		return;
	}
	r->err.code =
		r->profile->status == GH_SNAP_PARTIAL ? GH_E_PARTIAL : GH_OK;
	snprintf(r->err.msg, sizeof(r->err.msg), "%s",
		 r->profile->status_reason);
}

struct polled {
	struct gh_oom_watch *w;
	int handed;
};

static void on_victim(void *ctx, struct oom_victim *v)
{
	struct polled *pl = ctx;
	struct gh_oom_watch *w = pl->w;
	struct gh_result r;
	struct gh_oom o;
	size_t at;
	struct oomw *e = find(w, v->pid, &at);

	if (!e)
		return;
	oominfo_from(&v->ev, v->early_kills, (uint64_t)sysconf(_SC_PAGESIZE),
		     e->t->cgroup, &o);
	o.time_ns = clock_wall_ns();
	result_of(e, v, &r);
	if (r.profile && r.profile->status != GH_SNAP_FAILED &&
	    r.profile->status != GH_SNAP_UNAVAILABLE)
		label(r.profile, &o);
	if (r.profile && w->o.victim)
		w->o.victim(w->o.arg, &o, &r);
	gh_profile__free(r.profile); /* unless taken */
	drop(w, at);
	pl->handed++;
}

static void on_gone(void *ctx, int pid)
{
	struct polled *pl = ctx;
	size_t at;

	if (find(pl->w, pid, &at))
		drop(pl->w, at);
}

int gh_oom_watch__poll(struct gh_oom_watch *w, int timeout_ms,
		       struct gh_err *err)
{
	struct polled pl = {w, 0};

	if (oom_reader__poll(w->r, timeout_ms, on_victim, on_gone, &pl, err))
		return -1;
	return pl.handed;
}

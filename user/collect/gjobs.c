/* gjobs.c - a request for the goroutine profile (gh_request.kind
 * GH_KIND_GOROUTINE): each job's runtime read by goroutine/'s reader, one
 * process after another, the BPF program of iter's walk loaded once for
 * the collector and lent to every read (auto: procmem where it cannot be
 * loaded, or cannot read a process); each profile whole at once, its
 * samples kept. Every Go runtime of a process is a job of its own (a
 * c-shared library's read by its own variables, bias and pclntab). */
#include <stdio.h>
#include <string.h>

#include "base/err.h"
#include "collect/collector.h"
#include "goroutine/gprofile.h"
#include "read/gpass.h"

static void fail(struct collect_job *j, const struct gh_err *err)
{
	j->err = *err;
	j->failed = true;
}

/* The options of j's read: the backend (iter's program when it takes
 * part), the bound on goroutines; -1 when j cannot be read (iter asked
 * for and not loaded). */
static int options(struct gh_collector *c, struct collect_job *j,
		   struct gh_goroutine_opts *o, struct gprofile_with *w)
{
	struct gh_err err;

	o->backend = c->o.backend;
	o->max_goroutines = c->bounds.max_goroutines;
	if (o->backend == GH_BACKEND_PROCMEM)
		return 0;
	w->pass = collector__gpass(c, &err);
	if (w->pass)
		return 0;
	if (o->backend == GH_BACKEND_ITER) {
		fail(j, &err);
		return -1;
	}
	snprintf(j->notes, sizeof(j->notes), "iter: %.*s",
		 (int)sizeof(j->notes) - 8, err.msg);
	o->backend = GH_BACKEND_PROCMEM;
	return 0;
}

/* j's profile, or why not; a process gone (or its PID taken) since it was
 * opened voids whatever was read. */
static void read_one(struct gh_collector *c, struct collect_job *j,
		     const struct read_ctl *ctl)
{
	struct gprofile_with w = {.deadline_ns = ctl->deadline_ns};
	enum gh_backend used = GH_BACKEND_PROCMEM;
	struct gh_goroutine_opts o = {.sz = sizeof(o), .used = &used};
	const char *why = read_ctl__stop(ctl);
	struct gh_err err;

	if (why) {
		read_ctl__err(why, j->pid, &err);
		fail(j, &err);
		return;
	}
	if (options(c, j, &o, &w))
		return;
	if (gprofile_read(j->t, &o, &w, &j->p, &j->err) &&
	    j->err.code != GH_E_PARTIAL) {
		j->failed = true;
		return;
	}
	j->backend = (size_t)used - 1; /* backends[] has no auto */
	if (target__check_alive(j->t, &err)) {
		gh_profile__free(j->p);
		j->p = NULL;
		fail(j, &err);
	}
}

void collector__goroutines(struct gh_collector *c, struct collect_job **jobs,
			   size_t n, const struct read_ctl *ctl)
{
	for (size_t i = 0; i < n; i++)
		read_one(c, jobs[i], ctl);
}

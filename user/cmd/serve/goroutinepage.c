/* goroutinepage.c - /pid/PID[/runtime/N]/debug/pprof/goroutine: the
 * goroutine profile of the process's N-th Go runtime (the plain path: its
 * first, as for the heap), read now from outside (gh_goroutines__write),
 * answered as that runtime's own net/http/pprof answers: the gzip profile
 * (a file named "goroutine"), or with ?debug=1 and ?debug=2 the texts;
 * deltapage.c's ?seconds=N takes two of its reads. A runtime the process
 * does not hold is 404. The server's filters hold as for the other
 * profiles: a process they leave out is not read. Runs on the jobs thread
 * (the filters are the collector's to judge). */
#include <stdio.h>
#include <string.h>

#include "cmd/serve/goroutinepage.h"
#include "cmd/serve/pprofpage.h"

struct opened {
	struct gh_collector *c;
	size_t n;
};

/* The processes are opened: whether this one is there is all that is
 * wanted; no profile is read. */
static void opened_then_stop(void *arg, size_t nresults)
{
	struct opened *o = arg;

	o->n = nresults;
	gh_collector__cancel(o->c);
}

/* Does the server expose x's process? Else x's reply says why. */
static bool exposed(struct exch *x)
{
	struct server *srv = x->srv;
	struct gh_select sel = srv->filters;
	struct opened o = {srv->c, 0};
	struct gh_request rq = {.sz = sizeof(struct gh_request),
				.select = &sel,
				.count_only = true,
				.opened = opened_then_stop,
				.opened_arg = &o};
	struct gh_results *res = NULL;
	struct gh_err err;
	int pid = x->route.pid;

	sel.pids = &pid;
	sel.npids = 1;
	if (gh_collector__collect(srv->c, &rq, &res, &err)) {
		reply__text(&x->reply, 500, "%s", err.msg);
		return false;
	}
	gh_results__free(res);
	if (!o.n)
		reply__text(&x->reply, 404,
			    "process %d is not exposed by this server: its "
			    "filters (--comm, --cgroup, --container, "
			    "--exclude-self) leave it out",
			    pid);
	return o.n > 0;
}

/* The read's options: the level asked for, the runtime (its number in
 * rt, a buffer of the caller's), the server's backend (perf reads no
 * goroutines: serve's default, auto, does). */
static struct gh_goroutine_opts read_opts(const struct exch *x, int level,
					  char rt[16])
{
	enum gh_backend b = x->srv->o.backend;

	snprintf(rt, 16, "%u", x->route.runtime ? x->route.runtime : 1);
	return (struct gh_goroutine_opts){
		.sz = sizeof(struct gh_goroutine_opts),
		.debug = level,
		.backend = b == GH_BACKEND_PERF ? GH_BACKEND_AUTO : b,
		.runtime = rt};
}

/* May x's process's goroutines be read now? Else x's reply says why. */
static bool readable(struct exch *x)
{
	return exch__time_left(x) && exposed(x);
}

/* A read that gave nothing to serve: its status, and why. */
static void refuse(struct exch *x, const struct gh_err *err)
{
	reply__text(&x->reply, pprof_status(err->code), "%s%s",
		    err->code == GH_E_PARTIAL ? "partial profile, not served: "
					      : "",
		    err->msg);
	if (err->code == GH_E_PARTIAL)
		reply__header(&x->reply, "Retry-After", "1");
}

struct gh_profile *goroutine_read(struct exch *x)
{
	char rt[16];
	const struct gh_goroutine_opts go = read_opts(x, 0, rt);
	struct gh_err err = {GH_OK, ""};
	struct gh_profile *p = NULL;

	if (!readable(x))
		return NULL;
	if (gh_goroutines__read(x->route.pid, &go, &p, &err)) {
		/* a partial read comes with its profile: never served */
		gh_profile__free(p);
		refuse(x, &err);
		return NULL;
	}
	return p;
}

void goroutine_reply(struct exch *x, const struct gh_profile *p,
		     const char *filename)
{
	const struct gh_write_opts w = {.sz = sizeof(struct gh_write_opts),
					.format = GH_FORMAT_PPROF};

	pprof_reply(x, p, &w, filename);
}

/* The profile (debug=0): a file to save, with the runtime headers of the
 * heap's endpoint. */
static void profile_page(struct exch *x)
{
	struct gh_profile *p = goroutine_read(x);

	if (p)
		goroutine_reply(x, p, "goroutine");
	gh_profile__free(p);
}

void goroutine_page(struct exch *x)
{
	int level = x->route.goroutine_debug;
	char rt[16];
	const struct gh_goroutine_opts go = read_opts(x, level, rt);
	struct gh_err err = {GH_OK, ""};
	FILE *f;

	if (!level) {
		profile_page(x);
		return;
	}
	if (!readable(x))
		return;
	if (!(f = reply__open(&x->reply)))
		return;
	if (gh_goroutines__write(x->route.pid, &go, f, &err)) {
		fclose(f);
		refuse(x, &err);
		return;
	}
	/* net/http/pprof's header: the texts are shown */
	reply__close(&x->reply, f, 200, "text/plain; charset=utf-8");
}

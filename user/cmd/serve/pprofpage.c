/* pprofpage.c - /pid/PID[/runtime/N]/debug/pprof/heap, allocs, block, mutex:
 * one Go runtime's profile, read now, answered with the bytes and headers the
 * process's own net/http/pprof would answer with (the gzip profile, or
 * with ?debug=N the legacy text), or the status saying why there is none.
 * Runs on the jobs thread (it uses the collector); deltapage.c builds
 * ?seconds=N from two of its reads. */
#include <stdio.h>
#include <string.h>

#include "cmd/serve/pprofpage.h"
#include "cmd/testpause.h"

int pprof_status(enum gh_status code)
{
	switch (code) {
	case GH_E_USAGE:       /* no such runtime in the process */
	case GH_E_NOPROC:      /* no such process, or a thread */
	case GH_E_NOTGO:       /* no Go runtime */
	case GH_E_UNSUPPORTED: /* a Go the library cannot read */
	case GH_E_DISABLED:    /* MemProfileRate 0 */
	case GH_E_NODATA:      /* nothing sampled yet */
		return 404;
	case GH_E_GONE:
		return 410;
	case GH_E_PARTIAL: /* a partial profile is never served */
		return 503;
	case GH_E_TIMEOUT:
		return 504;
	default: /* privileges, kernel, memory: the server's own trouble */
		return 500;
	}
}

void pprof_runtime_headers(struct exch *x, const struct gh_profile *p,
			   const char *name)
{
	char v[REPLY_VALUE_MAX] = "";
	size_t n = 0, k;

	if (x->reply.status != 200 || p->nruntimes < 2)
		return;
	reply__header(&x->reply, "X-Goheap-Runtime", "%zu of %zu", p->runtime,
		      p->nruntimes);
	for (size_t i = 1; i <= p->nruntimes && n < sizeof(v); i++) {
		if (i == p->runtime)
			continue;
		k = (size_t)snprintf(v + n, sizeof(v) - n,
				     "%s/pid/%d/runtime/%zu/debug/pprof/%s",
				     n ? ", " : "", p->pid, i, name);
		if (n + k >= sizeof(v)) {
			/* what does not fit is named by /processes */
			v[n] = '\0';
			break;
		}
		n += k;
	}
	reply__header(&x->reply, "X-Goheap-Other-Runtimes", "%s", v);
}

/* x's result without a profile: its status, and the reason. */
static void refuse(struct exch *x, const struct gh_result *r)
{
	reply__text(&x->reply, pprof_status(r->err.code), "%s%s",
		    r->err.code == GH_E_PARTIAL
			    ? "partial profile, not served: "
			    : "",
		    r->err.msg);
	if (r->err.code == GH_E_PARTIAL)
		reply__header(&x->reply, "Retry-After", "1");
}

const char *pprof_name(const struct exch *x)
{
	switch (x->route.ep) {
	case EP_ALLOCS:
		return "allocs";
	case EP_BLOCK:
		return "block";
	case EP_MUTEX:
		return "mutex";
	case EP_GOROUTINE:
		return "goroutine";
	default:
		return "heap";
	}
}

struct gh_write_opts pprof_opts(const struct exch *x)
{
	/* runtime/pprof's allocs profile is its heap profile with
	 * alloc_space as the default sample type; heap names none. */
	return (struct gh_write_opts){.sz = sizeof(struct gh_write_opts),
				      .format = GH_FORMAT_PPROF,
				      .index = x->route.ep == EP_ALLOCS
						       ? GH_ALLOC_SPACE
						       : GH_INUSE_SPACE};
}

const struct gh_result *pprof_read(struct exch *x,
				   const struct gh_write_opts *w, bool keep,
				   struct gh_results **res)
{
	struct server *srv = x->srv;
	struct gh_select sel = srv->filters;
	struct gh_request rq = {.sz = sizeof(struct gh_request),
				.kind = x->route.ep == EP_BLOCK ? GH_KIND_BLOCK
					: x->route.ep == EP_MUTEX
						? GH_KIND_MUTEX
						: GH_KIND_HEAP,
				.render = w,
				.nrender = w ? 1 : 0,
				.keep_samples = keep,
				.opened = test_pause,
				.select = &sel};
	uint64_t left = exch__time_left(x);
	struct gh_err err;
	char runtime[16];
	int pid = x->route.pid;

	*res = NULL;
	if (!left)
		return NULL;
	/* The plain path serves the first runtime only: reading the others
	 * would cost their walks for nothing. */
	snprintf(runtime, sizeof(runtime), "%u",
		 x->route.runtime ? x->route.runtime : 1);
	sel.pids = &pid;
	sel.npids = 1;
	sel.runtime = runtime;
	rq.timeout_ms = left;
	if (gh_collector__collect(srv->c, &rq, res, &err)) {
		reply__text(&x->reply, 500, "%s", err.msg);
		return NULL;
	}
	stats__costs(&srv->stats, *res);
	for (size_t i = 0; i < (*res)->n; i++)
		stats__profile(&srv->stats, &(*res)->v[i]);
	/* A named process the filters leave out is dropped from the
	 * results (a vanished one is a result saying so). */
	if (!(*res)->n) {
		reply__text(&x->reply, 404,
			    "process %d is not exposed by this server: its "
			    "filters (--comm, --cgroup, --container, "
			    "--exclude-self) leave it out",
			    pid);
		return NULL;
	}
	if ((*res)->v[0].err.code != GH_OK) {
		refuse(x, &(*res)->v[0]);
		return NULL;
	}
	return &(*res)->v[0];
}

void pprof_reply(struct exch *x, const struct gh_profile *p,
		 const struct gh_write_opts *w, const char *filename)
{
	struct gh_err err;
	FILE *f;

	if (!(f = reply__open(&x->reply)))
		return;
	if (gh_profile__write(p, f, w, &err)) {
		fclose(f);
		reply__text(&x->reply, 500, "%s", err.msg);
		return;
	}
	/* net/http/pprof's headers: the text is shown, the profile is a
	 * file to save */
	if (w->format == GH_FORMAT_LEGACY) {
		reply__close(&x->reply, f, 200, "text/plain; charset=utf-8");
	} else {
		reply__close(&x->reply, f, 200, "application/octet-stream");
		reply__header(&x->reply, "Content-Disposition",
			      "attachment; filename=\"%s\"", filename);
	}
	pprof_runtime_headers(x, p, pprof_name(x));
}

void pprof_page(struct exch *x)
{
	const struct gh_write_opts legacy = {.sz = sizeof(struct gh_write_opts),
					     .format = GH_FORMAT_LEGACY},
				   pprof = pprof_opts(x);
	const struct gh_write_opts *w = x->route.debug ? &legacy : &pprof;
	const struct gh_result *r;
	struct gh_results *res;

	if ((r = pprof_read(x, w, false, &res)))
		pprof_reply(x, r->profile, w, pprof_name(x));
	gh_results__free(res);
}

/* serve.c - `goheap-bpf serve`: its life. Flags, token and listening
 * socket first (a bad one ends it at once, status 2 or 1); then the
 * collector (one, kept: its BPF program stays loaded, its caches warm),
 * the jobs thread and the HTTP thread; then it waits for SIGTERM, SIGINT
 * or SIGHUP, stops accepting, lets the requests in flight finish within
 * their deadline, and exits 0. A second signal cuts the wait short. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmdclock.h"
#include "cmd/run.h"
#include "cmd/say.h"
#include "cmd/selectflags.h"
#include "cmd/serve/http.h"
#include "cmd/serve/mhd.h"

/* The signals that end the server, less those ignored from the start
 * (nohup's SIGHUP), blocked in every thread: the main thread takes them
 * with sigwait, never a handler in the middle of a request. */
static void block_signals(sigset_t *set)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction was;

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (!sigaction(sigs[i], NULL, &was) &&
		    was.sa_handler != SIG_IGN)
			sigaddset(set, sigs[i]);
	pthread_sigmask(SIG_BLOCK, set, NULL);
}

/* A bad --comm fails here, at start (status 2), not on the first scrape:
 * a request for this process alone compiles the filters (and, this
 * process not being Go, reads nothing). */
static int check_filters(struct server *srv)
{
	int self = getpid();
	struct gh_select sel = srv->filters;
	struct gh_request rq = {.sz = sizeof(struct gh_request),
				.select = &sel};
	struct gh_results *res = NULL;
	struct gh_err err;

	sel.pids = &self;
	sel.npids = 1;
	if (gh_collector__collect(srv->c, &rq, &res, &err)) {
		say("", err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	gh_results__free(res);
	return 0;
}

struct matched {
	struct gh_collector *c;
	size_t n;
};

/* The processes are opened: their number is all that is wanted. */
static void count_and_stop(void *arg, size_t nresults)
{
	struct matched *m = arg;

	m->n = nresults;
	gh_collector__cancel(m->c);
}

/* Filters that match no Go process now are said once, at start: their
 * pages would list none, and a wrong prefix looks like a quiet host. A
 * sweep that ends when the processes are opened reads no heap. */
static void say_if_none(struct server *srv)
{
	struct matched m = {srv->c, 0};
	struct gh_request rq = {.sz = sizeof(struct gh_request),
				.select = &srv->filters,
				.count_only = true,
				.opened = count_and_stop,
				.opened_arg = &m};
	struct gh_results *res = NULL;

	if (!select_filtered(&srv->filters) ||
	    gh_collector__collect(srv->c, &rq, &res, NULL))
		return;
	gh_results__free(res);
	if (!m.n)
		select_say_none(&srv->filters,
				"serving; its pages list one once it starts");
}

static int setup(struct server *srv, struct token *token)
{
	struct gh_collector_opts co = {
		.sz = sizeof(struct gh_collector_opts),
		.backend = srv->o.backend,
		.keep_stacks = true,
		.max_kept_bytes = srv->o.max_kept_mb << 20,
	};
	char why[512];
	struct gh_err err;

	if (srv->o.token_file) {
		if (auth_load(srv->o.token_file, token, why, sizeof(why))) {
			say("", why);
			return GH_E_USAGE;
		}
		srv->token = token;
	}
	srv->filters = srv->o.select;
	if (gh_collector__new(&co, &srv->c, &err)) {
		say("", err.msg);
		return err.code ? err.code : GH_E_FAILED;
	}
	if (check_filters(srv))
		return GH_E_USAGE;
	say_if_none(srv);
	if (listen_open(srv->o.listen, &srv->l, why, sizeof(why))) {
		say("", why);
		return GH_E_FAILED;
	}
	if (!srv->l.loopback && !srv->token)
		say("", "warning: serving every exposed process's heap to the "
			"network without a token; give --token-file, or "
			"--listen on a loopback address");
	return 0;
}

/* Wait for the requests in flight (their deadline, and a little for the
 * answers to go out), or for a second signal. */
static void drain(struct server *srv, const sigset_t *set)
{
	uint64_t until = now_ns() + (srv->o.deadline_ms + 2000) * 1000000ull;
	struct timespec tick = {0, 20000000};

	while (atomic_load(&srv->inflight) && now_ns() < until)
		if (sigtimedwait(set, NULL, &tick) > 0) {
			say("", "second signal: cutting the requests in flight "
				"short");
			atomic_store(&srv->cut, true);
			break;
		}
	gh_collector__cancel(srv->c);
}

int run_serve(int argc, char **argv)
{
	static struct server srv;
	static struct token token;
	struct MHD_Daemon *d = NULL;
	char why[512];
	sigset_t set;
	int st, sig;

	serve_opts__parse(argc, argv, &srv.o);
	if (mhd__open(why, sizeof(why))) {
		say("", why);
		return GH_E_FAILED;
	}
	block_signals(&set);
	srv.l.fd = -1;
	if ((st = setup(&srv, &token)))
		goto out;
	if (stats__init(&srv.stats) ||
	    cache__init(&srv.cache, srv.o.refresh_ms) ||
	    job_queue__start(&srv.jobs, srv.o.max_queue)) {
		say("", "out of memory or threads starting the server");
		st = GH_E_FAILED;
		goto out;
	}
	if (!(d = http_start(&srv, why, sizeof(why)))) {
		say("", why);
		job_queue__stop(&srv.jobs);
		st = GH_E_FAILED;
		goto out;
	}
	fprintf(stderr,
		"goheap-bpf: serving on http://%s/ (profiles at "
		"/pid/PID/debug/pprof/heap; SIGTERM or SIGINT stops)\n",
		srv.l.addr);
	if (sigwait(&set, &sig) == 0)
		fprintf(stderr,
			"goheap-bpf: %s: no new connections; finishing %zu "
			"request%s in flight\n",
			strsignal(sig), atomic_load(&srv.inflight),
			atomic_load(&srv.inflight) == 1 ? "" : "s");
	atomic_store(&srv.stopping, true);
	http_quiesce(d);
	drain(&srv, &set);
	/* Every job still queued is answered (at once: its deadline passed,
	 * or the collector is cancelled), its connection resumed. */
	job_queue__stop(&srv.jobs);
	http_stop(d);
	cache__destroy(&srv.cache);
	stats__destroy(&srv.stats);
	fprintf(stderr, "goheap-bpf: stopped\n");
	st = 0;
out:
	if (srv.l.fd >= 0)
		close(srv.l.fd);
	gh_collector__free(srv.c);
	return st;
}

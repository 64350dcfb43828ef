/* server.h - what the parts of `goheap-bpf serve` share: its options, the
 * collector (its thread's alone), the queue of requests for it, the last
 * sweep, the counters, and one request's exchange from arrival to log
 * line. */
#ifndef GH_CMD_SERVER_H
#define GH_CMD_SERVER_H

#include <stdatomic.h>

#include "cmd/serve/auth.h"
#include "cmd/serve/jobs.h"
#include "cmd/serve/listen.h"
#include "cmd/serve/reply.h"
#include "cmd/serve/route.h"
#include "cmd/serve/serveopts.h"
#include "cmd/serve/stats.h"
#include "cmd/serve/sweepcache.h"

struct MHD_Connection;

struct server {
	struct serve_opts o;
	const struct token *token; /* NULL: none required */
	struct listener l;
	struct gh_select filters; /* what is exposed */
	struct gh_collector *c;	  /* the jobs thread's alone */
	struct jobs jobs;
	struct cache cache;
	struct stats stats;
	atomic_bool stopping;	/* SIGTERM: answer, then close */
	atomic_bool cut;	/* a second signal: answer 503 at once */
	atomic_size_t inflight; /* requests not yet logged */
};

/* One request, from its first line to its log line. */
struct exch {
	struct job job; /* while it waits for the collector */
	struct server *srv;
	struct MHD_Connection *conn;
	char target[ROUTE_TARGET_MAX + 1]; /* its first bytes */
	size_t target_len;		   /* all of its length */
	char method[16];
	uint64_t start_ns, deadline_ns;
	char host[256]; /* its Host header, when it is a plain host[:port] */
	struct route route;
	bool queued; /* its reply is being made on the jobs thread */
	/* ?seconds=N: the first read, while the second waits its turn */
	struct gh_results *before;
	struct reply reply;
};

/* The jobs thread's answers (the collector's work): a profile
 * (pprofpage.c), a delta profile (deltapage.c: false while x waits for
 * its second read, queued again for later), and a page of the host's
 * processes after the sweep it needs (pages.c). */
void pprof_page(struct exch *x);
bool delta_page(struct exch *x);
void listing_page(struct exch *x);

/* The parts of a profile's answer (pprofpage.c). x's endpoint's name
 * ("heap", "allocs"), and its pprof options (allocs' default sample
 * type). */
const char *pprof_name(const struct exch *x);
struct gh_write_opts pprof_opts(const struct exch *x);
/* Read x's Go runtime now, built for w (NULL: none) and with its samples
 * when keep: its result, or NULL with x's reply saying why there is
 * none. *res is the caller's to free, either way. */
const struct gh_result *pprof_read(struct exch *x,
				   const struct gh_write_opts *w, bool keep,
				   struct gh_results **res);
/* p written as w says, with net/http/pprof's headers (a pprof file is
 * saved as filename), and the names of the process's other runtimes. */
void pprof_reply(struct exch *x, const struct gh_profile *p,
		 const struct gh_write_opts *w, const char *filename);
/* The same page from a sweep in hand, on either thread. */
void listing_render(struct exch *x, const struct snap *s);

/* Milliseconds left before x's deadline; 0 when it has passed (or a
 * second signal is stopping the server), x's reply then a 503 saying
 * so. */
uint64_t exch_time_left(struct exch *x);

#endif

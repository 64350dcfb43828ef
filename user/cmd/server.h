/* server.h - what the parts of `goheap-bpf serve` share: its options, the
 * collector (its thread's alone), the queue of requests for it, the last
 * sweep, the counters, and one request's exchange from arrival to log
 * line. */
#ifndef GH_CMD_SERVER_H
#define GH_CMD_SERVER_H

#include <stdatomic.h>

#include "cmd/auth.h"
#include "cmd/jobs.h"
#include "cmd/listen.h"
#include "cmd/reply.h"
#include "cmd/route.h"
#include "cmd/serveopts.h"
#include "cmd/stats.h"
#include "cmd/sweepcache.h"

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
	struct reply reply;
};

/* The jobs thread's answers (the collector's work): a profile
 * (pprofpage.c), and a page of the host's processes after the sweep it
 * needs (pages.c). */
void pprof_page(struct exch *x);
void listing_page(struct exch *x);
/* The same page from a sweep in hand, on either thread. */
void listing_render(struct exch *x, const struct snap *s);

/* Milliseconds left before x's deadline; 0 when it has passed (or a
 * second signal is stopping the server), x's reply then a 503 saying
 * so. */
uint64_t exch_time_left(struct exch *x);

#endif

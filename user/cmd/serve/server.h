/* server.h - what the parts of `goheap-bpf serve` share: its options, the
 * collector (its thread's alone), the queue of requests for it, the last
 * sweep and the counters. One request's exchange is exch.h's. */
#ifndef GH_CMD_SERVER_H
#define GH_CMD_SERVER_H

#include <stdatomic.h>

#include "cmd/serve/auth.h"
#include "cmd/serve/jobqueue.h"
#include "cmd/serve/listen.h"
#include "cmd/serve/reply.h"
#include "cmd/serve/route.h"
#include "cmd/serve/serveopts.h"
#include "cmd/serve/stats.h"
#include "cmd/serve/sweepcache.h"

struct server {
	struct serve_opts o;
	const struct token *token; /* NULL: none required */
	struct listener l;
	struct gh_select filters; /* what is exposed */
	struct gh_collector *c;	  /* the jobs thread's alone */
	struct job_queue jobs;
	struct cache cache;
	struct stats stats;
	atomic_bool stopping;	/* SIGTERM: answer, then close */
	atomic_bool cut;	/* a second signal: answer 503 at once */
	atomic_size_t inflight; /* requests not yet logged */
};

#endif

/* exch.h - one request of `goheap-bpf serve`, from its first line to its
 * log line (http.c makes and frees it): what it asked, its deadline, and
 * the reply being made for it, on the polling thread or, while it is
 * queued, on the jobs thread. */
#ifndef GH_CMD_SERVE_EXCH_H
#define GH_CMD_SERVE_EXCH_H

#include "cmd/serve/server.h"

struct MHD_Connection;

struct exch {
	struct queued_job job; /* while it waits for the collector */
	struct server *srv;
	struct MHD_Connection *conn;
	char target[ROUTE_TARGET_MAX + 1]; /* its first bytes */
	size_t target_len;		   /* all of its length */
	char method[16];
	uint64_t start_ns, deadline_ns;
	char host[256]; /* its Host header, when it is a plain host[:port] */
	struct route route;
	bool queued; /* its reply is being made on the jobs thread */
	/* ?seconds=N: the first read, while the second waits its turn (the
	 * goroutine profile's: goroutines_before) */
	struct gh_results *before;
	struct gh_profile *goroutines_before;
	struct reply reply;
};

/* Milliseconds left before x's deadline; 0 when it has passed (or a
 * second signal is stopping the server), x's reply then a 503 saying
 * so. */
uint64_t exch__time_left(struct exch *x);

#endif

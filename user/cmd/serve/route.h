/* route.h - what a request asks the server for, decided from its method,
 * its raw request target (path and query) and its Authorization header
 * alone: a pure function, so that the fuzzer can feed it anything a
 * client can send. Every byte is bounds-checked; nothing is decoded into
 * more than ROUTE_TARGET_MAX bytes. */
#ifndef GH_CMD_ROUTE_H
#define GH_CMD_ROUTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/serve/auth.h"

/* The longest request target read; a longer one is 414. */
#define ROUTE_TARGET_MAX 4096
/* PID_MAX_LIMIT on 64-bit Linux: no PID is larger. */
#define ROUTE_PID_MAX 4194304
/* Go runtimes one process may be asked for by number. */
#define ROUTE_RUNTIME_MAX 1024
#define ROUTE_WHY_MAX	  256

enum endpoint {
	EP_INDEX,     /* /: an HTML page linking every process's profiles */
	EP_HEALTHZ,   /* /healthz */
	EP_METRICS,   /* /metrics: Prometheus text exposition */
	EP_PROCESSES, /* /processes: JSON */
	EP_TARGETS,   /* /targets: Prometheus http_sd */
	EP_HEAP,      /* /pid/PID[/runtime/N]/debug/pprof/heap */
	EP_ALLOCS,    /* /pid/PID[/runtime/N]/debug/pprof/allocs */
	EP_BLOCK,     /* /pid/PID[/runtime/N]/debug/pprof/block */
	EP_MUTEX,     /* /pid/PID[/runtime/N]/debug/pprof/mutex */
	EP_GOROUTINE, /* /pid/PID[/runtime/N]/debug/pprof/goroutine */
};

struct route_in {
	const char *method;	   /* as received (NUL-terminated) */
	const char *target;	   /* the request target, raw: path?query */
	size_t target_len;	   /* its length: every byte of it is read */
	const char *authorization; /* its Authorization header; NULL: none */
	const struct token *token; /* NULL: no token is required */
	/* The server's request timeout in seconds: a ?seconds=N as long or
	 * longer is refused, as net/http/pprof refused one that reached its
	 * server's WriteTimeout (the request could not end in time); 0: no
	 * limit. */
	uint64_t max_seconds;
};

struct route {
	/* 0: serve ep; else the HTTP status to answer, and why (one line,
	 * naming the fix) */
	int status;
	char why[ROUTE_WHY_MAX];
	enum endpoint ep;
	bool head; /* HEAD: the headers of GET, no body */
	int pid;   /* the profiles' */
	/* The profiles: the runtime asked for by number; 0 for the plain
	 * path, which serves the first */
	unsigned runtime;
	/* EP_HEAP, EP_ALLOCS: ?seconds=N, the delta over N seconds (0:
	 * none), or ?debug=N with N non-zero, the legacy text */
	int64_t seconds;
	bool debug;
	/* EP_GOROUTINE: what writeGoroutine writes for ?debug=N: 0 the
	 * pprof profile (N <= 0), 1 the counts' text (N = 1), 2 every
	 * goroutine's stack (N >= 2) */
	int goroutine_debug;
};

/* Decide what in asks for, into r. Statuses: 400 (bad PID, runtime,
 * escape or query value, seconds past max_seconds, gc=N on heap), 401
 * (token missing or wrong), 404 (no such endpoint), 405 (not GET or
 * HEAD), 414 (target too long). */
void route__parse(const struct route_in *in, struct route *r);

/* Does ep name a profile (whose errors net/http/pprof marks with
 * X-Go-Pprof, so that go tool pprof shows their text)? */
bool route_is_profile(enum endpoint ep);

#endif

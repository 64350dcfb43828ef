/* serveopts.h - what `goheap-bpf serve` was asked to do, from its flags
 * (serveflags.c), with their defaults. */
#ifndef GH_CMD_SERVEOPTS_H
#define GH_CMD_SERVEOPTS_H

#include "goheap.h"

#define SERVE_LISTEN	      "127.0.0.1:6061"
#define SERVE_REFRESH_MS      15000
#define SERVE_DEADLINE_MS     30000
#define SERVE_MAX_QUEUE	      16
#define SERVE_MAX_CONNECTIONS 256
#define SERVE_MAX_KEPT_MB     256
/* Bytes a request's first line and headers may take (libmicrohttpd's
 * memory per connection); past it libmicrohttpd answers 414 or 431. */
#define SERVE_REQUEST_MAX 32768
/* Seconds a connection may sit idle (no request, or a request not sent
 * whole) before the server closes it. */
#define SERVE_IDLE_S 15

struct serve_opts {
	const char *listen;	 /* ADDR:PORT */
	const char *token_file;	 /* NULL: no token */
	struct gh_select select; /* the filters: what is exposed */
	uint64_t refresh_ms;	 /* the sweep behind /metrics etc. at most
				    this often */
	uint64_t deadline_ms;	 /* a request's deadline */
	unsigned max_queue;	 /* requests waiting for or using the
				    collector */
	unsigned max_connections;
	size_t max_kept_mb;
	enum gh_backend backend;
};

/* Parse `serve`'s argv (argv[0] is "serve") into o; a bad flag ends the
 * process (exit status 2). */
void serve_opts__parse(int argc, char **argv, struct serve_opts *o);

#endif

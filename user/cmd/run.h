/* run.h - the front ends, as main.c starts them: given the collector
 * and a request holding what the flags select and bound, one or more
 * named processes (pid/) or a sweep (sweep/); or, each with its own
 * flags, the HTTP server (serve/), the difference of two profiles (diff/)
 * and the watch (watch/). Each is defined in its folder and returns the
 * exit status. */
#ifndef GH_CMD_RUN_H
#define GH_CMD_RUN_H

#include "cmd/opts.h"

int run_pids(const struct opts *o, struct gh_collector *c,
	     struct gh_request *rq);
/* --profile goroutine --pid ...: each Go runtime's goroutine profile
 * (pid/goroutines.c); c lists the runtimes. */
int run_goroutines(const struct opts *o, struct gh_collector *c);
int run_sweep(const struct opts *o, struct gh_collector *c,
	      struct gh_request *rq);
/* `goheap-bpf serve ...` (argv[0] is "serve"): the HTTP server, until a
 * signal ends it (serve/serve.c). */
int run_serve(int argc, char **argv);
/* `goheap-bpf diff OLD NEW ...` (argv[0] is "diff"): two profiles'
 * difference (diff/diffcmd.c). */
int run_diff(int argc, char **argv);
/* `goheap-bpf watch ...` (argv[0] is "watch"): snapshots when memory
 * goes wrong, until a signal ends it (watch/watchcmd.c). */
int run_watch(int argc, char **argv);

#endif

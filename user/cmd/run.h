/* run.h - the command's ways to run: given the collector and a request
 * holding what the flags select and bound, one or more named processes
 * (pids.c) or a sweep (sweep.c); or, with its own flags, the HTTP server
 * (serve.c). Each returns the exit status. */
#ifndef GH_CMD_RUN_H
#define GH_CMD_RUN_H

#include "cmd/opts.h"

int run_pids(const struct opts *o, struct gh_collector *c,
	     struct gh_request *rq);
int run_sweep(const struct opts *o, struct gh_collector *c,
	      struct gh_request *rq);
/* `goheap-bpf serve ...` (argv[0] is "serve"): the HTTP server, until a
 * signal ends it (serve.c). */
int run_serve(int argc, char **argv);
/* `goheap-bpf diff OLD NEW ...` (argv[0] is "diff"): two profiles'
 * difference (diff.c). */
int run_diff(int argc, char **argv);
/* `goheap-bpf watch ...` (argv[0] is "watch"): snapshots when memory
 * goes wrong, until a signal ends it (watch.c). */
int run_watch(int argc, char **argv);

/* --verbose: what one profile cost, and what the request did. */
void verbose_profile(const struct gh_profile *p);
void verbose_results(const struct gh_results *r, size_t nresults);

#endif

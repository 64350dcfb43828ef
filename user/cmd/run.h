/* run.h - the command's two ways to run, each given the collector and a
 * request holding what the flags select and bound: one or more named
 * processes (pids.c), or a sweep (sweep.c). Each returns the exit
 * status. */
#ifndef GH_CMD_RUN_H
#define GH_CMD_RUN_H

#include "cmd/opts.h"

int run_pids(const struct opts *o, struct gh_collector *c,
	     struct gh_request *rq);
int run_sweep(const struct opts *o, struct gh_collector *c,
	      struct gh_request *rq);
/* `goheap-bpf watch ...` (argv[0] is "watch"): snapshots when memory
 * goes wrong, until a signal ends it (watch.c). */
int run_watch(int argc, char **argv);

/* --verbose: what one profile cost, and what the request did. */
void verbose_profile(const struct gh_profile *p);
void verbose_results(const struct gh_results *r, size_t nresults);

#endif

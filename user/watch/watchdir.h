/* watchdir.h - a watch's output directory: each snapshot a pprof file
 * (labelled, the trigger's context as comments) and a JSON document (the
 * context and the profile), per process at most so many kept (the oldest
 * removed), the at-peak snapshot replaced in place; index.jsonl naming
 * what is kept, rewritten whole after each snapshot. */
#ifndef GH_WATCH_WATCHDIR_H
#define GH_WATCH_WATCHDIR_H

#include "goheap.h"

struct watchdir;

/* OUTPUT (or USAGE for no dir) when dir cannot be used. */
int watchdir__open(const char *dir, size_t keep_files, uint64_t keep_bytes,
		   struct watchdir **out, struct gh_err *err);

/* Write p (its samples kept) for ev, whose file names it fills, and
 * goroutines (NULL: none), its process's goroutine profile, as the pprof
 * named as p's with ".goroutine.pb.gz"; then the retention bound of ev's
 * process, then the index. */
int watchdir__add(struct watchdir *d, const struct gh_profile *p,
		  const struct gh_profile *goroutines,
		  struct gh_watch_event *ev, struct gh_err *err);

void watchdir__free(struct watchdir *d);

/* Retention: how many of the oldest of n snapshots (their sizes, oldest
 * first) to remove so that at most keep_files and keep_bytes remain (0:
 * no bound); the newest is never removed. */
size_t watchdir_excess(const uint64_t *sizes, size_t n, size_t keep_files,
		       uint64_t keep_bytes);

#endif

/* leaks.h - a watched runtime's short series of snapshots, each kept as
 * its in-use bytes per stack, and the stacks that grew at every step of
 * it: the likeliest leaks (gh_watch_event.leaks). */
#ifndef GH_WATCH_LEAKS_H
#define GH_WATCH_LEAKS_H

#include "goheap.h"

/* Stacks kept per snapshot: its largest, by in-use bytes. */
#define LEAKS_MAX_STACKS     1024
#define LEAKS_DEFAULT_WINDOW 3
#define LEAKS_MAX_WINDOW     16

struct leak_series;

/* Add snapshot p (samples kept) to *s, made on first use, keeping its
 * last window + 1 snapshots; -1 when out of memory (p is then left
 * out). */
int leaks_add(struct leak_series **s, size_t window,
	      const struct gh_profile *p);
/* The stacks of the last snapshot, p (the one added last), whose in-use
 * bytes grew at each step of the series, once it holds window + 1: most
 * growth first, then most in use, then by site. At most max into out;
 * how many. */
size_t leaks_rank(const struct leak_series *s, const struct gh_profile *p,
		  struct gh_leak *out, size_t max);
/* Bytes s holds. */
size_t leaks_bytes(const struct leak_series *s);
void leaks_free(struct leak_series *s);

#endif

/* gleak.h - the goroutine profile's leak view (gh_goroutine_opts.view):
 * the waiting goroutines of a read grouped by stack and what they wait
 * for, ranked by how many wait there and for how long, as text or JSON
 * (goheap-bpf(8), LEAK VIEW). */
#ifndef GH_GOROUTINE_GLEAK_H
#define GH_GOROUTINE_GLEAK_H

#include <stdio.h>

#include "goroutine/gtext.h"

struct gleak_opts {
	int pid;
	const char *go_version;
	int64_t min_wait_ns; /* only known waits at least this long (0: all) */
	size_t top_n;	     /* groups shown at most (0: all) */
	bool json;
};

/* s's leak view into f. 0, or -1 with errno (ENOMEM, or the stream's). */
int gleak_write(const struct gtext_env *e, const struct gsnap *s,
		const struct gleak_opts *o, FILE *f);

#endif

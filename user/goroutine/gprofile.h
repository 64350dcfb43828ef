/* gprofile.h - one opened Go runtime's goroutine profile as a gh_profile
 * (gh_goroutines__read's, from a target the caller opened): for the
 * collector, which opens every process of a sweep itself and loads iter's
 * program once for all of them. */
#ifndef GH_GOROUTINE_GPROFILE_H
#define GH_GOROUTINE_GPROFILE_H

#include "goheap.h"
#include "target/target.h"

struct gpass;

/* What a caller that reads many processes lends each read. */
struct gprofile_with {
	struct gpass *pass;   /* iter's program, loaded (NULL: loaded here) */
	uint64_t deadline_ns; /* iter: CLOCK_MONOTONIC; 0: its own bound */
};

/* t's debug=0 profile (o->debug and o->view unread) into *out: kind
 * goroutine, its samples kept, its goroutines by state; read by
 * o->backend (auto: iter, then procmem), w may be NULL. 0, or PARTIAL
 * with *out set, as the read was; else -1 with err (gh_goroutines__read's
 * statuses) and *out NULL. */
int gprofile_read(struct target *t, const struct gh_goroutine_opts *o,
		  const struct gprofile_with *w, struct gh_profile **out,
		  struct gh_err *err);

#endif

/* sink.h - where a profile's samples go as the builder (view.c) makes
 * them: the output formats' aggregators (write/), a caller's own
 * consumer (gh_sink), or the profile itself when samples are kept. The
 * builder knows none of them by name; the profile owns them once built,
 * so that what they aggregated can be rendered later. */
#ifndef GH_PROFILE_SINK_H
#define GH_PROFILE_SINK_H

#include "goheap.h"

struct psink_ops {
	/* One sample, in allnext order. p holds every location, function
	 * and mapping s refers to; s is valid only during the call. Non-zero
	 * fails the build. */
	int (*sample)(void *st, const struct gh_profile *p,
		      const struct gh_sample *s);
	/* The build starts over: forget every sample so far. */
	void (*reset)(void *st);
	/* The build is over: p's tables are final (its header is not filled
	 * yet). NULL: nothing to do. */
	int (*finish)(void *st, const struct gh_profile *p, struct gh_err *err);
	void (*free)(void *st);
};

struct psink {
	const struct psink_ops *ops;
	void *st;
};

/* What the library keeps with a profile it built (gh_profile.x). */
struct gh_profile_x {
	struct psink *sinks; /* owned: freed with the profile */
	size_t nsinks;
	bool kept;   /* p->samples holds every sample */
	bool nodata; /* a header only: p->status says why */
};

/* Free each sink of v[0..n) and v itself. */
void psinks_free(struct psink *v, size_t n);

#endif

/* watchsnap.h - a step's snapshots (watchsnap.c), for the watch's loop
 * (watchloop.c): what the loop found due, and the request that takes
 * them. */
#ifndef GH_WATCH_WATCHSNAP_H
#define GH_WATCH_WATCHSNAP_H

#include "watch/watchstate.h"

/* A process due for a snapshot: why, and its memory then. */
struct watch_due {
	struct wproc *p;
	unsigned fired;
	char why[256];
	struct gh_memstat m;
	int64_t when_ns;
	bool peak;
	bool wrote; /* a snapshot of what fired was written */
};

/* Take the snapshots of the n processes due, and write them. */
int watch__snapshot(struct gh_watch *w, struct watch_due *due, size_t n,
		    struct gh_err *err);

#endif

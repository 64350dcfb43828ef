/* handoff.h - results passed from the collecting thread to a sweep's
 * writer thread, in order, a bounded number at a time: writing the files
 * of one window overlaps reading the next, and memory stays bounded. */
#ifndef GH_CMD_HANDOFF_H
#define GH_CMD_HANDOFF_H

#include <pthread.h>

#include "goheap.h"

#define HANDOFF_MAX 16

struct handoff {
	pthread_mutex_t mu;
	pthread_cond_t changed;
	struct gh_result v[HANDOFF_MAX]; /* a ring; each owns its profile */
	size_t head, n;
	bool closed;
};

int handoff__init(struct handoff *h);
void handoff__destroy(struct handoff *h);
/* Add r (taking its profile: r->profile becomes NULL), waiting while the
 * queue is full. */
void handoff__put(struct handoff *h, struct gh_result *r);
/* No more results. */
void handoff__close(struct handoff *h);
/* The next result into *r (its profile the caller's); false once the
 * queue is closed and empty. */
bool handoff__get(struct handoff *h, struct gh_result *r);

#endif

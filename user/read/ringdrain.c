/* ringdrain.c - see ringdrain.h. The producer sends no wake-ups (each would
 * cost it an interrupt), so the drainer polls: it consumes whatever is
 * there, and naps briefly when nothing is. The ring buffer holds several
 * milliseconds of the walk's output, so a nap of tens of microseconds
 * never lets it fill. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "read/ringdrain.h"

#define NAP_NS 20000

struct drainer {
	struct ring_buffer *rb;
	void (*poll)(void *ctx);
	void *ctx;
	atomic_bool done; /* the producer has returned */
	int err;
};

static void *drain(void *arg)
{
	struct drainer *d = arg;
	const struct timespec nap = {0, NAP_NS};
	bool done;
	int n;

	do {
		/* done is read before consuming: the last round sees every
		 * record committed before the producer returned. */
		done = atomic_load(&d->done);
		if (d->poll)
			d->poll(d->ctx);
		n = ring_buffer__consume(d->rb);
		if (n < 0) {
			d->err = n;
			break;
		}
		if (!n && !done)
			nanosleep(&nap, NULL);
	} while (!done);
	return NULL;
}

int ring_drain_during(struct ring_buffer *rb, int (*produce)(void *ctx),
		      void (*poll)(void *ctx), void *ctx, bool serial,
		      int *drain_err)
{
	struct drainer d = {.rb = rb, .poll = poll, .ctx = ctx};
	pthread_t t;
	int rc, n;

	atomic_init(&d.done, false);
	if (serial || pthread_create(&t, NULL, drain, &d)) {
		rc = produce(ctx);
		n = ring_buffer__consume(rb);
		*drain_err = n < 0 ? n : 0;
		return rc;
	}
	rc = produce(ctx);
	atomic_store(&d.done, true);
	pthread_join(t, NULL);
	*drain_err = d.err;
	return rc;
}

/* ringdrain.h - drain a BPF ring buffer on a second thread while a blocking
 * call makes its producer run (the task iterator's read()), so that the
 * records are decoded while the walk goes on instead of after it. */
#ifndef GH_RINGDRAIN_H
#define GH_RINGDRAIN_H

#include <stdbool.h>

struct ring_buffer;

/* Run produce(ctx) on this thread while another consumes rb, calling
 * poll(ctx) (may be NULL) between its rounds; once produce has returned,
 * consume what is left. Serially (or without a second thread), consume only
 * after it. Returns produce's result; *drain_err is 0 or
 * ring_buffer__consume's first error. */
int ring_drain_during(struct ring_buffer *rb, int (*produce)(void *ctx),
		      void (*poll)(void *ctx), void *ctx, bool serial,
		      int *drain_err);

#endif

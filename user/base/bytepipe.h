/* bytepipe.h - a one-producer, one-consumer byte pipe with its own consumer
 * thread, so that two stages of a snapshot (reading buckets, building the
 * profile from them; encoding, compressing) run on two CPUs at once. */
#ifndef GH_BASE_BYTEPIPE_H
#define GH_BASE_BYTEPIPE_H

#include <stddef.h>

struct bytepipe;

/* Consumes one chunk of len bytes on the pipe's thread, in the order the
 * producer filled them. Non-zero is the pipe's error: later chunks are
 * dropped and the producer sees it. */
typedef int (*bytepipe_fn)(void *ctx, const void *data, size_t len);

/* A pipe of chunks of chunk_bytes; 0, or -1 with errno. */
int bytepipe__new(struct bytepipe **out, size_t chunk_bytes, bytepipe_fn fn,
		  void *ctx);

/* Room for n bytes (n <= chunk_bytes) at the end of the chunk being filled,
 * handing the chunk over first when it has less; NULL once the consumer has
 * failed or n is too large. What bytepipe__commit does not claim is unused. */
void *bytepipe__reserve(struct bytepipe *p, size_t n);
void bytepipe__commit(struct bytepipe *p, size_t n);

/* Hand over what was filled and wait until the consumer has taken it all.
 * Returns the consumer's first error (and forgets it), or 0. */
int bytepipe__sync(struct bytepipe *p);

/* Sync, stop the thread and free. NULL is a no-op. */
void bytepipe__free(struct bytepipe *p);

#endif

/* giter.h - a process's goroutines read through the BPF task iterator
 * (bpf/giter.bpf.c, read/gpass.c): the kernel copies each g, its stack's
 * used part and the g again; gsnap's checks and unwinder then run over
 * the copies (goroutine/gcopy.c). No CPU of the target's is used. */
#ifndef GH_GOROUTINE_GITER_H
#define GH_GOROUTINE_GITER_H

#include <stdatomic.h>

#include "goroutine/gsnap.h"
#include "read/backend.h"

struct gpass;

struct giter_opts {
	int pid;
	uint64_t
		deadline_ns; /* CLOCK_MONOTONIC; 0: GITER_TIMEOUT_NS from now */
	uint64_t max_bytes;  /* bytes copied at most (0: GITER_MAX_BYTES) */
	const atomic_bool *cancel;
	const struct backend_env *env;
	/* the program, loaded already and kept (a sweep's, one for every
	 * process); NULL: loaded for this read */
	struct gpass *pass;
};

#define GITER_TIMEOUT_NS (30ULL * 1000000000)
#define GITER_MAX_BYTES	 (1ULL << 30)
/* A g's stack copied only when its used part is at most this big (the
 * runtime's own stacks stay far below it; a larger one is counted as
 * failing a check). */
#define GITER_MAX_STACK (1ULL << 20)

/* gsnap__read through the iterator: e as for procmem (its u.fetch is
 * replaced). 0, s filled (partial with the reason past max_goroutines,
 * max_bytes or the deadline); -1 with err: KERNEL or PERM (the program
 * could not be loaded), GONE, FAILED. */
int giter_read(struct gsnap *s, struct gsnap_env *e, const struct giter_opts *o,
	       struct gh_err *err);

#endif

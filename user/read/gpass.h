/* gpass.h - the goroutine walk's BPF program (bpf/giter.bpf.c): loaded
 * once, then one task-iterator pass at a time over one process, its
 * records handed to the caller as the ring buffer is drained. It knows
 * nothing of Go: the caller (user/goroutine/giter.c) says what to copy
 * (struct gh_gcfg) and makes sense of the bytes. */
#ifndef GH_READ_GPASS_H
#define GH_READ_GPASS_H

#include <stdatomic.h>
#include <stddef.h>

#include "goheap.h"
#include "goheap_record.h"
#include "read/backend.h"

struct gpass;

/* The ring buffer: drained while the pass runs; a pass that fills it all
 * the same stops (RESUME) and the caller runs another. */
#define GH_GPASS_RING_BYTES (4u << 20)

/* Load and verify the program: PERM without privileges, KERNEL when the
 * kernel lacks BTF or sleepable task iterators (Linux 5.18+). */
int gpass__open(struct gpass **out, const struct backend_env *env,
		struct gh_err *err);
void gpass__free(struct gpass *p);

/* One pass over process pid with cfg (and, in GH_GCFG_RANGES mode,
 * ranges[0, cfg->nranges)): each record goes to on_record(ctx, data,
 * size), in order. 0 once the pass has run (its END among the records,
 * unless the iterator never reached the process: gone), -1 with err
 * (FAILED). A set *cancel stops the walk at its next step. */
int gpass__run(struct gpass *p, int pid, const struct gh_gcfg *cfg,
	       const struct gh_grange *ranges,
	       void (*on_record)(void *ctx, const void *data, size_t size),
	       void *ctx, const atomic_bool *cancel, struct gh_err *err);

#endif

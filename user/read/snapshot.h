/* snapshot.h - raw heap-profile buckets as read from a target, in allnext
 * order, before any interpretation. Filled by a reader backend. */
#ifndef GH_SNAPSHOT_H
#define GH_SNAPSHOT_H

#include "base/addrset.h"
#include "goheap.h"
#include "goheap_record.h"

struct bucket {
	uint64_t addr; /* bucket address in the target */
	uint64_t size; /* allocation size of the bucket */
	uint32_t nstk;
	/* index of the first stack word in snapshot.words */
	uint32_t stk_off;
	/* memRecord words: active then future[0..2]; 4 or 2 words per cycle */
	uint64_t rec[GH_MAX_REC_BYTES / 8];
	/* The raw cycle variable as read just after this bucket's bytes
	 * (has_cycle; else the read's start value, vars[GH_VAR_CYCLE],
	 * stands for it): its counters are taken as published then. */
	uint64_t cycle_raw;
	bool has_cycle;
};

struct snapshot;

/* A consumer of buckets as they arrive (see snapshot__set_sink). stk
 * holds b->nstk words and is valid only during the call; s->vars are read
 * before the first bucket arrives. Non-zero fails the snapshot (ENOMEM). A
 * sink on a pool's thread (snapshot__sink_on_pool) may read s->vars and
 * s->var_err, nothing else of s. */
typedef int (*bucket_sink)(void *ctx, const struct snapshot *s,
			   const struct bucket *b, const uint64_t *stk);

struct bytepipe;
struct buildpool;

struct snapshot {
	bucket_sink sink;      /* when set, buckets are passed on, not kept */
	struct bytepipe *pipe; /* to the sink's thread, when it has one */
	bool sink_failed;      /* the sink refused a bucket (its thread's) */
	void (*sink_restart)(void *ctx); /* the walk starts over */
	void *sink_ctx;
	struct bucket *buckets;
	size_t nbuckets, cap_buckets;
	uint64_t *words; /* all stacks, back to back */
	size_t nwords, cap_words;
	struct addrset seen; /* to detect a cyclic allnext list */

	uint64_t vars[GH_NVARS];     /* values read at the start of the walk */
	uint32_t var_err;	     /* bit i: vars[i] unreadable */
	uint64_t vars_end[GH_NVARS]; /* values re-read at the end */
	uint32_t var_err_end;
	bool partial;
	char reason[256];
	char note[128];		/* how the backend read it, worth saying ("") */
	double read_ms;		/* wall time of the read phase */
	uint64_t read_bytes;	/* bytes the backend received for it */
	uint64_t target_cpu_ns; /* perf: CPU its walk took in the target */
	/* The cycle variable read after the bytes of the buckets added next
	 * (snapshot__set_cycle): their cycle_raw. */
	uint64_t cycle_raw;
	bool has_cycle;
};

struct snapshot *snapshot__new(void);
/* Syncs a sink on a pool's thread first. NULL is a no-op. */
void snapshot__free(struct snapshot *s);

/* Append one bucket: its nstk stack words at stk, its rec_bytes of
 * memRecord at rec. Returns 1 if addr was already seen (the list is
 * cyclic; the bucket is not added), 0 when added, -1 on allocation
 * failure. */
int snapshot__add(struct snapshot *s, uint64_t addr, uint64_t size,
		  uint32_t nstk, const void *stk, const void *rec,
		  uint32_t rec_bytes);

/* The same for a stack that stays where it is, unchanged, until
 * snapshot__wait (a kept one): a sink on a pool's thread reads it there. */
int snapshot__add_kept(struct snapshot *s, uint64_t addr, uint64_t size,
		       uint32_t nstk, const void *stk, const void *rec,
		       uint32_t rec_bytes);

/* The raw cycle variable (known or not), read after the bytes of the
 * buckets added from now on: a read that a GC cycle boundary splits takes
 * each bucket's counters as published at or after its read, never before
 * (the counters of a cycle still under way are no profile's yet). */
void snapshot__set_cycle(struct snapshot *s, bool known, uint64_t raw);

/* Wait until the sink has taken every bucket added (its outcome stays for
 * snapshot__sync). A no-op without a thread. */
void snapshot__wait(struct snapshot *s);

/* Empty s for a new read into it (keeps its memory). */
void snapshot__clear(struct snapshot *s);

/* Stream buckets to sink instead of storing them: then s->buckets stays
 * empty and only s->nbuckets counts them. restart (may be NULL) is called
 * when a backend starts the walk over (snapshot__clear): forget what
 * was passed on so far. */
void snapshot__set_sink(struct snapshot *s, bucket_sink sink,
			void (*restart)(void *ctx), void *ctx);

/* A pool of workers threads that run snapshots' sinks, so that profiles
 * build while backends read, several at once: 0, or -1 with errno. */
int buildpool__new(unsigned workers, struct buildpool **out);
/* Waits for every sink still working. NULL is a no-op. */
void buildpool__free(struct buildpool *p);

/* Run s's sink on one of p's threads from now on, fed through its pipe
 * (snapshots take the threads in turn; several may share one). The sink
 * may then still be working when a backend's read returns:
 * snapshot__sync. s must be synced before p is freed. */
void snapshot__sink_on_pool(struct snapshot *s, struct buildpool *p);

/* Sync, and feed the sink on this thread from now on (its pool is going). */
void snapshot__leave_pool(struct snapshot *s);

/* Wait until the sink has taken every bucket added; -1 if it failed (out
 * of memory, or it refused a bucket). A no-op without a thread. */
int snapshot__sync(struct snapshot *s);

/* Mark the snapshot partial with a reason (the first reason wins). */
void snapshot__set_partial(struct snapshot *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline const uint64_t *bucket__stack(const struct snapshot *s,
					    const struct bucket *b)
{
	return s->words + b->stk_off;
}

#endif

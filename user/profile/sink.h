/* sink.h - where a profile's samples go as the builder (builder.c) makes
 * them: the output formats' aggregators (write/), a caller's own
 * consumer (gh_sink), or the profile itself when samples are kept. The
 * builder knows none of them by name; the profile owns them once built,
 * so that what they aggregated can be rendered later. */
#ifndef GH_PROFILE_SINK_H
#define GH_PROFILE_SINK_H

#include "goheap.h"

/* One frame of runtime.CallersFrames over a bucket's stack: what
 * runtime/pprof's printStackRecord prints of it. Addresses are the
 * target's own (runtime, not link-time). */
struct pframe {
	uint64_t pc;	      /* Frame.PC: the return PC - 1 past the entry */
	uint64_t entry;	      /* Frame.Entry: the enclosing real function's */
	const char *function; /* Frame.Function, as the release spells it */
	const char *file;     /* "?" when unknown */
	int64_t line;
};

/* How the target's release writes the legacy text (layout.h). */
struct ptext_rules {
	bool ascending;	    /* records by ascending in-use bytes */
	bool pdqsort;	    /* sorted by Go's pdqsort, else 1.18's quicksort */
	bool xorshift_7_17; /* pdqsort's xorshift of 1.24+ (gosort.h) */
	bool alloc_bump;    /* header's alloc bytes + 1 when equal in-use */
	bool hide_internal; /* leading "internal/runtime/" frames hidden */
};

/* One bucket as runtime.MemProfile publishes it (MemProfileRecord:
 * counters of the published cycles, unscaled; bytes are counts times the
 * object size where the release keeps no byte counts), its stack of
 * return PCs, runtime frames included, and that stack's frames. Valid
 * only during the call. */
struct praw {
	int64_t alloc_objects, free_objects, alloc_bytes, free_bytes;
	const uint64_t *stk;
	size_t nstk;
	const struct pframe *frames;
	size_t nframes;
	const struct ptext_rules *rules;
	/* A block or mutex bucket (gh_profile__kind) instead: its
	 * BlockProfileRecord's Count and Cycles, unscaled, and stk the stack
	 * writeProfileInternal prints (inlined frames expanded where the
	 * release expands them); the heap counters 0. */
	int64_t count, cycles;
};

struct psink_ops {
	/* One sample, in allnext order. p holds every location, function
	 * and mapping s refers to; s is valid only during the call. Non-zero
	 * fails the build. NULL: the sink wants none. */
	int (*sample)(void *st, const struct gh_profile *p,
		      const struct gh_sample *s);
	/* The same bucket, raw (the legacy text's record), right after its
	 * sample. NULL: the sink wants none, and the builder then resolves
	 * no frames. Non-zero fails the build. */
	int (*raw)(void *st, const struct gh_profile *p, const struct praw *r);
	/* The build starts over: forget every sample so far. */
	void (*reset)(void *st);
	/* The build is over: p's tables and header are final. NULL: nothing
	 * to do. */
	int (*finish)(void *st, const struct gh_profile *p, struct gh_err *err);
	void (*free)(void *st);
};

struct psink {
	const struct psink_ops *ops;
	void *st;
};

/* A goroutine profile's goroutines by state, as they were read
 * (gh_profile_x.states): a running one has no stack, a runnable one
 * (preempted too) waits for a P, a waiting one for what its wait reason
 * names, one in a system call for the kernel; other: copying its stack
 * (or a status the release added). */
struct gstate_reason {
	const char *reason; /* the release's waitReason text (static) */
	size_t n;
};

struct gstates {
	size_t running, runnable, waiting, syscall, other;
	struct gstate_reason *reasons; /* the waiting ones by reason, most
					  first (then by text); owned */
	size_t nreasons;
};

/* What the library keeps with a profile it built (gh_profile.x). */
struct gh_profile_x {
	struct psink *sinks; /* owned: freed with the profile */
	size_t nsinks;
	bool kept;	   /* p->samples holds every sample */
	bool nodata;	   /* a header only: p->status says why */
	enum gh_kind kind; /* gh_profile__kind */
	char notes[256];   /* for the profile's backend notes (collect/) */
	/* A block or mutex profile's: the target's runtime_cyclesPerSecond
	 * and its profile rate (blockprofilerate, mutexprofilerate), for the
	 * legacy text's header. */
	int64_t cycles_per_second, rate;
	/* A goroutine profile's string labels, one set per sample of
	 * p->samples (kept): labels[i] holds nlabels[i] pairs, key at 2j,
	 * value at 2j + 1. NULL when no sample has any. Owned. */
	char ***labels;
	size_t *nlabels;
	/* A goroutine profile's states; NULL for other kinds. Owned. */
	struct gstates *states;
	/* The runtime's counters read with it (collect/), or why not:
	 * rt_err.code GH_OK when read, NODATA when never tried. */
	struct gh_runtime_stats rt;
	struct gh_err rt_err;
};

/* Sample s's string labels (s one of p->samples): *n pairs, NULL when it
 * has none. */
char *const *profile__labels_of(const struct gh_profile *p,
				const struct gh_sample *s, size_t *n);

/* runtime/pprof's name (unit: its unit) of value v of a profile of kind
 * k, NULL past its values; how many values its samples have. */
const char *profile__value_name(enum gh_kind k, int v, bool unit);
int profile__nvalues(enum gh_kind k);

/* Free each sink of v[0..n) and v itself. */
void psinks_free(struct psink *v, size_t n);

#endif

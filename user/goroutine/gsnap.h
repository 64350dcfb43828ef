/* gsnap.h - every goroutine runtime/pprof's goroutine profile would
 * hold, read at one moment from outside: each one's g, its stack (or none
 * when it was running) and its labels, with counts of those left out
 * and why. How bytes are fetched is the caller's (struct gfetch). */
#ifndef GH_GOROUTINE_GSNAP_H
#define GH_GOROUTINE_GSNAP_H

#include "goroutine/gintern.h"
#include "goroutine/gunwind.h"

/* One goroutine. pcs, labels, header_labels and kv point into the
 * snapshot's store (gintern.h), one copy per distinct stack or label
 * set, freed by gsnap__free: samples with the same stack have the same
 * pcs pointer, those with the same labels the same labels pointer. What
 * is a goroutine's own: its g (152 bytes), and with want_trace its
 * traceback's frames (40 bytes and an argument text each). */
struct gsample {
	struct grec g;
	uint64_t *pcs; /* return PCs, runtime addresses */
	size_t npcs;
	struct gtframe *trace; /* traceback's frames (want_trace), ntrace */
	size_t ntrace;
	char *labels;	     /* labelMap.String(), NULL when it has none */
	char *header_labels; /* goroutineheader's " {k: v}" (1.27+) */
	char **kv;	     /* the labels' pairs (glabels_read), nkv */
	size_t nkv;
	bool running; /* no stack: it ran while we read */
};

struct gsnap {
	struct gsample *v;
	size_t n;
	size_t allglen; /* goroutines the runtime listed */
	size_t dead, system;
	size_t running;	 /* samples without a stack */
	size_t changed;	 /* moved on every try while read: left out */
	size_t broken;	 /* stack refused by a frame check: left out */
	size_t nolabels; /* labels unreadable: left out */
	bool partial;
	char reason[160];
	int64_t now_ns;	    /* CLOCK_MONOTONIC (the runtime's nanotime) */
	struct gintern *in; /* the samples' stacks and label sets */
};

struct gsnap_env {
	struct gunwind_env u;
	uint64_t allglen, allgptr; /* runtime addresses */
	uint64_t fing_var; /* runtime.fingStatus / fingRunning, 0 = absent */
	size_t max_goroutines;
	bool want_trace; /* debug=2: traceback's frames too */
	/* The re-read of a g after its stack: from refetch (a copy made
	 * after the stack's), NULL: u.fetch again. Labels from
	 * labels_fetch (NULL: u.fetch). */
	const struct gfetch *refetch, *labels_fetch;
	int tries; /* reads of a g that moved (0: 3; a copy: 1) */
};

/* Read into s (zeroed first). -1 with errno only when the list itself
 * cannot be read; goroutines that cannot are counted. Past
 * max_goroutines: partial, with the reason. */
int gsnap__read(struct gsnap *s, const struct gsnap_env *e);
void gsnap__free(struct gsnap *s);

/* s->now_ns - t as the runtime's int64 arithmetic gives it, wrapping: t
 * (a g's waitsince) is the target's word, any value. */
static inline int64_t gsnap__since(const struct gsnap *s, int64_t t)
{
	return (int64_t)((uint64_t)s->now_ns - (uint64_t)t);
}

#endif

/* collector.h - the collector's insides, shared by the files of collect/:
 * its backends (opened when first needed, kept between requests), its
 * caches, and the jobs of the request under way. */
#ifndef GH_COLLECT_COLLECTOR_H
#define GH_COLLECT_COLLECTOR_H

#include <pthread.h>
#include <stdatomic.h>

#include "gobin/bincache.h"
#include "gobin/buildids.h"
#include "profile/builder.h"
#include "read/backend.h"
#include "target/target.h"

struct kept;

/* A backend as the collector holds it. */
struct slot {
	void *state;	   /* opened, or NULL */
	bool tried;	   /* open was attempted (state or err says how) */
	struct gh_err err; /* why it could not open */
};

struct gh_collector {
	struct gh_collector_opts o;
	struct backend_env env;
	struct slot slots[8]; /* one per backend, in backends[] order */
	struct bincache *bins;
	struct buildids *ids;
	struct kept *kept;
	atomic_int cancel;
	/* The goroutine walk's program (gh_request.kind goroutine), loaded
	 * when first needed and kept, as the backends are. */
	struct slot gpass;
	struct gh_bounds bounds; /* the request's, defaults filled in */
	unsigned loads;		 /* BPF objects loaded during this request */
	uint64_t read_ns;	 /* in the backends during this request */
};

/* One Go runtime of a selected process, through the request. */
struct collect_job {
	int pid;
	size_t order;	   /* where its result goes */
	struct target *t;  /* NULL: the process could not be opened */
	struct gh_err err; /* why not, or why the read failed */
	bool failed;
	struct view *view;
	struct snapshot *s;
	size_t backend;		    /* index into backends[] of its reader */
	char notes[GH_ERR_MSG_MAX]; /* backends passed over, and why */
	enum gh_status first_code;  /* why the first was passed over */
	unsigned gc_cycles;	    /* the counters' GC cycles (1: one) */
	enum gh_kind kind;	    /* the list read (the request's) */
	const struct contention_layout *cl; /* block, mutex: the release's */
	struct gh_profile *p;
	struct gh_runtime_stats rt; /* the runtime's counters, read right
				       after the buckets */
	struct gh_err rt_err;	    /* why not (NODATA: not read) */
};

/* The backend at index i, opened (once) for c; NULL with err when it
 * cannot open. */
void *collector__backend(struct gh_collector *c, size_t i, struct gh_err *err);

/* The index into backends[] of the backend c reads with first: its
 * chosen one, or for AUTO the first. */
size_t collector__first_backend(const struct gh_collector *c);

/* The goroutine walk's program (iter's walk), loaded once for c; NULL with
 * err (unless NULL) when it cannot be. */
struct gpass *collector__gpass(struct gh_collector *c, struct gh_err *err);

/* The first BPF object a request of some kind will read with, being
 * loaded on a thread of its own (preopen.c). */
struct preopen {
	struct gh_collector *c;
	long slot; /* backends[] index; nbackends: gpass; -1: none */
	bool running;
	pthread_t th;
	uint64_t ns; /* the load's wall time */
};

/* Start loading the object a request of kind kind reads with first, if it
 * loads one not tried yet; collector__preopen_join before c is used
 * again. */
void collector__preopen(struct gh_collector *c, enum gh_kind kind,
			struct preopen *p);
void collector__preopen_join(struct preopen *p);

/* The bounds of the request under way: b's, defaults for its zeros. */
void collector__bounds(struct gh_collector *c, const struct gh_bounds *b);

/* Read the jobs (each with its view, or none to only count buckets): with c's
 * backend, or for AUTO the first that opens and can read each job. */
void collector__read(struct gh_collector *c, struct collect_job **jobs,
		     size_t n, struct read_ctl *ctl);

/* Read the jobs' goroutine profiles (GH_KIND_GOROUTINE), one process
 * after another, each profile whole (j->p) or j failed with why. */
void collector__goroutines(struct gh_collector *c, struct collect_job **jobs,
			   size_t n, const struct read_ctl *ctl);

/* Processes rq selects: pids (rq's, or every process on the host, or
 * rq's as a filter, in PID order, that pass the filters). *enumerated:
 * the processes were not named one by one, so that those without a Go
 * runtime are no concern of the request. USAGE for a bad filter. */
int collector__select(const struct gh_select *sel, int **pids, size_t *n,
		      bool *enumerated, struct gh_err *err);
/* Does the filter set of sel admit this opened runtime? */
bool collector__admits(const struct gh_select *sel, const struct target *t);

#endif

/* backend.h - the one interface every reader backend implements (BPF task
 * iterator, perf-event trigger, process_vm_readv), so the collector can
 * pick one, fall back to the next, and feed any of them into the same
 * profile builder. A backend reads a batch of processes at once: the
 * iterator in one pass over the tasks, the others one after another. */
#ifndef GH_BACKEND_H
#define GH_BACKEND_H

#include <stdatomic.h>

#include "read/snapshot.h"

struct known;

/* What to read from one process; addresses are runtime (biased) ones. */
struct read_req {
	int pid;		 /* TGID */
	uint64_t mbuckets;	 /* the list head: &runtime.mbuckets,
				    bbuckets or xbuckets */
	uint32_t typ;		 /* its bucketType (gh_target_cfg.typ) */
	uint64_t vars[GH_NVARS]; /* GH_VAR_* addresses, 0 = absent */
	uint32_t nstk_max;	 /* reject buckets with deeper stacks */
	bool nstk_bound;	 /* nstk_max is the request's, lower than
				    the Go version's */
	uint32_t rec_bytes;	 /* sizeof(memRecord) or of blockRecord */
	uint64_t max_buckets;	 /* bucket budget for the whole walk */
	uint64_t max_bytes;	 /* bytes to receive at most; 0: no bound */
	uint64_t cpu_budget_ns;	 /* perf: CPU the walk may take in the
				    target; 0: no bound */
	/* Stacks kept from the last complete read of this runtime, updated
	 * by this one; NULL: every stack is read (stream.h). */
	struct known *known;
};

/* One process of a batch. */
struct read_job {
	struct read_req req;
	struct snapshot *s; /* fresh; filled by the read */
	int rc;		    /* 0: s is complete or partial; -1: err */
	struct gh_err err;  /* GONE when the process vanished */
};

/* What bounds every read of a request, and what the reads count. */
struct read_ctl {
	uint64_t deadline_ns;	  /* CLOCK_MONOTONIC; 0: none */
	const atomic_int *cancel; /* non-zero: stop; may be NULL */
	unsigned passes;	  /* out: task-iterator passes run */
};

/* Why reads must stop now ("cancelled", "the deadline passed"), or NULL
 * while they may go on. */
const char *read_ctl__stop(const struct read_ctl *c);
/* Process pid could not be read because of why (read_ctl__stop's): the
 * error, TIMEOUT for the deadline, FAILED for a cancel; -1. */
int read_ctl__err(const char *why, int pid, struct gh_err *err);

/* What a backend is opened with. */
struct backend_env {
	/* libbpf's and the verifier's lines; NULL: dropped. */
	void (*debug)(void *arg, const char *line);
	void *debug_arg;
};

struct backend_ops {
	const char *name; /* as gh_backend__name spells it */
	/* Load/prepare. PERM without privileges, KERNEL when the kernel cannot
	 * run this backend; *state is the backend's handle. */
	int (*open)(void **state, const struct backend_env *env,
		    struct gh_err *err);
	/* Read every job of jobs[0..n) into its snapshot. A walk that could
	 * not finish ends with rc 0 and s->partial set (ctl stopping it, too);
	 * rc -1 only when nothing could be read. */
	void (*read)(void *state, struct read_job *jobs, size_t n,
		     struct read_ctl *ctl);
	void (*free)(void *state);
};

/* Refuse a request no walk could honour (no PID or mbuckets, stacks or
 * records larger than a record can carry): FAILED, as a caller's bug. */
int read_req__check(const struct read_req *req, struct gh_err *err);

/* The walk configuration (a "targets" entry) of req for every BPF walker:
 * its addresses and bounds, the bucket budget clamped to the map's 32
 * bits, known the first bucket whose stack is known (0: none). The
 * iterator adds its deadline, and bounds each pass anew. */
void read_req__cfg(const struct read_req *req, uint64_t known,
		   struct gh_target_cfg *cfg);

/* The address of the cycle variable a heap list's reader reads after each
 * block, so that each bucket is taken at the cycle it was read in; 0 for
 * other lists (their vars[GH_VAR_CYCLE] is something else) or none. */
uint64_t read_req__cycle_addr(const struct read_req *req);

/* The bucket at at has a deeper stack than req allows: s ends partial,
 * saying whether that is the Go version's limit or the request's bound. */
void read_req__too_deep(const struct read_req *req, struct snapshot *s,
			uint64_t at);

/* For backends that read one process at a time: each job in turn with
 * read_one; jobs ctl stops before they start fail (FAILED, saying why). */
void read_jobs_each(void *state, struct read_job *jobs, size_t n,
		    struct read_ctl *ctl,
		    int (*read_one)(void *state, const struct read_req *req,
				    const struct read_ctl *ctl,
				    struct snapshot *s, struct gh_err *err));

extern const struct backend_ops backend_iter, backend_perf, backend_procmem;

/* In AUTO's order. */
extern const struct backend_ops *const backends[];
extern const size_t nbackends;

#endif

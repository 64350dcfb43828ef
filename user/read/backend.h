/* backend.h - the one interface every reader backend implements (BPF task
 * iterator, perf-event trigger, process_vm_readv), so the reader can pick
 * one, fall back to the next, and feed any of them into the same view. */
#ifndef GH_BACKEND_H
#define GH_BACKEND_H

#include "read/snapshot.h"

/* What to read from one process; addresses are runtime (biased) ones. */
struct read_req {
	int pid;		 /* TGID */
	uint64_t mbuckets;	 /* &runtime.mbuckets */
	uint64_t vars[GH_NVARS]; /* GH_VAR_* addresses, 0 = absent */
	uint32_t nstk_max;	 /* reject buckets with deeper stacks */
	uint32_t rec_bytes;	 /* sizeof(memRecord) */
	uint64_t max_buckets;	 /* bucket budget for the whole walk */
	bool keep_stacks;	 /* keep stacks for the next read of this
				  * process, which then re-reads counters only */
};

struct backend_ops {
	const char *name; /* as --backend spells it */
	/* Load/prepare. PERM without privileges, KERNEL when the kernel cannot
	 * run this backend; *state is the backend's handle. */
	int (*open)(void **state, bool verbose, struct gh_err *err);
	/* Walk req->pid's list into the fresh snapshot s. A walk that could
	 * not finish returns 0 with s->partial and s->reason set; -1 only when
	 * nothing could be read (GONE when the process vanished). */
	int (*read)(void *state, const struct read_req *req,
		    struct gh_snapshot *s, struct gh_err *err);
	void (*free)(void *state);
};

/* Refuse a request no walk could honour (no PID or mbuckets, stacks or
 * records larger than a record can carry): FAILED, as a caller's bug. */
int read_req__check(const struct read_req *req, struct gh_err *err);

extern const struct backend_ops backend_iter;

#endif

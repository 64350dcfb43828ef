/* iter.h - the BPF task-iterator backend: walks the allnext lists of a
 * batch of processes inside the kernel, in one iterator pass, and streams
 * their buckets through a ring buffer into one snapshot each (records
 * decoded by stream.c, shared with the perf backend). */
#ifndef GH_READ_ITER_H
#define GH_READ_ITER_H

#include "read/backend.h"

struct iter_reader;

/* The ring buffer's size. It is drained while the walk runs, so it need
 * only hold a few milliseconds of records; should it fill, the walk resumes
 * in another pass. Its pages count in the collector's RSS. */
#define GH_ITER_RING_BYTES (2u << 20)

/* Load and verify the BPF object. PERM without privileges, KERNEL when the
 * kernel lacks BTF or sleepable task iterators. */
int iter_reader__open(struct iter_reader **out, const struct backend_env *env,
		      struct gh_err *err);
void iter_reader__free(struct iter_reader *r);

/* Walk first and drain the ring buffer after, pass by pass, rather than
 * both at once: slower, and so for tests, which make a list take several
 * passes this way. */
void iter_reader__set_serial(struct iter_reader *r, bool serial);

/* Walk each job's bucket list into its snapshot (fresh), every process
 * of a batch in the same passes. A walk that could not finish still ends
 * with rc 0, s->partial set and s->reason naming why (unreadable pointer,
 * bad nstk, bucket budget, cycle, ctl). rc -1 only when nothing could be
 * read (GONE if the task vanished). A repeated read of a process whose
 * stacks are kept (req.known) receives only the stacks of buckets new
 * since the last complete read (s->read_bytes counts what was received). */
void iter_reader__read_jobs(struct iter_reader *r, struct read_job *jobs,
			    size_t n, struct read_ctl *ctl);

#endif

/* read_bpf.h - the BPF task-iterator backend: walks allnext inside the
 * kernel and streams buckets through a ring buffer into a gh_snapshot
 * (records decoded by stream.c, shared with the perf backend). */
#ifndef GH_READ_BPF_H
#define GH_READ_BPF_H

#include "read/backend.h"

struct iter_reader;

/* The ring buffer's size. It is drained while the walk runs, so it need
 * only hold a few milliseconds of records; should it fill, the walk resumes
 * in another pass. Its pages count in the collector's RSS. */
#define GH_ITER_RING_BYTES (2u << 20)

/* Load and verify the BPF object. PERM without privileges, KERNEL when the
 * kernel lacks BTF or sleepable task iterators. */
int iter_reader__open(struct iter_reader **out, bool verbose,
		      struct gh_err *err);
void iter_reader__free(struct iter_reader *r);

/* Walk first and drain the ring buffer after, pass by pass, rather than
 * both at once: slower, and so for tests, which make a list take several
 * passes this way. */
void iter_reader__set_serial(struct iter_reader *r, bool serial);

/* Walk req->pid's bucket list into s (which must be fresh). A walk that
 * could not finish still returns 0 with s->partial set and s->reason naming
 * why (unreadable pointer, bad nstk, bucket budget, cycle). -1 only when
 * nothing could be read (err filled: GONE if the task vanished). A repeated
 * read of the same process receives only the stacks of buckets new since
 * the last complete one (s->read_bytes counts what was received). */
int iter_reader__read(struct iter_reader *r, const struct read_req *req,
		      struct gh_snapshot *s, struct gh_err *err);

#endif

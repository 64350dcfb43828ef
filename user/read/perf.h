/* perf.h - the perf-event backend: the walk of bpf/perf.bpf.c runs in the
 * target's own threads, triggered by software perf events on them, for
 * kernels without sleepable task iterators. Same records, same decoder as
 * the iterator backend (iter.h); one process at a time. */
#ifndef GH_READ_PERF_H
#define GH_READ_PERF_H

#include "read/backend.h"

struct perf_reader;

/* Load the BPF object's program for this kernel: the walk in bpf_loop
 * (Linux 5.17+), else in a bounded loop (5.12+). PERM without privileges,
 * KERNEL when the kernel cannot run either (no BPF ring buffers). */
int perf_reader__open(struct perf_reader **out, const struct backend_env *env,
		      struct gh_err *err);
void perf_reader__free(struct perf_reader *r);

/* Read one process into s, as iter_reader__read_jobs reads each. A target
 * that does not run within timeout_ms fails with FAILED naming the other
 * backends; one that stops running mid-walk, a page that stays out of memory
 * although it was read in (process_vm_readv) between walks, or ctl saying
 * stop make s partial. */
int perf_reader__read(struct perf_reader *r, const struct read_req *req,
		      int timeout_ms, const struct read_ctl *ctl,
		      struct snapshot *s, struct gh_err *err);

#endif

/* read_perf.h - the perf-event backend: the walk of bpf/perf.bpf.c runs in
 * the target's own threads, triggered by software perf events on them, for
 * kernels without sleepable task iterators. Same records, same decoder as
 * the iterator backend (read_bpf.h). */
#ifndef GH_READ_PERF_H
#define GH_READ_PERF_H

#include "read/backend.h"

struct perf_reader;

/* Load the BPF object's program for this kernel: the walk in bpf_loop
 * (Linux 5.17+), else in a bounded loop (5.12+). PERM without privileges,
 * KERNEL when the kernel cannot run either (no BPF ring buffers). */
int perf_reader__open(struct perf_reader **out, bool verbose,
		      struct gh_err *err);
void perf_reader__free(struct perf_reader *r);

/* As iter_reader__read. A target that does not run within timeout_ms
 * fails with FAILED naming the other backends; one that stops running
 * mid-walk, or a page that is not resident, makes s partial. */
int perf_reader__read(struct perf_reader *r, const struct read_req *req,
		      int timeout_ms, struct gh_snapshot *s,
		      struct gh_err *err);

extern const struct backend_ops backend_perf;

#endif

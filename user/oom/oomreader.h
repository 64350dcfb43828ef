/* oomreader.h - struct oom_reader, the BPF side of OOM-kill capture
 * (bpf/oom.bpf.c): the processes watched, each with the walk it gets if
 * the kernel OOM-kills it, and the records of each victim decoded into its
 * own snapshot as they come, so that several victims at once are each
 * captured. */
#ifndef GH_OOM_OOMREADER_H
#define GH_OOM_OOMREADER_H

#include "read/backend.h"

struct oom_reader;
struct procmaps;

/* A victim whose walk is over (or can go no further: it exited before
 * its walk ended); the snapshot given to oom_reader__add holds what was
 * read, complete or partial; rc -1 (err) when nothing could be read. */
struct oom_victim {
	int pid;
	struct gh_ev_oom ev;  /* the kill's record (GH_EV_OOM) */
	unsigned early_kills; /* SIGKILLs delivered before mark_victim */
	int rc;
	struct gh_err err;
};

typedef void (*oom_victim_fn)(void *ctx, struct oom_victim *v);

/* Load bpf/oom.bpf.c's programs for the kernel's oom:mark_victim (either
 * form) and attach them (oom:mark_victim, signal:signal_deliver) for up
 * to max processes, with a ring buffer of ring_bytes (a power of two,
 * pages). PERM without privileges, KERNEL when the kernel lacks what
 * they need (bpfprobe_oom) or mark_victim takes neither form. */
int oom_reader__open(struct oom_reader **out, size_t max, uint32_t ring_bytes,
		     const struct backend_env *env, struct gh_err *err);
void oom_reader__free(struct oom_reader *r);

/* Watch req->pid, which started start_ticks after boot (/proc/PID/stat;
 * a later process given its PID is not watched): if the kernel OOM-kills
 * it, walk as req says into s (whose sink, if any, is fed as the records
 * come). maps are its /proc/PID/maps, to tell a page not resident from
 * one not mapped once the process is gone; both must outlive the watch.
 * USAGE when already watched, FAILED when max processes are. */
int oom_reader__add(struct oom_reader *r, const struct read_req *req,
		    uint64_t start_ticks, struct snapshot *s,
		    const struct procmaps *maps, struct gh_err *err);
/* Stop watching pid (its snapshot is the caller's again); -1 when it is
 * not watched. */
int oom_reader__remove(struct oom_reader *r, int pid);

/* The ring buffer's epoll descriptor: readable when a kill is recorded
 * (the walks' records wake no one). */
int oom_reader__fd(const struct oom_reader *r);

/* Wait up to timeout_ms for records and decode them, draining without
 * pause while a victim's walk is under way (its records come without
 * wake-ups, and the ring buffer must not fill); hand each victim
 * whose walk is over to fn (its watch ended), and forget watched
 * processes that exited without being OOM-killed (gone(ctx, pid), whose
 * snapshot is the caller's again). 0, or -1 with err when the ring buffer
 * cannot be read. */
int oom_reader__poll(struct oom_reader *r, int timeout_ms, oom_victim_fn fn,
		     void (*gone)(void *ctx, int pid), void *ctx,
		     struct gh_err *err);

#endif

/* goheap.bpf.c - walk a Go process's heap-profile bucket list from inside the
 * kernel.
 *
 * A sleepable task iterator visits thread-group leaders; for each one with
 * an entry in "targets" (keyed by TGID, so one pass can serve many targets)
 * it reads the runtime's scalar variables, then follows runtime.mbuckets →
 * allnext with bpf_copy_from_user_task, streaming each bucket's raw bytes
 * (header, stack, memRecord) into the "events" ring buffer. Nothing is
 * interpreted here: userspace knows the Go version and decodes the records.
 *
 * A pass stops, and tells userspace where it stopped (GH_EV_END), when the
 * list ends, when a read fails or a bucket looks wrong, or when the ring
 * buffer or the pass's bucket budget is used up (RESUME: userspace drains
 * the ring buffer and runs another pass from the cursor). All state lives in
 * maps and on the stack.
 */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>

#include "goheap_record.h"

char LICENSE[] SEC("license") = "GPL";

/* runtime.bucketType of heap-profile buckets (runtime/mprof.go memProfile). */
#define GO_MEM_PROFILE 1
/* bpf_loop's iteration limit (BPF_MAX_LOOPS); a longer pass is resumed. */
#define MAX_LOOPS (1 << 23)
/* Every ring-buffer record carries an 8-byte header and is 8-byte aligned. */
#define RB_RECORD_BYTES(n) ((((__u64)(n)) + 8 + 7) & ~7ULL)

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64); /* userspace sets the real size */
	__type(key, __u32);
	__type(value, struct gh_target_cfg);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20); /* userspace sets the real size */
} events SEC(".maps");

/* One bucket event being assembled: too big for the BPF stack. */
struct scratch {
	struct gh_ev_bucket ev;
	__u8 body[GH_MAX_BODY_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} scratch SEC(".maps");

/* The walk's cursor and limits, shared with the bpf_loop callback. */
struct walk {
	struct task_struct *task;
	__u64 cur; /* bucket to read next, 0 = end of list */
	__s64 err; /* helper error for FAULT */
	__u32 tgid;
	__u32 nstk_max;
	__u32 rec_bytes;
	__u32 max_buckets;
	__u32 n;      /* buckets emitted */
	__u32 status; /* enum gh_walk_status, once stopped */
	bool stopped;
};

static long stop(struct walk *w, __u32 status, long err)
{
	w->status = status;
	w->err = err;
	w->stopped = true;
	return 1; /* ends bpf_loop */
}

/* Read each scalar variable as 8 raw bytes; userspace knows their widths. */
static void read_vars(const struct gh_target_cfg *cfg, struct task_struct *task,
		      __u64 vars[GH_NVARS], __u32 *var_err)
{
	*var_err = 0;
	for (int i = 0; i < GH_NVARS; i++) {
		vars[i] = 0;
		if (!cfg->vars[i])
			continue;
		if (bpf_copy_from_user_task(&vars[i], sizeof(vars[i]),
					    (void *)cfg->vars[i], task, 0))
			*var_err |= 1U << i;
	}
}

/* Would a record of n bytes fit while leaving room for the pass's END? The
 * iterator is the ring buffer's only producer while userspace waits in
 * read(), so the check cannot race with another reservation. */
static bool ring_has_room(__u64 n)
{
	__u64 size = bpf_ringbuf_query(&events, BPF_RB_RING_SIZE);
	__u64 used = bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA);

	return used + RB_RECORD_BYTES(n) +
		       RB_RECORD_BYTES(sizeof(struct gh_ev_end)) <=
	       size;
}

/* Copy the bucket at w->cur into sc: header with one copy, stack and
 * memRecord with a second. This is the only code that knows how buckets are
 * fetched, so a block-read design can replace it alone. Returns the event's
 * size, or 0 with the walk stopped. */
static __u32 fetch_bucket(struct walk *w, struct scratch *sc)
{
	__u64 nstk, len;
	long err;

	err = bpf_copy_from_user_task(sc->ev.hdr, GH_BUCKET_HDR_BYTES,
				      (void *)w->cur, w->task, 0);
	if (err) {
		stop(w, GH_WALK_FAULT, err);
		return 0;
	}
	if (sc->ev.hdr[2] != GO_MEM_PROFILE) {
		stop(w, GH_WALK_BAD_TYPE, 0);
		return 0;
	}
	nstk = sc->ev.hdr[5];
	if (nstk > w->nstk_max) {
		stop(w, GH_WALK_BAD_NSTK, 0);
		return 0;
	}
	len = nstk * 8 + w->rec_bytes;
	/* Also proves to the verifier that the copy stays inside sc->body. */
	if (len > GH_MAX_BODY_BYTES) {
		stop(w, GH_WALK_BAD_NSTK, 0);
		return 0;
	}
	err = bpf_copy_from_user_task(sc->body, len,
				      (void *)(w->cur + GH_BUCKET_HDR_BYTES),
				      w->task, 0);
	if (err) {
		stop(w, GH_WALK_FAULT, err);
		return 0;
	}
	return sizeof(sc->ev) + len;
}

/* One step of the walk: emit the bucket at the cursor and advance. */
static long walk_step(__u32 i, struct walk *w)
{
	__u32 zero = 0;
	struct scratch *sc;
	__u32 size;

	if (!w->cur)
		return stop(w, GH_WALK_DONE, 0);
	if (w->n >= w->max_buckets)
		return stop(w, GH_WALK_RESUME, 0);
	sc = bpf_map_lookup_elem(&scratch, &zero);
	if (!sc)
		return stop(w, GH_WALK_FAULT, -22 /* EINVAL */);
	size = fetch_bucket(w, sc);
	if (!size)
		return 1;
	if (!ring_has_room(size))
		return stop(w, GH_WALK_RESUME, 0);
	sc->ev.h.kind = GH_EV_BUCKET;
	sc->ev.h.tgid = w->tgid;
	sc->ev.addr = w->cur;
	if (bpf_ringbuf_output(&events, sc, size, BPF_RB_NO_WAKEUP))
		return stop(w, GH_WALK_RESUME, 0);
	w->n++;
	w->cur = sc->ev.hdr[1]; /* allnext */
	return 0;
}

static void emit_end(const struct gh_target_cfg *cfg, struct walk *w)
{
	struct gh_ev_end e = {};

	e.h.kind = GH_EV_END;
	e.h.tgid = w->tgid;
	e.status = w->status;
	e.nbuckets = w->n;
	e.resume = w->cur;
	e.err = w->err;
	read_vars(cfg, w->task, e.vars, &e.var_err);
	bpf_ringbuf_output(&events, &e, sizeof(e), BPF_RB_NO_WAKEUP);
}

SEC("iter.s/task")
int goheap_walk(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct gh_target_cfg *cfg;
	struct gh_ev_begin b = {};
	struct walk w = {};
	__u32 tgid;
	long err;

	if (!task || task->pid != task->tgid)
		return 0;
	tgid = task->tgid;
	cfg = bpf_map_lookup_elem(&targets, &tgid);
	if (!cfg)
		return 0;
	/* No room for BEGIN and END: emit nothing; the drained retry will. */
	if (!ring_has_room(sizeof(b)))
		return 0;

	w.task = task;
	w.tgid = tgid;
	w.nstk_max =
		cfg->nstk_max < GH_MAX_STACK ? cfg->nstk_max : GH_MAX_STACK;
	w.rec_bytes = cfg->rec_bytes < GH_MAX_REC_BYTES ? cfg->rec_bytes
							: GH_MAX_REC_BYTES;
	w.max_buckets = cfg->max_buckets;

	b.h.kind = GH_EV_BEGIN;
	b.h.tgid = tgid;
	read_vars(cfg, task, b.vars, &b.var_err);
	if (cfg->resume) {
		w.cur = cfg->resume;
	} else {
		err = bpf_copy_from_user_task(&w.cur, sizeof(w.cur),
					      (void *)cfg->mbuckets, task, 0);
		if (err) {
			w.cur = cfg->mbuckets;
			stop(&w, GH_WALK_HEAD_FAULT, err);
		}
	}
	b.head = w.cur;
	bpf_ringbuf_output(&events, &b, sizeof(b), BPF_RB_NO_WAKEUP);

	if (!w.stopped) {
		bpf_loop(MAX_LOOPS, walk_step, &w, 0);
		/* bpf_loop ran out of iterations: continue next pass. */
		if (!w.stopped)
			stop(&w, GH_WALK_RESUME, 0);
	}
	emit_end(cfg, &w);
	return 0;
}

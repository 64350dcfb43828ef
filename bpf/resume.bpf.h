/* resume.bpf.h - the walk spread over events that run in the target's own
 * threads (perf.bpf.c: perf events on them; oom.bpf.c: the fatal signal
 * of an OOM victim), its memory read with bpf_probe_read_user. The walk's
 * progress lives in the target's gh_perf_target between events, so each
 * event takes a share of it and the next one goes on from the saved
 * cursor (the list only grows at its head, so the rest of it stays valid).
 * BEGIN is sent by the first event, END once the walk stops for good.
 *
 * An event's share: resume_start (BEGIN on the first event, the block set
 * up from the saved progress, the CPU budget applied), then the includer's
 * loop over walk_step, then resume_end (progress saved, END when
 * finished). The includer defines the targets map.
 */
#ifndef GH_RESUME_BPF_H
#define GH_RESUME_BPF_H

#include "walk.bpf.h"

/* current is one of the target's threads: its memory is the target's, and
 * no page can be faulted in (a page not resident ends the walk: FAULT). */
static long walk_read(const struct walk *w, void *dst, __u32 len, __u64 addr)
{
	(void)w;
	return bpf_probe_read_user(dst, len, (void *)addr);
}

/* First event: send BEGIN with the variables and find the list's head
 * (*err: reading it failed). Returns false when there is no room for BEGIN
 * yet. */
static bool begin(struct gh_perf_target *t, struct walk *w, __u64 *head,
		  long *err)
{
	struct gh_ev_begin b = {};

	if (!ring_has_room(sizeof(b)))
		return false;
	b.h.kind = GH_EV_BEGIN;
	b.h.tgid = w->k.tgid;
	read_vars(w, &t->cfg, b.vars, &b.var_err);
	*head = t->cfg.resume;
	if (!*head) {
		*err = walk_read(w, head, sizeof(*head), t->cfg.mbuckets);
		if (*err)
			*head = t->cfg.mbuckets;
	}
	b.head = *head;
	gc_cycle_begin(&t->gc_cycle, &t->gc_known, b.vars, b.var_err);
	bpf_ringbuf_output(&events, &b, sizeof(b), BPF_RB_NO_WAKEUP);
	t->state = GH_PERF_WALKING;
	return true;
}

/* The walk stopped for good (not for the slice or a full ring buffer). */
static bool finished(const struct walk *w, const struct gh_block *b)
{
	return !b || b->status != GH_WALK_RESUME || b->n >= w->k.max_buckets ||
	       (w->k.max_bytes && b->bytes >= w->k.max_bytes);
}

/* This event's block, set up from t's progress (the first event sends
 * BEGIN), w->k.deadline at most slice from now and within the CPU budget;
 * the block is stopped already when there is nothing to walk. false: no
 * room for BEGIN yet, nothing done. *head: where the walk started. */
static __always_inline bool resume_start(struct gh_perf_target *t,
					 struct walk *w, __u32 tgid,
					 __u64 slice, __u64 *head)
{
	__u64 budget = t->cfg.cpu_budget_ns;
	struct gh_block *b;
	long err = 0;

	*head = t->cur;
	walk_init(w, &t->cfg, tgid);
	if (t->state == GH_PERF_IDLE) {
		if (!begin(t, w, head, &err))
			return false;
		b = walk_start(w, *head, 0, t->cfg.flags & GH_CFG_IN_KNOWN,
			       true);
	} else {
		b = walk_start(w, *head, t->n, t->in_known, t->down);
		if (b) {
			b->bytes = t->bytes;
			b->cyc_saved = t->cyc_saved;
			b->cyc_power = t->cyc_power;
			b->cyc_steps = t->cyc_steps;
		}
	}
	if (b) {
		b->gc_sent = t->gc_cycle;
		b->gc_known = t->gc_known;
	}
	if (b && err)
		stop(b, GH_WALK_HEAD_FAULT, err);
	/* The target pays for the walk: at most its budget, all events
	 * together. */
	if (b && budget && t->cpu_ns >= budget)
		stop(b, GH_WALK_CPU, 0);
	else if (budget && budget - t->cpu_ns < slice)
		slice = budget - t->cpu_ns;
	w->k.deadline = bpf_ktime_get_ns() + slice;
	return true;
}

/* Save this event's progress in t (t0: when the event started) and send
 * END when the walk is over. The block's run was sent already: the next
 * event may run on another CPU, with another block. */
static __always_inline void resume_end(struct gh_perf_target *t, struct walk *w,
				       __u64 head, __u64 t0)
{
	struct gh_block *b = w->b;
	struct gh_ev_end e = {};

	if (b) {
		t->cur = b->cur;
		t->n = b->n;
		t->in_known = b->in_known;
		t->down = b->down;
		t->bytes = b->bytes;
		t->cyc_saved = b->cyc_saved;
		t->cyc_power = b->cyc_power;
		t->cyc_steps = b->cyc_steps;
		t->gc_cycle = b->gc_sent;
		t->gc_known = b->gc_known;
	}
	t->cpu_ns += bpf_ktime_get_ns() - t0;
	if (!finished(w, b))
		return;
	fill_end(&e, w, b, head, &t->cfg);
	e.cpu_ns = t->cpu_ns;
	/* ring_has_room always kept room for it; wake the reader. */
	bpf_ringbuf_output(&events, &e, sizeof(e), BPF_RB_FORCE_WAKEUP);
	t->state = GH_PERF_ENDED;
}

#endif /* GH_RESUME_BPF_H */

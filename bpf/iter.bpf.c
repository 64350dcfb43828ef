/* iter.bpf.c - walk a Go process's heap-profile bucket list from a sleepable
 * task iterator (Linux 5.18+), which may fault the target's pages in.
 *
 * The iterator visits thread-group leaders; for each one with an entry in
 * "targets" (keyed by TGID) it reads the runtime's scalar variables, then
 * follows runtime.mbuckets → allnext with bpf_copy_from_user_task (the block
 * walk of walk.bpf.h), streaming each bucket's raw bytes into the "events"
 * ring buffer. Nothing is interpreted here: userspace knows the Go version
 * and decodes the records.
 *
 * A pass stops, and tells userspace where it stopped (GH_EV_END), when the
 * list ends, when a read fails or a bucket looks wrong, or when the ring
 * buffer or the pass's bucket budget is used up, the deadline passes or
 * userspace cancels (RESUME: userspace drains the ring buffer and runs
 * another pass from the cursor, or gives up). One pass serves every target
 * in the map, each keyed by its TGID.
 */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>

#include "walk.bpf.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64); /* userspace sets the real size */
	__type(key, __u32);
	__type(value, struct gh_target_cfg);
} targets SEC(".maps");

static long walk_read(const struct walk *w, void *dst, __u32 len, __u64 addr)
{
	return bpf_copy_from_user_task(dst, len, (void *)addr, w->task, 0);
}

SEC("iter.s/task")
int goheap_iter(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct gh_target_cfg *cfg;
	struct gh_ev_begin bg = {};
	struct gh_ev_end e = {};
	struct walk w = {};
	struct gh_block *b;
	__u64 head;
	__u32 tgid;
	long err = 0;

	if (!task || task->pid != task->tgid)
		return 0;
	tgid = task->tgid;
	cfg = bpf_map_lookup_elem(&targets, &tgid);
	if (!cfg)
		return 0;
	__sync_fetch_and_add(&cfg->visits, 1);
	/* No room for BEGIN and END: emit nothing; the drained retry will. */
	if (!ring_has_room(sizeof(bg)))
		return 0;

	w.task = task;
	walk_init(&w, cfg, tgid);
	w.k.deadline = cfg->deadline_ns;
	bg.h.kind = GH_EV_BEGIN;
	bg.h.tgid = tgid;
	read_vars(&w, cfg, bg.vars, &bg.var_err);
	head = cfg->resume;
	if (!head) {
		err = walk_read(&w, &head, sizeof(head), cfg->mbuckets);
		if (err)
			head = cfg->mbuckets;
	}
	bg.head = head;
	bpf_ringbuf_output(&events, &bg, sizeof(bg), BPF_RB_NO_WAKEUP);

	b = walk_start(&w, head, 0, cfg->flags & GH_CFG_IN_KNOWN, true);
	if (b)
		gc_cycle_begin(&b->gc_sent, &b->gc_known, bg.vars, bg.var_err);
	if (b && err)
		stop(b, GH_WALK_HEAD_FAULT, err);
	if (b)
		walk_run(&w, b);
	fill_end(&e, &w, b, head, cfg);
	bpf_ringbuf_output(&events, &e, sizeof(e), BPF_RB_NO_WAKEUP);
	return 0;
}

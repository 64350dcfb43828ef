/* perf.bpf.c - walk a Go process's heap-profile bucket list from a perf
 * event that fires in the target's own threads, for kernels without
 * sleepable task iterators (Linux 5.12-5.17, or where iterators are not
 * allowed).
 *
 * Userspace opens software perf events on each of the target's threads and
 * attaches this program to them. Whenever one fires, the program runs as
 * the target (current is one of its threads) and reads its memory with
 * bpf_probe_read_user: no page can be faulted in, so a page that is not
 * resident ends the walk with FAULT. The walk is spread over as many
 * events as it takes (resume.bpf.h): each event walks for at most a short
 * time slice (without bpf_loop, BOUNDED_STEPS buckets) or until the ring
 * buffer is full.
 */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>

#include "resume.bpf.h"

char LICENSE[] SEC("license") = "GPL";

/* Longest an event may walk: the program runs in interrupt or scheduler
 * context of a target thread. */
#define SLICE_NS 2000000ULL

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64); /* userspace sets the real size */
	__type(key, __u32);
	__type(value, struct gh_perf_target);
} targets SEC(".maps");

/* Without bpf_loop (Linux 5.12-5.16), an event walks at most this many
 * buckets. */
#define BOUNDED_STEPS 64

/* One step, in a global function: the verifier checks it once, not once
 * per step of the loop that calls it (inlined, 64 steps took it past its
 * million instructions on Linux 6.18). The walk's constants are in the
 * block (walk_arm); reading the event's own thread needs no walk. */
__noinline int bounded_step(__u32 i)
{
	struct gh_block *b = this_cpu_block();

	(void)i;
	return walk_step_on(NULL, b) ? 1 : 0;
}

/* walk_run for kernels without bpf_loop. */
static void walk_run_bounded(struct walk *w, struct gh_block *b)
{
	walk_arm(w, b);
	for (__u32 i = 0; i < BOUNDED_STEPS && !b->stopped; i++)
		if (bounded_step(i))
			break;
	if (!b->stopped)
		stop(b, GH_WALK_RESUME, 0);
	flush_run(b, w->k.tgid);
	flush_known(b, w->k.tgid);
}

/* One event's share of the walk; bounded is a constant in each program,
 * so each holds one way of looping only. */
static __always_inline void walk_some(struct gh_perf_target *t, __u32 tgid,
				      bool bounded)
{
	__u64 t0 = bpf_ktime_get_ns(), head;
	struct walk w = {};

	if (!resume_start(t, &w, tgid, SLICE_NS, &head))
		return;
	if (w.b && bounded)
		walk_run_bounded(&w, w.b);
	else if (w.b)
		walk_run(&w, w.b);
	resume_end(t, &w, head, t0);
}

static __always_inline int on_event(bool bounded)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct gh_perf_target *t;

	t = bpf_map_lookup_elem(&targets, &tgid);
	if (!t || t->state == GH_PERF_ENDED)
		return 0;
	/* Events of two threads may fire at once on two CPUs: one walks. */
	if (__sync_val_compare_and_swap(&t->busy, 0, 1))
		return 0;
	if (t->state != GH_PERF_ENDED)
		walk_some(t, tgid, bounded);
	__sync_fetch_and_and(&t->busy, 0);
	return 0;
}

/* Linux 5.17+: the walk in bpf_loop, for a time slice. */
SEC("perf_event")
int goheap_perf(struct bpf_perf_event_data *ctx)
{
	(void)ctx;
	return on_event(false);
}

/* Linux 5.12-5.16: BOUNDED_STEPS buckets an event. Userspace loads one of
 * the two programs. */
SEC("perf_event")
int goheap_perf_bounded(struct bpf_perf_event_data *ctx)
{
	(void)ctx;
	return on_event(true);
}

/* oom.bpf.c - capture a watched Go process's heap-profile buckets at the
 * moment the kernel OOM-kills it, before its memory is reaped.
 *
 * oom:mark_victim names the victim (in the killer's context: any task
 * that ran out of memory) and sends GH_EV_OOM with what the kernel knows
 * of the kill (where mark_victim passes only a PID, the victim's first
 * marked thread sends it: goheap_oom_walk_send). The walk itself must run as
 * the victim, whose memory bpf_probe_read_user reads: it runs when the fatal
 * SIGKILL is delivered in one of the victim's threads (signal:signal_deliver,
 * from get_signal on its way back to user space, its mm still whole; the OOM
 * reaper waits about two seconds before it takes the anonymous memory). A
 * thread may take the signal just before mark_victim fires: the victim's mark
 * on its signal struct lets it walk all the same. Every thread gets that
 * signal: the first walks, waiting for room in the ring buffer when it
 * is full (the victim's threads are gone within milliseconds: nothing
 * would resume later), and the others go on from its cursor if its slice
 * ran out (resume.bpf.h). Only processes userspace put in "victims" are
 * walked, and only the process it put there (its start time); each
 * victim has its own entry, so several victims at once are each captured.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "resume.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define SIGKILL 9

/* Longest one thread's delivery may walk: the victim is dying, so its CPU
 * time matters little, but the walk holds off the CPU's other work. */
#define SLICE_NS 100000000ULL

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64); /* userspace sets the real size */
	__type(key, __u32);
	__type(value, struct gh_oom_target);
} victims SEC(".maps");

/* What the victim's memory cgroup holds and may hold, in pages. */
static void memcg_of(struct task_struct *task, struct gh_ev_oom *e)
{
	struct cgroup_subsys_state *css =
		BPF_CORE_READ(task, cgroups, subsys[memory_cgrp_id]);
	struct mem_cgroup *memcg = (struct mem_cgroup *)css;

	if (!memcg)
		return;
	e->memcg_usage = BPF_CORE_READ(memcg, memory.usage.counter);
	e->memcg_limit = BPF_CORE_READ(memcg, memory.max);
}

/* Is task's process the one watched under its TGID (not a later one
 * that took the PID)? */
static bool same_process(const struct gh_oom_target *t,
			 struct task_struct *task)
{
	__u64 born = BPF_CORE_READ(task, group_leader, start_boottime);

	return born >= t->born_ns && born < t->born_end_ns;
}

/* What the kernel knows of the kill: the same record whichever task
 * tells it (mark_victim's task, or the victim's own thread). */
static void send_oom(struct task_struct *task, __u32 tgid, __u32 uid)
{
	struct gh_ev_oom e = {.h = {.kind = GH_EV_OOM, .tgid = tgid}};

	e.uid = uid;
	e.oom_score_adj = BPF_CORE_READ(task, signal, oom_score_adj);
	e.total_vm = BPF_CORE_READ(task, mm, total_vm);
	BPF_CORE_READ_INTO(&e.comm, task, comm);
	memcg_of(task, &e);
	bpf_ringbuf_output(&events, &e, sizeof(e), BPF_RB_FORCE_WAKEUP);
}

/* oom:mark_victim as (struct task_struct *task, uid_t uid), since
 * commit 72ba14deb40a. Userspace loads it only for that form. */
SEC("tp_btf/mark_victim")
int BPF_PROG(goheap_oom_mark, struct task_struct *task, uid_t uid)
{
	__u32 tgid = BPF_CORE_READ(task, tgid);
	struct gh_oom_target *t = bpf_map_lookup_elem(&victims, &tgid);

	if (!t || !same_process(t, task) ||
	    __sync_val_compare_and_swap(&t->victim, 0, 1))
		return 0;
	send_oom(task, tgid, uid);
	return 0;
}

/* Has the OOM killer marked task's process? The killer sends SIGKILL,
 * then marks the victim (signal->oom_mm), then fires mark_victim: a thread
 * already running on another CPU may take the signal in between (seen on
 * Linux 6.18, 8 us before the tracepoint), and the mark comes first. */
static bool oom_marked(struct task_struct *task)
{
	return task->signal->oom_mm != NULL;
}

/* A SIGKILL delivered in a watched process's thread: walk if the OOM
 * killer marked it. With mark_victim's (int pid) form (send), no program
 * runs on mark_victim: the killer's context has only the thread's ID,
 * and no task to read (bpf_task_from_pid is Linux 6.2+), so the first
 * marked delivery sends GH_EV_OOM itself, the uid from its credentials,
 * claiming the victim as goheap_oom_mark would: one record per victim.
 * It runs under the victim's siglock, interrupts off, so the record's
 * wake-up (an irq_work) reaches the reader only after this slice: a
 * walk that fills the ring buffer before the reader polls by itself
 * waits out the slice, and the next thread goes on from its cursor. */
static __always_inline int on_kill(int sig, bool send)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct task_struct *task;
	__u64 t0, head;
	struct gh_oom_target *t;
	struct walk w = {};

	if (sig != SIGKILL)
		return 0;
	t = bpf_map_lookup_elem(&victims, &tgid);
	task = bpf_get_current_task_btf();
	if (!t || !same_process(t, task))
		return 0;
	if (!t->victim && !oom_marked(task)) {
		__sync_fetch_and_add(&t->early_kills, 1);
		return 0;
	}
	if (send && !__sync_val_compare_and_swap(&t->victim, 0, 1))
		send_oom(task, tgid, BPF_CORE_READ(task, real_cred, uid.val));
	/* Two threads may take the signal at once on two CPUs: one walks. */
	if (t->walk.state == GH_PERF_ENDED ||
	    __sync_val_compare_and_swap(&t->walk.busy, 0, 1))
		return 0;
	t0 = bpf_ktime_get_ns();
	if (t->walk.state != GH_PERF_ENDED &&
	    resume_start(&t->walk, &w, tgid, SLICE_NS, &head)) {
		w.k.wait_room = true;
		if (w.b)
			walk_run(&w, w.b);
		resume_end(&t->walk, &w, head, t0);
	}
	__sync_fetch_and_and(&t->walk.busy, 0);
	return 0;
}

/* With mark_victim's (task, uid) form, beside goheap_oom_mark. */
SEC("tp_btf/signal_deliver")
int BPF_PROG(goheap_oom_walk, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	return on_kill(sig, false);
}

/* With mark_victim's (int pid) form, alone: it sends GH_EV_OOM too.
 * Userspace loads one of the two. */
SEC("tp_btf/signal_deliver")
int BPF_PROG(goheap_oom_walk_send, int sig, struct kernel_siginfo *info,
	     struct k_sigaction *ka)
{
	return on_kill(sig, true);
}

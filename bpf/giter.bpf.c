/* giter.bpf.c - copy a Go process's goroutines out of it from a sleepable
 * task iterator (Linux 5.18+), for the goroutine profile's iter backend.
 *
 * What is copied, and why no more: runtime.allglen and allgptr, then for
 * each g of allgs[start, max_g) its struct (g_size bytes), the used part
 * of its stack ([sched.sp, or syscallsp in a system call, stack.hi), in
 * blocks of up to 32 KiB, as the heap walk copies its blocks) and its
 * struct again. That is all the unwinder reads of a parked goroutine, and
 * the g read again after its stack is the consistency rule the procmem
 * reader keeps: userspace leaves out a g whose two copies differ.
 * Nothing is interpreted here beyond the offsets userspace passes in the
 * config map (sp, syscallsp, stack bounds, status): the layouts of every
 * release stay in user/gobin/glayout.c, the checks and the unwinder in
 * user/goroutine/, which run over the copies. A g whose status says it
 * has no stack to unwind (dead, running outside a system call: the
 * status masks) gets no stack copied.
 *
 * What the first pass cannot know, pprof labels (a map or a slice of
 * strings behind g.labels), userspace asks in later passes in the
 * GH_GCFG_RANGES mode: a list of address ranges copied in order, each g
 * concerned copied again after them.
 *
 * Bounded: a pass stops at max_g goroutines, past max_bytes sent (BYTES),
 * at the deadline (DEADLINE), on a cancel, and when the ring buffer has
 * no room for the next record (RESUME: userspace drains it and goes on
 * from the g it stopped at; the half-copied g is copied again whole).
 */
#include "vmlinux.h"

#include <bpf/bpf_helpers.h>

#include "goheap_record.h"
#include "ring.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define MAX_LOOPS   (1 << 23)
#define BLOCK_BYTES GH_BLOCK_BYTES
#define EINVAL	    22

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* userspace sets the real size */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1); /* userspace sets the real size */
	__type(key, __u32);
	__type(value, struct gh_gcfg);
} targets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GH_GRANGES_MAX);
	__type(key, __u32);
	__type(value, struct gh_grange);
} granges SEC(".maps");

/* One CPU's buffers and the walk's state (kept in map memory, as the heap
 * walk keeps its cursor: the verifier need not track it). */
struct gblock {
	struct gh_gev_mem m;
	__u8 data[BLOCK_BYTES];
	struct gh_gev_g g;
	__u8 gdata[GH_G_MAX_BYTES];
	__u64 allgptr;
	__u64 gaddr, cur, hi; /* the g being copied; its stack still to copy */
	__u64 bytes;
	__s64 err;
	__u32 idx, end, phase, status, stopped;
};

enum { PH_START = 0, PH_STACK = 1, PH_AFTER = 2 };

/* Indexed by CPU (userspace sets max_entries to the possible CPUs). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gblock);
} blocks SEC(".maps");

/* Set by userspace through the mapped .bss to stop the walk (CANCEL). */
volatile __u32 walk_cancelled;

struct gwalk {
	struct task_struct *task;
	struct gblock *b;
	const struct gh_gcfg *cfg;
	__u32 tgid;
};

static long gread(const struct gwalk *w, void *dst, __u32 len, __u64 addr)
{
	return bpf_copy_from_user_task(dst, len, (void *)addr, w->task, 0);
}

/* Room for n bytes, the pass's END still after them? */
static bool has_room(__u64 n)
{
	return ring_room(&events, n, sizeof(struct gh_gev_end));
}

static long gstop(struct gblock *b, __u32 status, long err)
{
	b->status = status;
	b->err = err;
	b->stopped = 1;
	return 1;
}

static __u64 gword(const struct gblock *b, __u32 off)
{
	if (off > GH_G_MAX_BYTES - 8)
		return 0;
	return *(const __u64 *)&b->gdata[off];
}

/* Copy the g at addr into b->gdata and send it; 0, or 1 when the walk
 * stopped (no room). A g that cannot be read goes out without bytes. */
static long send_g(const struct gwalk *w, struct gblock *b, __u64 addr,
		   __u32 idx, __u32 after)
{
	__u32 len = w->cfg->g_size;
	long err;

	if (len > GH_G_MAX_BYTES)
		len = GH_G_MAX_BYTES;
	if (!has_room(sizeof(b->g) + GH_G_MAX_BYTES))
		return gstop(b, GH_GWALK_RESUME, 0);
	err = gread(w, b->gdata, len, addr);
	b->g.h.kind = GH_GEV_G;
	b->g.h.tgid = w->tgid;
	b->g.addr = addr;
	b->g.idx = idx;
	b->g.after = after;
	b->g.err = (__s32)err;
	b->g.len = err ? 0 : len;
	if (err)
		len = 0;
	if (bpf_ringbuf_output(&events, &b->g, sizeof(b->g) + len,
			       BPF_RB_NO_WAKEUP))
		return gstop(b, GH_GWALK_RESUME, 0);
	b->bytes += sizeof(b->g) + len;
	return err ? -1 : 0;
}

/* Copy len bytes at addr and send them; 0, 1 when the walk stopped, -1
 * when they could not be read (nothing sent). */
static long send_mem(const struct gwalk *w, struct gblock *b, __u64 addr,
		     __u32 len)
{
	/* Two tests, kept apart: clang folds them into one of len - 1,
	 * which bounds a copy of len for no verifier before 6.8 or so. */
	if (!len)
		return -1;
	barrier_var(len);
	if (len > BLOCK_BYTES)
		return -1;
	if (!has_room(sizeof(b->m) + len))
		return gstop(b, GH_GWALK_RESUME, 0);
	if (gread(w, b->data, len, addr))
		return -1;
	b->m.h.kind = GH_GEV_MEM;
	b->m.h.tgid = w->tgid;
	b->m.addr = addr;
	b->m.len = len;
	if (bpf_ringbuf_output(&events, &b->m, sizeof(b->m) + len,
			       BPF_RB_NO_WAKEUP))
		return gstop(b, GH_GWALK_RESUME, 0);
	b->bytes += sizeof(b->m) + len;
	return 0;
}

/* Does the g just copied have a stack to unwind: its status in
 * stack_status (or in syscall_status with syscallsp set)? */
static bool wants_stack(const struct gh_gcfg *cfg, const struct gblock *b,
			__u64 syscallsp)
{
	__u32 st = (__u32)gword(b, cfg->off_status & ~7u) >>
		   ((cfg->off_status & 4) * 8);

	st &= ~cfg->status_clear;
	if (st >= 32)
		return false;
	return (cfg->stack_status & (1u << st)) ||
	       (syscallsp && (cfg->syscall_status & (1u << st)));
}

/* The first copy of the g at allgs[idx]; where its stack is. */
static long start_g(const struct gwalk *w, struct gblock *b)
{
	const struct gh_gcfg *cfg = w->cfg;
	__u64 addr, sp, lo, hi, ssp;
	long rc;

	if (gread(w, &addr, sizeof(addr), b->allgptr + 8ULL * b->idx))
		return gstop(b, GH_GWALK_FAULT, -EINVAL);
	b->gaddr = addr;
	rc = send_g(w, b, addr, b->idx, 0);
	if (rc > 0)
		return 1;
	b->phase = PH_AFTER;
	if (rc < 0)
		return 0;
	ssp = gword(b, cfg->off_syscallsp);
	sp = ssp ? ssp : gword(b, cfg->off_sp);
	lo = gword(b, cfg->off_stack_lo);
	hi = gword(b, cfg->off_stack_hi);
	if (sp >= lo && sp < hi && hi - sp <= cfg->max_stack &&
	    wants_stack(cfg, b, ssp)) {
		b->cur = sp;
		b->hi = hi;
		b->phase = PH_STACK;
	}
	return 0;
}

static long gstep_on(const struct gwalk *w, struct gblock *b)
{
	const struct gh_gcfg *cfg = w->cfg;
	__u64 len;
	long rc;

	if (b->phase == PH_START) {
		if (b->idx >= b->end)
			return gstop(b, GH_GWALK_DONE, 0);
		if (walk_cancelled)
			return gstop(b, GH_GWALK_CANCEL, 0);
		if (cfg->deadline_ns && bpf_ktime_get_ns() > cfg->deadline_ns)
			return gstop(b, GH_GWALK_DEADLINE, 0);
		if (cfg->max_bytes && b->bytes >= cfg->max_bytes)
			return gstop(b, GH_GWALK_BYTES, 0);
		return start_g(w, b);
	}
	if (b->phase == PH_STACK) {
		len = b->hi - b->cur;
		if (len > BLOCK_BYTES)
			len = BLOCK_BYTES;
		rc = send_mem(w, b, b->cur, (__u32)len);
		if (rc > 0)
			return 1;
		b->cur += len;
		/* An unreadable block: the rest is not copied either, and
		 * userspace's unwind of this g fails on it (counted). */
		if (rc < 0 || b->cur >= b->hi)
			b->phase = PH_AFTER;
		return 0;
	}
	rc = send_g(w, b, b->gaddr, b->idx, 1);
	if (rc > 0)
		return 1;
	b->idx++;
	b->phase = PH_START;
	return 0;
}

static long gstep(__u32 i, struct gwalk *w)
{
	return gstep_on(w, w->b);
}

/* GH_GCFG_RANGES: range i. */
static long rstep(__u32 i, struct gwalk *w)
{
	struct gblock *b = w->b;
	struct gh_grange *r;
	long rc;

	if (!b)
		return 1;
	b->idx = i;
	if (i >= w->cfg->nranges)
		return gstop(b, GH_GWALK_DONE, 0);
	if (walk_cancelled)
		return gstop(b, GH_GWALK_CANCEL, 0);
	if (w->cfg->deadline_ns && bpf_ktime_get_ns() > w->cfg->deadline_ns)
		return gstop(b, GH_GWALK_DEADLINE, 0);
	r = bpf_map_lookup_elem(&granges, &i);
	if (!r)
		return gstop(b, GH_GWALK_DONE, 0);
	rc = r->g ? send_g(w, b, r->addr, 0, 1)
		  : send_mem(w, b, r->addr, r->len);
	return rc > 0 ? 1 : 0;
}

static struct gblock *this_cpu_block(void)
{
	__u32 cpu = bpf_get_smp_processor_id();

	return bpf_map_lookup_elem(&blocks, &cpu);
}

SEC("iter.s/task")
int goheap_giter(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	struct gh_gev_begin bg = {};
	struct gh_gev_end e = {};
	struct gwalk w = {};
	struct gh_gcfg *cfg;
	struct gblock *b;
	__u32 tgid;

	if (!task || task->pid != task->tgid)
		return 0;
	tgid = task->tgid;
	cfg = bpf_map_lookup_elem(&targets, &tgid);
	if (!cfg)
		return 0;
	__sync_fetch_and_add(&cfg->visits, 1);
	if (!has_room(sizeof(bg)))
		return 0;
	w.task = task;
	w.cfg = cfg;
	w.tgid = tgid;
	bg.h.kind = GH_GEV_BEGIN;
	bg.h.tgid = tgid;
	if (gread(&w, &bg.allglen, 8, cfg->allglen))
		bg.var_err |= 1;
	if (gread(&w, &bg.allgptr, 8, cfg->allgptr))
		bg.var_err |= 2;
	if (cfg->var && gread(&w, &bg.var, 8, cfg->var))
		bg.var_err |= 4;
	bpf_ringbuf_output(&events, &bg, sizeof(bg), BPF_RB_NO_WAKEUP);

	e.h.kind = GH_GEV_END;
	e.h.tgid = tgid;
	b = this_cpu_block();
	w.b = b;
	if (!b) {
		e.status = GH_GWALK_FAULT;
		e.err = -EINVAL;
	} else {
		b->allgptr = bg.allgptr;
		b->idx = cfg->start;
		b->end = bg.allglen < cfg->max_g ? (__u32)bg.allglen
						 : cfg->max_g;
		b->phase = PH_START;
		b->bytes = 0;
		b->err = 0;
		b->status = GH_GWALK_DONE;
		b->stopped = 0;
		if (cfg->mode == GH_GCFG_RANGES)
			bpf_loop(GH_GRANGES_MAX + 1, rstep, &w, 0);
		else if (bg.var_err & 3)
			gstop(b, GH_GWALK_FAULT, -EINVAL);
		else
			bpf_loop(MAX_LOOPS, gstep, &w, 0);
		if (!b->stopped)
			gstop(b, GH_GWALK_RESUME, 0);
		e.status = b->status;
		e.next = b->idx;
		e.bytes = b->bytes;
		e.err = b->err;
	}
	bpf_ringbuf_output(&events, &e, sizeof(e), BPF_RB_NO_WAKEUP);
	return 0;
}

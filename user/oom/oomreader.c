/* oomreader.c - see oomreader.h. Each watched process has an entry in the
 * BPF map "victims" (its walk's configuration, as the perf backend's
 * targets have it), a pidfd that tells when it has exited, and a record
 * decoder of its own; records are routed to it by TGID. A victim is done
 * when its walk's END arrives, or when it has exited without one: its
 * records were all in the ring buffer before it exited, so a drain after
 * the pidfd said so has them all. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/clock.h"
#include "base/err.h"
#include "oom.skel.h"
#include "oom/oomreader.h"
#include "proc/proc.h"
#include "read/bpfenv.h"
#include "read/bpfprobe.h"
#include "read/stream.h"

/* While a victim's walk is under way, the ring buffer is drained every
 * DRAIN_US: its records come without wake-ups. */
#define DRAIN_US 200
/* With mark_victim's (int pid) form a kill's record wakes the reader
 * only after the victim's thread has walked for its slice (oom.bpf.c),
 * waiting for room once the ring buffer is full: while processes are
 * watched, a poll looks at the ring buffer every LOOK_MS unwoken, or a
 * one-thread victim's list larger than the ring ends partial whenever
 * the caller's timeout runs out after its slice has. */
#define LOOK_MS 5

struct watched {
	struct read_req req; /* p refers to it: entries never move */
	struct snapshot *s;
	const struct procmaps *maps;
	struct stream *p;
	int pidfd;
	bool killed; /* GH_EV_OOM came */
	struct gh_ev_oom ev;
	double t_kill;
};

struct oom_reader {
	struct goheap_oom_bpf *skel;
	struct ring_buffer *rb;
	struct watched **v;
	size_t n, max;
	uint32_t ring_bytes;
	bool look; /* mark_victim's (int pid) form: look every LOOK_MS */
};

static struct watched *find(struct oom_reader *r, int pid, size_t *at)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i]->req.pid == pid) {
			if (at)
				*at = i;
			return r->v[i];
		}
	return NULL;
}

/* A record: GH_EV_OOM marks its process a victim; the walk's records go to
 * its decoder. Records of processes no longer watched are dropped. */
static int on_record(void *ctx, void *data, size_t size)
{
	struct oom_reader *r = ctx;
	const struct gh_ev_hdr *h = data;
	struct watched *w;

	if (size < sizeof(*h) || !(w = find(r, (int)h->tgid, NULL)))
		return 0;
	if (h->kind != GH_EV_OOM) {
		stream__event(w->p, data, size);
	} else if (size >= sizeof(w->ev) && !w->killed) {
		memcpy(&w->ev, data, sizeof(w->ev));
		w->killed = true;
		w->t_kill = clock_mono_ms();
	}
	return 0;
}

/* Load the programs for the kernel's form of oom:mark_victim: with
 * (task, uid), one on it and the walk on signal_deliver; with (int pid),
 * only the walk that sends GH_EV_OOM itself. */
static void pick_programs(struct oom_reader *r, enum bpfprobe_mark_victim f)
{
	bool task = f == BPFPROBE_MARK_TASK_UID;

	bpf_program__set_autoload(r->skel->progs.goheap_oom_mark, task);
	bpf_program__set_autoload(r->skel->progs.goheap_oom_walk, task);
	bpf_program__set_autoload(r->skel->progs.goheap_oom_walk_send, !task);
}

static int load(struct oom_reader *r, struct gh_err *err)
{
	enum bpfprobe_mark_victim form;
	struct btf *btf;
	int rc;

	if (bpfprobe_open(&bpfprobe_oom, &btf, err))
		return -1;
	rc = bpfprobe_require(&bpfprobe_oom, btf, err) ||
	     bpfprobe_mark_victim(btf, &form, err);
	btf__free(btf);
	if (rc)
		return -1;
	r->skel = goheap_oom_bpf__open();
	if (!r->skel)
		return err_set(err, GH_E_FAILED,
			       "opening the BPF object failed: %s",
			       strerror(errno));
	pick_programs(r, form);
	r->look = form == BPFPROBE_MARK_PID;
	if (bpfenv_size_maps(r->skel->maps.events, r->ring_bytes,
			     r->skel->maps.victims, (uint32_t)r->max,
			     r->skel->maps.blocks, err))
		return -1;
	rc = goheap_oom_bpf__load(r->skel);
	if (bpfenv_refused(rc, true, err))
		return -1;
	if (rc)
		return bpfenv_rejected(rc, bpfprobe_oom.who, err);
	if (goheap_oom_bpf__attach(r->skel))
		return err_set(err, GH_E_KERNEL,
			       "attaching to the oom:mark_victim or "
			       "signal:signal_deliver tracepoint failed: %s",
			       strerror(errno));
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_record,
				 r, NULL);
	if (!r->rb)
		return err_set(err, GH_E_FAILED,
			       "mapping the BPF ring buffer failed: %s",
			       strerror(errno));
	return 0;
}

int oom_reader__open(struct oom_reader **out, size_t max, uint32_t ring_bytes,
		     const struct backend_env *env, struct gh_err *err)
{
	struct oom_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r || !(r->v = calloc(max ? max : 1, sizeof(*r->v)))) {
		free(r);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	r->max = max ? max : 1;
	r->ring_bytes = ring_bytes;
	bpfenv_set_print(env);
	if (load(r, err)) {
		oom_reader__free(r);
		return -1;
	}
	*out = r;
	return 0;
}

static void unwatch(struct oom_reader *r, size_t i)
{
	struct watched *w = r->v[i];
	uint32_t key = (uint32_t)w->req.pid;

	bpf_map_delete_elem(bpf_map__fd(r->skel->maps.victims), &key);
	close(w->pidfd);
	stream__end(w->p, 0);
	free(w->p);
	free(w);
	r->v[i] = r->v[--r->n];
}

void oom_reader__free(struct oom_reader *r)
{
	if (!r)
		return;
	while (r->n)
		unwatch(r, r->n - 1);
	free(r->v);
	ring_buffer__free(r->rb);
	goheap_oom_bpf__destroy(r->skel);
	bpfenv_clear_print();
	free(r);
}

static int configure(struct oom_reader *r, const struct read_req *req,
		     uint64_t start_ticks)
{
	uint64_t tick_ns = 1000000000 / (uint64_t)sysconf(_SC_CLK_TCK);
	uint32_t key = (uint32_t)req->pid;
	struct gh_oom_target t = {
		.born_ns = start_ticks * tick_ns,
		.born_end_ns = (start_ticks + 1) * tick_ns,
	};

	read_req__cfg(req, 0, &t.walk.cfg);
	return bpf_map_update_elem(bpf_map__fd(r->skel->maps.victims), &key, &t,
				   BPF_NOEXIST);
}

int oom_reader__add(struct oom_reader *r, const struct read_req *req,
		    uint64_t start_ticks, struct snapshot *s,
		    const struct procmaps *maps, struct gh_err *err)
{
	struct watched *w;

	if (read_req__check(req, err))
		return -1;
	if (find(r, req->pid, NULL))
		return err_set(err, GH_E_USAGE, "process %d is watched already",
			       req->pid);
	if (r->n == r->max)
		return err_set(err, GH_E_FAILED,
			       "%zu processes are watched already, the most "
			       "this watcher was made for",
			       r->max);
	w = calloc(1, sizeof(*w));
	if (!w || !(w->p = malloc(sizeof(*w->p)))) {
		free(w);
		return err_set(err, GH_E_FAILED, "out of memory");
	}
	w->req = *req;
	w->req.known = NULL; /* one walk: nothing to keep */
	w->s = s;
	w->maps = maps;
	w->pidfd = (int)syscall(SYS_pidfd_open, req->pid, 0);
	if (w->pidfd < 0 || configure(r, &w->req, start_ticks)) {
		int e = errno;

		if (w->pidfd >= 0)
			close(w->pidfd);
		free(w->p);
		free(w);
		return err_set(err, e == ESRCH ? GH_E_GONE : GH_E_FAILED,
			       "watching process %d failed: %s", req->pid,
			       strerror(e));
	}
	stream__begin(w->p, &w->req, s);
	r->v[r->n++] = w;
	return 0;
}

int oom_reader__remove(struct oom_reader *r, int pid)
{
	size_t i;

	if (!find(r, pid, &i))
		return -1;
	unwatch(r, i);
	return 0;
}

int oom_reader__fd(const struct oom_reader *r)
{
	return ring_buffer__epoll_fd(r->rb);
}

/* pid's entry in the map as the BPF programs left it (zeros if gone). */
static struct gh_oom_target entry(struct oom_reader *r, int pid)
{
	uint32_t key = (uint32_t)pid;
	struct gh_oom_target t;

	if (bpf_map_lookup_elem(bpf_map__fd(r->skel->maps.victims), &key, &t))
		memset(&t, 0, sizeof(t));
	return t;
}

static bool exited(int pidfd)
{
	struct pollfd p = {.fd = pidfd, .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

/* A fault at a bucket whose header the process had mapped readable: a
 * page was not resident (BPF in the victim's context cannot fault it
 * in). */
static void explain_fault(const struct watched *w)
{
	uint64_t at = w->p->end.resume;

	if (w->p->end.status != GH_WALK_FAULT || !w->maps)
		return;
	if (procmaps__readable(w->maps, at, GH_BUCKET_HDR_BYTES))
		snapshot__set_partial(
			w->s,
			"the page at 0x%llx was not resident in memory "
			"when process %d was OOM-killed (the walk in "
			"its context cannot fault it in)",
			(unsigned long long)at, w->req.pid);
}

/* The outcome of w's walk, over (END) or cut short by its exit (t: its
 * entry, where the walk stopped). */
static int verdict(struct oom_reader *r, struct watched *w,
		   const struct gh_oom_target *t, struct gh_err *err)
{
	struct stream *p = w->p;

	if (!p->begun && !p->have_vars)
		return err_set(err, GH_E_GONE,
			       "process %d was OOM-killed, but none of its "
			       "threads walked its buckets before it exited",
			       w->req.pid);
	if (!p->ended && t->walk.state == GH_PERF_WALKING) {
		snapshot__set_partial(
			w->s,
			"process %d exited (OOM-killed) after %zu buckets, its "
			"walk stopped for room in the %u KiB ring buffer or "
			"for time (%llu ms in its threads)",
			w->req.pid, w->s->nbuckets, r->ring_bytes >> 10,
			(unsigned long long)(t->walk.cpu_ns / 1000000));
		return 0;
	}
	if (!p->ended) {
		snapshot__set_partial(w->s,
				      "process %d exited (OOM-killed) after "
				      "%zu buckets, before its walk ended",
				      w->req.pid, w->s->nbuckets);
		return 0;
	}
	explain_fault(w);
	switch (stream__verdict(p, err)) {
	case -1:
		return -1;
	case 1:
		snapshot__set_partial(w->s,
				      "process %d exited (OOM-killed) with its "
				      "walk stopped for room after %zu buckets",
				      w->req.pid, w->s->nbuckets);
		return 0;
	default:
		return 0;
	}
}

static void hand_over(struct oom_reader *r, size_t i, oom_victim_fn fn,
		      void *ctx)
{
	struct watched *w = r->v[i];
	struct gh_oom_target t = entry(r, w->req.pid);
	struct oom_victim v = {
		.pid = w->req.pid,
		.ev = w->ev,
		.early_kills = t.early_kills,
	};

	v.rc = verdict(r, w, &t, &v.err);
	/* from mark_victim to the walk's end */
	w->s->read_ms = clock_mono_ms() - w->t_kill;
	unwatch(r, i);
	fn(ctx, &v);
}

/* Hand over each victim whose walk is over or who exited (dead[i]), and
 * forget those that exited without an OOM kill. */
static void settle(struct oom_reader *r, const bool *dead, oom_victim_fn fn,
		   void (*gone)(void *ctx, int pid), void *ctx)
{
	/* Backwards: unwatch moves the last entry into the freed slot. */
	for (size_t i = r->n; i-- > 0;) {
		struct watched *w = r->v[i];
		int pid = w->req.pid;

		if (w->killed && (w->p->ended || dead[i])) {
			hand_over(r, i, fn, ctx);
		} else if (dead[i] && !w->killed) {
			unwatch(r, i);
			gone(ctx, pid);
		}
	}
}

/* Is a victim's walk under way: killed (or walking), not over, not
 * exited? */
static bool walking(const struct oom_reader *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct watched *w = r->v[i];

		if ((w->killed || w->p->begun) && !w->p->ended &&
		    !exited(w->pidfd))
			return true;
	}
	return false;
}

/* Records for up to timeout_ms: woken by a kill's record (or found by
 * looking every LOOK_MS), then drained without pause while walks are under
 * way (their records wake no one: a walk under way is never waited for).
 * 0 or a negative errno. */
static int drain(struct oom_reader *r, int timeout_ms)
{
	uint64_t now = clock_mono_ns();
	uint64_t end = now + (uint64_t)timeout_ms * 1000000;
	int rc = ring_buffer__consume(r->rb);

	while (!rc && !walking(r) && now < end) {
		int left = (int)((end - now + 999999) / 1000000);

		rc = ring_buffer__poll(r->rb, r->look && r->n && left > LOOK_MS
						      ? LOOK_MS
						      : left);
		if (!rc)
			rc = ring_buffer__consume(r->rb);
		now = clock_mono_ns();
	}
	while ((rc >= 0 || rc == -EINTR) && walking(r) &&
	       clock_mono_ns() < end) {
		usleep(DRAIN_US);
		rc = ring_buffer__consume(r->rb);
	}
	return rc == -EINTR ? 0 : rc < 0 ? rc : 0;
}

int oom_reader__poll(struct oom_reader *r, int timeout_ms, oom_victim_fn fn,
		     void (*gone)(void *ctx, int pid), void *ctx,
		     struct gh_err *err)
{
	bool *dead = calloc(r->n ? r->n : 1, sizeof(*dead));
	int rc = drain(r, timeout_ms);

	if (!dead)
		return err_set(err, GH_E_FAILED, "out of memory");
	/* Exits first, then the records: all of an exited one's are in. */
	for (size_t i = 0; i < r->n; i++)
		dead[i] = exited(r->v[i]->pidfd);
	if (!rc)
		rc = ring_buffer__consume(r->rb);
	if (rc < 0 && rc != -EINTR) {
		free(dead);
		return err_set(err, GH_E_FAILED,
			       "reading the BPF ring buffer failed: %s",
			       strerror(-rc));
	}
	settle(r, dead, fn, gone, ctx);
	free(dead);
	return 0;
}

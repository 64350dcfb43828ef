/* read_perf.c - the perf-event backend: loads bpf/perf.bpf.c, opens a
 * cpu-clock and a context-switch software event on every thread of the
 * target with the program attached, so that it runs as the target whenever
 * the target runs (the clock for busy threads, the switch for ones that
 * only wake briefly), and drains the ring buffer while the walk goes on. */
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "base/clock.h"
#include "base/err.h"
#include "perf.skel.h"
#include "proc/proc.h"
#include "read/bpfenv.h"
#include "read/bpfload.h"
#include "read/bpfprobe.h"
#include "read/perf.h"
#include "read/procmem.h"
#include "read/stream.h"

#define RINGBUF_BYTES (8u << 20)
#define PAGE_BYTES    4096u
#define MAX_TARGETS   64
/* Idle Go programs still run: sysmon and timers wake a thread within
 * milliseconds to seconds; a target quiet for this long is given up on. */
/* Walks of a list that met a page not resident, before that is final. */
#define NONRESIDENT_TRIES 5
#define TIMEOUT_MS	  2000
/* cpu-clock period: 100 µs of the thread running. */
#define CLOCK_PERIOD_NS 100000
#define PERF_FIX                                                               \
	"the perf backend reads only while the target runs: use the iter "     \
	"backend (Linux 5.18+) or the procmem backend"

struct perf_reader {
	struct goheap_perf_bpf *skel;
	struct bpf_program *prog; /* the one of the skeleton's two loaded */
	struct ring_buffer *rb;
	struct stream *stream; /* the read being drained */
	const char *stopped;   /* why ctl stopped it, or NULL */
	size_t unwatched;      /* threads left without events (fd limit) */
	int *fds;	       /* perf events of the read under way */
	struct bpf_link **links;
	size_t nev, cap;
};

static int on_event(void *ctx, void *data, size_t size)
{
	stream__event(((struct perf_reader *)ctx)->stream, data, size);
	return 0;
}

static void *open_skel(const struct bpf_object_open_opts *oo)
{
	return goheap_perf_bpf__open_opts(oo);
}

static void skel_maps(void *skel, struct bpfload_maps *m)
{
	struct goheap_perf_bpf *s = skel;

	*m = (struct bpfload_maps){s->maps.events, s->maps.targets,
				   s->maps.blocks};
}

static int load_skel(void *skel)
{
	return goheap_perf_bpf__load(skel);
}

/* Load goheap_perf (the walk in bpf_loop) where the kernel has bpf_loop,
 * else goheap_perf_bounded (a verifier-unrolled loop, Linux 5.12-5.16). */
static void pick_program(void *ctx, void *skel, const struct btf *btf)
{
	struct perf_reader *r = ctx;
	struct goheap_perf_bpf *s = skel;
	bool loop = bpfprobe_has_helper(btf, BPF_PROG_TYPE_PERF_EVENT, "loop");

	bpf_program__set_autoload(s->progs.goheap_perf, loop);
	bpf_program__set_autoload(s->progs.goheap_perf_bounded, !loop);
	r->prog = loop ? s->progs.goheap_perf : s->progs.goheap_perf_bounded;
}

static const struct bpfload_spec perf_load = {
	.probe = &bpfprobe_perf,
	.custom_btf = false,
	.any_failure = true,
	.ring_bytes = RINGBUF_BYTES,
	.ntargets = MAX_TARGETS,
	.open = open_skel,
	.maps = skel_maps,
	.load = load_skel,
	.prepare = pick_program,
};

static int load(struct perf_reader *r, struct gh_err *err)
{
	void *skel;
	int rc = bpfload_open(&perf_load, &skel, &r->rb, on_event, r, err);

	r->skel = skel;
	return rc;
}

int perf_reader__open(struct perf_reader **out, const struct backend_env *env,
		      struct gh_err *err)
{
	struct perf_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	bpfenv_set_print(env);
	if (load(r, err)) {
		perf_reader__free(r);
		return -1;
	}
	*out = r;
	return 0;
}

static void detach(struct perf_reader *r)
{
	for (size_t i = 0; i < r->nev; i++) {
		bpf_link__destroy(r->links[i]);
		close(r->fds[i]);
	}
	r->nev = 0;
}

void perf_reader__free(struct perf_reader *r)
{
	if (!r)
		return;
	detach(r);
	free(r->fds);
	free(r->links);
	ring_buffer__free(r->rb);
	goheap_perf_bpf__destroy(r->skel);
	bpfenv_clear_print();
	free(r);
}

/* Open one software event on thread tid and attach the program to it. 0,
 * 1 when the thread is gone, -1 with err. */
static int attach_one(struct perf_reader *r, int tid, uint64_t config,
		      uint64_t period, struct gh_err *err)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = config,
		.sample_period = period,
		.disabled = 1,
	};
	struct bpf_link *link;
	int fd;

	if (r->nev == r->cap) {
		size_t ncap = r->cap ? r->cap * 2 : 32;
		int *fds = realloc(r->fds, ncap * sizeof(*fds));
		struct bpf_link **links;

		if (fds)
			r->fds = fds;
		links = fds ? realloc(r->links, ncap * sizeof(*links)) : NULL;
		if (!links)
			return err_set(err, GH_E_FAILED, "out of memory");
		r->links = links;
		r->cap = ncap;
	}
	fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1,
			  PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == ESRCH)
		return 1;
	if (fd < 0)
		return err_set(err,
			       errno == EACCES || errno == EPERM ? GH_E_PERM
								 : GH_E_FAILED,
			       "opening a perf event on thread %d failed: "
			       "%s",
			       tid, strerror(errno));
	link = bpf_program__attach_perf_event(r->prog, fd);
	if (!link) {
		close(fd);
		return err_set(err, GH_E_FAILED,
			       "attaching the BPF program to a perf event "
			       "failed: %s",
			       strerror(errno));
	}
	r->fds[r->nev] = fd;
	r->links[r->nev++] = link;
	return 0;
}

/* Descriptors a watched thread takes: two perf events, each with the BPF
 * link attaching the program to it. */
#define FDS_PER_THREAD 4
/* Descriptors kept free for everything else the process opens. */
#define FD_RESERVE 64

/* How many threads may be watched: the soft descriptor limit raised as far
 * as the hard one allows (a process with thousands of threads would
 * otherwise fail at the default 1024), less what is open already. */
static size_t thread_room(void)
{
	struct rlimit rl;
	long open_fds = 0;
	DIR *d;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	d = opendir("/proc/self/fd");
	while (d && readdir(d))
		open_fds++;
	if (d)
		closedir(d);
	if (rl.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	if (rl.rlim_cur < (rlim_t)open_fds + FD_RESERVE)
		return 0;
	return (rl.rlim_cur - (rlim_t)open_fds - FD_RESERVE) / FDS_PER_THREAD;
}

/* Both events on every thread of pid, or on as many as the descriptor
 * limit allows (the walk runs in whichever watched thread runs; the
 * others are counted in r->unwatched). */
static int attach_threads(struct perf_reader *r, int pid, struct gh_err *err)
{
	size_t room = thread_room();
	char path[64];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	r->unwatched = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	d = opendir(path);
	if (!d)
		return err_set(err, GH_E_GONE, "process %d exited", pid);
	while (!rc && (de = readdir(d))) {
		int tid = atoi(de->d_name);

		if (tid <= 0)
			continue;
		if (r->nev / 2 >= room) {
			r->unwatched++;
			continue;
		}
		rc = attach_one(r, tid, PERF_COUNT_SW_CPU_CLOCK,
				CLOCK_PERIOD_NS, err);
		if (rc >= 0)
			rc = attach_one(r, tid, PERF_COUNT_SW_CONTEXT_SWITCHES,
					1, err);
		if (rc > 0)
			rc = 0;
	}
	closedir(d);
	return rc;
}

/* Whether process pid still exists (a zombie counts, as for kill(pid, 0),
 * but without calling kill on a process we only read). */
static bool alive(int pid)
{
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) == 0;
}

/* Drain until END, the target's exit, timeout_ms without a record, or ctl
 * says stop (r->stopped). */
static void drain(struct perf_reader *r, struct stream *p, int pid,
		  int timeout_ms, const struct read_ctl *ctl)
{
	double last = clock_mono_ms();
	uint64_t seen = 0;

	r->stream = p;
	r->stopped = NULL;
	while (!p->ended && !(r->stopped = read_ctl__stop(ctl))) {
		ring_buffer__poll(r->rb, 5);
		ring_buffer__consume(r->rb);
		if (p->bytes != seen) {
			seen = p->bytes;
			last = clock_mono_ms();
		} else if (clock_mono_ms() - last > timeout_ms || !alive(pid)) {
			break;
		}
	}
	r->stream = NULL;
}

/* Where a walk met a page mapped readable but not resident: the bucket it
 * was reading (0: it met none), and the end of its mapping. */
struct nonresident {
	uint64_t at, map_end;
};

/* Why a walk that began did not end, or met an unreadable page; fills *nr
 * when that page is mapped and readable, only not resident (worth a retry,
 * see fault_in). */
static void explain(struct perf_reader *r, const struct read_req *req,
		    struct stream *p, int timeout_ms, struct nonresident *nr)
{
	struct procmaps maps = {0};
	const struct procmap *m;
	struct gh_err e;
	uint64_t at = p->end.resume;

	if (!p->ended) {
		if (r->stopped)
			stream__stopped(p, r->stopped);
		else if (alive(req->pid))
			snapshot__set_partial(
				p->s,
				"process %d did not run for %d ms after %zu "
				"buckets; %s",
				req->pid, timeout_ms, p->s->nbuckets, PERF_FIX);
		/* Let the verdict take it as a finished (partial) walk. */
		p->ended = true;
		p->end.status = GH_WALK_DONE;
		return;
	}
	if (p->end.status != GH_WALK_FAULT || proc_maps(req->pid, &maps, &e))
		return;
	m = procmaps__find(&maps, at);
	if (m && procmaps__readable(&maps, at, GH_BUCKET_HDR_BYTES)) {
		snapshot__set_partial(
			p->s,
			"a page of the bucket at 0x%llx is not "
			"resident in memory and the perf backend "
			"could not read it in: use the iter or the "
			"procmem backend",
			(unsigned long long)at);
		*nr = (struct nonresident){at, m->end};
	}
	procmaps__free(&maps);
}

static int walk(struct perf_reader *r, struct stream *p, uint64_t known,
		int timeout_ms, const struct read_ctl *ctl,
		struct nonresident *nr, struct gh_err *err)
{
	const struct read_req *req = p->req;
	int map_fd = bpf_map__fd(r->skel->maps.targets);
	uint32_t key = (uint32_t)req->pid;
	struct gh_perf_target t = {0};
	int rc;

	read_req__cfg(req, known, &t.cfg);
	if (bpf_map_update_elem(map_fd, &key, &t, BPF_ANY))
		return err_set(err, GH_E_FAILED,
			       "configuring the BPF walker failed: %s",
			       strerror(errno));
	rc = attach_threads(r, req->pid, err);
	if (!rc && r->unwatched)
		snprintf(p->s->note, sizeof(p->s->note),
			 "perf watched %zu of the process's %zu threads (the "
			 "file descriptor limit)",
			 r->nev / 2, r->nev / 2 + r->unwatched);
	if (!rc)
		drain(r, p, req->pid, timeout_ms, ctl);
	detach(r);
	bpf_map_delete_elem(map_fd, &key);
	if (rc)
		return rc;
	if (!p->begun && r->stopped)
		return read_ctl__err(r->stopped, req->pid, err);
	if (!p->begun && alive(req->pid) && r->unwatched)
		return err_set(err, GH_E_TIMEOUT,
			       "no watched thread of process %d ran within %d "
			       "ms (%s); raise the hard file descriptor limit, "
			       "or %s",
			       req->pid, timeout_ms, p->s->note,
			       "use the iter or the procmem backend");
	if (!p->begun && alive(req->pid))
		return err_set(err, GH_E_TIMEOUT,
			       "process %d did not run within %d ms, so the "
			       "perf backend could not read it; %s",
			       req->pid, timeout_ms, PERF_FIX);
	if (p->begun)
		explain(r, req, p, timeout_ms, nr);
	return stream__verdict(p, err);
}

/* One perf read: its timeout, and how often a page was not resident. */
struct perf_walk {
	struct perf_reader *r;
	int timeout_ms;
	const struct read_ctl *ctl;
	int tries;
};

/* Bring in the pages of the bucket at nr->at by reading one byte of each
 * with process_vm_readv, as the procmem backend reads (CAP_SYS_PTRACE,
 * which perf needs anyway): a read fault, never a write. The runtime leaves
 * pages untouched that only a new bucket's unused future[] slots reach (a
 * persistentalloc chunk's next page is not written until a later GC cycle
 * flushes that slot, or the next bucket lands there), and the kernel
 * unmaps a page for a moment to migrate or collapse it: bpf_probe_read_user
 * cannot fault in either. Failures are left to the retry's verdict. */
static void fault_in(int pid, const struct nonresident *nr)
{
	uint64_t last = nr->at + GH_BUCKET_HDR_BYTES + GH_MAX_BODY_BYTES;
	uint8_t byte;

	if (last > nr->map_end)
		last = nr->map_end;
	for (uint64_t a = nr->at & ~(uint64_t)(PAGE_BYTES - 1); a < last;
	     a += PAGE_BYTES)
		(void)procmem_peek(pid, a < nr->at ? nr->at : a, &byte, 1);
}

static int perf_walk(void *ctx, struct stream *p, uint64_t known, bool *again,
		     struct gh_err *err)
{
	struct perf_walk *w = ctx;
	struct nonresident nr = {0};
	int rc = walk(w->r, p, known, w->timeout_ms, w->ctl, &nr, err);

	/* Read it all again once the page is in. */
	*again = !rc && nr.at && ++w->tries < NONRESIDENT_TRIES;
	if (*again)
		fault_in(p->req->pid, &nr);
	return rc;
}

/* Say why the read took more than one walk (backend_notes). */
static void note_read_in(struct snapshot *s, int tries)
{
	size_t n = strlen(s->note);

	snprintf(s->note + n, sizeof(s->note) - n,
		 "%sperf walked %d times, reading in a page not resident",
		 n ? "; " : "", tries + 1);
}

int perf_reader__read(struct perf_reader *r, const struct read_req *req,
		      int timeout_ms, const struct read_ctl *ctl,
		      struct snapshot *s, struct gh_err *err)
{
	struct perf_walk w = {r, timeout_ms, ctl, 0};
	double t0 = clock_mono_ms();
	int rc;

	if (read_req__check(req, err))
		return -1;
	/* Drop whatever an earlier read left behind. */
	ring_buffer__consume(r->rb);
	rc = stream__read(req, s, perf_walk, &w, err);
	if (w.tries)
		note_read_in(s, w.tries);
	s->read_ms = clock_mono_ms() - t0;
	return rc;
}

static int perf_open(void **state, const struct backend_env *env,
		     struct gh_err *err)
{
	return perf_reader__open((struct perf_reader **)state, env, err);
}

static int perf_read_one(void *state, const struct read_req *req,
			 const struct read_ctl *ctl, struct snapshot *s,
			 struct gh_err *err)
{
	return perf_reader__read(state, req, TIMEOUT_MS, ctl, s, err);
}

static void perf_read(void *state, struct read_job *jobs, size_t n,
		      struct read_ctl *ctl)
{
	read_jobs_each(state, jobs, n, ctl, perf_read_one);
}

static void perf_free(void *state)
{
	perf_reader__free(state);
}

const struct backend_ops backend_perf = {
	.name = "perf",
	.open = perf_open,
	.read = perf_read,
	.free = perf_free,
};

/* iter.c - the BPF task-iterator backend: loads bpf/iter.bpf.c (via
 * iterobj.c), puts every process of a batch in its "targets" map, runs its
 * task iterator over them in one pass, and turns the records it streams
 * through the ring buffer into one snapshot per process (stream.c decodes
 * them; records are routed by TGID).
 *
 * The ring buffer is deliberately modest, and drained while the walk runs
 * (ringdrain.c); should it fill all the same, a walk ends its pass, and the
 * next pass resumes it at the bucket where it stopped, while walks that
 * are over leave the map. A huge ring buffer would be slow to create
 * (256 MiB took ~200 ms).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/err.h"
#include "base/u64map.h"
#include "read/bpfenv.h"
#include "read/iter.h"
#include "read/iterobj.h"
#include "read/ringdrain.h"
#include "read/stream.h"

/* Processes one iterator pass serves; a larger batch takes several. */
#define MAX_TARGETS 1024
/* Passes that reach a target without room for it in the ring buffer, and
 * in which no walk of the batch got on either, before its walk is given
 * up. */
#define MAX_SKIPS 16

/* One process of the batch being read. */
struct ijob {
	struct read_job *job;
	struct gh_target_cfg cfg; /* its "targets" entry */
	bool pending;		  /* its walk goes on */
	bool passed;		  /* a pass has run for it */
	unsigned skips;		  /* passes that had no room for it */
	uint32_t visits;	  /* cfg.visits after the last pass */
	struct stream st;
};

struct iter_reader {
	struct iterobj obj;
	int all_tasks;	/* unfiltered link, for batches */
	struct ijob *v; /* the batch being drained */
	size_t n;
	struct u64map by_tgid; /* TGID -> index into v */
	const struct read_ctl *ctl;
	bool serial; /* walk, then drain (tests) */
};

/* Route a record to its process's stream by the TGID in its header;
 * records of no process in the batch (an earlier read's) are dropped. */
static int on_event(void *ctx, void *data, size_t size)
{
	struct iter_reader *r = ctx;
	struct gh_ev_hdr h;
	uint32_t i;

	if (size < sizeof(h))
		return 0;
	memcpy(&h, data, sizeof(h));
	if (r->n == 1 ? r->v[0].job->req.pid == (int)h.tgid
		      : u64map__get(&r->by_tgid, h.tgid, NULL, NULL, &i) == 1)
		stream__event(&r->v[r->n == 1 ? 0 : i].st, data, size);
	/* Never stop early: that would leave records for the next pass. */
	return 0;
}

/* The object loaded, and its unfiltered task iterator attached. */
static int load(struct iter_reader *r, const struct backend_env *env,
		struct gh_err *err)
{
	if (iterobj_open(&r->obj, GH_ITER_RING_BYTES, MAX_TARGETS, env,
			 on_event, r, err))
		return -1;
	r->all_tasks = bpfenv_task_iter_link(r->obj.prog_fd, 0);
	if (r->all_tasks < 0)
		return err_set(err, GH_E_FAILED,
			       "attaching the BPF task iterator failed: %s",
			       strerror(errno));
	return 0;
}

int iter_reader__open(struct iter_reader **out, const struct backend_env *env,
		      struct gh_err *err)
{
	struct iter_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	r->all_tasks = -1;
	bpfenv_set_print(env);
	if (load(r, env, err)) {
		iter_reader__free(r);
		return -1;
	}
	*out = r;
	return 0;
}

void iter_reader__set_serial(struct iter_reader *r, bool serial)
{
	r->serial = serial;
}

void iter_reader__free(struct iter_reader *r)
{
	if (!r)
		return;
	if (r->all_tasks >= 0)
		close(r->all_tasks);
	iterobj_close(&r->obj);
	bpfenv_clear_print();
	u64map__free(&r->by_tgid);
	free(r);
}

/* ---- the task-iterator backend ---- */

/* Run the iterator to its end; 0 or -errno. */
static int run_iter(void *fdp)
{
	int fd = *(int *)fdp;
	char buf[64];
	ssize_t n;

	/* The program prints nothing; read() returns 0 once every task has
	 * been visited. */
	do {
		n = read(fd, buf, sizeof(buf));
	} while (n > 0 || (n < 0 && errno == EINTR));
	return n < 0 ? -errno : 0;
}

struct pass {
	struct iter_reader *r;
	int fd;
};

static int pass_produce(void *ctx)
{
	return run_iter(&((struct pass *)ctx)->fd);
}

/* Between the drainer's rounds: a cancel stops the kernel's walk too. */
static void pass_poll(void *ctx)
{
	struct iter_reader *r = ((struct pass *)ctx)->r;

	if (r->ctl && r->ctl->cancel && atomic_load(r->ctl->cancel))
		*r->obj.cancelled = 1;
}

/* One iterator pass over link: read() runs the program over the tasks
 * while the ring buffer is drained into the batch's streams. */
static int run_pass(struct iter_reader *r, int link, struct gh_err *err)
{
	struct pass ps = {r, -1};
	int rc, drain_err;

	ps.fd = bpf_iter_create(link);
	if (ps.fd < 0)
		return err_set(err, GH_E_FAILED,
			       "creating a BPF task iterator failed: %s",
			       strerror(errno));
	rc = ring_drain_during(r->obj.rb, pass_produce, pass_poll, &ps,
			       r->serial, &drain_err);
	close(ps.fd);
	if (rc)
		return err_set(err, GH_E_FAILED,
			       "running the BPF task iterator failed: %s",
			       strerror(-rc));
	if (drain_err)
		return err_set(err, GH_E_FAILED,
			       "draining the BPF ring buffer failed: %s",
			       strerror(-drain_err));
	return 0;
}

/* (Re)start j's walk from the head of its list. */
static void job_start(struct ijob *j, const struct read_ctl *ctl)
{
	const struct read_req *req = &j->job->req;

	stream__begin(&j->st, req, j->job->s);
	/* Its bounds are set for each pass (put_cfg). */
	read_req__cfg(req, j->st.known_head, &j->cfg);
	j->cfg.deadline_ns = ctl ? ctl->deadline_ns : 0;
	j->pending = true;
	j->passed = false;
	j->skips = 0;
	j->visits = 0;
}

/* j's walk is over with rc: keep its stacks, or start it again when they
 * were stale. */
static void job_end(struct iter_reader *r, struct ijob *j, int rc)
{
	uint32_t key = (uint32_t)j->job->req.pid;

	bpf_map_delete_elem(r->obj.targets_fd, &key);
	j->pending = false;
	rc = stream__end(&j->st, rc);
	if (rc > 0) {
		job_start(j, r->ctl);
		return;
	}
	j->job->rc = rc;
}

static int put_cfg(struct iter_reader *r, struct ijob *j, struct gh_err *err)
{
	uint64_t left = j->job->req.max_buckets - j->st.emitted;
	uint32_t key = (uint32_t)j->job->req.pid;

	j->cfg.max_buckets = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
	/* A bound on bytes: what is left of it, never 0 (no bound). */
	j->cfg.max_bytes = !j->job->req.max_bytes ? 0
			   : j->st.bytes < j->job->req.max_bytes
				   ? j->job->req.max_bytes - j->st.bytes
				   : 1;
	j->cfg.visits = j->visits;
	j->st.begun = j->st.ended = false;
	if (bpf_map_update_elem(r->obj.targets_fd, &key, &j->cfg, BPF_ANY))
		return err_set(err, GH_E_FAILED,
			       "configuring the BPF walker failed: %s",
			       strerror(errno));
	return 0;
}

/* Did j's walk get on in the last pass: a bucket sent, or its end met? */
static bool got_on(const struct ijob *j)
{
	return j->st.begun && j->st.ended &&
	       (j->st.end.nbuckets || j->st.end.status != GH_WALK_RESUME);
}

/* Did the last pass begin j's walk without room in the ring buffer for
 * its first bucket (RESUME, nothing sent, no bound met)? The processes
 * the pass walked before it filled the ring buffer: that says nothing
 * about j's buckets (any one fits an empty ring buffer). */
static bool crowded_out(const struct ijob *j)
{
	const struct stream *p = &j->st;
	const struct read_req *req = &j->job->req;

	return p->begun && p->ended && !p->malformed &&
	       p->end.status == GH_WALK_RESUME && !p->end.nbuckets &&
	       p->emitted < req->max_buckets &&
	       !(req->max_bytes && p->bytes >= req->max_bytes);
}

/* Did the last pass reach j's process, though without room to walk it:
 * none for its BEGIN, or none for its first bucket? The next pass starts
 * with the ring buffer drained, and goes on from there. Such a pass
 * counts against MAX_SKIPS only if no walk of the batch got on in it
 * (progress): the first walk a pass reaches always has the whole ring
 * buffer, so this bounds nothing but a bug. */
static bool skipped(struct iter_reader *r, struct ijob *j, bool progress)
{
	struct gh_target_cfg cur;
	uint32_t key = (uint32_t)j->job->req.pid;
	bool reached;

	if (bpf_map_lookup_elem(r->obj.targets_fd, &key, &cur))
		return false;
	reached = cur.visits != j->visits;
	j->visits = cur.visits;
	return reached && (!j->st.begun || crowded_out(j)) &&
	       (progress || ++j->skips < MAX_SKIPS);
}

/* After a pass: j's walk goes on, is over, or failed. */
static void judge(struct iter_reader *r, struct ijob *j, bool progress)
{
	struct gh_err *err = &j->job->err;
	const char *why;
	int rc;

	if (skipped(r, j, progress))
		return;
	j->passed = true;
	rc = stream__verdict(&j->st, err);
	if (rc > 0 && (why = read_ctl__stop(r->ctl))) {
		stream__stopped(&j->st, why);
		rc = 0;
	}
	if (rc > 0) {
		j->cfg.resume = j->st.end.resume;
		j->cfg.flags = j->st.next_known ? GH_CFG_IN_KNOWN : 0;
		return;
	}
	job_end(r, j, rc);
}

/* Give up on every walk still pending, because of why (ctl), or err: those
 * a pass has reached end partial, the others fail. */
static void give_up(struct iter_reader *r, const char *why,
		    const struct gh_err *err)
{
	for (size_t i = 0; i < r->n; i++) {
		struct ijob *j = &r->v[i];

		if (!j->pending)
			continue;
		if (j->passed && why) {
			stream__stopped(&j->st, why);
			job_end(r, j, 0);
			continue;
		}
		if (why)
			read_ctl__err(why, j->job->req.pid, &j->job->err);
		else
			j->job->err = *err;
		job_end(r, j, -1);
	}
}

static size_t npending(const struct iter_reader *r, size_t *last)
{
	size_t k = 0;

	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].pending) {
			k++;
			*last = i;
		}
	return k;
}

/* Pass after pass until every walk of the batch is over. */
static void run_batch(struct iter_reader *r, struct read_ctl *ctl)
{
	int leader = -1;
	struct gh_err err;
	const char *why;
	size_t last = 0, i;
	bool progress;

	/* One process: a link over its leader alone (the unfiltered one
	 * where the kernel refuses it). */
	if (r->n == 1)
		leader = bpfenv_task_iter_link(r->obj.prog_fd,
					       r->v[0].job->req.pid);
	while (npending(r, &last)) {
		if ((why = read_ctl__stop(ctl))) {
			give_up(r, why, NULL);
			break;
		}
		for (i = 0; i < r->n; i++)
			if (r->v[i].pending && put_cfg(r, &r->v[i], &err))
				goto fail;
		ctl->passes++;
		if (run_pass(r, leader >= 0 ? leader : r->all_tasks, &err))
			goto fail;
		for (i = 0, progress = false; i < r->n; i++)
			progress |= r->v[i].pending && got_on(&r->v[i]);
		for (i = 0; i < r->n; i++)
			if (r->v[i].pending)
				judge(r, &r->v[i], progress);
	}
	goto out;
fail:
	give_up(r, NULL, &err);
out:
	if (leader >= 0)
		close(leader);
}

/* Index the batch's processes by TGID: FAILED when out of memory. */
static int route(struct iter_reader *r, struct gh_err *err)
{
	u64map__free(&r->by_tgid);
	for (size_t i = 0; r->n > 1 && i < r->n; i++)
		if (u64map__put(&r->by_tgid, (uint32_t)r->v[i].job->req.pid,
				(uint32_t)i))
			return err_set(err, GH_E_FAILED, "out of memory");
	return 0;
}

/* One batch of processes with distinct TGIDs (the map is keyed by them). */
static void read_batch(struct iter_reader *r, struct read_job **jobs, size_t n,
		       struct read_ctl *ctl)
{
	struct gh_err err;
	size_t i;

	r->v = calloc(n, sizeof(*r->v));
	r->n = r->v ? n : 0;
	r->ctl = ctl;
	for (i = 0; i < r->n; i++) {
		r->v[i].job = jobs[i];
		job_start(&r->v[i], ctl);
	}
	if (!r->v || route(r, &err)) {
		err_set(&err, GH_E_FAILED, "out of memory");
		for (i = 0; i < n; i++) {
			jobs[i]->err = err;
			jobs[i]->rc = -1;
		}
		give_up(r, NULL, &err);
	} else {
		*r->obj.cancelled = 0;
		/* Drop whatever an earlier read left behind. */
		ring_buffer__consume(r->obj.rb);
		run_batch(r, ctl);
	}
	free(r->v);
	r->v = NULL;
	r->n = 0;
	r->ctl = NULL;
}

/* Read jobs in batches of distinct TGIDs (the map is keyed by them, and
 * two Go runtimes of one process share one), MAX_TARGETS at most. */
void iter_reader__read_jobs(struct iter_reader *r, struct read_job *jobs,
			    size_t n, struct read_ctl *ctl)
{
	struct read_job **batch = calloc(n ? n : 1, sizeof(*batch));
	struct read_job **left = calloc(n ? n : 1, sizeof(*left));
	size_t nb, nleft = 0, keep, i, k;
	bool dup;

	for (i = 0; i < n; i++) {
		jobs[i].rc = -1;
		if (!batch || !left)
			err_set(&jobs[i].err, GH_E_FAILED, "out of memory");
		else if (!read_req__check(&jobs[i].req, &jobs[i].err))
			left[nleft++] = &jobs[i];
	}
	while (nleft) {
		for (i = nb = keep = 0; i < nleft; i++) {
			for (k = 0, dup = false; k < nb; k++)
				dup |= batch[k]->req.pid == left[i]->req.pid;
			if (dup || nb == MAX_TARGETS)
				left[keep++] = left[i];
			else
				batch[nb++] = left[i];
		}
		nleft = keep;
		read_batch(r, batch, nb, ctl);
	}
	free(batch);
	free(left);
}

static int iter_open(void **state, const struct backend_env *env,
		     struct gh_err *err)
{
	return iter_reader__open((struct iter_reader **)state, env, err);
}

static void iter_read(void *state, struct read_job *jobs, size_t n,
		      struct read_ctl *ctl)
{
	iter_reader__read_jobs(state, jobs, n, ctl);
}

static void iter_free(void *state)
{
	iter_reader__free(state);
}

const struct backend_ops backend_iter = {
	.name = "iter",
	.open = iter_open,
	.read = iter_read,
	.free = iter_free,
};

/* read_bpf.c - the BPF task-iterator backend of the reader: loads
 * bpf/iter.bpf.c (via its skeleton), runs its task iterator over one target
 * and turns the records it streams through the ring buffer into a
 * gh_snapshot (stream.c decodes them).
 *
 * The ring buffer is deliberately modest, and drained while the walk runs
 * (ringdrain.c); should it fill all the same, the pass ends, and the next
 * one resumes the walk at the bucket where the previous one stopped. A huge
 * ring buffer would be slow to create (256 MiB took ~200 ms).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/err.h"
#include "iter.skel.h"
#include "read/bpfenv.h"
#include "read/iter.h"
#include "read/ringdrain.h"
#include "read/stream.h"

/* Targets one iterator pass can serve. */
#define MAX_TARGETS 64
#define PERM_FIX    "need root, or CAP_BPF + CAP_PERFMON + CAP_SYS_PTRACE"

struct iter_reader {
	struct goheap_iter_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *all_tasks; /* unfiltered link, fallback per read */
	struct stream *stream;	    /* the read being drained */
	struct known known;	    /* stacks of the last target's buckets */
	bool serial;		    /* walk, then drain (tests) */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Classify a failure to load the BPF object. */
static int load_error(int rc, const char *btf_path, struct gh_err *err)
{
	struct utsname u;

	if (rc == -EPERM || (rc == -EACCES && !bpfenv_has_caps()))
		return err_set(err, GH_E_PERM,
			       "loading the BPF program was refused (%s): "
			       "%s",
			       strerror(-rc), PERM_FIX);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	/* bpf_copy_from_user_task came with sleepable task iterators (Linux
	 * 5.18), so it stands for both. */
	if (!bpfenv_kernel_has_helper(btf_path, "copy_from_user_task"))
		return err_set(err, GH_E_KERNEL,
			       "kernel %s lacks sleepable task iterators and "
			       "bpf_copy_from_user_task: need Linux 5.18+",
			       u.release);
	return err_set(err, GH_E_FAILED,
		       "the kernel (%s) rejected the BPF program (%s): "
		       "rerun with --verbose for the verifier log",
		       u.release, strerror(-rc));
}

static int on_event(void *ctx, void *data, size_t size)
{
	stream__event(((struct iter_reader *)ctx)->stream, data, size);
	/* Never stop early: that would leave records for the next pass. */
	return 0;
}

static int load(struct iter_reader *r, struct gh_err *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	bool overridden;
	const char *btf_path = bpfenv_kernel_btf(&overridden);
	int rc;

	if (overridden)
		oo.btf_custom_path = btf_path;
	if (access(btf_path, R_OK))
		return err_set(err, GH_E_KERNEL,
			       "%s: %s: the kernel has no BTF; need Linux "
			       "5.18+ built with CONFIG_DEBUG_INFO_BTF=y",
			       btf_path, strerror(errno));

	r->skel = goheap_iter_bpf__open_opts(&oo);
	if (!r->skel)
		return err_set(err, GH_E_FAILED,
			       "opening the BPF object failed: %s",
			       strerror(errno));
	if (bpf_map__set_max_entries(r->skel->maps.events,
				     GH_ITER_RING_BYTES) ||
	    bpf_map__set_max_entries(r->skel->maps.targets, MAX_TARGETS) ||
	    bpf_map__set_max_entries(r->skel->maps.blocks,
				     (uint32_t)libbpf_num_possible_cpus()))
		return err_set(err, GH_E_FAILED,
			       "sizing the BPF maps failed: %s",
			       strerror(errno));
	rc = goheap_iter_bpf__load(r->skel);
	if (rc)
		return load_error(rc, btf_path, err);
	r->all_tasks =
		bpf_program__attach_iter(r->skel->progs.goheap_iter, NULL);
	if (!r->all_tasks)
		return err_set(err, GH_E_FAILED,
			       "attaching the BPF task iterator failed: %s",
			       strerror(errno));
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, r,
				 NULL);
	if (!r->rb)
		return err_set(err, GH_E_FAILED,
			       "mapping the BPF ring buffer failed: %s",
			       strerror(errno));
	return 0;
}

int iter_reader__open(struct iter_reader **out, bool verbose,
		      struct gh_err *err)
{
	struct iter_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return err_set(err, GH_E_FAILED, "out of memory");
	bpfenv_set_print(verbose);
	if (load(r, err)) {
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
	ring_buffer__free(r->rb);
	bpf_link__destroy(r->all_tasks);
	goheap_iter_bpf__destroy(r->skel);
	known__clear(&r->known);
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

/* One iterator pass: read() runs the program over the tasks while the ring
 * buffer is drained into p. */
static int run_pass(struct iter_reader *r, struct bpf_link *link,
		    struct stream *p, struct gh_err *err)
{
	int fd, rc, drain_err;

	p->begun = p->ended = false;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return err_set(err, GH_E_FAILED,
			       "creating a BPF task iterator failed: %s",
			       strerror(errno));
	r->stream = p;
	rc = ring_drain_during(r->rb, run_iter, &fd, r->serial, &drain_err);
	r->stream = NULL;
	close(fd);
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

/* A link whose iterator visits only the target's leader thread (Linux 6.1+;
 * older kernels ignore the option and visit every task, which the program
 * filters). NULL when the kernel refuses it: use the unfiltered link. */
static struct bpf_link *attach_leader(struct iter_reader *r, int pid)
{
	union bpf_iter_link_info linfo = {0};
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &linfo,
		    .link_info_len = sizeof(linfo));

	linfo.task.tid = (uint32_t)pid;
	return bpf_program__attach_iter(r->skel->progs.goheap_iter, &opts);
}

static int walk(struct iter_reader *r, struct bpf_link *link, struct stream *p,
		uint64_t known, struct gh_err *err)
{
	const struct read_req *req = p->req;
	int map_fd = bpf_map__fd(r->skel->maps.targets);
	uint32_t key = (uint32_t)req->pid;
	struct gh_target_cfg cfg = {
		.mbuckets = req->mbuckets,
		.known = known,
		.nstk_max = req->nstk_max,
		.rec_bytes = req->rec_bytes,
	};
	uint64_t left;
	int rc;

	memcpy(cfg.vars, req->vars, sizeof(cfg.vars));
	do {
		left = req->max_buckets - p->emitted;
		cfg.max_buckets =
			left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
		if (bpf_map_update_elem(map_fd, &key, &cfg, BPF_ANY))
			return err_set(err, GH_E_FAILED,
				       "configuring the BPF walker failed: "
				       "%s",
				       strerror(errno));
		if (run_pass(r, link, p, err))
			return -1;
		rc = stream__verdict(p, err);
		cfg.resume = p->end.resume;
		cfg.flags = p->next_known ? GH_CFG_IN_KNOWN : 0;
	} while (rc > 0);
	return rc;
}

/* The iterator's link for one read. */
struct iter_walk {
	struct iter_reader *r;
	struct bpf_link *link;
};

static int iter_walk(void *ctx, struct stream *p, uint64_t known, bool *again,
		     struct gh_err *err)
{
	struct iter_walk *w = ctx;

	(void)again;
	return walk(w->r, w->link, p, known, err);
}

int iter_reader__read(struct iter_reader *r, const struct read_req *req,
		      struct gh_snapshot *s, struct gh_err *err)
{
	double t0 = now_ms();
	uint32_t key = (uint32_t)req->pid;
	struct bpf_link *leader;
	struct iter_walk w;
	int rc;

	if (read_req__check(req, err))
		return -1;
	/* Drop whatever an earlier read that failed mid-pass left behind. */
	ring_buffer__consume(r->rb);
	leader = attach_leader(r, req->pid);
	w = (struct iter_walk){r, leader ? leader : r->all_tasks};
	rc = stream__read(&r->known, req, s, iter_walk, &w, err);
	bpf_map_delete_elem(bpf_map__fd(r->skel->maps.targets), &key);
	bpf_link__destroy(leader);
	s->read_ms = now_ms() - t0;
	return rc;
}

static int iter_open(void **state, bool verbose, struct gh_err *err)
{
	return iter_reader__open((struct iter_reader **)state, verbose, err);
}

static int iter_read(void *state, const struct read_req *req,
		     struct gh_snapshot *s, struct gh_err *err)
{
	return iter_reader__read(state, req, s, err);
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

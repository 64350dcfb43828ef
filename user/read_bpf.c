/* read_bpf.c - the BPF task-iterator backend of the reader: loads
 * bpf/iter.bpf.c (via its skeleton), runs its task iterator over one target
 * and turns the records it streams through the ring buffer into a
 * gh_snapshot; and the parts the perf backend shares: the record decoder
 * (gh_stream) and the stacks known from the last snapshot (gh_known).
 *
 * The ring buffer is deliberately modest: one iterator pass fills it at most,
 * userspace drains it, and the next pass resumes the walk at the bucket where
 * the previous one stopped. A long list therefore costs a few passes instead
 * of a huge ring buffer that is slow to create.
 */
#include <errno.h>
#include <linux/capability.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "iter.skel.h"
#include "proc.h"
#include "read_bpf.h"
#include "ringdrain.h"

/* Ring buffer size: ~20k typical buckets per pass; creating it takes a few
 * milliseconds (256 MiB took ~200 ms). */
#define RINGBUF_BYTES (8u << 20)
/* Targets one iterator pass can serve. */
#define MAX_TARGETS 64
#define SYSFS_BTF   "/sys/kernel/btf/vmlinux"
#define PERM_FIX    "need root, or CAP_BPF + CAP_PERFMON + CAP_SYS_PTRACE"

struct gh_bpf_reader {
	struct goheap_iter_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *all_tasks; /* unfiltered link, fallback per read */
	struct gh_stream *stream;   /* the read being drained */
	struct gh_known known;	    /* stacks of the last target's buckets */
};

/* libbpf's print callback is process-wide and takes no context, so the
 * verbosity flag lives in exactly one place: which of these two callbacks
 * libbpf holds. The latest gh_bpf_reader__open decides it for the process. */
static int print_quiet(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static int print_stderr(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

void gh_bpf_set_print(bool verbose)
{
	libbpf_set_print(verbose ? print_stderr : print_quiet);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Does the process hold what loading a tracing program needs? CAP_SYS_ADMIN
 * implies both CAP_BPF and CAP_PERFMON. */
bool gh_bpf_has_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {0};
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return false;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	if (eff & (1ULL << CAP_SYS_ADMIN))
		return true;
	return (eff & (1ULL << CAP_BPF)) && (eff & (1ULL << CAP_PERFMON));
}

bool gh_bpf_kernel_has_helper(const char *btf_path, const char *name)
{
	struct btf *btf = btf__parse(btf_path, NULL);
	char want[64];
	bool found = false;
	int id;

	snprintf(want, sizeof(want), "BPF_FUNC_%s", name);
	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bpf_func_id", BTF_KIND_ENUM);
	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e = btf_enum(t);

		for (int i = 0; i < btf_vlen(t) && !found; i++)
			found = !strcmp(btf__name_by_offset(btf, e[i].name_off),
					want);
	}
	btf__free(btf);
	return found;
}

/* Classify a failure to load the BPF object. */
static int load_error(int rc, const char *btf_path, struct gh_err *err)
{
	struct utsname u;

	if (rc == -EPERM || (rc == -EACCES && !gh_bpf_has_caps()))
		return gh_err_set(err, GH_E_PERM,
				  "loading the BPF program was refused (%s): "
				  "%s",
				  strerror(-rc), PERM_FIX);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	/* bpf_copy_from_user_task came with sleepable task iterators (Linux
	 * 5.18), so it stands for both. */
	if (!gh_bpf_kernel_has_helper(btf_path, "copy_from_user_task"))
		return gh_err_set(
			err, GH_E_KERNEL,
			"kernel %s lacks sleepable task iterators and "
			"bpf_copy_from_user_task: need Linux 5.18+",
			u.release);
	return gh_err_set(err, GH_E_FAILED,
			  "the kernel (%s) rejected the BPF program (%s): "
			  "rerun with --verbose for the verifier log",
			  u.release, strerror(-rc));
}

static int on_event(void *ctx, void *data, size_t size)
{
	gh_stream__event(((struct gh_bpf_reader *)ctx)->stream, data, size);
	/* Never stop early: that would leave records for the next pass. */
	return 0;
}

static int load(struct gh_bpf_reader *r, struct gh_err *err)
{
	const char *btf_path = getenv("GOHEAP_SYSFS_BTF");
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	int rc;

	if (!btf_path)
		btf_path = SYSFS_BTF;
	else
		oo.btf_custom_path = btf_path;
	if (access(btf_path, R_OK))
		return gh_err_set(err, GH_E_KERNEL,
				  "%s: %s: the kernel has no BTF; need Linux "
				  "5.18+ built with CONFIG_DEBUG_INFO_BTF=y",
				  btf_path, strerror(errno));

	r->skel = goheap_iter_bpf__open_opts(&oo);
	if (!r->skel)
		return gh_err_set(err, GH_E_FAILED,
				  "opening the BPF object failed: %s",
				  strerror(errno));
	if (bpf_map__set_max_entries(r->skel->maps.events, RINGBUF_BYTES) ||
	    bpf_map__set_max_entries(r->skel->maps.targets, MAX_TARGETS) ||
	    bpf_map__set_max_entries(r->skel->maps.blocks,
				     (uint32_t)libbpf_num_possible_cpus()))
		return gh_err_set(err, GH_E_FAILED,
				  "sizing the BPF maps failed: %s",
				  strerror(errno));
	rc = goheap_iter_bpf__load(r->skel);
	if (rc)
		return load_error(rc, btf_path, err);
	r->all_tasks =
		bpf_program__attach_iter(r->skel->progs.goheap_iter, NULL);
	if (!r->all_tasks)
		return gh_err_set(err, GH_E_FAILED,
				  "attaching the BPF task iterator failed: %s",
				  strerror(errno));
	r->rb = ring_buffer__new(bpf_map__fd(r->skel->maps.events), on_event, r,
				 NULL);
	if (!r->rb)
		return gh_err_set(err, GH_E_FAILED,
				  "mapping the BPF ring buffer failed: %s",
				  strerror(errno));
	return 0;
}

int gh_bpf_reader__open(struct gh_bpf_reader **out, bool verbose,
			struct gh_err *err)
{
	struct gh_bpf_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return gh_err_set(err, GH_E_FAILED, "out of memory");
	gh_bpf_set_print(verbose);
	if (load(r, err)) {
		gh_bpf_reader__free(r);
		return -1;
	}
	*out = r;
	return 0;
}

void gh_bpf_reader__free(struct gh_bpf_reader *r)
{
	if (!r)
		return;
	ring_buffer__free(r->rb);
	bpf_link__destroy(r->all_tasks);
	goheap_iter_bpf__destroy(r->skel);
	gh_known__clear(&r->known);
	free(r);
}

/* ---- the stacks known from the last snapshot ---- */

void gh_known__clear(struct gh_known *k)
{
	free(k->b);
	free(k->words);
	memset(k, 0, sizeof(*k));
}

/* The process and binary behind req: PID, start time, executable. */
static int identity(const struct gh_read_req *req, struct gh_known *id)
{
	struct gh_err e;
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/exe", req->pid);
	if (gh_proc_start_time(req->pid, &id->start_ticks, &e) ||
	    stat(path, &st))
		return -1;
	id->pid = req->pid;
	id->exe_dev = st.st_dev;
	id->exe_ino = st.st_ino;
	id->mbuckets = req->mbuckets;
	id->nstk_max = req->nstk_max;
	id->rec_bytes = req->rec_bytes;
	return 0;
}

uint64_t gh_known__prepare(struct gh_known *k, const struct gh_read_req *req)
{
	struct gh_known id = {0};

	if (k->n && !identity(req, &id) && id.pid == k->pid &&
	    id.start_ticks == k->start_ticks && id.exe_dev == k->exe_dev &&
	    id.exe_ino == k->exe_ino && id.mbuckets == k->mbuckets &&
	    id.nstk_max == k->nstk_max && id.rec_bytes == k->rec_bytes)
		return k->b[0].addr;
	gh_known__clear(k);
	return 0;
}

void gh_known__update(struct gh_known *k, struct gh_stream *p)
{
	struct gh_known id = {0};

	if (identity(p->req, &id) || !p->next.n || p->nomem)
		return;
	gh_known__clear(k);
	*k = id;
	k->b = p->next.b;
	k->n = p->next.n;
	k->words = p->next.words;
	memset(&p->next, 0, sizeof(p->next));
}

/* ---- the record decoder ---- */

void gh_stream__init(struct gh_stream *p, const struct gh_read_req *req,
		     struct gh_snapshot *s, const struct gh_known *known)
{
	memset(p, 0, offsetof(struct gh_stream, body));
	p->req = req;
	p->s = s;
	p->known = known;
}

void gh_stream__fini(struct gh_stream *p)
{
	gh_known__clear(&p->next);
	p->cap_next = p->cap_words = p->nwords = 0;
}

/* Make room for one more element in *v (of *cap, elem bytes each). */
static int reserve(void **v, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 1024;
	void *nv;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	nv = realloc(*v, ncap * elem);
	if (!nv)
		return -1;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* Keep the bucket (and its stack) for the next read of this process. */
static int remember(struct gh_stream *p, const struct gh_ev_bucket *ev,
		    const void *stk)
{
	struct gh_known *k = &p->next;
	uint32_t nstk = (uint32_t)ev->hdr[5];

	if (p->nwords + nstk > UINT32_MAX ||
	    reserve((void **)&k->b, &p->cap_next, k->n + 1, sizeof(*k->b)) ||
	    reserve((void **)&k->words, &p->cap_words, p->nwords + nstk,
		    sizeof(*k->words)))
		return -1;
	k->b[k->n++] = (struct gh_known_bucket){
		.addr = ev->addr,
		.hash = ev->hdr[3],
		.size = ev->hdr[4],
		.nstk = nstk,
		.stk_off = (uint32_t)p->nwords,
	};
	if (nstk)
		memcpy(k->words + p->nwords, stk, (size_t)nstk * 8);
	p->nwords += nstk;
	return 0;
}

/* Add one bucket to the snapshot and remember it. */
static void add(struct gh_stream *p, const struct gh_ev_bucket *ev,
		const void *body)
{
	uint32_t nstk = (uint32_t)ev->hdr[5];
	int rc;

	p->emitted++;
	if (p->cyclic || p->nomem || p->stale)
		return;
	if (p->req->keep_stacks && remember(p, ev, body)) {
		p->nomem = true;
		return;
	}
	rc = gh_snapshot__add(p->s, ev->addr, ev->hdr[4], nstk, body,
			      p->req->rec_bytes);
	if (rc == 1) {
		p->cyclic = true;
		gh_snapshot__set_partial(p->s,
					 "allnext list is cyclic at 0x%llx",
					 (unsigned long long)ev->addr);
	} else if (rc < 0) {
		p->nomem = true;
	}
}

/* A run of buckets adjacent in memory (see struct gh_ev_bucket): find
 * where each starts, checking that each one's allnext leads to the one
 * below it, then add them in list order, from the top down. */
static void on_buckets(struct gh_stream *p, const uint8_t *data, size_t size)
{
	const size_t prefix = offsetof(struct gh_ev_bucket, hdr);
	uint32_t off[GH_BLOCK_BYTES / GH_BUCKET_HDR_BYTES];
	const uint64_t rec = p->req->rec_bytes;
	struct gh_ev_bucket ev;
	uint64_t nstk, next;
	size_t pos = prefix, n = 0;

	if (size < sizeof(ev) || size - prefix > GH_BLOCK_BYTES)
		goto malformed;
	memcpy(&ev, data, prefix);
	for (; pos < size; n++) {
		if (n == sizeof(off) / sizeof(off[0]) ||
		    size - pos < GH_BUCKET_HDR_BYTES)
			goto malformed;
		memcpy(&next, data + pos + GH_BUCKET_ALLNEXT_OFF, 8);
		memcpy(&nstk, data + pos + 5 * 8, 8);
		if (n && next != ev.addr + off[n - 1] - prefix)
			goto malformed;
		if (nstk > GH_MAX_STACK ||
		    size - pos - GH_BUCKET_HDR_BYTES < nstk * 8 + rec)
			goto malformed;
		off[n] = (uint32_t)pos;
		pos += GH_BUCKET_HDR_BYTES + nstk * 8 + rec;
	}
	while (n--) {
		struct gh_ev_bucket b = {.h = ev.h};

		b.addr = ev.addr + off[n] - prefix;
		memcpy(b.hdr, data + off[n], GH_BUCKET_HDR_BYTES);
		add(p, &b, data + off[n] + GH_BUCKET_HDR_BYTES);
	}
	return;
malformed:
	p->malformed = true;
}

/* A bucket without its stack: it must be the next known one, with the same
 * header (the hash of its stack included); else the process is not the one
 * the stacks came from, and the read is redone without them. */
static void on_known(struct gh_stream *p, const uint8_t *data, size_t size)
{
	struct gh_ev_known ev = {0};
	const struct gh_known_bucket *kb;
	uint32_t rec = p->req->rec_bytes;

	if (size != sizeof(ev) - GH_MAX_REC_BYTES + rec) {
		p->malformed = true;
		return;
	}
	memcpy(&ev, data, size);
	if (!p->known || p->next_known >= p->known->n) {
		p->stale = true;
		return;
	}
	kb = &p->known->b[p->next_known++];
	if (ev.addr != kb->addr || ev.hdr[3] != kb->hash ||
	    ev.hdr[4] != kb->size || ev.hdr[5] != kb->nstk) {
		p->stale = true;
		return;
	}
	memcpy(p->body, p->known->words + kb->stk_off, (size_t)kb->nstk * 8);
	memcpy((uint8_t *)p->body + (size_t)kb->nstk * 8, ev.rec, rec);
	add(p, (const struct gh_ev_bucket *)&ev, p->body);
}

void gh_stream__event(struct gh_stream *p, const void *data, size_t size)
{
	struct gh_ev_begin b;
	struct gh_ev_hdr h;

	if (!p || size < sizeof(h))
		return;
	p->bytes += size;
	memcpy(&h, data, sizeof(h));
	if (h.tgid != (uint32_t)p->req->pid)
		return;
	switch (h.kind) {
	case GH_EV_BEGIN:
		if (size != sizeof(b)) {
			p->malformed = true;
			break;
		}
		memcpy(&b, data, sizeof(b));
		p->begun = true;
		if (!p->have_vars) {
			memcpy(p->s->vars, b.vars, sizeof(b.vars));
			p->s->var_err = b.var_err;
			p->have_vars = true;
		}
		break;
	case GH_EV_BUCKETS:
		on_buckets(p, data, size);
		break;
	case GH_EV_KNOWN:
		on_known(p, data, size);
		break;
	case GH_EV_END:
		if (size != sizeof(p->end)) {
			p->malformed = true;
			break;
		}
		memcpy(&p->end, data, sizeof(p->end));
		memcpy(p->s->vars_end, p->end.vars, sizeof(p->end.vars));
		p->s->var_err_end = p->end.var_err;
		p->ended = true;
		break;
	default:
		p->malformed = true;
	}
}

int gh_stream__verdict(struct gh_stream *p, struct gh_err *err)
{
	const struct gh_read_req *req = p->req;
	struct gh_snapshot *s = p->s;
	unsigned long long at = p->end.resume;

	if (!p->begun && !p->have_vars)
		return gh_err_set(err, GH_E_GONE,
				  "process %d exited before its heap profile "
				  "could be read",
				  req->pid);
	if (!p->begun) {
		gh_snapshot__set_partial(s,
					 "process exited during the read, "
					 "after %zu buckets",
					 s->nbuckets);
		return 0;
	}
	if (p->malformed || !p->ended)
		return gh_err_set(err, GH_E_FAILED,
				  "the BPF walker sent a malformed record "
				  "stream (BPF object and reader out of sync)");
	if (p->nomem)
		return gh_err_set(err, GH_E_FAILED,
				  "out of memory after %zu buckets",
				  s->nbuckets);
	if (p->cyclic || p->stale)
		return 0;
	switch (p->end.status) {
	case GH_WALK_DONE:
		/* A walk that met the known head must have met all of them. */
		if (p->known && p->next_known != p->known->n)
			p->stale = true;
		return 0;
	case GH_WALK_RESUME:
		if (p->emitted >= req->max_buckets) {
			gh_snapshot__set_partial(
				s, "bucket budget of %llu exhausted",
				(unsigned long long)req->max_buckets);
			return 0;
		}
		if (!p->end.nbuckets) {
			gh_snapshot__set_partial(
				s,
				"the bucket at 0x%llx does not fit the "
				"BPF ring buffer",
				at);
			return 0;
		}
		return 1;
	case GH_WALK_FAULT:
		gh_snapshot__set_partial(
			s, "reading the bucket at 0x%llx failed (%s)", at,
			strerror((int)-p->end.err));
		return 0;
	case GH_WALK_BAD_NSTK:
		gh_snapshot__set_partial(s,
					 "bucket at 0x%llx has a stack deeper "
					 "than nstk_max %u",
					 at, req->nstk_max);
		return 0;
	case GH_WALK_BAD_TYPE:
		gh_snapshot__set_partial(
			s, "bucket at 0x%llx is not a heap-profile bucket", at);
		return 0;
	case GH_WALK_BAD_ALIGN:
		gh_snapshot__set_partial(
			s, "bucket address 0x%llx is not 8-byte aligned", at);
		return 0;
	case GH_WALK_HEAD_FAULT:
		return gh_err_set(err, GH_E_FAILED,
				  "reading runtime.mbuckets at 0x%llx in "
				  "process %d failed (%s)",
				  at, req->pid, strerror((int)-p->end.err));
	default:
		return gh_err_set(err, GH_E_FAILED,
				  "the BPF walker reported unknown status %u",
				  p->end.status);
	}
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
static int run_pass(struct gh_bpf_reader *r, struct bpf_link *link,
		    struct gh_stream *p, struct gh_err *err)
{
	int fd, rc, drain_err;

	p->begun = p->ended = false;
	fd = bpf_iter_create(bpf_link__fd(link));
	if (fd < 0)
		return gh_err_set(err, GH_E_FAILED,
				  "creating a BPF task iterator failed: %s",
				  strerror(errno));
	r->stream = p;
	rc = gh_ring_drain_during(r->rb, run_iter, &fd, &drain_err);
	r->stream = NULL;
	close(fd);
	if (rc)
		return gh_err_set(err, GH_E_FAILED,
				  "running the BPF task iterator failed: %s",
				  strerror(-rc));
	if (drain_err)
		return gh_err_set(err, GH_E_FAILED,
				  "draining the BPF ring buffer failed: %s",
				  strerror(-drain_err));
	return 0;
}

/* A link whose iterator visits only the target's leader thread (Linux 6.1+;
 * older kernels ignore the option and visit every task, which the program
 * filters). NULL when the kernel refuses it: use the unfiltered link. */
static struct bpf_link *attach_leader(struct gh_bpf_reader *r, int pid)
{
	union bpf_iter_link_info linfo = {0};
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &linfo,
		    .link_info_len = sizeof(linfo));

	linfo.task.tid = (uint32_t)pid;
	return bpf_program__attach_iter(r->skel->progs.goheap_iter, &opts);
}

static int walk(struct gh_bpf_reader *r, struct bpf_link *link,
		struct gh_stream *p, uint64_t known, struct gh_err *err)
{
	const struct gh_read_req *req = p->req;
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
			return gh_err_set(err, GH_E_FAILED,
					  "configuring the BPF walker failed: "
					  "%s",
					  strerror(errno));
		if (run_pass(r, link, p, err))
			return -1;
		rc = gh_stream__verdict(p, err);
		cfg.resume = p->end.resume;
		cfg.flags = p->next_known ? GH_CFG_IN_KNOWN : 0;
	} while (rc > 0);
	return rc;
}

int gh_stream__read(struct gh_known *k, const struct gh_read_req *req,
		    struct gh_snapshot *s, gh_stream_walk walk, void *ctx,
		    struct gh_err *err)
{
	struct gh_stream *p = malloc(sizeof(*p));
	uint64_t known;
	bool again;
	int rc;

	if (!p)
		return gh_err_set(err, GH_E_FAILED, "out of memory");
	for (;;) {
		known = req->keep_stacks ? gh_known__prepare(k, req) : 0;
		gh_stream__init(p, req, s, known ? k : NULL);
		again = false;
		rc = walk(ctx, p, known, &again, err);
		s->read_bytes += p->bytes;
		if (rc)
			break;
		/* Known stacks that are not this process's: forget them. */
		if (p->stale && known)
			gh_known__clear(k);
		else if (!again)
			break;
		gh_stream__fini(p);
		gh_snapshot__clear(s);
	}
	if (req->keep_stacks && !rc && !p->stale && !s->partial)
		gh_known__update(k, p);
	gh_stream__fini(p);
	free(p);
	return rc;
}

/* The iterator's link for one read. */
struct iter_walk {
	struct gh_bpf_reader *r;
	struct bpf_link *link;
};

static int iter_walk(void *ctx, struct gh_stream *p, uint64_t known,
		     bool *again, struct gh_err *err)
{
	struct iter_walk *w = ctx;

	(void)again;
	return walk(w->r, w->link, p, known, err);
}

int gh_bpf_reader__read(struct gh_bpf_reader *r, const struct gh_read_req *req,
			struct gh_snapshot *s, struct gh_err *err)
{
	double t0 = now_ms();
	uint32_t key = (uint32_t)req->pid;
	struct bpf_link *leader;
	struct iter_walk w;
	int rc;

	if (gh_read_req__check(req, err))
		return -1;
	/* Drop whatever an earlier read that failed mid-pass left behind. */
	ring_buffer__consume(r->rb);
	leader = attach_leader(r, req->pid);
	w = (struct iter_walk){r, leader ? leader : r->all_tasks};
	rc = gh_stream__read(&r->known, req, s, iter_walk, &w, err);
	bpf_map_delete_elem(bpf_map__fd(r->skel->maps.targets), &key);
	bpf_link__destroy(leader);
	s->read_ms = now_ms() - t0;
	return rc;
}

static int iter_open(void **state, bool verbose, struct gh_err *err)
{
	return gh_bpf_reader__open((struct gh_bpf_reader **)state, verbose,
				   err);
}

static int iter_read(void *state, const struct gh_read_req *req,
		     struct gh_snapshot *s, struct gh_err *err)
{
	return gh_bpf_reader__read(state, req, s, err);
}

static void iter_free(void *state)
{
	gh_bpf_reader__free(state);
}

const struct gh_backend_ops gh_backend_iter = {
	.name = "iter",
	.open = iter_open,
	.read = iter_read,
	.free = iter_free,
};

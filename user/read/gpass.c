/* gpass.c - see gpass.h. Set up as the heap's iter backend sets up its
 * object (bpfload.c), with a map of one target and a ring buffer drained
 * on a second thread while read() runs the iterator (ringdrain.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/err.h"
#include "giter.skel.h"
#include "read/bpfenv.h"
#include "read/bpfload.h"
#include "read/bpfprobe.h"
#include "read/gpass.h"
#include "read/ringdrain.h"

struct gpass {
	struct goheap_giter_bpf *skel;
	struct ring_buffer *rb;
	struct bpf_link *all_tasks;
	void (*on_record)(void *ctx, const void *data, size_t size);
	void *ctx;
	const atomic_bool *cancel;
};

static int on_event(void *ctx, void *data, size_t size)
{
	struct gpass *p = ctx;

	if (p->on_record)
		p->on_record(p->ctx, data, size);
	return 0;
}

static void *open_skel(const struct bpf_object_open_opts *oo)
{
	return goheap_giter_bpf__open_opts(oo);
}

static void skel_maps(void *skel, struct bpfload_maps *m)
{
	struct goheap_giter_bpf *s = skel;

	*m = (struct bpfload_maps){s->maps.events, s->maps.targets,
				   s->maps.blocks};
}

static int load_skel(void *skel)
{
	return goheap_giter_bpf__load(skel);
}

static const struct bpfload_spec giter_load = {
	.probe = &bpfprobe_iter,
	.custom_btf = true,
	.any_failure = false,
	.ring_bytes = GH_GPASS_RING_BYTES,
	.ntargets = 1,
	.open = open_skel,
	.maps = skel_maps,
	.load = load_skel,
};

int gpass__open(struct gpass **out, const struct backend_env *env,
		struct gh_err *err)
{
	struct gpass *p = calloc(1, sizeof(*p));
	void *skel = NULL;
	int rc;

	*out = NULL;
	if (!p)
		return err_set(err, GH_E_FAILED, "out of memory");
	bpfenv_set_print(env);
	rc = bpfload_open(&giter_load, &skel, &p->rb, on_event, p, err);
	p->skel = skel;
	if (!rc) {
		p->all_tasks = bpf_program__attach_iter(
			p->skel->progs.goheap_giter, NULL);
		if (!p->all_tasks)
			rc = err_set(err, GH_E_FAILED,
				     "attaching the BPF task iterator failed: "
				     "%s",
				     strerror(errno));
	}
	if (rc) {
		gpass__free(p);
		return -1;
	}
	*out = p;
	return 0;
}

void gpass__free(struct gpass *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	bpf_link__destroy(p->all_tasks);
	goheap_giter_bpf__destroy(p->skel);
	bpfenv_clear_print();
	free(p);
}

struct run {
	struct gpass *p;
	int fd;
};

static int produce(void *ctx)
{
	struct run *r = ctx;
	char buf[64];
	ssize_t n;

	do {
		n = read(r->fd, buf, sizeof(buf));
	} while (n > 0 || (n < 0 && errno == EINTR));
	return n < 0 ? -errno : 0;
}

static void poll_cancel(void *ctx)
{
	struct gpass *p = ((struct run *)ctx)->p;

	if (p->cancel && atomic_load(p->cancel) && p->skel->bss)
		p->skel->bss->walk_cancelled = 1;
}

/* A link visiting only pid's leader (Linux 6.1+; older kernels visit
 * every task, which the program filters), or the unfiltered one. */
static struct bpf_link *attach_leader(struct gpass *p, int pid)
{
	union bpf_iter_link_info linfo = {0};
	LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &linfo,
		    .link_info_len = sizeof(linfo));

	linfo.task.tid = (uint32_t)pid;
	return bpf_program__attach_iter(p->skel->progs.goheap_giter, &opts);
}

static int put_ranges(struct gpass *p, const struct gh_gcfg *cfg,
		      const struct gh_grange *ranges)
{
	int fd = bpf_map__fd(p->skel->maps.granges);

	for (uint32_t i = 0; i < cfg->nranges && i < GH_GRANGES_MAX; i++)
		if (bpf_map_update_elem(fd, &i, &ranges[i], BPF_ANY))
			return -1;
	return 0;
}

int gpass__run(struct gpass *p, int pid, const struct gh_gcfg *cfg,
	       const struct gh_grange *ranges,
	       void (*on_record)(void *ctx, const void *data, size_t size),
	       void *ctx, const atomic_bool *cancel, struct gh_err *err)
{
	struct run r = {p, -1};
	struct bpf_link *leader;
	uint32_t key = (uint32_t)pid;
	int rc, drain_err = 0;

	if ((cfg->mode == GH_GCFG_RANGES && put_ranges(p, cfg, ranges)) ||
	    bpf_map_update_elem(bpf_map__fd(p->skel->maps.targets), &key, cfg,
				BPF_ANY))
		return err_set(err, GH_E_FAILED,
			       "configuring the BPF goroutine walk failed: %s",
			       strerror(errno));
	if (p->skel->bss)
		p->skel->bss->walk_cancelled = 0;
	/* Drop whatever an earlier pass left behind. */
	p->on_record = NULL;
	ring_buffer__consume(p->rb);
	p->on_record = on_record;
	p->ctx = ctx;
	p->cancel = cancel;
	leader = attach_leader(p, pid);
	r.fd = bpf_iter_create(bpf_link__fd(leader ? leader : p->all_tasks));
	if (r.fd < 0) {
		rc = err_set(err, GH_E_FAILED,
			     "creating a BPF task iterator failed: %s",
			     strerror(errno));
		goto out;
	}
	rc = ring_drain_during(p->rb, produce, poll_cancel, &r, false,
			       &drain_err);
	close(r.fd);
	if (rc)
		rc = err_set(err, GH_E_FAILED,
			     "running the BPF task iterator failed: %s",
			     strerror(-rc));
	else if (drain_err)
		rc = err_set(err, GH_E_FAILED,
			     "draining the BPF ring buffer failed: %s",
			     strerror(-drain_err));
out:
	bpf_map_delete_elem(bpf_map__fd(p->skel->maps.targets), &key);
	bpf_link__destroy(leader);
	p->on_record = NULL;
	p->cancel = NULL;
	return rc;
}

/* gpass.c - see gpass.h. Set up as the heap's iter backend sets up its
 * object (iterobj.c: the light skeleton, libbpf's where GOHEAP_SYSFS_BTF
 * stands in for the kernel's BTF), with a map of one target and a ring
 * buffer drained on a second thread while read() runs the iterator
 * (ringdrain.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/err.h"
#include "giter.skel.h"
#include "giterlite.skel.h"
#include "read/bpfenv.h"
#include "read/bpfload.h"
#include "read/bpfprobe.h"
#include "read/gpass.h"
#include "read/liteload.h"
#include "read/ringdrain.h"

struct gpass {
	struct goheap_giter_bpf *skel;	/* libbpf's skeleton, or */
	struct goheap_giter_lite *lite; /* the light one (liteload.h) */
	int prog_fd, targets_fd, granges_fd;
	uint32_t *cancelled; /* the program's walk_cancelled */
	struct ring_buffer *rb;
	int all_tasks; /* the unfiltered iterator's link */
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

/* libbpf's skeleton, relocated against GOHEAP_SYSFS_BTF's file. */
static int open_full(struct gpass *p, const struct backend_env *env,
		     struct gh_err *err)
{
	void *skel = NULL;
	int rc;

	bpfenv_set_print(env);
	rc = bpfload_open(&giter_load, &skel, &p->rb, on_event, p, err);
	p->skel = skel;
	if (rc)
		return -1;
	p->prog_fd = bpf_program__fd(p->skel->progs.goheap_giter);
	p->targets_fd = bpf_map__fd(p->skel->maps.targets);
	p->granges_fd = bpf_map__fd(p->skel->maps.granges);
	p->cancelled = (uint32_t *)&p->skel->bss->walk_cancelled;
	return 0;
}

/* The light skeleton opened, its maps sized; NULL with errno. */
static void *lite_open(const void *arg, uint32_t ncpus)
{
	struct goheap_giter_lite *l = goheap_giter_lite__open();

	(void)arg;
	if (!l)
		return NULL;
	/* The loader creates each map with these when they are not 0. */
	l->maps.events.max_entries = GH_GPASS_RING_BYTES;
	l->maps.targets.max_entries = 1;
	l->maps.blocks.max_entries = ncpus;
	return l;
}

static int lite_load(void *skel)
{
	return goheap_giter_lite__load(skel);
}

static void lite_destroy(void *skel)
{
	goheap_giter_lite__destroy(skel);
}

static const struct litespec lite_spec = {
	.probe = &bpfprobe_iter,
	.open = lite_open,
	.load = lite_load,
	.destroy = lite_destroy,
};

static int open_lite(struct gpass *p, const struct backend_env *env,
		     struct gh_err *err)
{
	void *skel;
	int rc = liteload(&lite_spec, NULL, env, &skel, err);

	p->lite = skel;
	if (rc)
		return -1;
	p->prog_fd = p->lite->progs.goheap_giter.prog_fd;
	p->targets_fd = p->lite->maps.targets.map_fd;
	p->granges_fd = p->lite->maps.granges.map_fd;
	p->cancelled = (uint32_t *)&p->lite->bss->walk_cancelled;
	p->rb = ring_buffer__new(p->lite->maps.events.map_fd, on_event, p,
				 NULL);
	if (!p->rb)
		return err_set(err, GH_E_FAILED,
			       "mapping the BPF ring buffer failed: %s",
			       strerror(errno));
	return 0;
}

int gpass__open(struct gpass **out, const struct backend_env *env,
		struct gh_err *err)
{
	struct gpass *p = calloc(1, sizeof(*p));
	bool overridden;
	int rc;

	*out = NULL;
	if (!p)
		return err_set(err, GH_E_FAILED, "out of memory");
	p->all_tasks = -1;
	bpfenv_kernel_btf(&overridden);
	rc = overridden ? open_full(p, env, err) : open_lite(p, env, err);
	if (!rc && (p->all_tasks = bpfenv_task_iter_link(p->prog_fd, 0)) < 0)
		rc = err_set(err, GH_E_FAILED,
			     "attaching the BPF task iterator failed: %s",
			     strerror(errno));
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
	if (p->all_tasks >= 0)
		close(p->all_tasks);
	goheap_giter_bpf__destroy(p->skel);
	if (p->lite)
		goheap_giter_lite__destroy(p->lite);
	if (p->skel)
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

	if (p->cancel && atomic_load(p->cancel))
		*p->cancelled = 1;
}

static int put_ranges(struct gpass *p, const struct gh_gcfg *cfg,
		      const struct gh_grange *ranges)
{
	for (uint32_t i = 0; i < cfg->nranges && i < GH_GRANGES_MAX; i++)
		if (bpf_map_update_elem(p->granges_fd, &i, &ranges[i], BPF_ANY))
			return -1;
	return 0;
}

int gpass__run(struct gpass *p, int pid, const struct gh_gcfg *cfg,
	       const struct gh_grange *ranges,
	       void (*on_record)(void *ctx, const void *data, size_t size),
	       void *ctx, const atomic_bool *cancel, struct gh_err *err)
{
	struct run r = {p, -1};
	int leader;
	uint32_t key = (uint32_t)pid;
	int rc, drain_err = 0;

	if ((cfg->mode == GH_GCFG_RANGES && put_ranges(p, cfg, ranges)) ||
	    bpf_map_update_elem(p->targets_fd, &key, cfg, BPF_ANY))
		return err_set(err, GH_E_FAILED,
			       "configuring the BPF goroutine walk failed: %s",
			       strerror(errno));
	*p->cancelled = 0;
	/* Drop whatever an earlier pass left behind. */
	p->on_record = NULL;
	ring_buffer__consume(p->rb);
	p->on_record = on_record;
	p->ctx = ctx;
	p->cancel = cancel;
	leader = bpfenv_task_iter_link(p->prog_fd, pid);
	r.fd = bpf_iter_create(leader >= 0 ? leader : p->all_tasks);
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
	bpf_map_delete_elem(p->targets_fd, &key);
	if (leader >= 0)
		close(leader);
	p->on_record = NULL;
	p->cancel = NULL;
	return rc;
}

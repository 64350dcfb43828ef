/* iterobj.c - see iterobj.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/err.h"
#include "iter.skel.h"
#include "iterlite.skel.h"
#include "read/bpfenv.h"
#include "read/bpfprobe.h"
#include "read/iterobj.h"
#include "read/liteload.h"

static void *open_skel(const struct bpf_object_open_opts *oo)
{
	return goheap_iter_bpf__open_opts(oo);
}

static void skel_maps(void *skel, struct bpfload_maps *m)
{
	struct goheap_iter_bpf *s = skel;

	*m = (struct bpfload_maps){s->maps.events, s->maps.targets,
				   s->maps.blocks};
}

static int load_skel(void *skel)
{
	return goheap_iter_bpf__load(skel);
}

static const struct bpfload_spec iter_load = {
	.probe = &bpfprobe_iter,
	.custom_btf = true,
	.any_failure = false,
	.open = open_skel,
	.maps = skel_maps,
	.load = load_skel,
};

/* libbpf's skeleton, relocated against GOHEAP_SYSFS_BTF's file. */
static int open_full(struct iterobj *o, uint32_t ring_bytes, uint32_t ntargets,
		     ring_buffer_sample_fn on_event, void *ctx,
		     struct gh_err *err)
{
	struct bpfload_spec spec = iter_load;
	void *skel;
	int rc;

	spec.ring_bytes = ring_bytes;
	spec.ntargets = ntargets;
	rc = bpfload_open(&spec, &skel, &o->rb, on_event, ctx, err);
	o->skel = skel;
	if (rc)
		return -1;
	o->prog_fd = bpf_program__fd(o->skel->progs.goheap_iter);
	o->targets_fd = bpf_map__fd(o->skel->maps.targets);
	o->cancelled = &o->skel->bss->walk_cancelled;
	return 0;
}

/* The sizes the light skeleton's maps are made with. */
struct sizes {
	uint32_t ring_bytes, ntargets;
};

/* The light skeleton opened, its maps sized; NULL with errno. */
static void *lite_open(const void *arg, uint32_t ncpus)
{
	const struct sizes *z = arg;
	struct goheap_iter_lite *l = goheap_iter_lite__open();

	if (!l)
		return NULL;
	/* The loader creates each map with these when they are not 0. */
	l->maps.events.max_entries = z->ring_bytes;
	l->maps.targets.max_entries = z->ntargets;
	l->maps.blocks.max_entries = ncpus;
	return l;
}

static int lite_load(void *skel)
{
	return goheap_iter_lite__load(skel);
}

static void lite_destroy(void *skel)
{
	goheap_iter_lite__destroy(skel);
}

static const struct litespec lite_spec = {
	.probe = &bpfprobe_iter,
	.open = lite_open,
	.load = lite_load,
	.destroy = lite_destroy,
};

static int open_lite(struct iterobj *o, uint32_t ring_bytes, uint32_t ntargets,
		     const struct backend_env *env,
		     ring_buffer_sample_fn on_event, void *ctx,
		     struct gh_err *err)
{
	struct sizes z = {ring_bytes, ntargets};
	void *skel;
	int rc = liteload(&lite_spec, &z, env, &skel, err);

	o->lite = skel;
	if (rc)
		return -1;
	o->prog_fd = o->lite->progs.goheap_iter.prog_fd;
	o->targets_fd = o->lite->maps.targets.map_fd;
	o->cancelled = &o->lite->bss->walk_cancelled;
	o->rb = ring_buffer__new(o->lite->maps.events.map_fd, on_event, ctx,
				 NULL);
	if (!o->rb)
		return err_set(err, GH_E_FAILED,
			       "mapping the BPF ring buffer failed: %s",
			       strerror(errno));
	return 0;
}

int iterobj_open(struct iterobj *o, uint32_t ring_bytes, uint32_t ntargets,
		 const struct backend_env *env, ring_buffer_sample_fn on_event,
		 void *ctx, struct gh_err *err)
{
	bool overridden;

	memset(o, 0, sizeof(*o));
	bpfenv_kernel_btf(&overridden);
	if (overridden)
		return open_full(o, ring_bytes, ntargets, on_event, ctx, err);
	return open_lite(o, ring_bytes, ntargets, env, on_event, ctx, err);
}

void iterobj_close(struct iterobj *o)
{
	ring_buffer__free(o->rb);
	goheap_iter_bpf__destroy(o->skel);
	if (o->lite)
		goheap_iter_lite__destroy(o->lite);
	memset(o, 0, sizeof(*o));
}

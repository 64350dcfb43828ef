/* bpfload.c - see bpfload.h. */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

#include "base/err.h"
#include "read/bpfenv.h"
#include "read/bpfload.h"
#include "read/bpfprobe.h"

int bpfload_open(const struct bpfload_spec *spec, void **skel,
		 struct ring_buffer **rb, ring_buffer_sample_fn on_event,
		 void *ctx, struct gh_err *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	struct bpfload_maps m;
	bool overridden;
	const char *btf_path = bpfenv_kernel_btf(&overridden);
	struct btf *btf;
	int rc;

	*skel = NULL;
	if (spec->custom_btf && overridden)
		oo.btf_custom_path = btf_path;
	if (bpfprobe_open(spec->probe, &btf, err))
		return -1;
	rc = bpfprobe_require(spec->probe, btf, err);
	if (!rc && !(*skel = spec->open(&oo)))
		rc = err_set(err, GH_E_FAILED,
			     "opening the BPF object failed: %s",
			     strerror(errno));
	if (!rc && spec->prepare)
		spec->prepare(ctx, *skel, btf);
	btf__free(btf);
	if (rc)
		return -1;
	spec->maps(*skel, &m);
	if (bpfenv_size_maps(m.events, spec->ring_bytes, m.targets,
			     spec->ntargets, m.blocks, err))
		return -1;
	rc = spec->load(*skel);
	if (bpfenv_refused(rc, spec->any_failure, err))
		return -1;
	if (rc)
		return bpfenv_rejected(rc, spec->probe->who, err);
	*rb = ring_buffer__new(bpf_map__fd(m.events), on_event, ctx, NULL);
	if (!*rb)
		return err_set(err, GH_E_FAILED,
			       "mapping the BPF ring buffer failed: %s",
			       strerror(errno));
	return 0;
}

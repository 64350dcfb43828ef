/* bpfload.c - see bpfload.h. */
#include <errno.h>
#include <string.h>

#include <bpf/btf.h>

#include "base/err.h"
#include "read/bpfenv.h"
#include "read/bpfload.h"
#include "read/bpfprobe.h"

/* What the kernel lacks of spec (KERNEL), or 0 when it offers it all;
 * with the kernel's BTF given to spec->prepare when skel is not NULL. */
static int ask(const struct bpfload_spec *spec, void *skel, void *ctx,
	       struct gh_err *err)
{
	struct btf *btf;
	int rc;

	if (bpfprobe_open(spec->probe, &btf, err))
		return -1;
	rc = bpfprobe_require(spec->probe, btf, err);
	if (!rc && skel && spec->prepare)
		spec->prepare(ctx, skel, btf);
	btf__free(btf);
	return rc;
}

/* Why loading spec's object failed with rc: what the kernel lacks, else
 * privileges, else the kernel's refusal; -1. */
static int explain(const struct bpfload_spec *spec, int rc, bool asked,
		   struct gh_err *err)
{
	if (!asked && ask(spec, NULL, NULL, err))
		return -1;
	if (bpfenv_refused(rc, spec->any_failure, err))
		return -1;
	return bpfenv_rejected(rc, spec->probe->who, err);
}

int bpfload_explain(const struct bpfload_spec *spec, int rc, struct gh_err *err)
{
	return explain(spec, rc, false, err);
}

int bpfload_open(const struct bpfload_spec *spec, void **skel,
		 struct ring_buffer **rb, ring_buffer_sample_fn on_event,
		 void *ctx, struct gh_err *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo);
	struct bpfload_maps m;
	bool overridden;
	const char *btf_path = bpfenv_kernel_btf(&overridden);
	/* The kernel's BTF is megabytes (50 ms to parse where page faults
	 * are dear), and libbpf's load parses it again: it is read first
	 * only where the load needs an answer from it (spec->prepare) or a
	 * stand-in plays a kernel that lacks something (tests); else only
	 * to explain a failed load, with the same words. */
	bool asked = spec->prepare || overridden;
	int rc;

	*skel = NULL;
	if (spec->custom_btf && overridden)
		oo.btf_custom_path = btf_path;
	if (!(*skel = spec->open(&oo)))
		return err_set(err, GH_E_FAILED,
			       "opening the BPF object failed: %s",
			       strerror(errno));
	if (asked && ask(spec, *skel, ctx, err))
		return -1;
	spec->maps(*skel, &m);
	if (bpfenv_size_maps(m.events, spec->ring_bytes, m.targets,
			     spec->ntargets, m.blocks, err))
		return -1;
	rc = spec->load(*skel);
	if (rc)
		return explain(spec, rc, asked, err);
	*rb = ring_buffer__new(bpf_map__fd(m.events), on_event, ctx, NULL);
	if (!*rb)
		return err_set(err, GH_E_FAILED,
			       "mapping the BPF ring buffer failed: %s",
			       strerror(errno));
	return 0;
}

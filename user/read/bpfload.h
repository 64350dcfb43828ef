/* bpfload.h - the one set-up of the walker backends (perf.c, gpass.c,
 * and iter.c where GOHEAP_SYSFS_BTF is set): the object opened, its maps
 * sized, loaded (what it needs of the kernel asked first where the load
 * depends on it, else only to explain a refusal), its ring buffer mapped.
 * Each backend says which object and how big, and keeps only what
 * differs: perf picks one of its two programs. */
#ifndef GH_READ_BPFLOAD_H
#define GH_READ_BPFLOAD_H

#include <stdbool.h>
#include <stdint.h>

#include <bpf/libbpf.h>

#include "goheap.h"

struct bpfprobe_spec;

/* What bpfload_open uses of an opened skeleton. */
struct bpfload_maps {
	struct bpf_map *events, *targets, *blocks;
};

struct bpfload_spec {
	const struct bpfprobe_spec *probe; /* what the object needs */
	/* Relocated against GOHEAP_SYSFS_BTF's BTF when that is set. */
	bool custom_btf;
	bool any_failure; /* bpfenv_refused's */
	uint32_t ring_bytes, ntargets;
	/* The skeleton's typed calls: open (NULL with errno), its maps, and
	 * load (0 or -errno). */
	void *(*open)(const struct bpf_object_open_opts *oo);
	void (*maps)(void *skel, struct bpfload_maps *m);
	int (*load)(void *skel);
	/* Between open and load, with bpfload_open's ctx and the kernel's
	 * BTF at hand; NULL for nothing. */
	void (*prepare)(void *ctx, void *skel, const struct btf *btf);
};

/* Set up spec's object: *skel, and *rb, its ring buffer, calling on_event
 * with ctx for each record (and spec->prepare with ctx). -1 with err (KERNEL,
 * PERM, FAILED), *skel then whatever was opened (the caller destroys it). */
int bpfload_open(const struct bpfload_spec *spec, void **skel,
		 struct ring_buffer **rb, ring_buffer_sample_fn on_event,
		 void *ctx, struct gh_err *err);

/* Why a load of spec's object (by any loader) failed with rc: what the
 * kernel lacks, else privileges, else the kernel's refusal; -1 with err. */
int bpfload_explain(const struct bpfload_spec *spec, int rc,
		    struct gh_err *err);

#endif

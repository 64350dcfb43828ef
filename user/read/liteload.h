/* liteload.h - a BPF object loaded through its light skeleton (bpftool
 * gen skeleton -L): a loader program relocates the object in the kernel
 * against the kernel's own BTF, so libbpf never reads and parses that BTF
 * (5 MB, 40-60 ms of a one-shot run here). A failed load is explained as
 * bpfload explains libbpf's, any failure a refusal where a capability is
 * missing (the loader program passes on the error of the step it was at:
 * EINVAL for the program without CAP_PERFMON), and with a debug callback
 * the verifier's log of a second load is passed on line by line. */
#ifndef GH_READ_LITELOAD_H
#define GH_READ_LITELOAD_H

#include <stdint.h>

#include "goheap.h"
#include "read/backend.h"
#include "read/bpfload.h"

struct litespec {
	const struct bpfprobe_spec *probe; /* what the object needs */
	/* The skeleton opened, its maps sized from arg (and ncpus, the
	 * possible CPUs); NULL with errno. Its first member is its struct
	 * bpf_loader_ctx, as bpftool makes every light skeleton. */
	void *(*open)(const void *arg, uint32_t ncpus);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
};

/* *skel opened and loaded; -1 with err (KERNEL, PERM, FAILED), *skel then
 * NULL or left for s->destroy. */
int liteload(const struct litespec *s, const void *arg,
	     const struct backend_env *env, void **skel, struct gh_err *err);

#endif

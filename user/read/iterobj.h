/* iterobj.h - the task-iterator backend's BPF object (bpf/iter.bpf.c),
 * loaded, and what iter.c uses of it: the program, the "targets" map, the
 * ring buffer and the cancel flag.
 *
 * It is loaded through its light skeleton (bpftool gen skeleton -L): a
 * loader program relocates it in the kernel against the kernel's own BTF,
 * so libbpf never reads and parses that BTF (5 MB, 40-60 ms of a one-shot
 * run here, the most of what iter's set-up cost over procmem). Where
 * GOHEAP_SYSFS_BTF stands in for the kernel's BTF (the tests' made-up
 * kernels), the relocations must use that file, so libbpf's skeleton
 * loads it, as bpfload sets up the other backends. */
#ifndef GH_READ_ITEROBJ_H
#define GH_READ_ITEROBJ_H

#include <stdint.h>

#include <bpf/libbpf.h>

#include "goheap.h"
#include "read/backend.h"

struct goheap_iter_bpf;
struct goheap_iter_lite;

struct iterobj {
	struct goheap_iter_bpf *skel;  /* libbpf's skeleton, or */
	struct goheap_iter_lite *lite; /* the light one */
	int prog_fd, targets_fd;
	uint32_t *cancelled; /* the program's walk_cancelled */
	struct ring_buffer *rb;
};

/* Load the object with a ring buffer of ring_bytes and room for ntargets
 * processes, the ring buffer calling on_event with ctx. -1 with err (KERNEL,
 * PERM, FAILED); o is then left for iterobj_close. */
int iterobj_open(struct iterobj *o, uint32_t ring_bytes, uint32_t ntargets,
		 const struct backend_env *env, ring_buffer_sample_fn on_event,
		 void *ctx, struct gh_err *err);
void iterobj_close(struct iterobj *o);

#endif

/* bpfenv.h - what the BPF readers (bpfload.c, oom/oomreader.c) share
 * around loading a program: the kernel BTF's path, libbpf's messages, a
 * failed load classified, the maps sized. What the kernel offers is
 * bpfprobe.h's. */
#ifndef GH_BPFENV_H
#define GH_BPFENV_H

#include <stdbool.h>

#include "read/backend.h"

/* The kernel's BTF; GOHEAP_SYSFS_BTF stands in for it in tests, and then
 * *overridden is set. */
const char *bpfenv_kernel_btf(bool *overridden);

/* libbpf's messages on this thread, from now on, to env->debug (one call
 * per line), or nowhere when it is NULL. */
void bpfenv_set_print(const struct backend_env *env);
/* This thread's messages go where they went before bpfenv_set_print (a
 * backend that set it is being freed). */
void bpfenv_clear_print(void);

/* text, line by line, to env's debug callback (not NULL); text is cut up. */
void bpfenv_debug_lines(const struct backend_env *env, char *text);
/* Was loading a BPF object refused for want of privileges: rc -EPERM, or
 * -EACCES (any failure, with any_failure) while CAP_BPF or CAP_PERFMON is
 * missing? Then PERM, naming what is missing and what both BPF backends
 * need; else 0. */
int bpfenv_refused(int rc, bool any_failure, struct gh_err *err);
/* Loading who's BPF object failed with rc, not for privileges, though
 * bpfprobe found what it needs: KERNEL when the kernel refused a program
 * or map (the verifier's errors: the kernel cannot run it), else FAILED;
 * -1. */
int bpfenv_rejected(int rc, const char *who, struct gh_err *err);

/* A link of task-iterator program prog_fd: a file descriptor, or -1 with
 * errno. With tid, it visits only that leader thread (Linux 6.1+; older
 * kernels ignore the option and visit every task, which the programs
 * filter); with 0, every task. */
int bpfenv_task_iter_link(int prog_fd, int tid);

/* Size a walker's maps before its object is loaded: the ring buffer
 * (bytes), the per-target map (entries) and the blocks (one per possible
 * CPU). FAILED when libbpf refuses. */
struct bpf_map;
int bpfenv_size_maps(struct bpf_map *events, uint32_t ring_bytes,
		     struct bpf_map *targets, uint32_t ntargets,
		     struct bpf_map *blocks, struct gh_err *err);

#endif

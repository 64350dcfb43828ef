/* bpfenv.h - what both BPF backends (iter.c, perf.c) ask of libbpf
 * and of the kernel before loading a program. */
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
/* Does the process hold CAP_BPF + CAP_PERFMON (or CAP_SYS_ADMIN)? */
bool bpfenv_has_caps(void);
/* Does the kernel whose BTF is at btf_path know helper "BPF_FUNC_<name>"? */
bool bpfenv_kernel_has_helper(const char *btf_path, const char *name);

#endif

/* bpfenv.h - what both BPF backends (read_bpf.c, read_perf.c) ask of libbpf
 * and of the kernel before loading a program. */
#ifndef GH_BPFENV_H
#define GH_BPFENV_H

#include <stdbool.h>

/* The kernel's BTF; GOHEAP_SYSFS_BTF stands in for it in tests, and then
 * *overridden is set. */
const char *bpfenv_kernel_btf(bool *overridden);

/* libbpf's debug output to stderr (verbose) or nowhere. */
void bpfenv_set_print(bool verbose);
/* Does the process hold CAP_BPF + CAP_PERFMON (or CAP_SYS_ADMIN)? */
bool bpfenv_has_caps(void);
/* Does the kernel whose BTF is at btf_path know helper "BPF_FUNC_<name>"? */
bool bpfenv_kernel_has_helper(const char *btf_path, const char *name);

#endif

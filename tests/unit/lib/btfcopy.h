/* btfcopy.h - kernel BTF files made for the tests that point
 * GOHEAP_SYSFS_BTF at them: the running kernel's BTF with a name changed
 * (a helper it then lacks), with oom:mark_victim's arguments in their
 * older (int pid) form, or small BTFs written from scratch with libbpf's
 * writer API. */
#ifndef GH_TEST_BTFCOPY_H
#define GH_TEST_BTFCOPY_H

struct btf;

/* Write btf's raw bytes to path; 0 or -1. */
int btf_write(const struct btf *btf, const char *path);

/* /sys/kernel/btf/vmlinux to path with the one string "from" (with its
 * NUL) replaced by "to", of the same length; 0, or -1 when it is not
 * there exactly once. */
int btf_copy_renamed(const char *path, const char *from, const char *to);

/* /sys/kernel/btf/vmlinux to path with btf_trace_mark_victim retargeted
 * at a prototype (void *__data, int pid), the tracepoint's arguments
 * before Linux commit 72ba14deb40a; 0 or -1. */
int btf_copy_mark_victim_pid(const char *path);

#endif

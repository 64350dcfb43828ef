/* btfcopy.h - kernel BTF files made for the tests that point
 * GOHEAP_SYSFS_BTF at them: the running kernel's BTF with a name changed
 * (a helper it then lacks). */
#ifndef GH_TEST_BTFCOPY_H
#define GH_TEST_BTFCOPY_H

/* /sys/kernel/btf/vmlinux to path with the one string "from" (with its
 * NUL) replaced by "to", of the same length; 0, or -1 when it is not
 * there exactly once. */
int btf_copy_renamed(const char *path, const char *from, const char *to);

#endif

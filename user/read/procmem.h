/* procmem.h - the process_vm_readv backend: walks allnext from
 * userspace, reading the target's memory in 64 KiB blocks, for hosts where
 * BPF is not allowed (needs only CAP_SYS_PTRACE, or the target's uid). */
#ifndef GH_READ_PROCMEM_H
#define GH_READ_PROCMEM_H

#include "read/backend.h"

struct procmem_reader;

/* Allocate the block buffer and check that the kernel has
 * process_vm_readv (KERNEL otherwise, PERM when a seccomp filter denies it). */
int procmem_reader__open(struct procmem_reader **out, struct gh_err *err);
void procmem_reader__free(struct procmem_reader *r);

/* Walk req->pid's bucket list into s (which must be fresh), with the same
 * bounds and partial reasons as the BPF walk. -1 only when nothing could be
 * read: PERM when ptrace access is refused, GONE when the process is gone. */
int procmem_reader__read(struct procmem_reader *r, const struct read_req *req,
			 const struct read_ctl *ctl, struct snapshot *s,
			 struct gh_err *err);

/* Copy n (at most a page's worth) bytes of pid's memory at addr into dst:
 * a cheap look at one variable, no reader needed. 0, or -1 with errno. */
int procmem_peek(int pid, uint64_t addr, void *dst, size_t n);

/* Copy width bytes (at most 8, none crossing a page) at each of the n
 * addresses of pid's memory into dst, one after the other, with one
 * system call per IOV_MAX of them. 0, or -1 with errno (EFAULT: one
 * was not readable). */
int procmem_gather(int pid, const uint64_t *addrs, size_t n, size_t width,
		   void *dst);

#endif

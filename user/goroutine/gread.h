/* gread.h - one goroutine as read from the target: runtime.g's fields
 * (gobin/glayout.h says where), fetched by whatever can copy the target's
 * memory (a struct gfetch: process_vm_readv now; a BPF reader can give
 * its own), and the list of all of them (runtime.allgptr, allglen). */
#ifndef GH_GOROUTINE_GREAD_H
#define GH_GOROUTINE_GREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gobin/glayout.h"

/* read copies n bytes at addr in the target into dst: 0, or -1 with
 * errno when they are not all readable. gather, when set, copies width
 * bytes (at most 8, within a page) at each of n addresses into dst, one
 * after the other, in fewer system calls than n reads (the same
 * answer). */
struct gfetch {
	int (*read)(void *ctx, uint64_t addr, void *dst, size_t n);
	void *ctx;
	int (*gather)(void *ctx, const uint64_t *addrs, size_t n, size_t width,
		      void *dst);
};

/* A struct gfetch's read over process_vm_readv: ctx is a const int *,
 * the PID (read/procmem.c's peek, in page-sized pieces); and its gather
 * (procmem_gather). */
int gfetch_pid_read(void *ctx, uint64_t addr, void *dst, size_t n);
int gfetch_pid_gather(void *ctx, const uint64_t *addrs, size_t n, size_t width,
		      void *dst);

/* runtime.g's fields, as read at one moment. */
struct grec {
	uint64_t addr; /* the g itself */
	uint64_t goid, parent_goid;
	uint32_t status; /* atomicstatus, _Gscan bit cleared */
	bool scan;	 /* the _Gscan bit was set */
	uint8_t waitreason;
	bool running_cleanups; /* here: no padding of its own */
	int64_t waitsince;
	uint64_t gopc, startpc, labels;
	uint64_t sp, pc, lr, bp;
	uint64_t syscallsp, syscallpc;
	uint64_t stack_lo, stack_hi, m, lockedm;
};

/* Read the g at addr. 0, or -1 with errno. */
int grec__read(struct grec *g, const struct glayout *L, const struct gfetch *f,
	       uint64_t addr);

/* The fields that say a goroutine moved between two reads: a stack
 * unwound between them is not torn when none differ. */
bool grec__same(const struct grec *a, const struct grec *b);

/* The goroutine list at the moment: allglen first, then allgptr, as the
 * runtime's own readers do (proc.go: allgptr is published before
 * allglen). *gs holds *n (at most max; *more set when allglen was
 * larger) g addresses, malloc'd. -1 with errno when unreadable. */
int gread_all(const struct gfetch *f, uint64_t allglen_addr,
	      uint64_t allgptr_addr, size_t max, uint64_t **gs, size_t *n,
	      bool *more);

#endif

/* fakelist.h - a made-up heap-profile bucket list in a child process, for
 * the tests of the walkers that run in the target's own context (perf,
 * OOM): two buckets, the second in a shared file page dropped from the
 * page tables (MADV_DONTNEED), so that reading it needs a page fault
 * while the data stays in the page cache; or the second in a page no read
 * can bring in (a mapping's page past the end of its file). */
#ifndef GH_TEST_FAKELIST_H
#define GH_TEST_FAKELIST_H

#include <stddef.h>
#include <stdint.h>

#define FAKE_REC_BYTES 128
#define FAKE_NSTK      3
#define FAKE_PAGE      4096u

/* Where the list is, in the child, for the parent. */
struct fake_layout {
	uint64_t head_addr; /* &head: runtime.mbuckets */
	uint64_t b[2];	    /* bucket addresses, newest first */
	uint64_t file_page; /* the dropped page (holds b[1]) */
};

/* A bucket at w: next, allnext, typ=1, hash, size, nstk, stack, memRecord. */
void fake_bucket(uint64_t *w, uint64_t allnext, uint64_t size);

/* Build the list with *head pointing at it and fill l: 0, or -1 when a
 * system call failed (the child then exits). */
int fake_dropped_list(volatile uint64_t *head, struct fake_layout *l);

/* The same with the second bucket in the second page of a readable
 * mapping of a one-page file: every access to it faults (SIGBUS), and
 * file_page is that page. 0 or -1. */
int fake_unreadable_list(volatile uint64_t *head, struct fake_layout *l);

/* Build a list of n buckets packed in one resident block, as Go packs
 * them (each new one above the last, allnext leading down), with *head
 * pointing at the newest; l->b[0] is the newest, b[1] the oldest. 0 or
 * -1. */
int fake_long_list(volatile uint64_t *head, size_t n, struct fake_layout *l);

#endif

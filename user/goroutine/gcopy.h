/* gcopy.h - the target's memory as a BPF walk copied it: blocks of bytes
 * at their addresses, and a struct gfetch that answers from them. A read
 * of bytes that were not all copied fails (EFAULT), never guesses; it
 * be noted (gcopy__fetch) for a later pass to copy. */
#ifndef GH_GOROUTINE_GCOPY_H
#define GH_GOROUTINE_GCOPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "goroutine/gread.h"

struct gblk {
	uint64_t addr;
	uint32_t len;
	uint32_t seq; /* order added: the newer of two overlapping wins */
	/* 0: anyone's; else only a read for this owner sees it (a stack
	 * copied for one goroutine is not another's, though a stack freed
	 * and reused may put both at one address). */
	uint32_t owner;
	uint8_t *data;
};

struct gmiss {
	uint64_t addr;
	uint32_t len;
};

struct gcopy {
	struct gblk *v;
	size_t n, cap;
	bool sorted;
	uint64_t *maxend; /* once sorted: the largest end of v[0..i] */
	/* Reads that failed, when noted (misses != NULL after
	 * gcopy__note_misses). */
	struct gmiss *misses;
	size_t nmisses, capmisses;
	uint32_t owner; /* whose blocks the reads see, besides owner 0's */
};

/* Add a copy of the n bytes at src as the target's bytes at addr. 0, or
 * -1 with ENOMEM. */
int gcopy__add(struct gcopy *c, uint64_t addr, const void *src, uint32_t n);
/* The same, seen only by reads made while c->owner is owner. */
int gcopy__add_owned(struct gcopy *c, uint64_t addr, const void *src,
		     uint32_t n, uint32_t owner);
/* Forget the blocks added since the count was *mark (gcopy__mark). */
size_t gcopy__mark(const struct gcopy *c);
void gcopy__truncate(struct gcopy *c, size_t mark);
/* Copy the n bytes at addr into dst from the blocks (one or several,
 * adjacent or overlapping): 0, or -1 with EFAULT when any byte was not
 * copied. */
int gcopy__read(struct gcopy *c, uint64_t addr, void *dst, size_t n);
/* The reads noted, sorted by address, duplicates dropped; then
 * forgotten. */
struct gmiss *gcopy__take_misses(struct gcopy *c, size_t *n);
void gcopy__free(struct gcopy *c);

/* A struct gfetch over c; with note, the reads it fails are noted (for
 * gcopy__take_misses). */
struct gfetch gcopy__fetch(struct gcopy *c, bool note);

#endif

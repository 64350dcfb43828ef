/* addrset.h - a set of 8-byte-aligned addresses, for noticing a cyclic
 * allnext list on its first repeat. Bucket lists run through a few hundred
 * megabytes of densely packed memory, mostly in address order, so the set
 * is one bit per 8-byte word in 64 KiB regions: about 1/64 of the memory
 * the buckets occupy, and the same region bitmap step after step. */
#ifndef GH_ADDRSET_H
#define GH_ADDRSET_H

#include <stdint.h>

#include "base/u64map.h"

struct addrset {
	struct u64map regions; /* region number -> index of its bitmap */
	uint64_t *bits;	       /* the regions' bitmaps, back to back */
	size_t nregions, cap;
	uint64_t last; /* region number of the bitmap used last, + 1 */
	uint64_t *last_bits;
};

/* Add addr (8-byte aligned): 1 if it was present, 0 if added, -1 when out
 * of memory. */
int addrset__add(struct addrset *a, uint64_t addr);

/* Empty the set and free its memory. */
void addrset__free(struct addrset *a);

#endif

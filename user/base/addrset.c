/* addrset.c - see addrset.h. */
#include <stdlib.h>
#include <string.h>

#include "base/addrset.h"

#define REGION_SHIFT 16
/* 64-bit words of one region's bitmap: a bit per 8-byte word. */
#define REGION_WORDS ((1u << REGION_SHIFT) / 8 / 64)

void addrset__free(struct addrset *a)
{
	u64map__free(&a->regions);
	free(a->bits);
	memset(a, 0, sizeof(*a));
}

/* The bitmap of region r, new and empty if r has none; NULL when out of
 * memory. */
static uint64_t *region(struct addrset *a, uint64_t r)
{
	uint32_t i;

	if (!u64map__get(&a->regions, r, NULL, NULL, &i)) {
		if (a->nregions == a->cap) {
			size_t ncap = a->cap ? a->cap * 2 : 16;
			void *nb = realloc(a->bits, ncap * REGION_WORDS *
							    sizeof(*a->bits));

			if (!nb)
				return NULL;
			a->bits = nb;
			a->cap = ncap;
		}
		i = (uint32_t)a->nregions;
		if (u64map__put(&a->regions, r, i))
			return NULL;
		a->nregions++;
		memset(a->bits + (size_t)i * REGION_WORDS, 0,
		       REGION_WORDS * sizeof(*a->bits));
	}
	return a->bits + (size_t)i * REGION_WORDS;
}

int addrset__add(struct addrset *a, uint64_t addr)
{
	uint64_t r = addr >> REGION_SHIFT,
		 word = (addr >> 3) % (REGION_WORDS * 64);
	uint64_t mask = 1ULL << (word % 64), *w;

	/* Adding a region may move every bitmap, and only region() adds:
	 * the pointer it returns stays valid until it is called again. */
	if (a->last != r + 1) {
		a->last_bits = region(a, r);
		if (!a->last_bits)
			return a->last = 0, -1;
		a->last = r + 1;
	}
	w = &a->last_bits[word / 64];
	if (*w & mask)
		return 1;
	*w |= mask;
	return 0;
}

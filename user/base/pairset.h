/* pairset.h - a set of (u32, u32) pairs that numbers them 0, 1, 2, ... as
 * they are first added: hash-consing for tries, where a node is the pair
 * (parent node, label), and for any key made of two ids. Built to hold
 * millions of pairs (a JSON renderer's stacks) in little memory: 8 bytes
 * a pair, plus an index of about 5 more that can be dropped once no pair
 * is added any more. No deletion. */
#ifndef GH_PAIRSET_H
#define GH_PAIRSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pairset {
	uint64_t *pairs; /* pair i: a << 32 | b */
	size_t n, cap;
	/* the index: 0 = empty, else hash bits | (id + 1) */
	uint32_t *slots;
	size_t nslots;
	unsigned idbits; /* bits an id + 1 can take: nslots <= 2^idbits */
	bool frozen;	 /* the index is gone: no more adds */
};

/* The id of (a, b), added if new: 1 when added, 0 when found, -1 when out
 * of memory, out of ids or frozen. */
int pairset__add(struct pairset *s, uint32_t a, uint32_t b, uint32_t *id);

static inline uint32_t pairset__a(const struct pairset *s, uint32_t id)
{
	return (uint32_t)(s->pairs[id] >> 32);
}

static inline uint32_t pairset__b(const struct pairset *s, uint32_t id)
{
	return (uint32_t)s->pairs[id];
}

/* Free the index, keeping the pairs: the set is read-only from now on. */
void pairset__freeze(struct pairset *s);

void pairset__free(struct pairset *s);

#endif

/* labelset.h - a sample's string labels (a goroutine profile's pprof
 * labels, gh_profile_x.labels) as the set profile.Merge keys samples by:
 * equal whatever the order of their pairs, hashed alike. */
#ifndef GH_PROFILE_LABELSET_H
#define GH_PROFILE_LABELSET_H

#include <stdbool.h>
#include <stdint.h>

#include "goheap.h"

/* n pairs, key at kv[2j], value at kv[2j + 1]; n 0: none. */
struct labelset {
	char *const *kv;
	size_t n;
};

/* Sample s's labels (s one of p->samples). */
struct labelset labelset_of(const struct gh_profile *p,
			    const struct gh_sample *s);

/* The same set of pairs? */
bool labelset__eq(struct labelset a, struct labelset b);

/* A hash of the set, whatever its pairs' order. */
uint64_t labelset__hash(struct labelset l);

/* A copy of l as the labels of p's sample i (p->x->labels[i] NULL and
 * nlabels[i] 0 before): -1 when out of memory, what was copied then
 * freed with p. */
int labelset__copy_to(struct labelset l, struct gh_profile *p, size_t i);

#endif

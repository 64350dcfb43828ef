/* piecesamples.h - the samples of the pprof piece under way (pprof.c with
 * a memo, gzmemo.h), held unencoded with a digest of all that their
 * encoding is made of: location ids, values, the "bytes" label and its
 * key's string index. When a kept piece has the same digest, its
 * compressed bytes are copied and these samples are never encoded: in a
 * repeated snapshot of a quiet process, most of them. Otherwise they are
 * encoded when the piece ends. */
#ifndef GH_WRITE_PIECESAMPLES_H
#define GH_WRITE_PIECESAMPLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "goheap.h"

struct psample {
	uint32_t ids_off, nlocs; /* its location ids: ids[ids_off..+nlocs) */
	int64_t value[GH_NVALUES];
	int64_t bytes_label;
	bool has_bytes_label;
};

struct piecesamples {
	struct psample *v;
	size_t n, cap;
	uint32_t *ids;
	size_t nids, cap_ids;
	int nvalues;	 /* values a sample has (the same for all) */
	uint64_t digest; /* of the samples so far, in order */
	bool failed;	 /* out of memory (until freed) */
};

/* The hash of a sample's location ids ids[0..n). */
uint64_t piecesamples__ids_hash(const uint32_t *ids, uint32_t n);
/* Add plain sample s (no label but "bytes", whose key is string bytes_key;
 * not a diff's base), of n values; h: piecesamples__ids_hash of its ids. */
void piecesamples__add(struct piecesamples *q, const struct gh_sample *s, int n,
		       uint64_t h, int64_t bytes_key);
/* The digest of the piece: its samples, in order, and how many. */
uint64_t piecesamples__digest(const struct piecesamples *q);
/* Sample i as a gh_sample (its locs in q, valid until the next add). */
struct gh_sample piecesamples__get(const struct piecesamples *q, size_t i);
/* Empty, for the next piece (the memory is kept, failed too). */
void piecesamples__clear(struct piecesamples *q);
void piecesamples__free(struct piecesamples *q);

#endif

/* piecesamples.c - see piecesamples.h. The digest is a 64-bit hash in the
 * manner of wyhash: the words of a sample folded pairwise through 128-bit
 * products (independent of each other, so they overlap in the CPU), then
 * one product chaining the sample to those before it. Two pieces whose
 * samples differ anywhere get the same digest by chance only. */
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "write/piecesamples.h"

/* wyhash's secret and multiply-fold. */
static const uint64_t P[4] = {0x2d358dccaa6c78a5u, 0x8bb84b93962eacc9u,
			      0x4b33a62ed433d4a3u, 0x4d5a2da51de1aa47u};

static uint64_t mum(uint64_t a, uint64_t b)
{
	unsigned __int128 r = (unsigned __int128)a * b;

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

uint64_t piecesamples__ids_hash(const uint32_t *ids, uint32_t n)
{
	uint64_t h = mum(P[0] ^ n, P[1]), w[4];
	uint32_t i = 0;

	/* Four ids a product, the last ones zero-padded. */
	for (; i < n; i += 4) {
		memset(w, 0, sizeof(w));
		for (uint32_t k = 0; k < 4 && i + k < n; k++)
			w[k] = ids[i + k];
		h = mum(w[0] << 32 ^ w[1] ^ P[2], w[2] << 32 ^ w[3] ^ h);
	}
	return mum(h ^ P[3], h ^ P[0]);
}

void piecesamples__add(struct piecesamples *q, const struct gh_sample *s, int n,
		       uint64_t h, int64_t bytes_key)
{
	struct psample *ps;
	uint64_t d;

	if (q->failed)
		return;
	if (grow_array((void **)&q->v, &q->cap, q->n + 1, sizeof(*q->v)) ||
	    grow_array((void **)&q->ids, &q->cap_ids, q->nids + s->nlocs,
		       sizeof(*q->ids))) {
		q->failed = true;
		return;
	}
	ps = &q->v[q->n++];
	ps->ids_off = (uint32_t)q->nids;
	ps->nlocs = s->nlocs;
	memcpy(ps->value, s->value, sizeof(ps->value));
	ps->bytes_label = s->bytes_label;
	ps->has_bytes_label = s->has_bytes_label;
	memcpy(q->ids + q->nids, s->locs, s->nlocs * sizeof(*s->locs));
	q->nids += s->nlocs;
	q->nvalues = n;
	/* h covers the ids and their number; the rest is folded in here. */
	d = mum(h ^ P[0], (uint64_t)s->bytes_label ^ P[1]) ^
	    mum((uint64_t)bytes_key ^ P[2],
		(uint64_t)s->has_bytes_label ^ P[3]);
	for (int i = 0; i < n; i += 2)
		d ^= mum((uint64_t)s->value[i] ^ P[i & 3],
			 (i + 1 < n ? (uint64_t)s->value[i + 1] : 0) ^
				 P[(i + 1) & 3] ^ (uint64_t)i);
	q->digest = mum(q->digest ^ P[1], d ^ P[0]);
}

uint64_t piecesamples__digest(const struct piecesamples *q)
{
	return mum(q->digest ^ P[2], (q->n << 8 | (uint64_t)q->nvalues) ^ P[3]);
}

struct gh_sample piecesamples__get(const struct piecesamples *q, size_t i)
{
	const struct psample *ps = &q->v[i];
	struct gh_sample s = {
		.nlocs = ps->nlocs,
		.locs = q->ids + ps->ids_off,
		.bytes_label = ps->bytes_label,
		.has_bytes_label = ps->has_bytes_label,
	};

	memcpy(s.value, ps->value, sizeof(s.value));
	return s;
}

void piecesamples__clear(struct piecesamples *q)
{
	q->n = q->nids = 0;
	q->digest = 0;
}

void piecesamples__free(struct piecesamples *q)
{
	free(q->v);
	free(q->ids);
	memset(q, 0, sizeof(*q));
}

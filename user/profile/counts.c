/* counts.c - published counters and sample values; see counts.h. */
#include "profile/counts.h"
#include "profile/goexp.h"

uint32_t counts_cycle(const struct layout *L, uint64_t raw)
{
	uint32_t v = (uint32_t)raw;

	return L->cycle_has_flag_bit ? v >> 1 : v;
}

static void add_cycle(struct counts *c, const uint64_t *w, uint32_t cw)
{
	c->allocs += w[0];
	c->frees += w[1];
	if (cw == 4) {
		c->alloc_bytes += w[2];
		c->free_bytes += w[3];
	}
}

/* memProfileInternal first flushes future[cycle%3] into active; when no
 * bucket has anything active after that (no GC has published yet) it adds
 * all three future cycles instead. go1.27 keeps no byte counts: bytes are
 * counts times the bucket's object size. The cycle is the one read after
 * the bucket when the backend read it: a bucket read after a boundary the
 * read's start did not see would otherwise add future[start%3], where the
 * new cycle's mallocs are counting. */
struct counts counts_of(const struct publish *pub, const struct bucket *b)
{
	uint32_t cw = pub->layout->cycle_words, c;
	uint32_t cycle = b->has_cycle ? counts_cycle(pub->layout, b->cycle_raw)
				      : pub->cycle;
	struct counts r = {0};

	add_cycle(&r, b->rec, cw);
	for (c = 0; c < 3; c++)
		if (pub->all_futures || c == cycle % 3)
			add_cycle(&r, b->rec + cw * (1 + c), cw);
	if (cw == 2) {
		r.alloc_bytes = r.allocs * b->size;
		r.free_bytes = r.frees * b->size;
	}
	return r;
}

bool counts__untear(struct counts *c)
{
	if (c->frees <= c->allocs && c->free_bytes <= c->alloc_bytes)
		return false;
	if (c->frees > c->allocs)
		c->frees = c->allocs;
	if (c->free_bytes > c->alloc_bytes)
		c->free_bytes = c->alloc_bytes;
	return true;
}

void counts__sample(const struct publish *pub, const struct bucket *b,
		    const struct counts *c, struct gh_sample *smp)
{
	int64_t allocs = (int64_t)c->allocs, inuse = allocs - (int64_t)c->frees;
	int64_t *val = smp->value, rate = pub->rate;

	if (pub->layout->scale_by_size) {
		int64_t size = (int64_t)b->size;

		scale_heap_sample_by_size(allocs, size, rate, pub->math,
					  &val[0], &val[1]);
		scale_heap_sample_by_size(inuse, size, rate, pub->math, &val[2],
					  &val[3]);
	} else {
		scale_heap_sample(allocs, (int64_t)c->alloc_bytes, rate,
				  pub->math, &val[0], &val[1]);
		scale_heap_sample(inuse,
				  (int64_t)(c->alloc_bytes - c->free_bytes),
				  rate, pub->math, &val[2], &val[3]);
	}
	if (pub->layout->bytes_label_always) {
		smp->bytes_label = (int64_t)b->size;
		smp->has_bytes_label = true;
	} else if (allocs > 0) {
		smp->bytes_label = (int64_t)c->alloc_bytes / allocs;
		smp->has_bytes_label = smp->bytes_label != 0;
	}
}

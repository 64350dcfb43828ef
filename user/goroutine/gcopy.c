/* gcopy.c - see gcopy.h. Blocks are kept in the order they came and
 * sorted by address (then age) at the first read after a change; a read
 * takes each byte from the newest block holding it. Blocks seldom overlap
 * (a g, its stack in 32 KiB pieces, label strings copied twice), so a
 * binary search finds the block, and the blocks' largest end so far
 * (maxend) bounds the look back over those that overlap it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "goroutine/gcopy.h"

int gcopy__add(struct gcopy *c, uint64_t addr, const void *src, uint32_t n)
{
	return gcopy__add_owned(c, addr, src, n, 0);
}

int gcopy__add_owned(struct gcopy *c, uint64_t addr, const void *src,
		     uint32_t n, uint32_t owner)
{
	struct gblk *b;

	if (!n || addr + n < addr)
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 256;
		struct gblk *v = realloc(c->v, cap * sizeof(*v));

		if (!v)
			return errno = ENOMEM, -1;
		c->v = v, c->cap = cap;
	}
	b = &c->v[c->n];
	b->data = malloc(n);
	if (!b->data)
		return errno = ENOMEM, -1;
	memcpy(b->data, src, n);
	b->addr = addr;
	b->len = n;
	b->seq = (uint32_t)c->n;
	b->owner = owner;
	c->n++;
	c->sorted = false;
	return 0;
}

size_t gcopy__mark(const struct gcopy *c)
{
	return c->n;
}

static int by_seq(const void *a, const void *b)
{
	const struct gblk *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void gcopy__truncate(struct gcopy *c, size_t mark)
{
	size_t k = 0;

	/* seq is the order added, whether sorted or not. */
	if (!c->sorted)
		qsort(c->v, c->n, sizeof(*c->v), by_seq);
	for (size_t i = 0; i < c->n; i++) {
		if (c->v[i].seq < mark)
			c->v[k++] = c->v[i];
		else
			free(c->v[i].data);
	}
	c->n = k;
	c->sorted = false;
}

static int by_addr(const void *a, const void *b)
{
	const struct gblk *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sort by address; maxend[i], the largest end of v[0..i]. */
static int sort(struct gcopy *c)
{
	uint64_t *m = realloc(c->maxend, (c->n ? c->n : 1) * sizeof(*m));

	if (!m)
		return errno = ENOMEM, -1;
	c->maxend = m;
	qsort(c->v, c->n, sizeof(*c->v), by_addr);
	for (size_t i = 0; i < c->n; i++) {
		uint64_t end = c->v[i].addr + c->v[i].len;

		m[i] = i && m[i - 1] > end ? m[i - 1] : end;
	}
	c->sorted = true;
	return 0;
}

/* The newest block holding addr, or NULL; *next is the index of the
 * first block starting past addr. */
static const struct gblk *holding(const struct gcopy *c, uint64_t addr,
				  size_t *next)
{
	size_t lo = 0, hi = c->n, i;
	const struct gblk *best = NULL;

	while (lo < hi) { /* the first block starting past addr */
		size_t mid = lo + (hi - lo) / 2;

		if (c->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	*next = lo;
	for (i = lo; i > 0 && c->maxend[i - 1] > addr; i--) {
		const struct gblk *b = &c->v[i - 1];

		if (addr - b->addr < b->len &&
		    (!b->owner || b->owner == c->owner) &&
		    (!best || b->seq > best->seq))
			best = b;
	}
	return best;
}

static void note(struct gcopy *c, uint64_t addr, size_t n)
{
	if (n > UINT32_MAX)
		return;
	if (c->nmisses == c->capmisses) {
		size_t cap = c->capmisses ? 2 * c->capmisses : 64;
		struct gmiss *v = realloc(c->misses, cap * sizeof(*v));

		if (!v)
			return; /* not noted: a read that fails again */
		c->misses = v, c->capmisses = cap;
	}
	c->misses[c->nmisses++] = (struct gmiss){addr, (uint32_t)n};
}

static int read_noting(struct gcopy *c, uint64_t addr, void *dst, size_t n,
		       bool noting)
{
	uint8_t *d = dst;
	uint64_t a = addr;
	size_t left = n;

	if (addr + n < addr)
		return errno = EFAULT, -1;
	if (!c->sorted && sort(c) < 0)
		return -1;
	while (left) {
		size_t i, k;
		const struct gblk *b = holding(c, a, &i);

		if (!b) {
			if (noting)
				note(c, addr, n);
			return errno = EFAULT, -1;
		}
		k = b->len - (size_t)(a - b->addr);
		if (k > left)
			k = left;
		/* A newer block starting inside holds the bytes from there. */
		for (; i < c->n && c->v[i].addr < a + k; i++)
			if (c->v[i].seq > b->seq &&
			    (!c->v[i].owner || c->v[i].owner == c->owner))
				k = (size_t)(c->v[i].addr - a);
		memcpy(d, b->data + (a - b->addr), k);
		d += k, a += k, left -= k;
	}
	return 0;
}

int gcopy__read(struct gcopy *c, uint64_t addr, void *dst, size_t n)
{
	return read_noting(c, addr, dst, n, false);
}

static int by_miss(const void *a, const void *b)
{
	const struct gmiss *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

struct gmiss *gcopy__take_misses(struct gcopy *c, size_t *n)
{
	struct gmiss *v = c->misses;
	size_t k = 0;

	if (v) {
		qsort(v, c->nmisses, sizeof(*v), by_miss);
		for (size_t i = 0; i < c->nmisses; i++)
			if (!k || v[i].addr != v[k - 1].addr ||
			    v[i].len != v[k - 1].len)
				v[k++] = v[i];
	}
	*n = k;
	c->misses = NULL;
	c->nmisses = c->capmisses = 0;
	return v;
}

void gcopy__free(struct gcopy *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].data);
	free(c->v);
	free(c->maxend);
	free(c->misses);
	memset(c, 0, sizeof(*c));
}

static int fetch(void *ctx, uint64_t addr, void *dst, size_t n)
{
	return read_noting(ctx, addr, dst, n, false);
}

static int fetch_noting(void *ctx, uint64_t addr, void *dst, size_t n)
{
	return read_noting(ctx, addr, dst, n, true);
}

struct gfetch gcopy__fetch(struct gcopy *c, bool note)
{
	return (struct gfetch){.read = note ? fetch_noting : fetch, .ctx = c};
}

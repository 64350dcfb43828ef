/* snapshot.c - the raw buckets of one read, kept in allnext order in growable
 * arrays, with an open-addressing set of bucket addresses so that a cyclic
 * allnext list (a torn or corrupt read) is noticed on the first repeat. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"

/* The address set is at most half full, so probes stay short. */
#define SEEN_MIN_CAP 1024

struct gh_snapshot *gh_snapshot__new(void)
{
	return calloc(1, sizeof(struct gh_snapshot));
}

void gh_snapshot__free(struct gh_snapshot *s)
{
	if (!s)
		return;
	free(s->buckets);
	free(s->words);
	free(s->seen);
	free(s);
}

/* Grow *p (of *cap elements of size elem) to hold at least need elements. */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 64;
	void *np;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2 / elem)
			return errno = ENOMEM, -1;
		ncap *= 2;
	}
	np = realloc(*p, ncap * elem);
	if (!np)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

/* Fibonacci hashing: bucket addresses share their low bits (alignment). */
static size_t seen_slot(uint64_t addr, size_t cap)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* Insert addr into the table of capacity cap (a power of two, never full).
 * Returns 1 if it was present. Address 0 marks an empty slot; the walk ends
 * at a NULL allnext, so no bucket lives there. */
static int seen_insert(uint64_t *tab, size_t cap, uint64_t addr)
{
	size_t i = seen_slot(addr, cap);

	while (tab[i]) {
		if (tab[i] == addr)
			return 1;
		i = (i + 1) & (cap - 1);
	}
	tab[i] = addr;
	return 0;
}

static int seen_grow(struct gh_snapshot *s)
{
	size_t ncap = s->seen_cap ? s->seen_cap * 2 : SEEN_MIN_CAP;
	uint64_t *tab = calloc(ncap, sizeof(*tab));

	if (!tab)
		return -1;
	for (size_t i = 0; i < s->seen_cap; i++)
		if (s->seen[i])
			seen_insert(tab, ncap, s->seen[i]);
	free(s->seen);
	s->seen = tab;
	s->seen_cap = ncap;
	return 0;
}

/* Streaming: hand the bucket to the consumer instead of keeping it. */
static int add_to_sink(struct gh_snapshot *s, uint64_t addr, uint64_t size,
		       uint32_t nstk, const void *body, uint32_t rec_bytes)
{
	struct gh_bucket b = {.addr = addr, .size = size, .nstk = nstk};

	if (seen_insert(s->seen, s->seen_cap, addr))
		return 1;
	memcpy(b.rec, (const uint8_t *)body + (size_t)nstk * 8, rec_bytes);
	s->nbuckets++;
	return s->sink(s->sink_ctx, s, &b, body) ? -1 : 0;
}

void gh_snapshot__set_sink(struct gh_snapshot *s, gh_bucket_sink sink,
			   void (*restart)(void *ctx), void *ctx)
{
	s->sink = sink;
	s->sink_restart = restart;
	s->sink_ctx = ctx;
}

int gh_snapshot__add(struct gh_snapshot *s, uint64_t addr, uint64_t size,
		     uint32_t nstk, const void *body, uint32_t rec_bytes)
{
	struct gh_bucket *b;

	if (!addr || rec_bytes > GH_MAX_REC_BYTES)
		return errno = EINVAL, -1;
	/* stk_off is 32 bits wide. */
	if (s->nwords + nstk > UINT32_MAX)
		return errno = ENOMEM, -1;
	if ((s->nbuckets + 1) * 2 > s->seen_cap && seen_grow(s))
		return -1;
	if (s->sink)
		return add_to_sink(s, addr, size, nstk, body, rec_bytes);
	if (grow((void **)&s->buckets, &s->cap_buckets, s->nbuckets + 1,
		 sizeof(*s->buckets)) ||
	    grow((void **)&s->words, &s->cap_words, s->nwords + nstk,
		 sizeof(*s->words)))
		return -1;
	if (seen_insert(s->seen, s->seen_cap, addr))
		return 1;

	b = &s->buckets[s->nbuckets++];
	memset(b, 0, sizeof(*b));
	b->addr = addr;
	b->size = size;
	b->nstk = nstk;
	b->stk_off = (uint32_t)s->nwords;
	if (nstk)
		memcpy(s->words + s->nwords, body, (size_t)nstk * 8);
	memcpy(b->rec, (const uint8_t *)body + (size_t)nstk * 8, rec_bytes);
	s->nwords += nstk;
	return 0;
}

void gh_snapshot__clear(struct gh_snapshot *s)
{
	if (s->sink_restart)
		s->sink_restart(s->sink_ctx);
	s->nbuckets = 0;
	s->nwords = 0;
	if (s->seen)
		memset(s->seen, 0, s->seen_cap * sizeof(*s->seen));
	memset(s->vars, 0, sizeof(s->vars));
	memset(s->vars_end, 0, sizeof(s->vars_end));
	s->var_err = s->var_err_end = 0;
	s->partial = false;
	s->reason[0] = '\0';
	s->read_ms = 0;
	s->read_bytes = 0;
}

void gh_snapshot__set_partial(struct gh_snapshot *s, const char *fmt, ...)
{
	va_list ap;

	if (s->partial)
		return;
	s->partial = true;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

/* snapshot.c - the raw buckets of one read, kept in allnext order in growable
 * arrays or passed on to a sink (on its own thread, if asked), with the set
 * of bucket addresses seen so that a cyclic allnext list (a torn or corrupt
 * read) is noticed on the first repeat. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pipe.h"
#include "read/snapshot.h"

/* A sink on its own thread gets buckets in chunks of this size. */
#define PIPE_CHUNK_BYTES (256u << 10)

struct gh_snapshot *snapshot__new(void)
{
	return calloc(1, sizeof(struct gh_snapshot));
}

void gh_snapshot__free(struct gh_snapshot *s)
{
	if (!s)
		return;
	bytepipe__free(s->pipe);
	free(s->buckets);
	free(s->words);
	addrset_free(&s->seen);
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

/* The sink's thread: each record in a chunk is a struct bucket followed
 * by its stack. */
static int drain(void *ctx, const void *data, size_t len)
{
	struct gh_snapshot *s = ctx;
	const uint8_t *p = data, *end = p + len;

	while (p < end) {
		const struct bucket *b = (const struct bucket *)p;
		const uint64_t *stk = (const uint64_t *)(b + 1);

		if (s->sink(s->sink_ctx, s, b, stk))
			return -1;
		p = (const uint8_t *)(stk + b->nstk);
	}
	return 0;
}

/* Streaming: hand the bucket to the consumer instead of keeping it. On its
 * own thread, the bucket and its stack are written straight into the
 * pipe's chunk. */
static int add_to_sink(struct gh_snapshot *s, uint64_t addr, uint64_t size,
		       uint32_t nstk, const void *body, uint32_t rec_bytes)
{
	size_t n = sizeof(struct bucket) + (size_t)nstk * 8;
	struct bucket tmp, *b = &tmp;

	s->nbuckets++;
	if (s->pipe && !(b = bytepipe__reserve(s->pipe, n)))
		return -1;
	*b = (struct bucket){.addr = addr, .size = size, .nstk = nstk};
	memcpy(b->rec, (const uint8_t *)body + (size_t)nstk * 8, rec_bytes);
	if (!s->pipe)
		return s->sink(s->sink_ctx, s, b, body) ? -1 : 0;
	memcpy(b + 1, body, (size_t)nstk * 8);
	bytepipe__commit(s->pipe, n);
	return 0;
}

int snapshot__sink_on_thread(struct gh_snapshot *s)
{
	if (s->pipe)
		return 0;
	return bytepipe__new(&s->pipe, PIPE_CHUNK_BYTES, drain, s);
}

int snapshot__sync(struct gh_snapshot *s)
{
	return s->pipe && bytepipe__sync(s->pipe) ? -1 : 0;
}

void snapshot__set_sink(struct gh_snapshot *s, bucket_sink sink,
			void (*restart)(void *ctx), void *ctx)
{
	s->sink = sink;
	s->sink_restart = restart;
	s->sink_ctx = ctx;
}

int snapshot__add(struct gh_snapshot *s, uint64_t addr, uint64_t size,
		  uint32_t nstk, const void *body, uint32_t rec_bytes)
{
	struct bucket *b;

	int rc;

	/* Go's buckets are word-aligned; the backends refuse others. */
	if (!addr || addr & 7 || rec_bytes > GH_MAX_REC_BYTES)
		return errno = EINVAL, -1;
	/* stk_off is 32 bits wide. */
	if (s->nwords + nstk > UINT32_MAX)
		return errno = ENOMEM, -1;
	rc = addrset_add(&s->seen, addr);
	if (rc)
		return rc;
	if (s->sink)
		return add_to_sink(s, addr, size, nstk, body, rec_bytes);
	if (grow((void **)&s->buckets, &s->cap_buckets, s->nbuckets + 1,
		 sizeof(*s->buckets)) ||
	    grow((void **)&s->words, &s->cap_words, s->nwords + nstk,
		 sizeof(*s->words)))
		return -1;

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

void snapshot__clear(struct gh_snapshot *s)
{
	/* Whatever the sink's thread still holds belongs to the old walk. */
	snapshot__sync(s);
	if (s->sink_restart)
		s->sink_restart(s->sink_ctx);
	s->nbuckets = 0;
	s->nwords = 0;
	addrset_free(&s->seen);
	memset(s->vars, 0, sizeof(s->vars));
	memset(s->vars_end, 0, sizeof(s->vars_end));
	s->var_err = s->var_err_end = 0;
	s->partial = false;
	s->reason[0] = '\0';
	s->read_ms = 0;
	s->read_bytes = 0;
}

void snapshot__set_partial(struct gh_snapshot *s, const char *fmt, ...)
{
	va_list ap;

	if (s->partial)
		return;
	s->partial = true;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

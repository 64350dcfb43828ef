/* snapshot.c - the raw buckets of one read, kept in allnext order in growable
 * arrays or passed on to a sink (on its own thread, if asked), with the set
 * of bucket addresses seen so that a cyclic allnext list (a torn or corrupt
 * read) is noticed on the first repeat. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytepipe.h"
#include "base/grow.h"
#include "read/snapshot.h"

/* A sink on a pool's thread gets buckets in chunks of this size. */
#define PIPE_CHUNK_BYTES (256u << 10)

struct buildpool {
	struct bytepipe **pipes;
	unsigned n, next;
};

/* A bucket on its way to the pool: whose, the bucket, then its stack. */
struct pooled {
	struct snapshot *s;
	const uint64_t *stk; /* the stack, where it stays; NULL: it follows */
	struct bucket b;
};

struct snapshot *snapshot__new(void)
{
	return calloc(1, sizeof(struct snapshot));
}

void snapshot__free(struct snapshot *s)
{
	if (!s)
		return;
	snapshot__sync(s);
	free(s->buckets);
	free(s->words);
	addrset__free(&s->seen);
	free(s);
}

/* A pool thread: each record in a chunk is a struct pooled followed by
 * the bucket's stack. A sink that fails fails its own snapshot only. */
static int drain(void *ctx, const void *data, size_t len)
{
	const uint8_t *p = data, *end = p + len;

	(void)ctx;
	while (p < end) {
		const struct pooled *r = (const struct pooled *)p;
		const uint64_t *stk =
			r->stk ? r->stk : (const uint64_t *)(r + 1);
		struct snapshot *s = r->s;

		if (!s->sink_failed && s->sink(s->sink_ctx, s, &r->b, stk))
			s->sink_failed = true;
		p = (const uint8_t *)(r + 1) + (r->stk ? 0 : r->b.nstk * 8);
	}
	return 0;
}

/* Streaming: hand the bucket to the consumer instead of keeping it. On its
 * own thread, the bucket is written straight into the pipe's chunk, and
 * its stack too unless it stays where it is (kept). */
static int add_to_sink(struct snapshot *s, uint64_t addr, uint64_t size,
		       uint32_t nstk, const void *stk, const void *rec,
		       uint32_t rec_bytes, bool kept)
{
	size_t n = sizeof(struct pooled) + (kept ? 0 : (size_t)nstk * 8);
	struct pooled tmp, *r = &tmp;

	s->nbuckets++;
	if (s->pipe && !(r = bytepipe__reserve(s->pipe, n)))
		return -1;
	r->s = s;
	r->stk = kept ? stk : NULL;
	r->b = (struct bucket){.addr = addr,
			       .size = size,
			       .nstk = nstk,
			       .cycle_raw = s->cycle_raw,
			       .has_cycle = s->has_cycle};
	memcpy(r->b.rec, rec, rec_bytes);
	if (!s->pipe)
		return s->sink(s->sink_ctx, s, &r->b, stk) ? -1 : 0;
	if (!kept)
		memcpy(r + 1, stk, (size_t)nstk * 8);
	bytepipe__commit(s->pipe, n);
	return 0;
}

int buildpool__new(unsigned workers, struct buildpool **out)
{
	struct buildpool *p = calloc(1, sizeof(*p));

	*out = NULL;
	if (!p ||
	    !(p->pipes = calloc(workers ? workers : 1, sizeof(*p->pipes)))) {
		free(p);
		return -1;
	}
	for (p->n = 0; p->n < (workers ? workers : 1); p->n++)
		if (bytepipe__new(&p->pipes[p->n], PIPE_CHUNK_BYTES, drain,
				  NULL))
			break;
	if (!p->n) {
		buildpool__free(p);
		return -1;
	}
	*out = p;
	return 0;
}

void buildpool__free(struct buildpool *p)
{
	if (!p)
		return;
	for (unsigned i = 0; i < p->n; i++)
		bytepipe__free(p->pipes[i]);
	free(p->pipes);
	free(p);
}

void snapshot__sink_on_pool(struct snapshot *s, struct buildpool *p)
{
	s->pipe = p->pipes[p->next++ % p->n];
}

void snapshot__leave_pool(struct snapshot *s)
{
	if (s->pipe)
		bytepipe__sync(s->pipe);
	s->pipe = NULL;
}

int snapshot__sync(struct snapshot *s)
{
	int rc = s->pipe && bytepipe__sync(s->pipe) ? -1 : 0;

	if (s->sink_failed) {
		s->sink_failed = false;
		rc = -1;
	}
	return rc;
}

void snapshot__set_sink(struct snapshot *s, bucket_sink sink,
			void (*restart)(void *ctx), void *ctx)
{
	s->sink = sink;
	s->sink_restart = restart;
	s->sink_ctx = ctx;
}

void snapshot__wait(struct snapshot *s)
{
	if (s->pipe)
		bytepipe__sync(s->pipe);
}

static int add(struct snapshot *s, uint64_t addr, uint64_t size, uint32_t nstk,
	       const void *stk, const void *rec, uint32_t rec_bytes, bool kept)
{
	struct bucket *b;

	int rc;

	/* Go's buckets are word-aligned; the backends refuse others. */
	if (!addr || addr & 7 || rec_bytes > GH_MAX_REC_BYTES)
		return errno = EINVAL, -1;
	/* stk_off is 32 bits wide. */
	if (s->nwords + nstk > UINT32_MAX)
		return errno = ENOMEM, -1;
	rc = addrset__add(&s->seen, addr);
	if (rc)
		return rc;
	if (s->sink)
		return add_to_sink(s, addr, size, nstk, stk, rec, rec_bytes,
				   kept);
	if (grow_array((void **)&s->buckets, &s->cap_buckets, s->nbuckets + 1,
		       sizeof(*s->buckets)) ||
	    grow_array((void **)&s->words, &s->cap_words, s->nwords + nstk,
		       sizeof(*s->words)))
		return -1;

	b = &s->buckets[s->nbuckets++];
	memset(b, 0, sizeof(*b));
	b->addr = addr;
	b->size = size;
	b->nstk = nstk;
	b->stk_off = (uint32_t)s->nwords;
	b->cycle_raw = s->cycle_raw;
	b->has_cycle = s->has_cycle;
	if (nstk)
		memcpy(s->words + s->nwords, stk, (size_t)nstk * 8);
	memcpy(b->rec, rec, rec_bytes);
	s->nwords += nstk;
	return 0;
}

int snapshot__add(struct snapshot *s, uint64_t addr, uint64_t size,
		  uint32_t nstk, const void *stk, const void *rec,
		  uint32_t rec_bytes)
{
	return add(s, addr, size, nstk, stk, rec, rec_bytes, false);
}

int snapshot__add_kept(struct snapshot *s, uint64_t addr, uint64_t size,
		       uint32_t nstk, const void *stk, const void *rec,
		       uint32_t rec_bytes)
{
	return add(s, addr, size, nstk, stk, rec, rec_bytes, true);
}

void snapshot__set_cycle(struct snapshot *s, bool known, uint64_t raw)
{
	s->has_cycle = known;
	s->cycle_raw = known ? raw : 0;
}

void snapshot__clear(struct snapshot *s)
{
	/* Whatever the sink's thread still holds belongs to the old walk. */
	snapshot__sync(s);
	if (s->sink_restart)
		s->sink_restart(s->sink_ctx);
	s->nbuckets = 0;
	s->nwords = 0;
	addrset__free(&s->seen);
	memset(s->vars, 0, sizeof(s->vars));
	memset(s->vars_end, 0, sizeof(s->vars_end));
	s->var_err = s->var_err_end = 0;
	s->partial = false;
	s->reason[0] = '\0';
	s->note[0] = '\0';
	s->read_ms = 0;
	s->read_bytes = 0;
	snapshot__set_cycle(s, false, 0);
}

void snapshot__set_partial(struct snapshot *s, const char *fmt, ...)
{
	va_list ap;

	if (s->partial)
		return;
	s->partial = true;
	va_start(ap, fmt);
	vsnprintf(s->reason, sizeof(s->reason), fmt, ap);
	va_end(ap);
}

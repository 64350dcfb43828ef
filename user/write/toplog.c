/* toplog.c - see toplog.h. Samples are encoded into a small buffer that
 * zlib deflates (level 1) into chunks as it fills; the replay inflates the
 * chunks through a buffer of the same size and decodes as it goes. */
#include <stdlib.h>
#include <string.h>

#include "write/toplog.h"

#define TOPLOG_CHUNK (64 * 1024)
#define VARINT_MAX   10

/* ---- writing ---- */

/* Deflate the encoded bytes (with Z_FINISH: and end the stream). */
static int deflate_raw(struct toplog *l, int flush)
{
	uint8_t **grown;
	int rc;

	l->z.next_in = l->raw;
	l->z.avail_in = (uInt)l->nraw;
	do {
		if (!l->nchunks || l->last_len == TOPLOG_CHUNK) {
			if (l->nchunks == l->cap_chunks) {
				size_t cap =
					l->cap_chunks ? 2 * l->cap_chunks : 16;

				grown = realloc(l->chunks,
						cap * sizeof(*l->chunks));
				if (!grown)
					return -1;
				l->chunks = grown;
				l->cap_chunks = cap;
			}
			l->chunks[l->nchunks] = malloc(TOPLOG_CHUNK);
			if (!l->chunks[l->nchunks])
				return -1;
			l->nchunks++;
			l->last_len = 0;
		}
		l->z.next_out = l->chunks[l->nchunks - 1] + l->last_len;
		l->z.avail_out = (uInt)(TOPLOG_CHUNK - l->last_len);
		rc = deflate(&l->z, flush);
		if (rc == Z_STREAM_ERROR)
			return -1;
		l->last_len = TOPLOG_CHUNK - l->z.avail_out;
	} while (flush == Z_FINISH ? rc != Z_STREAM_END : l->z.avail_in > 0);
	l->nraw = 0;
	return 0;
}

/* x as a varint, deflating first when the buffer may not hold it. */
static int put_varint(struct toplog *l, uint64_t x)
{
	if (sizeof(l->raw) - l->nraw < VARINT_MAX && deflate_raw(l, Z_NO_FLUSH))
		return -1;
	while (x >= 0x80) {
		l->raw[l->nraw++] = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	l->raw[l->nraw++] = (uint8_t)x;
	return 0;
}

static int open_log(struct toplog *l)
{
	if (deflateInit(&l->z, 1) != Z_OK)
		return -1;
	l->open = true;
	return 0;
}

int toplog__add(struct toplog *l, int64_t w, const uint32_t *locs, uint32_t n)
{
	uint64_t zz = (uint64_t)w << 1 ^ (uint64_t)(w >> 63);
	size_t shared = 0, i;
	uint32_t *grown;

	if (l->closed || (!l->open && open_log(l)))
		return -1;
	if (n > l->cap_prev) {
		grown = realloc(l->prev, n * sizeof(*l->prev));
		if (!grown)
			return -1;
		l->prev = grown;
		l->cap_prev = n;
	}
	while (shared < l->nprev && shared < n &&
	       l->prev[shared] == locs[n - 1 - shared])
		shared++;
	if (put_varint(l, zz) || put_varint(l, shared) ||
	    put_varint(l, n - shared))
		return -1;
	for (i = shared; i < n; i++) {
		l->prev[i] = locs[n - 1 - i];
		if (put_varint(l, l->prev[i]))
			return -1;
	}
	l->nprev = n;
	return 0;
}

/* ---- reading ---- */

struct log_reader {
	struct toplog *l;
	z_stream z;
	size_t chunk; /* the next chunk to inflate */
	uint8_t *pos, *end;
	bool eof;
};

/* More inflated bytes at r->pos; false at the end or on damage. */
static bool refill(struct log_reader *r)
{
	struct toplog *l = r->l;
	int rc;

	while (!r->eof) {
		if (!r->z.avail_in && r->chunk < l->nchunks) {
			r->z.next_in = l->chunks[r->chunk];
			r->z.avail_in = (uInt)(r->chunk + 1 == l->nchunks
						       ? l->last_len
						       : TOPLOG_CHUNK);
			r->chunk++;
		}
		r->z.next_out = l->raw;
		r->z.avail_out = sizeof(l->raw);
		rc = inflate(&r->z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END)
			r->eof = true;
		else if (rc != Z_OK)
			return false;
		r->pos = l->raw;
		r->end = r->z.next_out;
		if (r->pos < r->end)
			return true;
	}
	return false;
}

/* A varint into *x; false at the end of the log or on damage. */
static bool get_varint(struct log_reader *r, uint64_t *x)
{
	unsigned shift;

	*x = 0;
	for (shift = 0; shift < 64; shift += 7) {
		if (r->pos == r->end && !refill(r))
			return false;
		*x |= (uint64_t)(*r->pos & 0x7f) << shift;
		if (!(*r->pos++ & 0x80))
			return true;
	}
	return false;
}

/* The next sample into l->prev; 1 when read, 0 at the end, -1 when the
 * log is damaged. */
static int next_sample(struct log_reader *r, int64_t *w)
{
	struct toplog *l = r->l;
	uint64_t zz, shared, nnew, loc;
	size_t i;

	if (!get_varint(r, &zz))
		return r->eof && r->pos == r->end ? 0 : -1;
	if (!get_varint(r, &shared) || !get_varint(r, &nnew) ||
	    shared > l->nprev || nnew > l->cap_prev - shared)
		return -1;
	for (i = shared; i < shared + nnew; i++) {
		if (!get_varint(r, &loc) || loc > UINT32_MAX)
			return -1;
		l->prev[i] = (uint32_t)loc;
	}
	l->nprev = (size_t)(shared + nnew);
	*w = (int64_t)(zz >> 1) ^ -(int64_t)(zz & 1);
	return 1;
}

int toplog__replay(struct toplog *l,
		   int (*fn)(void *ctx, int64_t w, const uint32_t *stack,
			     size_t n),
		   void *ctx)
{
	struct log_reader r = {.l = l};
	int64_t w;
	int rc = 0, got;

	if (!l->open)
		return 0;
	if (!l->closed) {
		if (deflate_raw(l, Z_FINISH))
			return -1;
		deflateEnd(&l->z);
		l->closed = true;
	}
	if (inflateInit(&r.z) != Z_OK)
		return -1;
	l->nprev = 0;
	while (!rc && (got = next_sample(&r, &w)) != 0)
		rc = got < 0 ? -1 : fn(ctx, w, l->prev, l->nprev);
	inflateEnd(&r.z);
	return rc;
}

void toplog__free(struct toplog *l)
{
	size_t i;

	if (l->open && !l->closed)
		deflateEnd(&l->z);
	for (i = 0; i < l->nchunks; i++)
		free(l->chunks[i]);
	free(l->chunks);
	free(l->prev);
	memset(l, 0, sizeof(*l));
}
